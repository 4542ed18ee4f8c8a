#!/usr/bin/python3
"""npy.js (the Node tools' .npy reader/writer) round-trips every dtype the
tools exchange, numpy -> JS -> numpy, bit for bit, including scalars,
empty arrays, 1-D shapes and a version-2.0 header; and rejects Fortran order.

  npy_roundtrip.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

NPY_JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "models", "npy.js")
JS = """
const npy = require(process.argv[1]);
const [src, dst] = process.argv.slice(2);
try { npy.write(dst, npy.read(src)); } catch (e) { console.error(e.message); process.exit(3); }
"""


def main():
    rng = np.random.Generator(np.random.PCG64(1))
    arrays = {
        "f32": rng.standard_normal((2, 3, 4)).astype(np.float32),
        "f64": rng.standard_normal((5,)),
        "f16": rng.standard_normal((3, 3)).astype(np.float16),
        "i8": rng.integers(-128, 128, (7,), dtype=np.int8),
        "u8": rng.integers(0, 256, (2, 2), dtype=np.uint8),
        "i16": rng.integers(-1000, 1000, (4,), dtype=np.int16),
        "i32": rng.integers(-2**31, 2**31, (3, 1), dtype=np.int32),
        "i64": np.array([-2**62, -1, 0, 2**62 + 7], dtype=np.int64),
        "u64": np.array([0, 2**63 + 5], dtype=np.uint64),
        "bool": np.array([[True, False, True]]),
        "scalar": np.array(3.5, dtype=np.float32),
        "empty": np.zeros((0, 4), dtype=np.float32),
        "nan_inf": np.array([np.nan, np.inf, -np.inf, -0.0], dtype=np.float32),
    }
    failures = []
    with tempfile.TemporaryDirectory(prefix="npy-js-") as tmp:
        for name, a in arrays.items():
            src, dst = os.path.join(tmp, name + ".npy"), os.path.join(tmp, name + ".out.npy")
            np.save(src, a)
            r = subprocess.run(["node", "-e", JS, NPY_JS, src, dst], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{name}: node failed: {r.stderr.strip()}")
                continue
            b = np.load(dst)
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                failures.append(f"{name}: {a.dtype}{a.shape} came back as {b.dtype}{b.shape}")
        # A version 2.0 header (numpy writes it for very long headers).
        src, dst = os.path.join(tmp, "v2.npy"), os.path.join(tmp, "v2.out.npy")
        with open(src, "wb") as f:
            np.lib.format.write_array(f, arrays["f32"], version=(2, 0))
        r = subprocess.run(["node", "-e", JS, NPY_JS, src, dst], capture_output=True, text=True)
        if r.returncode != 0 or not np.array_equal(np.load(dst), arrays["f32"]):
            failures.append(f"v2 header: {r.stderr.strip()}")
        src = os.path.join(tmp, "fortran.npy")
        np.save(src, np.asfortranarray(rng.standard_normal((3, 4))))
        r = subprocess.run(["node", "-e", JS, NPY_JS, src, dst], capture_output=True, text=True)
        if r.returncode != 3 or "Fortran" not in r.stderr:
            failures.append("a Fortran-order array was not rejected")
    for f in failures:
        print("FAIL " + f)
    if failures:
        sys.exit(f"npy_roundtrip: {len(failures)} failure(s)")
    print(f"npy_roundtrip: {len(arrays) + 2} cases OK")


if __name__ == "__main__":
    main()
