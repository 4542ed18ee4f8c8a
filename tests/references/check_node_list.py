#!/usr/bin/python3
"""The node-test generator produced what the compiler tests rely on: every
supported operator has cases, the well-known onnx cases are there, the files
follow the standard layout, each .npy twin holds the same tensor as its .pb,
and constant-weight variants exist where the operator has weights.

  check_node_list.py NODE_TESTS_DIR
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

SUPPORTED = ["Conv", "Gemm", "MatMul", "Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid",
             "HardSwish", "Erf", "Add", "Mul", "MaxPool",
             "AveragePool", "GlobalAveragePool", "Flatten", "Reshape", "BatchNormalization",
             "Concat", "Identity", "Softmax", "ReduceMean", "Pad", "Div", "Slice", "Transpose",
             "Shape", "Gather", "Sub", "Dropout", "LayerNormalization", "Pow", "Sqrt", "Split", "Where"]
# Cases python3-onnx 1.12 is known to provide, one or more per operator,
# plus the extra Conv cases of gen_node_tests.py.
EXPECTED = [
    "test_conv_with_strides_padding", "test_conv_with_autopad_same", "test_basic_conv_with_padding",
    "test_gemm_all_attributes", "test_gemm_transposeB", "test_matmul_2d", "test_matmul_4d",
    "test_relu", "test_sigmoid_example", "test_tanh_example", "test_hardsigmoid_example", "test_hardswish",
    "test_hardswish_expanded", "test_erf", "test_clip", "test_clip_default_min", "test_leakyrelu", "test_add", "test_add_bcast",
    "test_mul", "test_mul_bcast", "test_maxpool_2d_pads", "test_maxpool_2d_strides",
    "test_averagepool_2d_pads", "test_averagepool_2d_pads_count_include_pad",
    "test_globalaveragepool", "test_flatten_axis1", "test_reshape_reordered_all_dims",
    "test_batchnorm_example", "test_batchnorm_epsilon", "test_concat_2d_axis_1", "test_identity",
    "test_softmax_axis_1", "test_softmax_large_number",
    "extra_conv_depthwise", "extra_conv_grouped", "extra_conv_dilated",
    "extra_hardswish_batch1", "extra_silu_mul_sigmoid", "extra_hardswish_mul_hardsigmoid",
    "test_slice", "test_transpose_default", "test_shape", "test_gather_0", "test_div_example", "test_sub",
    "test_reduce_mean_keepdims_example", "test_constant_pad", "extra_slice_channels", "extra_channel_shuffle",
    "extra_chunk_by_shape", "extra_pad_averagepool", "extra_reducemean_hw", "extra_mul_gate", "extra_div_const",
    "extra_dropout_relu", "test_dropout_default",
    "test_layer_normalization_2d_axis1", "test_layer_normalization_4d_axis_negative_1", "test_pow_example",
    "test_split_equal_parts_2d", "test_split_variable_parts_2d", "test_where_example",
    "test_sqrt_example", "extra_layer_norm_channels", "extra_layer_norm_channels_decomposed", "extra_gelu_erf",
]
errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)
        print("FAIL " + msg)


def main():
    root = sys.argv[1]
    with open(os.path.join(root, "list.json")) as f:
        listing = json.load(f)
    cases = {c["name"]: c for c in listing["cases"]}
    with open(os.path.join(root, "list.txt")) as f:
        check(f.read().split() == sorted(cases), "list.txt does not match list.json")
    check(sorted(os.listdir(os.path.join(root, "node"))) == sorted(cases),
          "node/ holds other directories than list.json's cases")
    for op in SUPPORTED:
        check(any(op in c["ops"] for c in cases.values()), f"no case for {op}")
    for name in EXPECTED:
        check(name in cases, f"expected case {name} missing")
    for c in cases.values():
        check(set(c["ops"]) <= set(SUPPORTED), f"{c['name']}: operators {c['ops']}")
        d = os.path.join(root, "node", c["name"])
        m = onnx.load(os.path.join(d, "model.onnx"))
        onnx.checker.check_model(m)
        ds = os.path.join(d, "test_data_set_0")
        for kind, vals in (("input", c["inputs"]), ("output", c["outputs"])):
            for k, v in enumerate(vals):
                t = onnx.TensorProto()
                with open(os.path.join(ds, f"{kind}_{k}.pb"), "rb") as f:
                    t.ParseFromString(f.read())
                a = numpy_helper.to_array(t)
                b = np.load(os.path.join(ds, f"{kind}_{k}.npy"))
                check(a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"),
                      f"{c['name']}: {kind}_{k}.npy differs from the .pb")
                check(list(b.shape) == v["shape"] and str(b.dtype) == v["dtype"],
                      f"{c['name']}: {kind}_{k} shape/dtype differs from list.json")
        single = c["nodes"] == 1
        weighted = single and c["ops"][0] in ("Conv", "Gemm", "MatMul", "BatchNormalization")
        if weighted:
            check(c["const_model"] == "model.const.onnx", f"{c['name']}: no constant-weight model")
        if c["const_model"]:
            cm = onnx.load(os.path.join(d, c["const_model"]))
            check(len(cm.graph.input) == len(c["const_inputs"]) and len(cm.graph.initializer) > 0,
                  f"{c['name']}: constant-weight model inputs do not match const_inputs")
    if errors:
        sys.exit(f"check_node_list: {len(errors)} problem(s)")
    print(f"check_node_list: {len(cases)} cases OK, every supported operator covered")


if __name__ == "__main__":
    main()
