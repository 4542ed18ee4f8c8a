// The real functions of the op_table operators (operators.def): what the
// FP32 interpreter evaluates, and what quantize samples once per int8 code
// into the 256-entry table the golden model and `vlut` both read.
#pragma once

#include "vp/cc/graph.h"

namespace vp::cc {

// f(x) of the node's operator with its ONNX attributes (defaults as ONNX
// gives them), times x when canonicalize folded Mul(x, f(x)) into it.
double table_function(const Node& n, double x);

}  // namespace vp::cc
