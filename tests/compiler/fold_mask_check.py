#!/usr/bin/python3
"""A graph whose additive mask is built the way PyTorch exports Swin's shifted
windows and relative position bias, its folding checked against ONNX Runtime.

  fold_mask_check.py BIN OUT

vp-cc computes the mask at import from constants only (fold_constants.cpp):
Range, Mod (the divisor's sign, and fmod's dividend's sign, on negative
numbers), ConstantOfShape, Cast, ScatterND into a float map, Reshape, a
broadcast Sub of [128, 1] and [1, 128], Equal, Not, Where, Gather of a 2-D
table, Slice, Expand, Unsqueeze and Pow. ONNX Runtime computes the same mask as a graph output; a second
model holds ONNX Runtime's mask as an initializer. Both compile to the same
program, weight image and golden outputs, byte for byte, or the check
fails; then check_model.py runs the folded one on the platform against ONNX
Runtime (equal to the golden model, cosine at least 0.99: int8 steps of
the masked sums).
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CHECK = os.path.join(ROOT, "compiler", "tools", "check_model.py")


def model(path, mask_out=False):
    rng = np.random.default_rng(7)
    inits = []

    def const(name, value, dtype=np.int64):
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    nodes = []

    def node(op, inputs, out, **attrs):
        nodes.append(helper.make_node(op, inputs, [out], name=out + "_node", **attrs))
        return out

    # Window ids of 16 columns: Range(-8, 8) mod 3, with Python's sign and C's.
    r = node("Range", [const("r0", -8), const("r1", 8), const("r2", 1)], "r")
    py = node("Mod", [r, const("three", 3)], "py_mod")
    c = node("Mod", [r, "three"], "c_mod", fmod=1)
    ids = node("Sub", [py, c], "ids")  # 0 where r >= 0, 3 where r < 0 and r % 3 != 0
    # An [8, 16] float map (Swin's x.new_zeros), rows 1, 3, 5 and 7 written
    # with the ids (ScatterND): 128 floats, past the size up to which float
    # constants of the file fold, so only because it is computed here.
    blank = node("ConstantOfShape", [const("map", [8, 16])], "blank",
                 value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.0]))
    ids_f = node("Cast", [ids], "ids_f", to=TensorProto.FLOAT)
    upd = node("Expand", [node("Unsqueeze", [ids_f, const("ax0", [0])], "ids_row"), const("four_rows", [4, 16])],
               "upd")
    win = node("ScatterND", [blank, const("rows", [[1], [3], [5], [7]]), upd], "win")
    # Every cell's id against every other's, as Swin compares window ids:
    # [128, 1] - [1, 128].
    col = node("Reshape", [win, const("s_col", [128, 1])], "col")
    row = node("Reshape", [win, const("s_row", [1, 128])], "row")
    same = node("Equal", [node("Sub", [col, row], "pairs"), const("zero", 0.0, np.float32)], "same")
    other = node("Not", [same], "other")
    # -4 where the ids differ, else 0: rows 16..19 (map row 1, columns 0..3)
    # against columns 0..15 (map row 0, all 0).
    pen = node("Where", [other, const("neg", -4.0, np.float32), const("nil", 0.0, np.float32)], "pen")
    pen16 = node("Slice", [pen, const("p0", [16, 0]), const("p1", [20, 16])], "pen16")
    # A relative-position-bias-like term: a [5, 16] table read at rows
    # (window ids mod 5), scaled by 2 ** 1.
    table = const("table", rng.normal(0, 1, (5, 16)), np.float32)
    rows = node("Mod", [node("Reshape", [node("Slice", [r, const("b0", [0]), const("b1", [4])], "r4"),
                                         const("s4", [4])], "r4f"), const("five", 5)], "rows5")
    bias = node("Mul", [node("Gather", [table, rows], "bias_rows", axis=0),
                        node("Pow", [const("two", 2.0, np.float32), const("one", 1.0, np.float32)], "scale")],
                "bias")
    mask = node("Add", [pen16, bias], "mask")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])
    h = node("Add", ["x", mask], "h")
    w = const("w", rng.normal(0, 0.25, (16, 8)), np.float32)
    b = const("b", rng.normal(0, 0.1, (8,)), np.float32)
    node("Gemm", [h, w, b], "y")
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])
    outs = [y]
    if mask_out:  # for ONNX Runtime to compute the mask
        outs.append(helper.make_tensor_value_info("mask", TensorProto.FLOAT, [4, 16]))
        outs.append(helper.make_tensor_value_info("pen16", TensorProto.FLOAT, [4, 16]))
    m = helper.make_model(helper.make_graph(nodes, "fold_mask", [x], outs, inits),
                          opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)


def with_mask(path, mask, out_path):
    """The model with its mask an initializer, its folding nodes gone."""
    m = onnx.load(path)
    g = m.graph
    keep = [n for n in g.node if n.output[0] in ("h", "y")]
    inits = [i for i in g.initializer if i.name in ("w", "b")] + [numpy_helper.from_array(mask, "mask")]
    m2 = helper.make_model(helper.make_graph(keep, "fold_mask", list(g.input), list(g.output), inits),
                           opset_imports=[helper.make_opsetid("", 17)])
    m2.ir_version = 8
    onnx.save(m2, out_path)


def compile_model(bin_dir, path, out_dir, calib, test):
    os.makedirs(out_dir, exist_ok=True)
    asm = os.path.join(out_dir, "fold_mask.asm")
    cmd = [os.path.join(bin_dir, "vp-cc"), path, "-o", asm, "--test", test]
    for c in calib:
        cmd += ["--calib", c]
    if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("fold_mask_check: vp-cc failed on " + path)
    stem = os.path.splitext(os.path.basename(test))[0]
    return [open(os.path.join(out_dir, f), "rb").read()
            for f in ("fold_mask.asm", "fold_mask.xbar", stem + ".golden.bin")]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bin_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "fold_mask.onnx")
    model(path)
    rng = np.random.default_rng(11)
    files = []
    for k in range(4):
        f = os.path.join(out, "x%d.npy" % k)
        np.save(f, rng.normal(0, 1, (4, 16)).astype(np.float32))
        files.append(f)
    # ONNX Runtime's mask.
    ort_model = os.path.join(out, "fold_mask_ort.onnx")
    model(ort_model, mask_out=True)
    ort_dir = os.path.join(out, "ort")
    subprocess.run(["node", os.path.join(ROOT, "scripts", "models", "run_ort.js"), ort_model, files[0],
                    "--out-dir", ort_dir], check=True, stdout=subprocess.DEVNULL)
    mask = np.load(os.path.join(ort_dir, "output_1.npy"))
    pen = np.load(os.path.join(ort_dir, "output_2.npy"))
    if not (pen == -4).any() or not (pen == 0).any():
        sys.exit("fold_mask_check: ONNX Runtime's mask has no -4 penalty or no unpenalized entry: the test "
                 "graph no longer exercises the windows' comparison")
    plain = os.path.join(out, "fold_mask_plain.onnx")
    with_mask(path, mask, plain)
    folded = compile_model(bin_dir, path, os.path.join(out, "folded"), files[:2], files[2])
    given = compile_model(bin_dir, plain, os.path.join(out, "given"), files[:2], files[2])
    for name, a, b in zip(("program", "weight image", "golden output"), folded, given):
        if a != b:
            sys.exit("fold_mask_check: the %s of the folded mask differs from the one with ONNX Runtime's "
                     "mask" % name)
    print("fold_mask_check: the folded mask compiles byte for byte as ONNX Runtime's")
    cmd = [sys.executable, CHECK, path, "--out", os.path.join(out, "check"), "--bin", bin_dir,
           "--calib"] + files[:2] + ["--test"] + files[2:] + ["--min-cosine", "0.99"]
    sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
