// Checks an ONNX model before any pass sees it, so that a hostile or broken
// file ends in a CompileError naming what is wrong rather than in a crash
// inside shape inference or a pass (private to compiler/src).
#pragma once

#include <string>

namespace onnx {
class ModelProto;
}

namespace vp::cc {

struct Graph;

// Before shape inference, on the protobuf: a graph is present, every value
// has one producer, every node input is defined, there is no cycle (nodes
// are put in a topological order, stable for a graph already sorted),
// tensors have sane dimensions and as much data as their dimensions say,
// and the attributes that shape inference divides by are in range.
void validate_onnx_model(onnx::ModelProto& model, const std::string& file);

// After import, on the Graph: inputs and outputs exist, no tensor is empty
// or absurdly large, constants are finite, and the attributes that need
// shapes (group against channels, axis against rank) are in range.
void validate_graph(const Graph& g, const std::string& file);

// Largest tensor accepted (elements): far above any model the chip holds,
// far below what would exhaust memory while allocating.
constexpr long long kMaxTensorElements = 1LL << 31;

}  // namespace vp::cc
