// Canonicalize and optimize: rewrite the imported graph into the few
// operators the back end knows.
//
//   Identity, Dropout (inference), no-op Flatten/Reshape
//                                     -> dropped (consumers read the input)
//   Gemm, MatMul (constant weights)   -> Conv 1x1, or Conv with the spatial
//                                        kernel when it reads a Flatten of a
//                                        feature map (the Flatten vanishes)
//   BatchNormalization                -> folded into the Conv before it, else a
//                                        depthwise 1x1 Conv
//   Relu / Clip after Conv or Add     -> fused activation (ReLU6 is Clip 0..6)
//   Mul(x, f(x)), f a table operator  -> one table of x * f(x) (SiLU is
//                                        Mul(x, Sigmoid(x)))
//   ReduceMean, Pad, Div, Slice, the
//   channel shuffle, Concat chains    -> canonicalize_layout.cpp
//   channels-last regions, LayerNorm,
//   GELU, per-channel constants
//   after a Conv                      -> canonicalize_norm.cpp
//
//   MatMul of two activations, the
//   head Reshapes and Transposes, a
//   scale and a causal mask          -> canonicalize_attention.cpp
//
//   Split along the channels         -> canonicalize_split.cpp
//   GELU's tanh form                 -> canonicalize_gelu_tanh.cpp
//
// Afterwards only the operators whose role in operators.def is `chip` remain:
// Conv, Add, Mul (by a constant or of two activations), Relu, Clip, the table operators
// (LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Erf, Gelu), MaxPool,
// AveragePool, GlobalAveragePool, Concat, LayerNormalization, Softmax and
// MatMul of two activations.
#include <algorithm>
#include <cmath>

#include "canonicalize_util.h"
#include "onnx_validate.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace canon {

std::int64_t attr_i(const Node& n, const char* key, std::int64_t dflt) {
  auto it = n.ints.find(key);
  return it == n.ints.end() || it->second.empty() ? dflt : it->second[0];
}
float attr_f(const Node& n, const char* key, float dflt) {
  auto it = n.floats.find(key);
  return it == n.floats.end() ? dflt : it->second;
}

// Every use of value `from` (node inputs, graph outputs) now reads `to`.
void replace_uses(Graph& g, int from, int to) {
  for (auto& n : g.nodes)
    for (auto& i : n.in)
      if (i == from) i = to;
  for (auto& o : g.outputs)
    if (o == from) o = to;
}

bool is_output(const Graph& g, int v) { return std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end(); }

// The single consumer of `v`, or -1 if it has several or is a graph output.
int sole_consumer(const Graph& g, int v) {
  const auto c = g.consumers(v);
  return c.size() == 1 && !is_output(g, v) ? c[0] : -1;
}

const Value& need_const(const Graph& g, const Node& n, std::size_t i, const char* what) {
  if (i >= n.in.size() || n.in[i] < 0 || !g.val(n.in[i]).is_const)
    throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): " + what + " must be a constant initializer");
  return g.val(n.in[i]);
}

// Conv with bias always present (zeros when ONNX had none).
void conv_bias(Graph& g, Node& n) {
  if (n.in.size() > 2 && n.in[2] >= 0) return;
  const std::int64_t N = g.val(n.in[1]).dims[0];
  Value bv;
  bv.name = n.name + ".bias";
  bv.is_const = true;
  bv.dims = {N};
  bv.data.assign(static_cast<std::size_t>(N), 0.f);
  const int bid = g.add_value(std::move(bv));
  n.in.resize(3);
  n.in[2] = bid;
}

}  // namespace canon

namespace {

using namespace canon;

void read_geom(Node& n, const Graph& g) {
  ConvGeom& c = n.geom;
  std::vector<std::int64_t> k = n.ints.count("kernel_shape") ? n.ints["kernel_shape"] : std::vector<std::int64_t>{};
  if (k.empty() && n.op == OpKind::Conv) {
    const auto& wd = g.val(n.in[1]).dims;
    if (wd.size() != 4) throw CompileError("node '" + n.name + "': only 2-D convolutions are supported");
    k = {wd[2], wd[3]};
  }
  if (k.size() != 2) throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): only 2-D kernels are supported");
  c.kh = static_cast<int>(k[0]);
  c.kw = static_cast<int>(k[1]);
  auto two = [&](const char* key, int& a, int& b) {
    auto it = n.ints.find(key);
    if (it != n.ints.end() && it->second.size() == 2) {
      a = static_cast<int>(it->second[0]);
      b = static_cast<int>(it->second[1]);
    }
  };
  two("strides", c.sh, c.sw);
  two("dilations", c.dh, c.dw);
  auto p = n.ints.find("pads");
  if (p != n.ints.end() && p->second.size() == 4) {
    c.pt = static_cast<int>(p->second[0]);
    c.pl = static_cast<int>(p->second[1]);
    c.pb = static_cast<int>(p->second[2]);
    c.pr = static_cast<int>(p->second[3]);
  }
  c.group = static_cast<int>(attr_i(n, "group", 1));
  const auto ap = attr_i(n, "auto_pad", 0);
  if (ap != 0) {
    // SAME_*: total padding so that out = ceil(in / stride), the odd pixel at
    // the end (UPPER) or the beginning (LOWER); VALID: none.
    const Shape& in = g.val(n.in[0]).shape;
    const Shape& out = g.val(n.out[0]).shape;
    auto resolve = [&](std::int64_t i, std::int64_t o, int kk, int s, int d, int& lo, int& hi) {
      if (ap == kAutoPadValid) {
        lo = hi = 0;
        return;
      }
      const std::int64_t total = std::max<std::int64_t>(0, (o - 1) * s + (kk - 1) * d + 1 - i);
      const int small = static_cast<int>(total / 2), big = static_cast<int>(total - total / 2);
      lo = ap == kAutoPadSameUpper ? small : big;
      hi = ap == kAutoPadSameUpper ? big : small;
    };
    resolve(in.h, out.h, c.kh, c.sh, c.dh, c.pt, c.pb);
    resolve(in.w, out.w, c.kw, c.sw, c.dw, c.pl, c.pr);
  }
}

// Gemm(A, B, C) / MatMul(A, B) with constant B -> Conv with weights [N][K].
void gemm_to_conv(Graph& g, Node& n) {
  const bool gemm = n.op == OpKind::Gemm;
  if (gemm && attr_i(n, "transA", 0) != 0) throw CompileError("node '" + n.name + "': Gemm with transA=1 is not supported");
  const Value& b = need_const(g, n, 1, "the weight matrix B");
  if (b.dims.size() != 2) throw CompileError("node '" + n.name + "': weight matrix must be 2-D");
  const bool transb = gemm && attr_i(n, "transB", 0) != 0;
  const std::int64_t K = transb ? b.dims[1] : b.dims[0], N = transb ? b.dims[0] : b.dims[1];
  const float alpha = gemm ? attr_f(n, "alpha", 1.f) : 1.f, beta = gemm ? attr_f(n, "beta", 1.f) : 1.f;
  std::vector<float> w(static_cast<std::size_t>(K * N));
  for (std::int64_t k = 0; k < K; ++k)
    for (std::int64_t j = 0; j < N; ++j)
      w[static_cast<std::size_t>(j * K + k)] = alpha * b.data[static_cast<std::size_t>(transb ? j * K + k : k * N + j)];
  std::vector<float> bias(static_cast<std::size_t>(N), 0.f);
  if (gemm && n.in.size() > 2 && n.in[2] >= 0) {
    const Value& c = need_const(g, n, 2, "the bias C");
    if (c.data.size() != 1 && c.data.size() != static_cast<std::size_t>(N))
      throw CompileError("node '" + n.name + "': bias C must have 1 or N elements");
    for (std::int64_t j = 0; j < N; ++j) bias[static_cast<std::size_t>(j)] = beta * c.data[c.data.size() == 1 ? 0 : static_cast<std::size_t>(j)];
  }
  // Reading a flattened feature map: the Gemm is a convolution whose kernel
  // covers the whole map, and ONNX's (c, h, w) flatten order is exactly the
  // weight layout [N][C][H][W] of that convolution.
  int x = n.in[0];
  int kh = 1, kw = 1;
  std::int64_t cin = K;
  const int p = g.producer(x);
  if (p >= 0 && (g.nodes[p].op == OpKind::Flatten || g.nodes[p].op == OpKind::Reshape)) {
    const Value& src = g.val(g.nodes[p].in[0]);
    if (src.dims.size() == 4 && src.shape.numel() == K) {
      x = g.nodes[p].in[0];
      kh = static_cast<int>(src.shape.h);
      kw = static_cast<int>(src.shape.w);
      cin = src.shape.c;
    }
  }
  Value wv;
  wv.name = n.name + ".weight";
  wv.is_const = true;
  wv.dims = {N, cin, kh, kw};
  wv.data = std::move(w);
  Value bv;
  bv.name = n.name + ".bias";
  bv.is_const = true;
  bv.dims = {N};
  bv.data = std::move(bias);
  const int wid = g.add_value(std::move(wv)), bid = g.add_value(std::move(bv));
  n.op = OpKind::Conv;
  n.in = {x, wid, bid};
  n.geom = ConvGeom{};
  n.geom.kh = kh;
  n.geom.kw = kw;
}

// y = gamma * (x - mean) / sqrt(var + eps) + beta, per channel.
void bn_coeffs(const Graph& g, const Node& bn, std::vector<float>& scale, std::vector<float>& shift) {
  const auto& gamma = need_const(g, bn, 1, "scale").data;
  const auto& beta = need_const(g, bn, 2, "bias").data;
  const auto& mean = need_const(g, bn, 3, "mean").data;
  const auto& var = need_const(g, bn, 4, "var").data;
  const float eps = attr_f(bn, "epsilon", 1e-5f);
  const auto channels = static_cast<std::size_t>(g.val(bn.in[0]).shape.c);
  if (gamma.size() != channels || beta.size() != channels || mean.size() != channels || var.size() != channels)
    throw CompileError("node '" + bn.name + "' (BatchNormalization): scale, bias, mean and var need " +
                       std::to_string(channels) + " values each (one per channel)");
  scale.resize(gamma.size());
  shift.resize(gamma.size());
  for (std::size_t c = 0; c < gamma.size(); ++c) {
    if (!(var[c] + eps > 0))
      throw CompileError("node '" + bn.name + "' (BatchNormalization): var + epsilon is " +
                         std::to_string(var[c] + eps) + " in channel " + std::to_string(c) + "; expected above 0");
    scale[c] = gamma[c] / std::sqrt(var[c] + eps);
    shift[c] = beta[c] - mean[c] * scale[c];
  }
}

void fold_batchnorm(Graph& g, std::size_t bi) {
  Node& bn = g.nodes[bi];
  std::vector<float> scale, shift;
  bn_coeffs(g, bn, scale, shift);
  const int x = bn.in[0];
  const int p = g.producer(x);
  if (p >= 0 && g.nodes[p].op == OpKind::Conv && g.nodes[p].act == Act::none && sole_consumer(g, x) == static_cast<int>(bi)) {
    Node& conv = g.nodes[p];
    Value& w = g.val(conv.in[1]);
    Value& b = g.val(conv.in[2]);
    const std::size_t per = w.data.size() / scale.size();
    for (std::size_t oc = 0; oc < scale.size(); ++oc) {
      for (std::size_t i = 0; i < per; ++i) w.data[oc * per + i] *= scale[oc];
      b.data[oc] = b.data[oc] * scale[oc] + shift[oc];
    }
    conv.out = bn.out;
    bn.out.clear();  // dead now
    return;
  }
  // Standalone: a depthwise 1x1 convolution does the same arithmetic.
  const std::int64_t C = static_cast<std::int64_t>(scale.size());
  Value wv;
  wv.name = bn.name + ".weight";
  wv.is_const = true;
  wv.dims = {C, 1, 1, 1};
  wv.data = scale;
  Value bv;
  bv.name = bn.name + ".bias";
  bv.is_const = true;
  bv.dims = {C};
  bv.data = shift;
  const int wid = g.add_value(std::move(wv)), bid = g.add_value(std::move(bv));
  bn.op = OpKind::Conv;
  bn.in = {x, wid, bid};
  bn.geom = ConvGeom{};
  bn.geom.group = static_cast<int>(C);
}

// Clip bounds: inputs (opset >= 11) or attributes.
void clip_bounds(const Graph& g, const Node& n, float& lo, float& hi) {
  lo = -INFINITY;
  hi = INFINITY;
  if (n.in.size() > 1 && n.in[1] >= 0) lo = need_const(g, n, 1, "min").data.at(0);
  if (n.in.size() > 2 && n.in[2] >= 0) hi = need_const(g, n, 2, "max").data.at(0);
  lo = attr_f(n, "min", lo);
  hi = attr_f(n, "max", hi);
}

// Mul(x, f(x)) where f is a table operator whose only reader is the Mul:
// still a function of x alone, so the table node computes x * f(x) and the
// Mul goes (SiLU = Mul(x, Sigmoid(x)) in EfficientNet, MobileNetV3's
// HardSwish written as Mul(x, HardSigmoid(x))).
void fold_mul_by_input(Graph& g) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& mul = g.nodes[i];
    if (mul.op != OpKind::Mul || mul.out.empty() || mul.in.size() != 2) continue;
    for (int k = 0; k < 2; ++k) {
      const int x = mul.in[static_cast<std::size_t>(k)], fx = mul.in[static_cast<std::size_t>(1 - k)];
      const int p = g.producer(fx);
      if (p < 0 || sole_consumer(g, fx) != static_cast<int>(i)) continue;
      Node& f = g.nodes[static_cast<std::size_t>(p)];
      if (!op_has(f.op, op_table) || f.times_input || f.in.empty() || f.in[0] != x) continue;
      f.times_input = true;
      f.out = mul.out;
      mul.out.clear();
      break;
    }
  }
}

// A Mul's `gate` holds one value per channel of the map `x`.
bool mul_broadcast(const Graph& g, int x, int gate) {
  const Shape& a = g.val(x).shape;
  const Shape& b = g.val(gate).shape;
  return a.c == b.c && b.h == 1 && b.w == 1 && a.h * a.w > 1;
}

}  // namespace

// A constant with one value per element of an activation of shape s.
bool preloadable(const Value& k, const Shape& s) {
  if (k.dims.empty() || k.data.size() != static_cast<std::size_t>(s.numel())) return false;
  return shape_of_dims(k.dims, k.name) == s;
}

// A copy of constant `id` as a preloaded map (Value::preload).
int preload_constant(Graph& g, int id) {
  Value v = g.val(id);
  v.name += ".preload";
  v.is_const = false;
  v.preload = true;
  v.shape = shape_of_dims(v.dims, v.name);
  if (v.shape.numel() > kMaxTensorElements)
    throw CompileError("constant '" + g.val(id).name + "' is too large to preload");
  return g.add_value(std::move(v));
}

void gather_row_to_pool(Graph& g, Node& n) {
  const auto fail = [&](const std::string& why) {
    throw CompileError("node '" + n.name + "' (Gather) of an activation: supported " + why);
  };
  const Value& x = g.val(n.in[0]);
  const Value& idx = g.val(n.in[1]);
  if (x.dims.size() != 2 || attr_i(n, "axis", 0) != 0)
    fail("along the rows of a [T, C] matrix only (a class token)");
  if (!idx.is_const || idx.data.size() != 1 || (idx.data[0] != 0 && idx.data[0] != -static_cast<float>(x.dims[0])))
    fail("for row 0 only (a class token), as a one-element index");
  n.op = OpKind::MaxPool;
  n.in = {n.in[0]};
  n.ints.clear();
  n.ints["kernel_shape"] = {1, 1};
  n.ints["strides"] = {x.dims[0], 1};
}

void canonicalize(Graph& g) {
  // 0. Every pass and the interpreters compute an operator's first output
  // only, so a later one that something reads (MaxPool's Indices,
  // Dropout's mask, or an output the operator does not define) is refused.
  for (const Node& n : g.nodes)
    for (std::size_t k = 1; k < n.out.size() && n.op != OpKind::Split; ++k)
      if (!g.consumers(n.out[k]).empty() || is_output(g, n.out[k]))
        throw CompileError("node '" + n.name + "': its output " + std::to_string(k + 1) + " ('" + g.val(n.out[k]).name +
                           "') is read, but only an operator's first output is computed" +
                           (n.op == OpKind::MaxPool ? " (MaxPool's Indices output is not supported)" : ""));
  // 1. Aliases: Identity always; Flatten/Reshape when the bytes do not move.
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.op == OpKind::Dropout) {
      // At inference Dropout is the identity; in training mode it draws
      // random masks, which no chip program reproduces.
      // A ratio of 0 keeps everything in either mode (torchvision's Swin
      // calls F.dropout(attn, p=0.0) in training mode).
      const bool training = n.in.size() > 2 && n.in[2] >= 0 &&
                            (!g.val(n.in[2]).is_const || g.val(n.in[2]).data.empty() || g.val(n.in[2]).data[0] != 0);
      const bool keeps_all = n.in.size() > 1 && n.in[1] >= 0 && g.val(n.in[1]).is_const &&
                             g.val(n.in[1]).data.size() == 1 && g.val(n.in[1]).data[0] == 0.f;
      if (training && !keeps_all)
        throw CompileError("node '" + n.name + "': Dropout in training mode is not supported (only inference)");
    }
    if (n.op == OpKind::Identity || n.op == OpKind::Dropout) {
      replace_uses(g, n.out[0], n.in[0]);
      n.out.clear();
    }
    // Row 0 of a [T, C] matrix (a vision transformer's class token): a
    // pooling of one pixel with a stride past the last row, which copies
    // row 0 alone.
    // (A Gather of one index from a permuted tensor is an attention's q, k
    // or v: fold_attention reads it; any it leaves is refused below.)
    if (n.op == OpKind::Gather && !n.out.empty() && g.val(n.in[0]).dims.size() <= 2) gather_row_to_pool(g, n);
    // A map's pixels as tokens, [1, C, T] -> Transpose(0, 2, 1) -> Reshape
    // to [T, C] (squeeze_tokens.cpp writes the pair): token t's C channels
    // are pixel t's, already together in the channels-last layout.
    if (n.op == OpKind::Transpose && n.out.size() == 1 && n.ints.count("perm") &&
        n.ints.at("perm") == std::vector<std::int64_t>{0, 2, 1}) {
      const auto& in = g.val(n.in[0]).dims;
      const int r = sole_consumer(g, n.out[0]);
      if (r < 0 || is_output(g, n.out[0]) || in.size() != 3 || in[0] != 1) continue;
      Node& reshape = g.nodes[static_cast<std::size_t>(r)];
      if (reshape.op != OpKind::Reshape || g.val(reshape.out[0]).dims != std::vector<std::int64_t>{in[2], in[1]})
        continue;
      replace_uses(g, reshape.out[0], n.in[0]);
      reshape.out.clear();
      n.out.clear();
    }
  }
  // 1a. Layout chains that move whole pixels: one gather each.
  gather_pixels(g);
  // 1b. Transpose(0,2,3,1) ... Transpose(0,3,1,2) around per-pixel operators:
  //     the operators on the map itself (canonicalize_norm.cpp).
  channels_last_regions(g);
  // 1c. MatMuls of two activations: attention on the chip's layout.
  fold_attention(g);
  for (Node& n : g.nodes)
    if (n.op == OpKind::Gather && !n.out.empty()) gather_row_to_pool(g, n);
  // 2. Gemm/MatMul -> Conv (may absorb a Flatten), Conv geometry and bias.
  for (auto& n : g.nodes) {
    const bool activations = n.op == OpKind::MatMul && n.in.size() == 2 && !g.val(n.in[0]).is_const &&
                             !g.val(n.in[1]).is_const;
    if (n.op == OpKind::Gemm || (n.op == OpKind::MatMul && !activations)) gemm_to_conv(g, n);
    else if (n.op == OpKind::Conv) {
      need_const(g, n, 1, "the weight");
      read_geom(n, g);
      conv_bias(g, n);
    } else if (op_has(n.op, op_window)) {  // the pools: geometry from attributes
      read_geom(n, g);
      if (attr_i(n, "ceil_mode", 0) != 0) {
        const Shape& in = g.val(n.in[0]).shape;
        const Shape& out = g.val(n.out[0]).shape;
        const auto floor_h = (in.h + n.geom.pt + n.geom.pb - ((n.geom.kh - 1) * n.geom.dh + 1)) / n.geom.sh + 1;
        const auto floor_w = (in.w + n.geom.pl + n.geom.pr - ((n.geom.kw - 1) * n.geom.dw + 1)) / n.geom.sw + 1;
        if (out.h != floor_h || out.w != floor_w) {
          // A partial last window of a max pooling is the max over its
          // part inside the tensor: the same window over a wider end pad
          // of -infinity (the -128 border the plan gives a max pooling's
          // input), which ONNX guarantees never covers a window wholly
          // (the last one starts inside the input or its begin pad). An
          // average would divide by the clipped count instead.
          if (n.op != OpKind::MaxPool || out.h < floor_h || out.w < floor_w)
            throw CompileError("node '" + n.name + "': ceil_mode=1 that adds a partial window is supported for MaxPool only");
          n.geom.pb += static_cast<int>((out.h - floor_h) * n.geom.sh);
          n.geom.pr += static_cast<int>((out.w - floor_w) * n.geom.sw);
        }
      }
    }
  }
  // 2'. Split along the channels: a Linear layer's parts (q, k, v) as Convs.
  split_channels(g);
  // 2a. LayerNorm, GELU (either form), per-channel constants after a Conv.
  fold_gelu_tanh(g);
  fold_norm_patterns(g);
  // 2a'. Slices of a Linear layer's channels (after its bias Add is folded).
  slice_linear_parts(g);
  // 2b. ReduceMean over H and W, zero Pads before a window operator, Div
  //     by a constant, channel Slices and shuffles.
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.op == OpKind::ReduceMean) reduce_mean_to_gap(g, n);
    else if (n.op == OpKind::Pad) fold_pad(g, n);
    else if (n.op == OpKind::Div) div_to_mul(g, n);
    else if (n.op == OpKind::Slice) slice_to_conv(g, n);
    else if (n.op == OpKind::Transpose) shuffle_to_conv(g, i);
  }
  chain_concats(g);
  // 3. Remaining Flatten/Reshape must be byte no-ops in the channels-last layout.
  for (auto& n : g.nodes) {
    if ((n.op != OpKind::Flatten && n.op != OpKind::Reshape) || n.out.empty()) continue;  // (a shuffle's are gone)
    const Value& in = g.val(n.in[0]);
    const Value& out = g.val(n.out[0]);
    const bool used = !g.consumers(n.out[0]).empty() || is_output(g, n.out[0]);
    if (!used) continue;
    // [1, C, h, w] -> [1, C, h * w] keeps each channel's pixels in order:
    // the same channels-last bytes.
    const bool pixels_kept = in.dims.size() >= 3 && out.dims.size() >= 3 && in.dims[0] == 1 && out.dims[0] == 1 &&
                             in.dims[1] == out.dims[1] && in.shape.c == out.shape.c &&
                             in.shape.h * in.shape.w == out.shape.h * out.shape.w;
    if (in.shape.h * in.shape.w != 1 && in.shape.c != 1 && !(in.shape == out.shape) && !pixels_kept)
      throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): reorders a " + std::to_string(in.shape.c) + "x" +
                         std::to_string(in.shape.h) + "x" + std::to_string(in.shape.w) +
                         " feature map for an operator other than Gemm/MatMul; not supported");
    if (!(in.shape.numel() == out.shape.numel()))
      throw CompileError("node '" + n.name + "': element count changes");
    replace_uses(g, n.out[0], n.in[0]);
    n.out.clear();
  }
  g.remove_dead_nodes();
  // 4. BatchNormalization: fold or turn into a depthwise Conv.
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].op == OpKind::BatchNormalization) fold_batchnorm(g, i);
  g.remove_dead_nodes();
  // 5. Fuse activations (Relu / Clip) into the Conv or Add before them.
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (!op_has(n.op, op_activation)) continue;
    float lo = 0, hi = 0;
    if (n.op == OpKind::Clip) clip_bounds(g, n, lo, hi);
    n.clip_lo = lo;
    n.clip_hi = hi;
    const int x = n.in[0];
    const int p = g.producer(x);
    if (p < 0 || sole_consumer(g, x) != static_cast<int>(i)) continue;
    Node& prev = g.nodes[p];
    if (!op_has(prev.op, op_takes_activation) || prev.act != Act::none) continue;
    prev.act = n.op == OpKind::Relu ? Act::relu : Act::clip;
    prev.clip_lo = lo;
    prev.clip_hi = hi;
    prev.out = n.out;
    n.out.clear();
  }
  g.remove_dead_nodes();
  // 5b. Mul(x, f(x)) of a table operator f: one table.
  fold_mul_by_input(g);
  g.remove_dead_nodes();
  // 6. A Softmax that produces a graph output of class scores runs on the
  //    host (in float, on the dequantized scores); any other on the chip,
  //    over the channel axis (or the runs canonicalize_attention set).
  g.host_softmax.assign(g.outputs.size(), false);
  for (auto& n : g.nodes) {
    if (n.op != OpKind::Softmax) continue;
    const auto it = std::find(g.outputs.begin(), g.outputs.end(), n.out[0]);
    const Shape& s = g.val(n.in[0]).shape;
    if (it != g.outputs.end() && g.consumers(n.out[0]).empty() && s.h * s.w == 1 && n.group == 0) {
      g.host_softmax[static_cast<std::size_t>(it - g.outputs.begin())] = true;
      *it = n.in[0];
      n.out.clear();
      continue;
    }
    if (n.group > 0) continue;
    const auto rank = static_cast<std::int64_t>(g.val(n.in[0]).dims.size());
    // Before opset 13 Softmax flattens every axis from `axis` on into one.
    const bool coerced = g.opset < 13;
    auto axis = attr_i(n, "axis", coerced ? 1 : -1);
    if (axis < 0) axis += rank;
    if (coerced && axis < rank - 1 && s.h * s.w > 1)
      throw CompileError("node '" + n.name + "': Softmax (opset " + std::to_string(g.opset) + ") over axes " +
                         std::to_string(axis) + " to " + std::to_string(rank - 1) +
                         " at once; on the chip it is supported over the channel axis only");
    if (axis != (rank <= 1 ? 0 : 1) && s.c > 1)
      throw CompileError("node '" + n.name + "': Softmax on the chip is supported over the channel axis (axis " +
                         std::to_string(rank <= 1 ? 0 : 1) + " of this " + std::to_string(rank) + "-D tensor), got axis " +
                         std::to_string(axis));
    n.group = s.c;
  }
  g.remove_dead_nodes();
  // 7. What is left must be in the canonical set; check the cases the back
  //    end does not cover so nothing is silently approximated.
  for (auto& n : g.nodes) {
    if (!op_def(n.op).on_chip())
      throw CompileError("node '" + n.name + "': " + op_name(n.op) + " is left after canonicalization; not supported here");
    for (const int id : n.in)
      if (id >= 0 && !g.val(id).is_const && g.val(id).shape.numel() == 0)
        throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): reads the " +
                           std::to_string(g.val(id).dims.size()) + "-D view '" + g.val(id).name +
                           "', which no chip operator holds; supported only inside chains of layout operators that "
                           "move whole pixels (a window partition), a channel shuffle's, or between an attention's "
                           "Reshapes, Transposes and MatMuls");
    if (n.op == OpKind::Mul) {
      const bool c0 = g.val(n.in[0]).is_const, c1 = g.val(n.in[1]).is_const;
      if (c0 && c1) throw CompileError("node '" + n.name + "': Mul of two constants is not supported");
      if (!c0 && !c1) {
        // Of two activations: the same shape, or the second one value per
        // channel (a squeeze-excitation gate, [1, C, 1, 1], over a map).
        if (mul_broadcast(g, n.in[1], n.in[0]) && !mul_broadcast(g, n.in[0], n.in[1])) std::swap(n.in[0], n.in[1]);
        const Shape& a = g.val(n.in[0]).shape;
        const Shape& b = g.val(n.in[1]).shape;
        if (!(a == b) && !mul_broadcast(g, n.in[0], n.in[1]))
          throw CompileError("node '" + n.name + "': Mul of two activations needs the same shape or one value per channel; got " +
                             std::to_string(a.c) + "x" + std::to_string(a.h) + "x" + std::to_string(a.w) + " and " +
                             std::to_string(b.c) + "x" + std::to_string(b.h) + "x" + std::to_string(b.w));
        if (!(g.val(n.out[0]).shape == a))
          throw CompileError("node '" + n.name + "': Mul's output shape is not its inputs'");
        continue;
      }
      if (c0) std::swap(n.in[0], n.in[1]);
      const auto& k = g.val(n.in[1]);
      const auto C = static_cast<std::size_t>(g.val(n.in[0]).shape.c);
      if (k.data.size() != 1 && k.data.size() != C)
        throw CompileError("node '" + n.name + "': Mul constant must be a scalar or one value per channel");
    } else if (n.op == OpKind::Add) {
      if (g.val(n.in[0]).is_const && g.val(n.in[1]).is_const)
        throw CompileError("node '" + n.name + "': Add of two constants is not supported");
      // Of a whole constant map (a position embedding): the map preloaded.
      for (int& id : n.in)
        if (g.val(id).is_const) {
          const int other = n.in[&id == &n.in[0] ? 1 : 0];
          if (!preloadable(g.val(id), g.val(other).shape))
            throw CompileError("node '" + n.name + "': Add of a constant is supported of one value per element of the "
                               "activation (a position embedding), not broadcast");
          id = preload_constant(g, id);
        }
      if (!(g.val(n.in[0]).shape == g.val(n.in[1]).shape))
        throw CompileError("node '" + n.name + "': Add with broadcasting is not supported");
    } else if (n.op == OpKind::Concat && !n.gather.empty()) {
      const Shape& x = g.val(n.in[0]).shape;
      const Shape& y = g.val(n.out[0]).shape;
      if (n.in.size() != 1 || x.c <= 0 || y.c % x.c != 0 ||
          static_cast<std::int64_t>(n.gather.size()) * x.c != y.numel() ||
          std::any_of(n.gather.begin(), n.gather.end(), [&](std::int64_t p) { return p < 0 || p >= x.h * x.w; }))
        throw CompileError("node '" + n.name + "': a pixel gather whose output is not whole pixels of its input");
    } else if (n.op == OpKind::Concat) {
      // The channel axis of the activation view: 0 of [K], 1 of [B, K] and
      // of [1, C, H(, W)]; or the rows of a [T, C] matrix (axis 0), whose
      // inputs' pixels follow each other (a class token before the patches).
      const auto rank = static_cast<std::int64_t>(g.val(n.out[0]).dims.size());
      auto axis = attr_i(n, "axis", 1);
      if (axis < 0) axis += rank;
      n.concat_rows = rank == 2 && axis == 0;
      if (axis != (rank == 1 ? 0 : 1) && !n.concat_rows)
        throw CompileError("node '" + n.name + "': Concat is supported along the channel axis, or the rows of a [T, C] "
                           "matrix, only");
      for (int& id : n.in)
        if (g.val(id).is_const) id = preload_constant(g, id);
      std::int64_t pixels = 0;
      for (const int id : n.in) {
        const Shape& s = g.val(id).shape;
        pixels += s.h * s.w;
        if (n.concat_rows && s.c != g.val(n.out[0]).shape.c)
          throw CompileError("node '" + n.name + "': Concat along the rows of inputs with different channel counts");
      }
      if (n.concat_rows && pixels != g.val(n.out[0]).shape.h)
        throw CompileError("node '" + n.name + "': Concat along the rows: the inputs' pixels are not the output's rows");
    } else if (n.op == OpKind::AveragePool) {
      const ConvGeom& c = n.geom;
      if ((c.pt || c.pl || c.pb || c.pr) && attr_i(n, "count_include_pad", 0) == 0)
        throw CompileError("node '" + n.name + "': AveragePool with padding needs count_include_pad=1");
    } else if (n.op == OpKind::Conv) {
      const Value& w = g.val(n.in[1]);
      const Shape& in = g.val(n.in[0]).shape;
      if (w.dims.size() != 4 || w.dims[1] * n.geom.group != in.c)
        throw CompileError("node '" + n.name + "': weight shape does not match input channels and group");
      // The interpreters and the emitter index the weights by the geometry.
      const Shape& out = g.val(n.out[0]).shape;
      if (w.dims[0] != out.c || w.dims[2] != n.geom.kh || w.dims[3] != n.geom.kw ||
          static_cast<std::int64_t>(w.data.size()) != w.dims[0] * w.dims[1] * w.dims[2] * w.dims[3])
        throw CompileError("node '" + n.name + "': weight shape does not match the output channels and kernel " +
                           std::to_string(n.geom.kh) + "x" + std::to_string(n.geom.kw));
      if (n.in.size() > 2 && n.in[2] >= 0 && static_cast<std::int64_t>(g.val(n.in[2]).data.size()) != out.c)
        throw CompileError("node '" + n.name + "': bias needs one value per output channel");
    }
  }
  for (int in : g.inputs)
    if (g.val(in).shape.numel() <= 0) throw CompileError("graph input '" + g.val(in).name + "' has no shape");
  // A 5-D view (import lets one through between a Reshape and a Transpose)
  // must have gone with its channel shuffle.
  for (const Node& n : g.nodes)
    for (const int id : n.in)
      if (id >= 0 && !g.val(id).is_const && g.val(id).dims.size() > 4)
        throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): reads the " +
                           std::to_string(g.val(id).dims.size()) + "-D tensor '" + g.val(id).name +
                           "'; supported ranks are 1 to 4 (5-D only inside a channel shuffle)");
  // Output size from the window geometry against the inferred shape: a
  // model whose attributes contradict its shapes is refused here, not
  // indexed out of bounds later.
  for (const Node& n : g.nodes) {
    if (!op_has(n.op, op_window) || n.in.empty() || n.in[0] < 0) continue;
    const ConvGeom& c = n.geom;
    const Shape& in = g.val(n.in[0]).shape;
    const Shape& out = g.val(n.out[0]).shape;
    auto expect = [](std::int64_t i, int k, int s, int d, int lo, int hi) {
      return (i + lo + hi - (std::int64_t{k} - 1) * d - 1) / s + 1;
    };
    if (c.sh < 1 || c.sw < 1 || c.dh < 1 || c.dw < 1 || c.kh < 1 || c.kw < 1 ||
        expect(in.h, c.kh, c.sh, c.dh, c.pt, c.pb) != out.h || expect(in.w, c.kw, c.sw, c.dw, c.pl, c.pr) != out.w)
      throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): output " + std::to_string(out.h) + "x" +
                         std::to_string(out.w) + " does not follow from input " + std::to_string(in.h) + "x" +
                         std::to_string(in.w) + ", kernel, strides, dilations and pads");
  }
  // Folding can turn finite constants into non-finite ones (a variance of
  // -eps, a product beyond float range): quantization must never see them.
  for (const Node& n : g.nodes)
    for (const int id : n.in) {
      if (id < 0 || !g.val(id).is_const) continue;
      for (const float v : g.val(id).data)
        if (!std::isfinite(v))
          throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): constant '" + g.val(id).name +
                             "' is not finite after folding (e.g. a BatchNormalization variance + epsilon <= 0)");
    }
}

}  // namespace vp::cc
