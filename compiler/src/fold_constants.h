// Shape arithmetic folded before import (fold_constants.cpp).
#pragma once

#include <onnx/onnx_pb.h>

namespace vp::cc {

// Replaces every node that computes a small constant (a Shape of a tensor
// whose dimensions inference fixed; Gather, Add, Sub, Mul, Div of small
// constants) with a Constant node holding its value. True when any was
// replaced: shape inference then knows more and should run again.
bool fold_shape_arithmetic(onnx::GraphProto& gp);

}  // namespace vp::cc
