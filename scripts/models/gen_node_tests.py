#!/usr/bin/python3
# (Debian's interpreter on purpose: python3-onnx lives in its dist-packages.)
"""Generate the ONNX backend node conformance tests for the compiler's operators.

  gen_node_tests.py generate [OUT_DIR] [--ops Conv,Gemm,...]   (default build/node-tests)
  gen_node_tests.py list [--ops ...]                           (names only, nothing written)
  gen_node_tests.py to-npy CASE_OR_DATASET_DIR ...              (.pb tensors -> .npy beside them)

The cases and their expected outputs come from python3-onnx itself
(onnx.backend.test.case.node: the numpy reference implementations the ONNX
project ships), the same data `python -m onnx.backend.test.cmd_tools
generate-data` writes; plus a few extra Conv cases (extra_conv_*: groups,
depthwise, dilations, bias, which onnx 1.12's cases lack) and batch-1
activation cases (extra_*_batch1, SiLU and HardSwish as Mul(x, f(x))) whose
expected outputs come from PyTorch (--no-extra leaves them out). A case is kept when every node of its graph is one of
the selected operators (default: all the compiler supports), and every graph
input and output is a plain tensor (no sequences or optionals).

Layout written (standard ONNX backend-test layout, plus .npy twins):
  OUT_DIR/node/<case>/model.onnx
  OUT_DIR/node/<case>/test_data_set_0/input_<k>.pb  input_<k>.npy   (k: graph input order)
  OUT_DIR/node/<case>/test_data_set_0/output_<k>.pb output_<k>.npy
  OUT_DIR/node/<case>/model.const.onnx   single-node cases whose weight-like
       inputs (Conv W/B, Gemm B/C, MatMul B, BN scale/bias/mean/var, Mul B,
       Clip min/max, Reshape shape) are baked in as initializers, as a
       crossbar compiler needs them; it takes only the inputs listed under
       "const_inputs" in list.json, same files
  OUT_DIR/list.json   one entry per case: name, ops, opset, inputs/outputs
                      (name, dtype, shape), attributes, rtol/atol, const model
  OUT_DIR/list.txt    the case names, one per line
OUT_DIR/node is built in a temporary directory and swapped in whole, so it
never holds a mix of two generations.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

import numpy as np

SUPPORTED = ["Conv", "Gemm", "MatMul", "Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid",
             "HardSwish", "Erf", "Add", "Mul", "MaxPool",
             "AveragePool", "GlobalAveragePool", "Flatten", "Reshape", "BatchNormalization",
             "Concat", "Identity", "Softmax", "ReduceMean", "Pad", "Div", "Slice", "Transpose",
             "Shape", "Gather", "Sub", "Dropout", "LayerNormalization", "Pow", "Sqrt", "Split", "Where"]

# Inputs that are weights/parameters rather than activations, per operator
# (input indices): these become initializers in model.const.onnx.
CONST_INPUTS = {"Conv": [1, 2], "Gemm": [1, 2], "MatMul": [1], "BatchNormalization": [1, 2, 3, 4],
                "Mul": [1], "Clip": [1, 2], "Reshape": [1], "Pad": [1, 2], "Div": [1],
                "Slice": [1, 2, 3, 4], "Split": [1], "Where": [0]}


def import_onnx_cases():
    """onnx 1.12's case modules use aliases numpy 1.24 removed (np.float, ...);
    put them back before the import, which runs every case's export()."""
    for name, alias in {"float": float, "int": int, "bool": bool, "object": object,
                        "str": str, "complex": complex, "long": int, "unicode": str}.items():
        if name not in np.__dict__:
            setattr(np, name, alias)
    import warnings
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    import onnx.backend.test.case.node as node_cases
    return node_cases.collect_testcases(None)


class ExtraCase:
    """A node case in the shape of onnx's TestCase, for what onnx 1.12's own
    cases leave out: its Conv cases have no groups (depthwise), dilations or
    bias. Expected outputs from torch.nn.functional.conv2d in float64, so they
    too come from code nobody here wrote; ONNX Runtime cross-checks them."""

    def __init__(self, name, model, inputs, outputs, source="torch.nn.functional.conv2d (float64)"):
        self.name, self.model, self.kind = name, model, "node"
        self.data_sets = [(inputs, outputs)]
        self.rtol, self.atol = 1e-4, 1e-5
        self.source = source


def extra_conv_cases():
    import onnx
    import torch
    from onnx import helper, TensorProto
    specs = [  # name, N C H W, K, kernel, group, strides, pads (b0 b1 e0 e1), dilations, bias
        ("extra_conv_depthwise", (1, 8, 9, 9), 8, 3, 8, 1, (1, 1, 1, 1), 1, True),
        ("extra_conv_depthwise_stride2", (1, 8, 10, 10), 8, 3, 8, 2, (1, 1, 1, 1), 1, False),
        ("extra_conv_depthwise_multiplier2", (1, 4, 7, 7), 8, 3, 4, 1, (1, 1, 1, 1), 1, True),
        ("extra_conv_grouped", (1, 8, 7, 7), 6, 3, 2, 1, (1, 0, 1, 0), 1, True),
        ("extra_conv_dilated", (1, 3, 11, 11), 4, 3, 1, 1, (2, 2, 2, 2), 2, True),
        ("extra_conv_7x7_stride2_bias", (1, 3, 16, 16), 8, 7, 1, 2, (3, 3, 3, 3), 1, True),
        ("extra_conv_1x1_bias", (2, 16, 5, 5), 8, 1, 1, 1, (0, 0, 0, 0), 1, True),
        ("extra_conv_asymmetric_pads_stride2", (1, 4, 8, 9), 5, 3, 1, 2, (0, 1, 1, 2), 1, True),
    ]
    rng = np.random.Generator(np.random.PCG64(20240))
    cases = []
    for name, xs, k, r, group, stride, pads, dil, bias in specs:
        x = rng.standard_normal(xs).astype(np.float32)
        w = rng.standard_normal((k, xs[1] // group, r, r)).astype(np.float32)
        b = rng.standard_normal(k).astype(np.float32) if bias else None
        xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
        y = torch.nn.functional.conv2d(
            torch.from_numpy(xp.astype(np.float64)), torch.from_numpy(w.astype(np.float64)),
            None if b is None else torch.from_numpy(b.astype(np.float64)),
            stride=stride, dilation=dil, groups=group).numpy().astype(np.float32)
        ins = ["x", "w"] + (["b"] if bias else [])
        node = helper.make_node("Conv", ins, ["y"], kernel_shape=[r, r], group=group,
                                strides=[stride, stride], pads=list(pads), dilations=[dil, dil])
        arrays = [x, w] + ([b] if bias else [])
        graph = helper.make_graph(
            [node], name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape) for n, a in zip(ins, arrays)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                                  producer_name="gen_node_tests")
        model.ir_version = 7
        onnx.checker.check_model(model)
        cases.append(ExtraCase(name, model, arrays, [y]))
    return cases


def extra_activation_cases():
    """Batch-1 cases of the activations: onnx 1.12's own are [3, 4, 5] (a
    batch of 3) but for one [3] example each, and HardSwish has no other.
    Also SiLU and HardSwish written as Mul(x, f(x)), as exporters emit them.
    Inputs span [-6, 6] (past HardSwish's and HardSigmoid's knees); expected
    outputs from PyTorch in float64."""
    import onnx
    import torch
    from onnx import helper, TensorProto
    F = torch.nn.functional
    specs = [  # name, nodes (op, inputs, output, attributes), reference, opset
        ("extra_sigmoid_batch1", [("Sigmoid", ["x"], "y", {})], torch.sigmoid, 13),
        ("extra_tanh_batch1", [("Tanh", ["x"], "y", {})], torch.tanh, 13),
        ("extra_hardsigmoid_batch1", [("HardSigmoid", ["x"], "y", {"alpha": 0.25, "beta": 0.4})],
         lambda x: torch.clamp(0.25 * x + 0.4, 0, 1), 13),
        ("extra_hardswish_batch1", [("HardSwish", ["x"], "y", {})], F.hardswish, 14),
        ("extra_erf_batch1", [("Erf", ["x"], "y", {})], torch.erf, 13),
        ("extra_silu_mul_sigmoid", [("Sigmoid", ["x"], "s", {}), ("Mul", ["x", "s"], "y", {})], F.silu, 13),
        ("extra_hardswish_mul_hardsigmoid",
         [("HardSigmoid", ["x"], "s", {"alpha": 1.0 / 6, "beta": 0.5}), ("Mul", ["s", "x"], "y", {})],
         F.hardswish, 13),
    ]
    rng = np.random.Generator(np.random.PCG64(20241))
    cases = []
    for name, nodes, ref, opset in specs:
        x = rng.uniform(-6, 6, (1, 3, 4, 5)).astype(np.float32)
        y = ref(torch.from_numpy(x.astype(np.float64))).numpy().astype(np.float32)
        graph = helper.make_graph(
            [helper.make_node(op, ins, [out], **attrs) for op, ins, out, attrs in nodes], name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="gen_node_tests")
        model.ir_version = 7
        onnx.checker.check_model(model)
        cases.append(ExtraCase(name, model, [x], [y], source="torch (float64)"))
    return cases


def extra_layout_cases():
    """Batch-1 cases of the patterns torchvision's CNNs export (onnx 1.12's
    own Slice, Transpose, ReduceMean, Div and Mul cases have a batch > 1 or
    integer inputs): a channel Slice, ShuffleNet's channel shuffle
    (Reshape, Transpose, Reshape) and its x.chunk(2, 1) with bounds computed
    from Shape, a zero Pad before an AveragePool (count_include_pad=True),
    ReduceMean over H and W, a squeeze-excitation Mul of a map by a
    [1, C, 1, 1] gate, Div by a constant, an inference Dropout. Constants
    are initializers.
    Expected outputs from PyTorch in float64."""
    import onnx
    import torch
    from onnx import helper, TensorProto, numpy_helper
    F = torch.nn.functional
    i64 = lambda name, v: numpy_helper.from_array(np.asarray(v, dtype=np.int64), name)
    f32 = lambda name, v: numpy_helper.from_array(np.asarray(v, dtype=np.float32), name)
    specs = [  # name, nodes, initializers, extra graph inputs {name: shape}, reference(x, *extra), opset
        ("extra_slice_channels", [("Slice", ["x", "st", "en", "ax"], "y", {})],
         [i64("st", [2]), i64("en", [5]), i64("ax", [1])], {}, lambda x: x[:, 2:5], 13),
        ("extra_channel_shuffle",
         [("Reshape", ["x", "s5"], "r", {}), ("Transpose", ["r"], "t", {"perm": [0, 2, 1, 3, 4]}),
          ("Reshape", ["t", "s4"], "y", {})],
         [i64("s5", [1, 2, 3, 4, 5]), i64("s4", [1, 6, 4, 5])], {},
         lambda x: x.reshape(1, 2, 3, 4, 5).transpose(1, 2).reshape(1, 6, 4, 5), 13),
        ("extra_chunk_by_shape",
         [("Shape", ["x"], "sh", {}), ("Gather", ["sh", "one"], "c", {"axis": 0}),
          ("Add", ["c", "one"], "c1", {}), ("Div", ["c1", "two"], "half", {}),
          ("Mul", ["half", "two"], "end", {}), ("Slice", ["x", "half", "end", "one"], "y", {})],
         [i64("one", [1]), i64("two", [2])], {}, lambda x: x[:, 3:6], 13),
        ("extra_pad_averagepool",
         [("Pad", ["x", "pads"], "p", {}), ("AveragePool", ["p"], "y", {"kernel_shape": [3, 3]})],
         [i64("pads", [0, 0, 1, 1, 0, 0, 1, 1])], {},
         lambda x: F.avg_pool2d(x, 3, 1, padding=1, count_include_pad=True), 13),
        ("extra_reducemean_hw", [("ReduceMean", ["x"], "y", {"axes": [2, 3], "keepdims": 0})], [], {},
         lambda x: x.mean((2, 3)), 13),
        ("extra_mul_gate", [("Mul", ["x", "g"], "y", {})], [], {"g": (1, 6, 1, 1)}, lambda x, g: x * g, 13),
        ("extra_div_const", [("Div", ["x", "k"], "y", {})], [f32("k", [4.0])], {}, lambda x: x / 4.0, 13),
        ("extra_dropout_relu", [("Dropout", ["x"], "d", {}), ("Relu", ["d"], "y", {})], [], {},
         torch.relu, 13),
    ]
    rng = np.random.Generator(np.random.PCG64(20242))
    cases = []
    for name, nodes, inits, extra, ref, opset in specs:
        x = rng.uniform(-3, 3, (1, 6, 4, 5)).astype(np.float32)
        more = [rng.uniform(0, 1, s).astype(np.float32) for s in extra.values()]
        y = ref(*[torch.from_numpy(a.astype(np.float64)) for a in [x] + more]).numpy().astype(np.float32)
        graph = helper.make_graph(
            [helper.make_node(op, ins, [out], **attrs) for op, ins, out, attrs in nodes], name,
            [helper.make_tensor_value_info(n, TensorProto.FLOAT, a.shape)
             for n, a in zip(["x"] + list(extra), [x] + more)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="gen_node_tests")
        model.ir_version = 7
        onnx.checker.check_model(model)
        cases.append(ExtraCase(name, model, [x] + more, [y], source="torch (float64)"))
    return cases


def extra_norm_cases():
    """ConvNeXt's operators as PyTorch exports them at opsets 13 and 17 (no
    onnx 1.12 case is batch 1): LayerNorm over the channels of a map
    between permutes, as ONNX's LayerNormalization and decomposed into
    ReduceMean, Sub, Pow, Sqrt and Div; GELU through Erf. Expected outputs
    from PyTorch in float64."""
    import onnx
    import torch
    from onnx import helper, TensorProto, numpy_helper
    F = torch.nn.functional
    f32 = lambda name, v: numpy_helper.from_array(np.asarray(v, dtype=np.float32), name)
    rng = np.random.Generator(np.random.PCG64(20243))
    C = 16
    gamma = rng.uniform(0.5, 1.5, C).astype(np.float32)
    beta = rng.uniform(-0.5, 0.5, C).astype(np.float32)
    eps = 1e-6

    def layer_norm(x):
        y = F.layer_norm(x.permute(0, 2, 3, 1), (C,), torch.from_numpy(gamma.astype(np.float64)),
                         torch.from_numpy(beta.astype(np.float64)), eps)
        return y.permute(0, 3, 1, 2)

    to_nhwc = ("Transpose", ["x"], "t", {"perm": [0, 2, 3, 1]})
    to_nchw = ("Transpose", ["n"], "y", {"perm": [0, 3, 1, 2]})
    specs = [  # name, nodes, initializers, reference, opset
        ("extra_layer_norm_channels",
         [to_nhwc, ("LayerNormalization", ["t", "g", "b"], "n", {"axis": -1, "epsilon": eps}), to_nchw],
         [f32("g", gamma), f32("b", beta)], layer_norm, 17),
        ("extra_layer_norm_channels_decomposed",
         [to_nhwc, ("ReduceMean", ["t"], "m", {"axes": [-1]}), ("Sub", ["t", "m"], "d", {}),
          ("Pow", ["d", "two"], "d2", {}), ("ReduceMean", ["d2"], "v", {"axes": [-1]}),
          ("Add", ["v", "eps"], "ve", {}), ("Sqrt", ["ve"], "sd", {}), ("Div", ["d", "sd"], "z", {}),
          ("Mul", ["z", "g"], "zg", {}), ("Add", ["zg", "b"], "n", {}), to_nchw],
         [f32("two", 2.0), f32("eps", eps), f32("g", gamma), f32("b", beta)], layer_norm, 13),
        ("extra_gelu_erf",
         [("Div", ["x", "sqrt2"], "a", {}), ("Erf", ["a"], "e", {}), ("Add", ["e", "one"], "e1", {}),
          ("Mul", ["x", "e1"], "m", {}), ("Mul", ["m", "half"], "y", {})],
         [f32("sqrt2", np.sqrt(2.0)), f32("one", 1.0), f32("half", 0.5)], F.gelu, 13),
    ]
    cases = []
    for name, nodes, inits, ref, opset in specs:
        x = rng.uniform(-3, 3, (1, C, 4, 5)).astype(np.float32)
        y = ref(torch.from_numpy(x.astype(np.float64))).numpy().astype(np.float32)
        graph = helper.make_graph(
            [helper.make_node(op, ins, [out], **attrs) for op, ins, out, attrs in nodes], name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)], initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="gen_node_tests")
        model.ir_version = 8 if opset >= 17 else 7
        onnx.checker.check_model(model)
        cases.append(ExtraCase(name, model, [x], [y], source="torch (float64)"))
    return cases


def is_tensor_io(model):
    return all(v.type.HasField("tensor_type") for v in list(model.graph.input) + list(model.graph.output))


# Cases whose expected outputs come from a random draw (Dropout in training
# mode: numpy's masks), which no other implementation reproduces.
RANDOM_CASES = ("test_training_dropout",)
# Cases ONNX Runtime has no kernel for (Pow with an unsigned exponent), so no
# implementation but numpy's checks them; the chip refuses integer tensors.
NO_REFERENCE_CASES = ("test_pow_types_float32_uint32", "test_pow_types_float32_uint64")


def select(cases, ops):
    keep, skipped = [], []
    for c in cases:
        if c.kind != "node" or c.model is None or c.name.startswith(RANDOM_CASES) or c.name in NO_REFERENCE_CASES:
            continue
        used = {n.op_type for n in c.model.graph.node}
        if not used <= ops:
            continue
        if not is_tensor_io(c.model):
            skipped.append(c.name)
            continue
        keep.append(c)
    keep.sort(key=lambda c: c.name)
    return keep, skipped


def describe(values, arrays):
    import onnx
    out = []
    for v, a in zip(values, arrays):
        tt = v.type.tensor_type
        out.append({"name": v.name,
                    "dtype": str(np.asarray(a).dtype) if a is not None else
                    onnx.TensorProto.DataType.Name(tt.elem_type).lower(),
                    "shape": list(np.asarray(a).shape)})
    return out


def attributes(node):
    import onnx
    res = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, list):
            v = [x.decode() if isinstance(x, bytes) else x for x in v]
        elif not isinstance(v, (int, float, str)):
            v = str(type(v).__name__)  # tensors/graphs: not expected for these ops
        res[a.name] = v
    return res


def const_model(case, inputs):
    """model.const.onnx for a single-node case, or None."""
    import onnx
    from onnx import numpy_helper
    g = case.model.graph
    if len(g.node) != 1 or g.node[0].op_type not in CONST_INPUTS:
        return None, None
    node = g.node[0]
    graph_inputs = [v.name for v in g.input]
    freeze = set()
    for k in CONST_INPUTS[node.op_type]:
        if k < len(node.input) and node.input[k] in graph_inputs:
            freeze.add(graph_inputs.index(node.input[k]))
    if not freeze:
        return None, None
    m = onnx.ModelProto()
    m.CopyFrom(case.model)
    keep = [v for i, v in enumerate(g.input) if i not in freeze]
    del m.graph.input[:]
    m.graph.input.extend(keep)
    for i in sorted(freeze):
        m.graph.initializer.append(numpy_helper.from_array(np.asarray(inputs[i]), graph_inputs[i]))
    onnx.checker.check_model(m)
    return m, [i for i in range(len(graph_inputs)) if i not in freeze]


def write_tensor(path_pb, value, name):
    from onnx import numpy_helper
    arr = np.asarray(value)
    with open(path_pb, "wb") as f:
        f.write(numpy_helper.from_array(arr, name).SerializeToString())
    # np.array, not np.ascontiguousarray: the latter turns a scalar into 1-D.
    np.save(path_pb[:-3] + ".npy", np.array(arr, order="C"), allow_pickle=False)


def write_case(case, case_dir):
    import onnx
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    g = case.model.graph
    for d, (inputs, outputs) in enumerate(case.data_sets):
        ds = os.path.join(case_dir, f"test_data_set_{d}")
        os.makedirs(ds)
        for k, x in enumerate(inputs):
            write_tensor(os.path.join(ds, f"input_{k}.pb"), x, g.input[k].name)
        for k, y in enumerate(outputs):
            write_tensor(os.path.join(ds, f"output_{k}.pb"), y, g.output[k].name)
    inputs, outputs = case.data_sets[0]
    cm, const_inputs = const_model(case, inputs)
    if cm is not None:
        onnx.save(cm, os.path.join(case_dir, "model.const.onnx"))
    opset = {o.domain or "ai.onnx": o.version for o in case.model.opset_import}
    return {
        "name": case.name,
        "ops": sorted({n.op_type for n in g.node}),
        "nodes": len(g.node),
        "opset": opset.get("ai.onnx"),
        "ir_version": case.model.ir_version,
        "inputs": describe(g.input, inputs),
        "outputs": describe(g.output, outputs),
        "attributes": attributes(g.node[0]) if len(g.node) == 1 else None,
        "data_sets": len(case.data_sets),
        "rtol": case.rtol, "atol": case.atol,
        "const_model": "model.const.onnx" if cm is not None else None,
        "const_inputs": const_inputs,
        "source": getattr(case, "source", "onnx.backend.test.case.node"),
    }


def parse_ops(text):
    ops = [o for o in text.split(",") if o]
    bad = [o for o in ops if o not in SUPPORTED]
    if bad:
        sys.exit(f"gen_node_tests: {bad} not in the supported operators {SUPPORTED}")
    return set(ops)


def all_cases(args):
    cases = import_onnx_cases()
    if args.extra and "Conv" in parse_ops(args.ops):
        cases += extra_conv_cases()
    if args.extra:
        cases += extra_activation_cases()  # select() keeps those of the chosen operators
        cases += extra_layout_cases()
        cases += extra_norm_cases()
    return select(cases, parse_ops(args.ops))


def cmd_generate(args):
    cases, skipped = all_cases(args)
    if not cases:
        sys.exit("gen_node_tests: no case selected")
    out = os.path.abspath(args.out_dir)
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".node.", dir=out)
    try:
        entries = [write_case(c, os.path.join(tmp, c.name)) for c in cases]
        final = os.path.join(out, "node")
        if os.path.exists(final):
            old = tempfile.mkdtemp(prefix=".node-old.", dir=out)
            os.rename(final, os.path.join(old, "node"))
            os.rename(tmp, final)
            shutil.rmtree(old)
        else:
            os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    import onnx
    listing = {"onnx": onnx.__version__, "ops": sorted(parse_ops(args.ops)),
               "skipped_non_tensor": sorted(skipped), "cases": entries}
    for name, text in (("list.json", json.dumps(listing, indent=1, sort_keys=True) + "\n"),
                       ("list.txt", "".join(e["name"] + "\n" for e in entries))):
        fd, t = tempfile.mkstemp(prefix="." + name, dir=out)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(t, os.path.join(out, name))
    per_op = {}
    for e in entries:
        for o in e["ops"]:
            per_op[o] = per_op.get(o, 0) + 1
    print(f"gen_node_tests: {len(entries)} cases into {final} "
          f"({sum(1 for e in entries if e['const_model'])} with model.const.onnx; "
          f"{len(skipped)} non-tensor cases skipped)")
    print("gen_node_tests: per operator: " + ", ".join(f"{o} {per_op.get(o, 0)}" for o in sorted(parse_ops(args.ops))))
    missing = sorted(parse_ops(args.ops) - set(per_op))
    if missing:
        sys.exit(f"gen_node_tests: no case for {missing}")


def cmd_list(args):
    cases, _ = all_cases(args)
    for c in cases:
        print(c.name, ",".join(sorted({n.op_type for n in c.model.graph.node})))


def cmd_to_npy(args):
    """Convert every *.pb TensorProto under the given directories to .npy."""
    import onnx
    from onnx import numpy_helper
    n = 0
    for root_dir in args.dirs:
        if not os.path.isdir(root_dir):
            sys.exit(f"gen_node_tests: {root_dir} is not a directory")
        for root, _, files in os.walk(root_dir):
            for fn in sorted(files):
                if not fn.endswith(".pb"):
                    continue
                t = onnx.TensorProto()
                with open(os.path.join(root, fn), "rb") as f:
                    t.ParseFromString(f.read())
                dest = os.path.join(root, fn[:-3] + ".npy")
                fd, tmp = tempfile.mkstemp(prefix="." + fn, dir=root)
                with os.fdopen(fd, "wb") as f:
                    np.save(f, np.array(numpy_helper.to_array(t), order="C"), allow_pickle=False)
                os.replace(tmp, dest)
                n += 1
    print(f"gen_node_tests: {n} tensors converted")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("out_dir", nargs="?", default="build/node-tests")
    g.add_argument("--ops", default=",".join(SUPPORTED))
    g.add_argument("--no-extra", dest="extra", action="store_false",
                   help="only onnx's own cases, not the extra Conv cases (groups, dilations, bias)")
    g.set_defaults(func=cmd_generate)
    ls = sub.add_parser("list")
    ls.add_argument("--ops", default=",".join(SUPPORTED))
    ls.add_argument("--no-extra", dest="extra", action="store_false")
    ls.set_defaults(func=cmd_list)
    tn = sub.add_parser("to-npy")
    tn.add_argument("dirs", nargs="+")
    tn.set_defaults(func=cmd_to_npy)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
