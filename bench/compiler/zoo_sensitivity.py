#!/usr/bin/python3
"""How much an untrained zoo network amplifies the smallest INT8 error: the
cosine of its logits (PyTorch, FP32 throughout) when only the input image is
rounded to the int8 grid vp-cc gives it (scale max|x| / 127 over the
calibration images, round half away from zero), against the logits of the
exact input. No compiler and no chip: a property of the network, which the
zoo table's cosines (docs/compiler.md) are read against.

  bench/compiler/zoo_sensitivity.py ZOO_DIR [--models a,b] [--tests N]

ZOO_DIR is export_zoo.py's output (its manifest gives each model's seed and
image size; the network is rebuilt from the seed by zoo.py, as run_torch.py
does). Prints one line per model: the lowest cosine over the first N test
images (default 2).
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "models"))


def main():
    import torch
    import zoo
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("zoo_dir")
    p.add_argument("--models", default="")
    p.add_argument("--tests", type=int, default=2)
    a = p.parse_args()
    with open(os.path.join(a.zoo_dir, "manifest.json")) as f:
        manifest = json.load(f)["models"]
    names = [m for m in a.models.split(",") if m] or sorted(manifest)
    for name in names:
        e = manifest[name]
        shape = e["input"]["shape"]
        model = zoo.build_model(name, seed=e["seed"], shape=shape)
        calib = [np.load(os.path.join(a.zoo_dir, c)) for c in e["calib"]]
        scale = max(float(np.abs(c).max()) for c in calib) / 127
        worst = 1.0
        for rel in e["test"][:a.tests]:
            x = np.load(os.path.join(a.zoo_dir, rel))
            q = np.clip(np.sign(x) * np.floor(np.abs(x) / scale + 0.5), -128, 127) * scale
            with torch.no_grad():
                y = model(torch.from_numpy(x)).double().numpy().ravel()
                yq = model(torch.from_numpy(q.astype(np.float32))).double().numpy().ravel()
            worst = min(worst, float(y @ yq / (np.linalg.norm(y) * np.linalg.norm(yq))))
        print(f"{name}: logits cosine with only the input rounded to int8: {worst:.5f}", flush=True)


if __name__ == "__main__":
    main()
