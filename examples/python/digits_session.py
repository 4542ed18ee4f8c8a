#!/usr/bin/env python3
"""The SIDRA chapter's "compile an MNIST-like model" session on the chip.

scikit-learn's digits (1,797 8x8 handwritten digits) stand in for MNIST: a
small CNN is trained on 80 % of them with PyTorch (seeded, CPU, a few
seconds), compiled for sidra-y1 with 100 training images as calibration
data, deployed through the firmware (ISPP program-and-verify), and the
held-out 360 images are inferred on the chip in one run. Prints the
compiled size, crossbars, deployment, the chip's accuracy against FP32 and
the cycles and energy per inference.

    PYTHONPATH=build/python python3 examples/python/digits_session.py [--epochs N] [--out DIR]
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import sidra_vp as vp


class DigitsCNN(torch.nn.Module):
    """Conv-ReLU-pool twice, then one fully connected layer: 1x8x8 -> 10."""

    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2))
        self.classifier = torch.nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


def train(model, x, y, epochs):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    g = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        for idx in torch.randperm(len(xt), generator=g).split(64):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    return model.eval()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--chip", default="sidra-y1")
    p.add_argument("--out", default=None, help="folder for the compiled model (default: a temporary one)")
    p.add_argument("--min-accuracy", type=float, default=0.0, help="exit 1 if the chip's accuracy is lower")
    a = p.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]  # [N, 1, 8, 8] in [0, 1]
    x_train, x_test, y_train, y_test = train_test_split(x, digits.target.astype(np.int64), test_size=360,
                                                        random_state=0, stratify=digits.target)
    t = time.time()
    model = train(DigitsCNN(), x_train, y_train, a.epochs)
    with torch.no_grad():
        fp32 = model(torch.from_numpy(x_test)).numpy()
    fp32_acc = float((fp32.argmax(1) == y_test).mean())
    print("trained a %d-parameter CNN on %d digits in %.1f s: FP32 test accuracy %.2f%%" %
          (sum(p.numel() for p in model.parameters()), len(x_train), time.time() - t, 100 * fp32_acc))

    # 3. Compile, with the first 100 training images as calibration data.
    t = time.time()
    out = os.path.join(a.out, "digits.asm") if a.out else None
    compiled = vp.compile(model, calib=x_train[:100], chip=a.chip, out=out)
    print("compiled in %.2f s: %.1f KB (program and weight image), %d crossbars of %d, %d CUs" %
          (time.time() - t, compiled.size_bytes / 1024, compiled.crossbars, compiled.chip_crossbars, compiled.cores))

    # 4. Deploy: the firmware programs every cell (ISPP program-and-verify).
    chip = vp.Chip(a.chip)
    d = chip.deploy(compiled)
    print("deployed: %d cycles (%.1f us), %d pulses, %d failed cells, %.2f uJ" %
          (d.cycles, d.us, d.pulses, d.failed_cells, d.energy_uj))

    # 5. Inference: the whole test set in one run of the chip.
    t = time.time()
    logits = chip.infer(x_test).reshape(len(x_test), 10)
    r = chip.last
    chip_acc = float((logits.argmax(1) == y_test).mean())
    agree = float((logits.argmax(1) == fp32.argmax(1)).mean())
    print("inferred %d digits on the chip in %.1f s of host time" % (r.inferences, time.time() - t))
    print("accuracy: chip %.2f%%, FP32 %.2f%% (same top-1 on %.2f%% of the digits)" %
          (100 * chip_acc, 100 * fp32_acc, 100 * agree))
    print("per inference: %.0f cycles, %.2f us at %.0f MHz, %.3f uJ" %
          (r.cycles_per_inference, r.figures["inference_us"], r.figures["clock_mhz"], r.energy_per_inference_uj))
    if chip_acc < a.min_accuracy:
        print("chip accuracy %.4f is below --min-accuracy %.4f" % (chip_acc, a.min_accuracy), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
