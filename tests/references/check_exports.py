#!/usr/bin/python3
"""The exported models are what the compiler expects: they pass the ONNX
checker, have the static batch-1 input of the manifest, use only the
compiler's operators (plus Constant, which feeds Clip's min/max), their
inputs are float32 in the normalized image range, and a second export with
the same seed is byte-identical.

  check_exports.py MODELS_DIR NAME [NAME ...]
  check_exports.py --zoo ZOO_DIR NAME [NAME ...]   (export_zoo.py's models: the
      operators torchvision's CNNs add, which vp-cc folds or rewrites)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "models")
ALLOWED = {"Conv", "Gemm", "MatMul", "Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid",
           "HardSwish", "Erf", "Add", "Mul", "MaxPool",
           "AveragePool", "GlobalAveragePool", "Flatten", "Reshape", "BatchNormalization",
           "Concat", "Identity", "Softmax", "Constant"}
ZOO_ALLOWED = ALLOWED | {"ReduceMean", "Pad", "Div", "Slice", "Transpose", "Shape", "Gather", "Sub"}

errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
        print("FAIL " + msg)


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    args = sys.argv[1:]
    zoo = args[:1] == ["--zoo"]
    if zoo:
        args = args[1:]
    models_dir, names = args[0], args[1:]
    allowed = ZOO_ALLOWED if zoo else ALLOWED
    exporter = "export_zoo.py" if zoo else "export_models.py"
    with open(os.path.join(models_dir, "manifest.json")) as f:
        manifest = json.load(f)["models"]
    for name in names:
        e = manifest[name]
        path = os.path.join(models_dir, e["onnx"])
        m = onnx.load(path)
        onnx.checker.check_model(m, full_check=True)
        check(sha(path) == e["sha256"], f"{name}: sha256 differs from the manifest")
        dims = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
        check(dims == e["input"]["shape"], f"{name}: input shape {dims} vs manifest {e['input']['shape']}")
        ops = {n.op_type for n in m.graph.node}
        check(ops <= allowed, f"{name}: operators outside the supported set: {sorted(ops - allowed)}")
        check(e["calib"] and e["test"], f"{name}: no calibration or test inputs")
        for rel in e["calib"] + e["test"]:
            x = np.load(os.path.join(models_dir, rel))
            check(x.dtype == np.float32 and list(x.shape) == e["input"]["shape"],
                  f"{rel}: {x.dtype}{list(x.shape)}")
            if len(x.shape) == 4:
                check(-2.2 < x.min() < -1.0 and 1.5 < x.max() < 2.7,
                      f"{rel}: range [{x.min():.2f}, {x.max():.2f}] is not a normalized image's")
        calib0 = np.load(os.path.join(models_dir, e["calib"][0]))
        test0 = np.load(os.path.join(models_dir, e["test"][0]))
        check(not np.array_equal(calib0, test0), f"{name}: calibration and test inputs coincide")
    # Reproducibility: export again elsewhere, byte-compare.
    with tempfile.TemporaryDirectory(prefix="export-again-") as tmp:
        subprocess.run([sys.executable, os.path.join(TOOLS, exporter), tmp,
                        "--models", ",".join(names), "--calib", "1", "--test", "1",
                        "--seed", str(manifest[names[0]]["seed"])], check=True, stdout=subprocess.DEVNULL)
        for name in names:
            check(sha(os.path.join(tmp, name + ".onnx")) == manifest[name]["sha256"],
                  f"{name}: a second export with the same seed is not byte-identical")
            a = np.load(os.path.join(tmp, name, "test_000.npy"))
            b = np.load(os.path.join(models_dir, manifest[name]["test"][0]))
            check(np.array_equal(a, b), f"{name}: test input not reproducible")
    if errors:
        sys.exit(f"check_exports: {len(errors)} problem(s)")
    print(f"check_exports: {', '.join(names)} OK")


if __name__ == "__main__":
    main()
