// A pixel gather (Node::gather) on tensors held channel by channel (C x H x
// W, the interpreters' order): run k of the output's channels-last bytes is
// input pixel gather[k], so output pixel k / m takes it as its channels
// (k mod m) x C .. + C - 1, m = output channels / input channels. The FP32
// interpreter and the golden model share it; the chip copies the same bytes
// (emit_layers.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "vp/cc/graph.h"

namespace vp::cc {

template <class T>
std::vector<T> gather_pixels(const Node& n, const std::vector<T>& x, const Shape& in, const Shape& out) {
  const std::int64_t C = in.c, m = out.c / in.c, hw_in = in.h * in.w, hw_out = out.h * out.w;
  std::vector<T> y(static_cast<std::size_t>(out.numel()));
  for (std::size_t k = 0; k < n.gather.size(); ++k) {
    const std::int64_t p = static_cast<std::int64_t>(k) / m, j = static_cast<std::int64_t>(k) % m, src = n.gather[k];
    for (std::int64_t c = 0; c < C; ++c)
      y[static_cast<std::size_t>((j * C + c) * hw_out + p)] = x[static_cast<std::size_t>(c * hw_in + src)];
  }
  return y;
}

// Output run k0 .. k1 - 1 of a gather (one output row's) as runs of
// consecutive input pixels, each copied with one DMA in and one out
// (emit_gather; the cost model prices them): run k takes input pixels
// src .. src + len - 1. Input rows follow each other in memory only when
// the input has no border (in_padded off); a run holds at most max_len
// pixels (the scratchpad's room).
struct GatherRun {
  std::int64_t k, src, len;
};
inline std::vector<GatherRun> gather_runs(const Node& n, std::int64_t k0, std::int64_t k1, std::int64_t in_w,
                                          bool in_padded, std::int64_t max_len) {
  std::vector<GatherRun> runs;
  for (std::int64_t k = k0; k < k1;) {
    const std::int64_t p = n.gather[static_cast<std::size_t>(k)];
    std::int64_t len = 1;
    while (k + len < k1 && n.gather[static_cast<std::size_t>(k + len)] == p + len &&
           (!in_padded || (p + len) % in_w != 0) && len < max_len)
      ++len;
    runs.push_back({k, p, len});
    k += len;
  }
  return runs;
}

}  // namespace vp::cc
