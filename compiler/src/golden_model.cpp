// The golden model: a bit-exact integer interpreter of the quantized graph.
// Every step is the arithmetic the emitted program performs, in the same
// order (int_arith.h): crossbar MVM (exact int32 product), bias add, vrq,
// clamp; widen-scale-add-vrqs for residual adds; vpsum + vrqs for averages.
// The platform's output must equal it byte for byte in ideal mode.
#include <algorithm>

#include "int_arith.h"
#include "pixel_gather.h"
#include "softmax_int.h"
#include "vp/cc/conv_kernels.h"
#include "vp/cc/passes.h"
#include "vp/common/host_threads.h"
#include "vp/common/rsqrt.h"

namespace vp::cc {
namespace {

using I = std::int64_t;

std::int8_t clamp_q(const Node& n, I v) { return static_cast<std::int8_t>(std::clamp<I>(v, n.q.lo, n.q.hi)); }

QTensor conv(const Graph& g, const Node& n, const QTensor& x, unsigned threads) {
  QTensor y;
  y.shape = g.val(n.out[0]).shape;
  y.data.resize(static_cast<std::size_t>(y.shape.numel()));
  // int32 accumulation is exact: |sum| <= K * 127 * 128 < 2^31 for any K the
  // chip can hold, which is also why the crossbar's int32 output never
  // saturates; conv_int8.cpp may therefore sum in any order.
  ConvInt8Args a;
  a.geom = &n.geom;
  a.x = x.shape;
  a.y = y.shape;
  a.in = x.data.data();
  // Input bits (input_bits.cpp): the codes the crossbars read, x / 2^s
  // rounded (vsra) and clamped to input_bits signed (vclamp).
  std::vector<std::int8_t> low;
  if (n.input_bits < 8) {
    low.resize(x.data.size());
    const int s = 8 - n.input_bits;
    const I top = (I{1} << (n.input_bits - 1)) - 1;
    for (std::size_t i = 0; i < low.size(); ++i)
      low[i] = static_cast<std::int8_t>(std::clamp<I>(round_shift(x.data[i], s), -top - 1, top));
    a.in = low.data();
  }
  a.w = n.q.w.data();
  a.threads = threads;
  const std::vector<std::int32_t> acc = conv_int8(a);
  const I hw = y.shape.h * y.shape.w;
  for (I oc = 0; oc < y.shape.c; ++oc) {
    const auto uoc = static_cast<std::size_t>(oc);
    for (I i = oc * hw; i < (oc + 1) * hw; ++i) {
      const I v = sat32(sat32(acc[static_cast<std::size_t>(i)]) + n.q.bias[uoc]);
      y.data[static_cast<std::size_t>(i)] = clamp_q(n, requant(v, n.q.mult[uoc], n.q.shift[uoc]));
    }
  }
  return y;
}

// LayerNormalization per pixel, the steps of emit_norm.cpp: the sum by
// vpsum, the mean by muli/addi/srai, d by vmuls/vadds, sum(d^2) by vmul and
// vpsum (saturating int32), rsqrt, d * r by vmuls (saturating), vrq, then
// beta's codes by a saturating int8 vadd.
QTensor layer_norm(const Node& n, const QTensor& x) {
  QTensor y;
  y.shape = x.shape;
  y.data.resize(x.data.size());
  const I C = x.shape.c, hw = x.shape.h * x.shape.w;
  const auto& p = n.q.norm;
  for (I px = 0; px < hw; ++px) {
    const auto at = [&](I c) { return static_cast<std::size_t>(c * hw + px); };
    I s1 = 0;
    for (I c = 0; c < C; ++c) s1 += x.data[at(c)];
    const I mean = (sat32(s1) * p.mean_mult + (I{1} << (p.mean_shift - 1))) >> p.mean_shift;
    I q = 0;
    for (I c = 0; c < C; ++c) {
      const I d = x.data[at(c)] * (I{1} << p.frac) - mean;
      q += d * d;
    }
    const auto v = static_cast<std::uint32_t>(static_cast<std::uint32_t>(sat32(q)) + static_cast<std::uint32_t>(p.eps));
    const I r = vp::common::rsqrt_q31(v);
    for (I c = 0; c < C; ++c) {
      const I d = x.data[at(c)] * (I{1} << p.frac) - mean;
      const auto k = static_cast<std::size_t>(c);
      const I t = sat32(d * r);
      const I o = std::clamp<I>(round_shift(t * n.q.mult[k], n.q.shift[k]), -128, 127);
      y.data[at(c)] = static_cast<std::int8_t>(std::clamp<I>(o + n.q.bias[k], -128, 127));
    }
  }
  return y;
}

// MatMul of two activations (emit_matmul.cpp): exact int32 dot products of
// int8 codes (|sum| <= K * 2^14), one requantization.
QTensor matmul(const Graph& g, const Node& n, const QTensor& a, const QTensor& b) {
  QTensor y;
  y.shape = g.val(n.out[0]).shape;
  const I h = n.heads, M = a.shape.h, K = a.shape.c / h, N = y.shape.c / h, rows = b.shape.h;
  // Inside windows (Node::windows) row m reads B's block of its window.
  const I wins = std::max(1, n.windows), per = M / wins, block = rows / wins;
  y.data.resize(static_cast<std::size_t>(h * N * M));
  for (I hh = 0; hh < h; ++hh)
    for (I m = 0; m < M; ++m)
      for (I j = 0; j < N; ++j) {
        const I b0 = m / per * block;
        I s = 0;
        for (I k = 0; k < K; ++k)
          s += I{a.data[static_cast<std::size_t>((hh * K + k) * M + m)]} *
               b.data[static_cast<std::size_t>(n.trans_b ? (hh * K + k) * rows + b0 + j : (hh * N + j) * rows + b0 + k)];
        // Beside a causal Softmax the scores n > m are not computed: 0.
        y.data[static_cast<std::size_t>((hh * N + j) * M + m)] =
            n.causal && n.trans_b && j > m ? std::int8_t{0}
                                           : static_cast<std::int8_t>(requant(sat32(s), n.q.mult[0], n.q.shift[0]));
      }
  return y;
}

// Softmax per pixel over runs of n.group channels (softmax_int.h), the
// causal mask leaving pixel row t its first t + 1 channels of each run.
QTensor softmax(const Node& n, const QTensor& x, const QTensor* mask) {
  QTensor y;
  y.shape = x.shape;
  y.data.resize(x.data.size());
  const I C = x.shape.c, hw = x.shape.h * x.shape.w, G = n.group > 0 ? n.group : C;
  std::vector<std::int8_t> px(static_cast<std::size_t>(C)), out(static_cast<std::size_t>(C)), keep(static_cast<std::size_t>(C));
  for (I p = 0; p < hw; ++p) {
    for (I c = 0; c < C; ++c) px[static_cast<std::size_t>(c)] = x.data[static_cast<std::size_t>(c * hw + p)];
    const I active = n.causal ? std::min(G, p / x.shape.w + 1) : G;
    // The mask of each channel: 127 where it counts, -128 where it is masked.
    for (I c = 0; c < C; ++c)
      keep[static_cast<std::size_t>(c)] =
          c % G >= active || (mask && mask->data[static_cast<std::size_t>(c * hw + p)] < 0) ? -128 : 127;
    for (I g0 = 0; g0 < C; g0 += G)
      softmax_run(px.data() + g0, out.data() + g0, G, keep.data() + g0, n.q.lut, n.q.shift[0]);
    for (I c = 0; c < C; ++c) y.data[static_cast<std::size_t>(c * hw + p)] = out[static_cast<std::size_t>(c)];
  }
  return y;
}

QTensor pool(const Graph& g, const Node& n, const QTensor& x, bool max) {
  const ConvGeom& c = n.geom;
  QTensor y;
  y.shape = g.val(n.out[0]).shape;
  y.data.resize(static_cast<std::size_t>(y.shape.numel()));
  for (I ch = 0; ch < y.shape.c; ++ch)
    for (I oh = 0; oh < y.shape.h; ++oh)
      for (I ow = 0; ow < y.shape.w; ++ow) {
        I m = -128, sum = 0;
        for (int r = 0; r < c.kh; ++r)
          for (int s = 0; s < c.kw; ++s) {
            const I ih = oh * c.sh - c.pt + r * c.dh, iw = ow * c.sw - c.pl + s * c.dw;
            if (ih < 0 || ih >= x.shape.h || iw < 0 || iw >= x.shape.w) continue;  // border: -128 for max, 0 for sum
            const I v = x.data[static_cast<std::size_t>((ch * x.shape.h + ih) * x.shape.w + iw)];
            m = std::max(m, v);
            sum += v;
          }
        y.data[static_cast<std::size_t>((ch * y.shape.h + oh) * y.shape.w + ow)] =
            static_cast<std::int8_t>(max ? m : requant(sat32(sum), n.q.mult[0], n.q.shift[0]));
      }
  return y;
}

}  // namespace

std::vector<QTensor> run_golden_all(const Graph& g, const std::vector<QTensor>& inputs, unsigned threads) {
  threads = common::host_threads(threads);
  if (inputs.size() != g.inputs.size())
    throw CompileError("model has " + std::to_string(g.inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::vector<QTensor> v(g.values.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Value& gv = g.val(g.inputs[i]);
    if (inputs[i].data.size() != static_cast<std::size_t>(gv.shape.numel()))
      throw CompileError("input '" + gv.name + "' needs " + std::to_string(gv.shape.numel()) + " elements");
    v[static_cast<std::size_t>(g.inputs[i])] = QTensor{gv.shape, inputs[i].data};
  }
  for (std::size_t id = 0; id < g.values.size(); ++id)
    if (g.values[id].preload) {
      if (g.values[id].codes.size() != static_cast<std::size_t>(g.values[id].shape.numel()))
        throw CompileError("golden model: preloaded map '" + g.values[id].name + "' is not quantized");
      v[id] = QTensor{g.values[id].shape, g.values[id].codes};
    }
  for (const Node& n : g.nodes) {
    const QTensor& x = v[static_cast<std::size_t>(n.in[0])];
    QTensor y;
    y.shape = g.val(n.out[0]).shape;
    const std::size_t hw = static_cast<std::size_t>(x.shape.h * x.shape.w);
    switch (n.op) {
      case OpKind::Conv:
        y = conv(g, n, x, threads);
        break;
      case OpKind::Add: {
        const QTensor& b = v[static_cast<std::size_t>(n.in[1])];
        for (std::size_t i = 0; i < x.data.size(); ++i) {
          const I s = sat32(sat32(I{x.data[i]} * n.q.mult[0]) + sat32(I{b.data[i]} * n.q.mult[1]));
          y.data.push_back(clamp_q(n, requant(s, 1, n.q.shift[0])));
        }
        break;
      }
      case OpKind::Mul:
        if (!g.val(n.in[1]).is_const) {
          // Of two activations: the exact product (at most 2^14), then one
          // requantization (vwiden, vmul, vrqs).
          const auto& b = v[static_cast<std::size_t>(n.in[1])].data;
          const bool each = b.size() == x.data.size();
          for (std::size_t i = 0; i < x.data.size(); ++i)
            y.data.push_back(static_cast<std::int8_t>(
                requant(I{x.data[i]} * b[each ? i : i / hw], n.q.mult[0], n.q.shift[0])));
          break;
        }
        for (std::size_t i = 0; i < x.data.size(); ++i) {
          const std::size_t k = n.q.mult.size() == 1 ? 0 : i / hw;
          y.data.push_back(static_cast<std::int8_t>(requant(x.data[i], n.q.mult[k], n.q.shift[k])));
        }
        break;
      case OpKind::Relu:
      case OpKind::Clip:
        for (auto q : x.data) y.data.push_back(clamp_q(n, q));
        break;
      case OpKind::MaxPool:
      case OpKind::AveragePool:
        y = pool(g, n, x, n.op == OpKind::MaxPool);
        break;
      case OpKind::GlobalAveragePool:
        for (std::size_t c = 0; c < static_cast<std::size_t>(x.shape.c); ++c) {
          I s = 0;
          for (std::size_t i = 0; i < hw; ++i) s += x.data[c * hw + i];
          y.data.push_back(static_cast<std::int8_t>(requant(sat32(s), n.q.mult[0], n.q.shift[0])));
        }
        break;
      case OpKind::LayerNormalization:
        y = layer_norm(n, x);
        break;
      case OpKind::Softmax:
        y = softmax(n, x, n.in.size() > 1 ? &v[static_cast<std::size_t>(n.in[1])] : nullptr);
        break;
      case OpKind::MatMul:
        y = matmul(g, n, x, v[static_cast<std::size_t>(n.in[1])]);
        break;
      case OpKind::Concat:
        if (!n.gather.empty()) {  // copies: the codes at the input's step (quantize)
          y.data = gather_pixels(n, x.data, x.shape, y.shape);
          break;
        }
        if (n.concat_rows) {  // each input's pixels after the previous one's, channel by channel
          y.data.assign(static_cast<std::size_t>(y.shape.numel()), 0);
          std::int64_t off = 0;
          for (std::size_t k = 0; k < n.in.size(); ++k) {
            const QTensor& t = v[static_cast<std::size_t>(n.in[k])];
            const std::int64_t P = t.shape.h * t.shape.w;
            for (std::int64_t c = 0; c < y.shape.c; ++c)
              for (std::int64_t p = 0; p < P; ++p)
                y.data[static_cast<std::size_t>(c * y.shape.h + off + p)] = static_cast<std::int8_t>(
                    requant(t.data[static_cast<std::size_t>(c * P + p)], n.q.mult[k], n.q.shift[k]));
            off += P;
          }
          break;
        }
        for (std::size_t k = 0; k < n.in.size(); ++k)
          for (auto q : v[static_cast<std::size_t>(n.in[k])].data)
            y.data.push_back(static_cast<std::int8_t>(requant(q, n.q.mult[k], n.q.shift[k])));
        break;
      default:
        if (op_has(n.op, op_table)) {  // the table quantize built (operators.def)
          for (auto q : x.data) y.data.push_back(n.q.lut[static_cast<std::size_t>(q + 128)]);
          break;
        }
        // not a chip operator (operators.def): canonicalize removes it
        throw CompileError("golden model: node '" + n.name + "' has op " + op_name(n.op));
    }
    v[static_cast<std::size_t>(n.out[0])] = std::move(y);
  }
  return v;
}

std::vector<QTensor> run_golden(const Graph& g, const std::vector<QTensor>& inputs, unsigned threads) {
  auto v = run_golden_all(g, inputs, threads);
  std::vector<QTensor> out;
  for (int o : g.outputs) out.push_back(std::move(v[static_cast<std::size_t>(o)]));
  return out;
}

std::vector<std::int8_t> to_hwc(const QTensor& t) {
  const auto C = t.shape.c, H = t.shape.h, W = t.shape.w;
  std::vector<std::int8_t> out(t.data.size());
  for (I c = 0; c < C; ++c)
    for (I h = 0; h < H; ++h)
      for (I w = 0; w < W; ++w)
        out[static_cast<std::size_t>((h * W + w) * C + c)] = t.data[static_cast<std::size_t>((c * H + h) * W + w)];
  return out;
}

QTensor from_hwc(const Shape& s, const std::vector<std::int8_t>& bytes) {
  QTensor t;
  t.shape = s;
  t.data.resize(bytes.size());
  for (I c = 0; c < s.c; ++c)
    for (I h = 0; h < s.h; ++h)
      for (I w = 0; w < s.w; ++w)
        t.data[static_cast<std::size_t>((c * s.h + h) * s.w + w)] = bytes[static_cast<std::size_t>((h * s.w + w) * s.c + c)];
  return t;
}

}  // namespace vp::cc
