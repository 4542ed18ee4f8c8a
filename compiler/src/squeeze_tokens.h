// Token matrices without their unit axis, before import (squeeze_tokens.cpp).
#pragma once

#include <onnx/onnx_pb.h>

namespace vp::cc {

// Rewrites a vision transformer's [1, T, C] and [T, 1, C] token values as
// [T, C] matrices, starting from Transpose(0, 2, 1) of a map reshaped to
// [1, C, T]. True when it rewrote the graph (shape inference must run
// again); false, with the graph untouched, when there is nothing to do or
// a node reading the tokens is not one it knows.
bool squeeze_token_batch(onnx::GraphProto& gp);

}  // namespace vp::cc
