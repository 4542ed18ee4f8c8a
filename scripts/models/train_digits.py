#!/usr/bin/python3
# (Debian's interpreter on purpose: python3-torch, -onnx and -sklearn live in
# its dist-packages.)
"""Train a small CNN on scikit-learn's handwritten digits and export it to
ONNX with its labelled test set: a trained network to measure what the
analog chip does to accuracy (vp-eval, docs/analog.md).

  train_digits.py [OUT_DIR] [--seed 0] [--epochs 30] [--opset 13]

Writes:
  OUT_DIR/digits_cnn.onnx         static batch-1 shape [1, 1, 8, 8] -> [1, 10] logits
  OUT_DIR/digits/test_x.npy       float32 [N, 1, 8, 8], the held-out images
  OUT_DIR/digits/test_y.npy       int64 [N], their labels
  OUT_DIR/digits/calib_000.npy .. float32 [1, 1, 8, 8], training images for calibration
  OUT_DIR/digits/summary.json     split sizes, FP32 train/test accuracy, seed, seconds

The 1,797 8x8 images (pixel values 0..16, scaled to 0..1) are split by a
seeded permutation: 20 % test, the rest training. Training is mini-batch
Adam on one CPU thread, seeded, so the same seed and torch give
the same weights and the same files byte for byte. Every file is written to a
temporary name and renamed.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_models import atomic_path, save_npy, save_text  # noqa: E402

CALIB_IMAGES = 16


def load_split(seed):
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0)[:, None, :, :]
    y = d.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    n_test = len(y) // 5
    test, train = order[:n_test], order[n_test:]
    return x[train], y[train], x[test], y[test]


def build(torch):
    nn = torch.nn
    # Three 3x3 convolutions and a classifier: Conv, ReLU, MaxPool, Flatten,
    # Gemm, the operators every CNN the compiler maps is made of.
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))


def accuracy(torch, model, x, y):
    with torch.no_grad():
        return float((model(torch.from_numpy(x)).argmax(1).numpy() == y).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?", default="out/models")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--opset", type=int, default=13)
    args = ap.parse_args()
    if args.epochs < 1:
        ap.error("--epochs must be at least 1")

    import torch
    import onnx
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    t0 = time.monotonic()
    x_train, y_train, x_test, y_test = load_split(args.seed)

    model = build(torch)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(args.seed)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    for _ in range(args.epochs):
        model.train()
        perm = torch.randperm(len(yt), generator=gen)
        for k in range(0, len(yt), 64):
            idx = perm[k:k + 64]
            opt.zero_grad()
            loss_fn(model(xt[idx]), yt[idx]).backward()
            opt.step()
    model.eval()
    train_acc = accuracy(torch, model, x_train, y_train)
    test_acc = accuracy(torch, model, x_test, y_test)
    t_train = time.monotonic() - t0

    os.makedirs(args.out_dir, exist_ok=True)
    final = os.path.join(args.out_dir, "digits_cnn.onnx")
    tmp = atomic_path(final)
    try:
        with torch.no_grad():
            torch.onnx.export(model, torch.from_numpy(x_test[:1]), tmp, opset_version=args.opset,
                              input_names=["input"], output_names=["logits"], do_constant_folding=True)
        onnx.checker.check_model(onnx.load(tmp), full_check=True)
        os.replace(tmp, final)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

    data = os.path.join(args.out_dir, "digits")
    os.makedirs(data, exist_ok=True)
    save_npy(os.path.join(data, "test_x.npy"), x_test)
    save_npy(os.path.join(data, "test_y.npy"), y_test)
    # Calibration images come from the training split: the test set stays unseen.
    for i in range(CALIB_IMAGES):
        save_npy(os.path.join(data, f"calib_{i:03d}.npy"), x_train[i:i + 1])
    summary = {
        "model": "digits_cnn.onnx", "seed": args.seed, "epochs": args.epochs, "opset": args.opset,
        "train_images": int(len(y_train)), "test_images": int(len(y_test)),
        "calib": [f"digits/calib_{i:03d}.npy" for i in range(CALIB_IMAGES)],
        "fp32_accuracy": {"train": round(train_acc, 6), "test": round(test_acc, 6)},
        "seconds": round(time.monotonic() - t0, 2),
    }
    save_text(os.path.join(data, "summary.json"), json.dumps(summary, indent=1) + "\n")
    print(f"train_digits: {len(y_train)} training, {len(y_test)} test images; FP32 accuracy "
          f"train {100 * train_acc:.2f} %, test {100 * test_acc:.2f} %; trained in {t_train:.1f} s")


if __name__ == "__main__":
    main()
