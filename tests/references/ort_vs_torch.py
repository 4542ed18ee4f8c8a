#!/usr/bin/python3
"""ONNX Runtime (on the exported .onnx) and PyTorch (on the model rebuilt from
the seed) must agree on every test input of a model: same top-1, cosine of
the logits above the threshold.

  ort_vs_torch.py MODELS_DIR NAME [--min-cosine 0.9999]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "models")


def run(cmd):
    print("+ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd)
    if r.returncode != 0:
        sys.exit(f"ort_vs_torch: command failed with exit {r.returncode}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("models_dir")
    p.add_argument("name")
    p.add_argument("--min-cosine", default="0.9999")
    p.add_argument("--node", default="node")
    a = p.parse_args()
    with open(os.path.join(a.models_dir, "manifest.json")) as f:
        entry = json.load(f)["models"][a.name]
    tests = [os.path.join(a.models_dir, t) for t in entry["test"]]
    if not tests:
        sys.exit("ort_vs_torch: the export has no test inputs")
    with tempfile.TemporaryDirectory(prefix=f"ort-vs-torch-{a.name}-") as tmp:
        ort_dir, torch_dir = os.path.join(tmp, "ort"), os.path.join(tmp, "torch")
        run([a.node, os.path.join(TOOLS, "run_ort.js"), os.path.join(a.models_dir, entry["onnx"]),
             "--each", *tests, "--out-dir", ort_dir])
        run([sys.executable, os.path.join(TOOLS, "run_torch.py"), a.name, "--seed", str(entry["seed"]),
             "--each", *tests, "--out-dir", torch_dir])
        run([sys.executable, os.path.join(TOOLS, "compare.py"), ort_dir, torch_dir, "--label", a.name,
             "--min-top1", "1", "--min-cosine", a.min_cosine])


if __name__ == "__main__":
    main()
