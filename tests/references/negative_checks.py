#!/usr/bin/python3
"""The checks fail when they should. compare.py must pass an output against
itself and fail (exit 1) on a flipped top-1, on noise that drops the cosine,
on an error beyond --max-abs, on NaN and on a shape mismatch; and
check_node_tests.js must fail, naming the case, when an expected output is
corrupted.

  negative_checks.py [NODE_TESTS_DIR]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "models")
COMPARE = [sys.executable, os.path.join(TOOLS, "compare.py")]
errors = []


def expect(cmd, code, what, needle=None):
    r = subprocess.run(cmd, capture_output=True, text=True)
    ok = r.returncode == code and (needle is None or needle in r.stdout + r.stderr)
    print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {r.returncode} (want {code})")
    if not ok:
        errors.append(what)
        print(r.stdout + r.stderr)
    return r


def main():
    rng = np.random.Generator(np.random.PCG64(7))
    with tempfile.TemporaryDirectory(prefix="negative-") as tmp:
        def save(name, a):
            path = os.path.join(tmp, name)
            np.save(path, a.astype(np.float32))
            return path
        ref = rng.standard_normal((4, 1000)).astype(np.float32)
        ref[np.arange(4), rng.integers(0, 1000, 4)] += 5.0  # a clear top-1 per row
        r = save("ref.npy", ref)
        th = ["--min-top1", "1", "--min-cosine", "0.999", "--max-abs", "0.05"]
        res = expect(COMPARE + [r, r] + th, 0, "identical output passes")
        line = res.stdout.strip().splitlines()[-1]
        check_json = json.loads(line)
        if not (check_json["pass"] and check_json["top1"] == 1.0 and check_json["max_abs"] == 0.0):
            errors.append("JSON of identical output")
        flipped = ref.copy()
        flipped[0] = ref[0].copy()
        j, k = (int(i) for i in np.argsort(-ref[0])[:2])  # top-1 and runner-up trade places
        flipped[0, j], flipped[0, k] = ref[0, k], ref[0, j]
        expect(COMPARE + [save("flip.npy", flipped), r, "--min-top1", "1"], 1, "flipped top-1 fails", "top1")
        expect(COMPARE + [save("flip2.npy", flipped), r, "--min-top1", "0.75"], 0, "3/4 top-1 meets --min-top1 0.75")
        expect(COMPARE + [save("flip3.npy", flipped), r, "--min-top5", "1"], 0, "runner-up top-1 is within top-5")
        far = ref.copy()
        far[1, int(np.argmin(ref[1]))] = ref[1].max() + 1.0  # the reference's smallest logit wins
        expect(COMPARE + [save("far.npy", far), r, "--min-top5", "1"], 1, "top-1 outside the top-5 fails", "top5")
        noisy = ref + 0.3 * rng.standard_normal(ref.shape).astype(np.float32)
        expect(COMPARE + [save("noisy.npy", noisy), r, "--min-cosine", "0.999"], 1, "noise drops cosine", "cosine")
        small = ref + 0.01 * rng.standard_normal(ref.shape).astype(np.float32)
        expect(COMPARE + [save("small.npy", small), r, "--min-cosine", "0.999"], 0, "small noise keeps cosine")
        expect(COMPARE + [save("small2.npy", small), r, "--max-abs", "0.001"], 1, "small noise beyond --max-abs", "max_abs")
        expect(COMPARE + [save("small3.npy", small), r, "--atol", "1e-4", "--rtol", "1e-4"], 1,
               "small noise beyond atol/rtol", "elements outside")
        nan = ref.copy()
        nan[2, 3] = np.nan
        expect(COMPARE + [save("nan.npy", nan), r], 1, "NaN fails", "NaN")
        expect(COMPARE + [save("shape.npy", ref[:2]), r], 1, "shape mismatch fails", "shape")
        expect(COMPARE + [os.path.join(tmp, "missing.npy"), r], 1, "missing output fails", "missing output")
        with open(os.path.join(tmp, "garbage.npy"), "wb") as f:
            f.write(b"not an array")
        expect(COMPARE + [os.path.join(tmp, "garbage.npy"), r], 2, "unreadable output is an input error", "cannot read")
        # Directory mode: one of two files perturbed.
        os.makedirs(os.path.join(tmp, "a"))
        os.makedirs(os.path.join(tmp, "b"))
        for k in range(2):
            np.save(os.path.join(tmp, "b", f"t{k}.npy"), ref)
            np.save(os.path.join(tmp, "a", f"t{k}.npy"), ref if k == 0 else noisy)
        expect(COMPARE + [os.path.join(tmp, "a"), os.path.join(tmp, "b"), "--min-cosine", "0.999"], 1,
               "directory mode catches one bad file")

        if len(sys.argv) > 1:
            src = sys.argv[1]
            dst = os.path.join(tmp, "node-tests")
            with open(os.path.join(src, "list.json")) as f:
                listing = json.load(f)
            keep = [c for c in listing["cases"] if c["name"] in ("test_relu", "extra_conv_depthwise")]
            os.makedirs(os.path.join(dst, "node"))
            for c in keep:
                shutil.copytree(os.path.join(src, "node", c["name"]), os.path.join(dst, "node", c["name"]))
            listing["cases"] = keep
            with open(os.path.join(dst, "list.json"), "w") as f:
                json.dump(listing, f)
            check = ["node", os.path.join(TOOLS, "check_node_tests.js"), dst]
            expect(check, 0, "untouched node cases pass")
            out = os.path.join(dst, "node", "extra_conv_depthwise", "test_data_set_0", "output_0.npy")
            y = np.load(out)
            y.flat[5] += 1e-3 * max(1.0, abs(float(y.flat[5])))
            np.save(out, y)
            expect(check, 1, "one corrupted expected element is caught", "FAIL extra_conv_depthwise")
    if errors:
        sys.exit(f"negative_checks: {len(errors)} problem(s): {errors}")
    print("negative_checks: all checks fail when they should")


if __name__ == "__main__":
    main()
