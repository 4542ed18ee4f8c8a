// What canonicalize.cpp and canonicalize_layout.cpp share: attribute and
// constant access, value rewiring, and the layout rewrites the former calls.
#pragma once

#include <cstdint>
#include <vector>

#include "vp/cc/graph.h"

namespace vp::cc::canon {

std::int64_t attr_i(const Node& n, const char* key, std::int64_t dflt);
float attr_f(const Node& n, const char* key, float dflt);
// Every use of value `from` (node inputs, graph outputs) now reads `to`.
void replace_uses(Graph& g, int from, int to);
bool is_output(const Graph& g, int v);
// The single consumer of `v`, or -1 if it has several or is a graph output.
int sole_consumer(const Graph& g, int v);
const Value& need_const(const Graph& g, const Node& n, std::size_t i, const char* what);
// Conv with bias always present (zeros when ONNX had none).
void conv_bias(Graph& g, Node& n);

// canonicalize_layout.cpp: the layout and shape operators torchvision's
// CNNs export, rewritten into chip operators.
// Node n becomes a 1x1 Conv from x to y copying input channel src[k] into
// output channel k.
void channel_copy_conv(Graph& g, Node& n, int x, int y, const std::vector<std::int64_t>& src);
void reduce_mean_to_gap(const Graph& g, Node& n);
void fold_pad(Graph& g, Node& n);
void slice_to_conv(Graph& g, Node& n);
void shuffle_to_conv(Graph& g, std::size_t transpose_node);
void div_to_mul(Graph& g, Node& n);
void chain_concats(Graph& g);

// canonicalize_pixels.cpp: chains of layout operators that move whole
// pixels of a channels-last tensor (window partitions, cyclic shifts, patch
// merging) become one pixel gather (Node::gather) or vanish.
void gather_pixels(Graph& g);

// canonicalize_norm.cpp: channels-last regions (PyTorch's permutes around a
// LayerNorm or Linear on a map), LayerNorm, GELU and per-channel affine
// constants folded into the Conv before them.
void channels_last_regions(Graph& g);
void fold_norm_patterns(Graph& g);

// canonicalize_split.cpp: Split along the channels, into the Convs of a
// Linear layer's parts (q, k, v of one projection) or channel copies.
void split_channels(Graph& g);
// Slices of a Linear layer's output channels (nn.MultiheadAttention's q, k
// and v cut from one in_proj): one Conv per Slice, as split_channels does.
void slice_linear_parts(Graph& g);

// canonicalize_gelu_tanh.cpp: GELU's tanh form, however it is written out,
// recognized by evaluating the expression: one table.
void fold_gelu_tanh(Graph& g);

// canonicalize_attention.cpp: MatMuls of two activations (an attention's
// q @ k^T and scores @ v) read on the chip's layout, the head Reshapes and
// Transposes dropped, the scale folded, a causal mask into the Softmax.
void fold_attention(Graph& g);

}  // namespace vp::cc::canon
