#!/usr/bin/python3
# (Debian's interpreter on purpose: python3-torch/-onnx live in its
# dist-packages, and a pyenv or venv python3 earlier on PATH would not see them.)
"""Export the reference models to ONNX, with seeded calibration and test inputs.

  export_models.py [OUT_DIR] [--models resnet18,tiny_cnn] [--seed 0]
                   [--opset 13] [--calib 8] [--test 4] [--bn keep|fold]

Writes, for each model NAME (see zoo.MODELS):
  OUT_DIR/NAME.onnx                 static batch-1 shape, input "input", output "logits"
  OUT_DIR/NAME/calib_000.npy ...    calibration inputs, float32, the model's input shape
  OUT_DIR/NAME/test_000.npy ...     test inputs (different images), same format
  OUT_DIR/manifest.json             per model: shapes, seed, opset, sha256, export time
Every file is written to a temporary name and renamed, so a reader never sees
a half-written model. Same seed, same torch => byte-identical .onnx and .npy.
"""

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def atomic_path(final):
    """A temporary path in the same directory (so rename is atomic)."""
    d = os.path.dirname(os.path.abspath(final))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(final) + ".", suffix=".tmp", dir=d)
    os.close(fd)
    return tmp


def save_npy(path, array):
    tmp = atomic_path(path)
    try:
        with open(tmp, "wb") as f:
            np.save(f, array, allow_pickle=False)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def save_text(path, text):
    tmp = atomic_path(path)
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def export_one(name, out_dir, args):
    import torch
    import onnx
    import zoo

    t0 = time.monotonic()
    shape = list(zoo.spec(name)[1])
    if getattr(args, "size", 0):  # export_zoo.py --size: a smaller square image
        shape = shape[:2] + [args.size, args.size]
    model = zoo.build_model(name, seed=args.seed, shape=shape)
    dummy = torch.from_numpy(zoo.make_input(name, args.seed, zoo.TEST_STREAM, 0, shape))
    t_build = time.monotonic() - t0

    final = os.path.join(out_dir, name + ".onnx")
    tmp = atomic_path(final)
    try:
        # PRESERVE keeps BatchNormalization nodes (the model is in eval mode,
        # so they are inference BNs), as in model-zoo files: the compiler's
        # own BN folding gets exercised. EVAL lets the exporter fold them.
        mode = (torch.onnx.TrainingMode.PRESERVE if args.bn == "keep"
                else torch.onnx.TrainingMode.EVAL)
        import warnings
        with torch.no_grad(), warnings.catch_warnings():
            # The exporter warns about constant folding in PRESERVE mode, which
            # matters only for a model in training mode; ours is in eval mode.
            warnings.filterwarnings("ignore", message=".*constant folding.*")
            torch.onnx.export(model, dummy, tmp, opset_version=args.opset,
                              input_names=["input"], output_names=["logits"],
                              training=mode, do_constant_folding=True,
                              dynamic_axes=None)
        m = onnx.load(tmp)
        onnx.checker.check_model(m, full_check=True)
        ops = sorted({n.op_type for n in m.graph.node})
        os.replace(tmp, final)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    t_export = time.monotonic() - t0 - t_build

    in_dir = os.path.join(out_dir, name)
    os.makedirs(in_dir, exist_ok=True)
    for i in range(args.calib):
        save_npy(os.path.join(in_dir, f"calib_{i:03d}.npy"),
                 zoo.make_input(name, args.seed, zoo.CALIB_STREAM, i, shape))
    for i in range(args.test):
        save_npy(os.path.join(in_dir, f"test_{i:03d}.npy"),
                 zoo.make_input(name, args.seed, zoo.TEST_STREAM, i, shape))
    t_total = time.monotonic() - t0
    out_shape = [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim]
    print(f"{os.path.basename(sys.argv[0])}: {name}: {len(m.graph.node)} nodes {ops}, "
          f"build {t_build:.1f} s, export+check {t_export:.1f} s, total {t_total:.1f} s")
    return {
        "onnx": name + ".onnx",
        "sha256": sha256(final),
        "input": {"name": "input", "shape": list(shape), "dtype": "float32"},
        "output": {"name": "logits", "shape": out_shape, "dtype": "float32"},
        "calib": [f"{name}/calib_{i:03d}.npy" for i in range(args.calib)],
        "test": [f"{name}/test_{i:03d}.npy" for i in range(args.test)],
        "seed": args.seed, "opset": args.opset, "bn": args.bn,
        "ops": ops, "nodes": len(m.graph.node),
        "seconds": {"build": round(t_build, 2), "export": round(t_export, 2),
                    "total": round(t_total, 2)},
    }


def main(models=None, default_out="build/models", doc=__doc__, extra_args=None):
    """The command line of export_models.py, and of export_zoo.py with the
    zoo's models, its default directory and its own options (extra_args)."""
    import zoo
    models = zoo.MODELS if models is None else models
    p = argparse.ArgumentParser(description=doc.split("\n")[0])
    p.add_argument("out_dir", nargs="?", default=default_out)
    p.add_argument("--models", default=",".join(models),
                   help="comma-separated subset of: " + ", ".join(models))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opset", type=int, default=13)
    p.add_argument("--calib", type=int, default=8, help="calibration inputs per model")
    p.add_argument("--test", type=int, default=4, help="test inputs per model")
    p.add_argument("--bn", choices=["keep", "fold"], default="keep",
                   help="keep BatchNormalization nodes (default) or let the exporter fold them")
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch default)")
    if extra_args:
        extra_args(p)
    args = p.parse_args()

    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in models]
    if unknown:
        sys.exit(f"{os.path.basename(sys.argv[0])}: unknown model(s) {unknown}; "
                 f"known: {', '.join(models)}")
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)

    os.makedirs(args.out_dir, exist_ok=True)
    manifest_path = os.path.join(args.out_dir, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):  # keep entries of models not re-exported
        with open(manifest_path) as f:
            manifest = json.load(f)
    manifest.setdefault("models", {})
    import onnx
    import torchvision
    manifest["versions"] = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                            "onnx": onnx.__version__, "numpy": np.__version__}
    manifest["normalization"] = {"mean": zoo.IMAGENET_MEAN.tolist(), "std": zoo.IMAGENET_STD.tolist()}
    for name in names:
        manifest["models"][name] = export_one(name, args.out_dir, args)
        save_text(manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
