#!/usr/bin/python3
"""vp-eval end to end on a CNN trained on scikit-learn's digits
(scripts/models/train_digits.py): the ideal chip's accuracy equals the golden
model's image for image, the golden model is within a point of FP32, device
noise moves the chip off the golden model (and the same seed gives the same
figures), and bad inputs are refused by name.

  vp_eval_test.py BIN_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def vp_eval(bin_dir, args):
    r = subprocess.run([os.path.join(bin_dir, "vp-eval")] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout, r.stderr


def main():
    bin_dir, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    models = os.path.join(work, "models")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "models", "train_digits.py"), models],
                   check=True)
    onnx = os.path.join(models, "digits_cnn.onnx")
    data = os.path.join(models, "digits")
    x, y = os.path.join(data, "test_x.npy"), os.path.join(data, "test_y.npy")
    calib = [arg for i in range(4) for arg in ("--calib", os.path.join(data, f"calib_{i:03d}.npy"))]
    base = [onnx, "--data", x, "--labels", y] + calib
    n = len(np.load(y))

    # The ideal chip, the firmware deploying the weights by ISPP.
    out = os.path.join(work, "ideal.json")
    code, stdout, err = vp_eval(bin_dir, base + ["--json", out])
    check(code == 0, f"ideal run exits 0 (got {code}): {err}")
    r = json.load(open(out))
    acc = r["accuracy"]
    print("ideal:", acc, r["chip_equals_golden"], r["cycles_per_inference"], r["energy_uj_per_inference"])
    check(r["images"] == n, "every image evaluated")
    check(r["chip_equals_golden"] == n, f"chip equals golden on every image ({r['chip_equals_golden']} of {n})")
    check(acc["chip"] == acc["golden"], "chip accuracy equals golden accuracy")
    check(abs(acc["golden"] - acc["fp32"]) <= 0.01, f"golden within 1 point of FP32 ({acc})")
    check(acc["fp32"] >= 0.95, f"the trained network classifies the digits (FP32 {acc['fp32']})")
    check(r["cycles_per_inference"] > 0 and r["energy_uj_per_inference"] > 0, "cycles and energy reported")
    check(r["deploy"]["pulses"] > 0, "the weights were deployed by ISPP")
    check("accuracy   chip" in stdout, "a summary on stdout")

    # Read noise: outputs leave the golden model's, the same seed repeats them.
    noisy = base + ["--no-deploy", "--set", "nonideal.read_noise_sigma=0.3", "--seed", "7"]
    figures = []
    for k in range(2):
        out = os.path.join(work, f"noise{k}.json")
        code, _, err = vp_eval(bin_dir, noisy + ["--json", out, "-q"])
        check(code == 0, f"noisy run exits 0 (got {code}): {err}")
        r = json.load(open(out))
        figures.append((r["accuracy"], r["chip_equals_golden"], r["cycles_per_inference"]))
    print("read noise 0.3:", figures[0])
    check(figures[0] == figures[1], "the same seed gives the same figures")
    check(figures[0][1] < n, "read noise changes the chip's outputs")
    check(figures[0][0]["golden"] == acc["golden"], "the golden model does not see the device")

    # Bad inputs: named, exit 1; usage errors exit 2.
    bad_labels = os.path.join(work, "bad_labels.npy")
    np.save(bad_labels, np.load(y)[:-1])
    code, _, err = vp_eval(bin_dir, [onnx, "--data", x, "--labels", bad_labels] + calib)
    check(code == 1 and "bad_labels.npy" in err and f"for {n} images" in err, f"label count mismatch named: {code} {err}")
    bad_data = os.path.join(work, "bad_data.npy")
    np.save(bad_data, np.load(x).astype(np.float64))
    code, _, err = vp_eval(bin_dir, [onnx, "--data", bad_data, "--labels", y] + calib)
    check(code == 1 and "bad_data.npy" in err and "float32" in err, f"float64 data named: {code} {err}")
    code, _, err = vp_eval(bin_dir, [os.path.join(work, "missing.onnx"), "--data", x, "--labels", y])
    check(code == 1 and "missing.onnx" in err, f"a missing model is vp-cc's named error: {code} {err}")
    code, _, err = vp_eval(bin_dir, [onnx, "--labels", y])
    check(code == 2, f"no --data is a usage error: {code}")

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("vp_eval_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
