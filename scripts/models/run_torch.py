#!/usr/bin/python3
# (Debian's interpreter on purpose: see export_models.py.)
"""Run a reference model with PyTorch on .npy inputs: the second FP32 reference.

  run_torch.py NAME IN.npy -o OUT.npy [--seed 0]
  run_torch.py NAME --each IN1.npy IN2.npy ... --out-dir DIR   (DIR/<same file name>)

NAME is a model of zoo.py (resnet50, resnet18, mobilenet_v2, tiny_cnn, mlp).
The network is rebuilt from the seed with the very code export_models.py
uses, not read back from the ONNX file, so it checks the export and ONNX
Runtime rather than repeating them. Use the seed the model was exported with
(OUT_DIR/manifest.json records it). Outputs are float32 .npy, written atomically.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_models import save_npy  # noqa: E402  (atomic .npy writer)


def main():
    import zoo
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    known = list(zoo.MODELS) + list(zoo.ZOO)
    p.add_argument("model", help="one of: " + ", ".join(known))
    p.add_argument("inputs", nargs="+", help=".npy inputs (float32, the model's input shape)")
    p.add_argument("-o", "--out")
    p.add_argument("--out-dir")
    p.add_argument("--each", action="store_true", help="one run per input file")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=0)
    args = p.parse_args()

    if args.model not in known:
        sys.exit(f"run_torch: unknown model '{args.model}'; known: {', '.join(known)}")
    if not args.each and len(args.inputs) != 1:
        sys.exit("run_torch: the models have one input; give one file, or --each for several")
    if args.each and not args.out_dir:
        sys.exit("run_torch: --each needs --out-dir")
    if not args.each and not args.out:
        sys.exit("run_torch: give -o OUT.npy")

    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    want = tuple(zoo.spec(args.model)[1])
    arrays = []
    for f in args.inputs:
        try:
            a = np.load(f, allow_pickle=False)
        except (OSError, ValueError) as e:
            sys.exit(f"run_torch: cannot read {f}: {e}")
        if a.shape != want or a.dtype != np.float32:
            sys.exit(f"run_torch: {f} is {a.dtype}{list(a.shape)}, {args.model} needs float32{list(want)}")
        arrays.append(a)

    t0 = time.monotonic()
    model = zoo.build_model(args.model, seed=args.seed)
    t_build = time.monotonic() - t0
    if args.out_dir:
        os.makedirs(args.out_dir, exist_ok=True)
    times = []
    with torch.no_grad():
        for f, a in zip(args.inputs, arrays):
            t = time.monotonic()
            y = model(torch.from_numpy(a)).numpy().astype(np.float32)
            times.append(time.monotonic() - t)
            dest = args.out if not args.each else os.path.join(args.out_dir, os.path.basename(f))
            save_npy(dest, y)
    print(f"run_torch: {args.model}: build {t_build:.2f} s, run median "
          f"{1000 * float(np.median(times)):.1f} ms over {len(times)} input(s)")


if __name__ == "__main__":
    main()
