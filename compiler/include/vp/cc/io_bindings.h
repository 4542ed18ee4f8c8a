// What vp-cc publishes about a compiled model's inputs and outputs, from
// one description: MODEL.io.json for hosts that read JSON, and the
// .input/.output directives whose host view (scale, zero point, layout,
// host Softmax) the assembler keeps in the object, so vp-run converts
// float tensors without any other file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/cc/graph.h"

namespace vp::cc {

struct IoDesc {
  std::string name;                 // the ONNX graph's input/output name
  bool output = false;
  std::vector<std::int64_t> dims;   // the ONNX graph's own dims (a stream: all its images)
  std::vector<std::int64_t> image_dims;  // one image's (the graph's own dims)
  std::int64_t image_bytes = 0;
  Shape shape;                      // the chip's view: the bytes are H x W x C
  // dims are [1, C, D1, ...] and the bytes [1, D1, ..., C]; otherwise the
  // bytes are row-major over dims (a vector, a [B, K] matrix, or a map with
  // one channel or one pixel).
  bool channels_last = false;
  double scale = 0;
  int zero_point = 0;
  std::int64_t addr = 0, bytes = 0;
  bool host_softmax = false;
};

// Inputs first, then outputs, each in graph order; needs plan_memory's
// addresses. Throws CompileError when a graph output's dims do not
// describe the chip's bytes (a reordering reshape vp-cc cannot publish).
std::vector<IoDesc> io_descriptions(const Graph& g);
// Whether ONNX dims are the chip tensor's [1, C, H(, W)] (channels last).
bool channels_last_dims(const Shape& s, const std::vector<std::int64_t>& dims);
// Whether ONNX dims describe the chip's H x W x C bytes of a tensor: as
// many elements, in the chip's order (channels last, a [H, C] matrix, or
// either side of one).
bool dims_describe_bytes(const Shape& s, const std::vector<std::int64_t>& dims);

// OUT.io.json.
std::string io_json(const Graph& g);

// The .input/.output lines (one per binding, each ending in '\n').
std::string io_directives(const Graph& g);

// The dims the FP32 reference and golden model write for output i: the
// graph's own (what ONNX Runtime gives).
std::vector<std::int64_t> published_output_dims(const Graph& g, std::size_t i);

}  // namespace vp::cc
