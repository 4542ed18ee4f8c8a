// Quantize: INT8 symmetric per-output-channel weights, INT8 symmetric
// per-tensor activations (zero point 0) with scales from the largest
// magnitude each tensor reaches over the calibration inputs, INT32 biases
// and accumulators, and fixed-point (M, S) requantization; see int_arith.h
// for the arithmetic the chip applies with these numbers.
//
// Zero points are 0 everywhere: padding is then the value 0, ReLU is a max
// with 0, and the crossbar needs no input-offset correction. The price is
// one bit of range for tensors that are never negative.
#include <algorithm>
#include <cmath>
#include <random>

#include "int_arith.h"
#include "softmax_int.h"
#include "table_function.h"
#include "vp/cc/passes.h"
#include "vp/common/host_threads.h"
#include "vp/common/quantize.h"

namespace vp::cc {
namespace {

// Fixed shift of the residual Add's input multipliers: inputs are scaled to
// the output step with 16 fractional bits before the sum is rounded.
constexpr int kAddShift = 16;

int q_bound(float v, double scale) {
  if (std::isinf(v)) return v < 0 ? -128 : 127;
  return static_cast<int>(std::clamp<double>(std::nearbyint(v / scale), -128, 127));
}

void set_act_bounds(Node& n, const Value& out) {
  if (n.act == Act::relu) n.q.lo = 0;
  if (n.act == Act::clip) {
    n.q.lo = q_bound(n.clip_lo, out.scale);
    n.q.hi = q_bound(n.clip_hi, out.scale);
  }
}

void push_fixed(QuantParams& q, double m) {
  std::int32_t M = 0, S = 0;
  fixed_point(m, M, S);
  q.mult.push_back(M);
  q.shift.push_back(S);
}

void quantize_conv(Graph& g, Node& n) {
  const Value& x = g.val(n.in[0]);
  const Value& w = g.val(n.in[1]);
  const Value& b = g.val(n.in[2]);
  Value& y = g.val(n.out[0]);
  const std::size_t N = static_cast<std::size_t>(w.dims[0]);
  const std::size_t per = w.data.size() / N;
  n.q.w.resize(w.data.size());
  // Sums stay exact in 32 bits, on the chip and in the golden model
  // (conv_kernels.h): K x max|w| x 128 below 2^31.
  // n.weight_bits (--weight-bits): symmetric, +-(2^(bits-1) - 1).
  const double top = double((1 << (n.weight_bits - 1)) - 1);
  if (double(per) * top * 128.0 >= 2147483648.0)
    throw CompileError("node '" + n.name + "': " + std::to_string(per) + " weights per output channel of " +
                       std::to_string(n.weight_bits) + " bits can sum past 32 bits; give it fewer with --weight-bits");
  for (std::size_t oc = 0; oc < N; ++oc) {
    float mx = 0;
    for (std::size_t i = 0; i < per; ++i) mx = std::max(mx, std::fabs(w.data[oc * per + i]));
    const double ws = mx > 0 ? mx / top : 1.0;
    for (std::size_t i = 0; i < per; ++i)
      n.q.w[oc * per + i] = static_cast<std::int16_t>(std::clamp<double>(std::nearbyint(w.data[oc * per + i] / ws), -top, top));
    const double acc_scale = x.scale * ws;
    n.q.bias.push_back(static_cast<std::int32_t>(sat32(std::llround(b.data[oc] / acc_scale))));
    push_fixed(n.q, acc_scale / y.scale);
  }
  set_act_bounds(n, y);
  y.nonneg = n.q.lo >= 0;
}

// LayerNormalization over the C channels of each pixel (QuantParams::Norm).
// frac is the most fraction bits that keep sum(d^2) < 2^31 (|d| < 2^(8 +
// frac)); mean_shift keeps |sum(x) * mean_mult| < 2^31. The output step is
// the calibrated one; gamma * sqrt(C) / (2^31 * s_y) per channel turns
// d * r into output codes, as d * r = 2^31 * d / sqrt(sum(d^2) + eps) and
// the normalized value is sqrt(C) * d / sqrt(sum(d^2) + eps).
void quantize_layer_norm(Graph& g, Node& n) {
  const Value& x = g.val(n.in[0]);
  Value& y = g.val(n.out[0]);
  const std::int64_t C = x.shape.c;
  if (C > 32768)
    throw CompileError("node '" + n.name + "': LayerNormalization over " + std::to_string(C) +
                       " channels; at most 32768 are supported (the sum of squares is 32-bit)");
  int f = 0;
  while (f < 6 && (C << (16 + 2 * (f + 1))) <= (std::int64_t{1} << 31)) ++f;
  n.q.norm.frac = f;
  n.q.norm.mean_shift = 23 - f;
  n.q.norm.mean_mult = static_cast<std::int32_t>(std::llround(std::ldexp(1.0, 23) / double(C)));
  const double eps = n.floats.count("epsilon") ? double(n.floats.at("epsilon")) : 1e-5;
  const double e = eps / (x.scale * x.scale) * std::ldexp(1.0, 2 * f) * double(C);
  n.q.norm.eps = static_cast<std::int32_t>(std::min(std::ldexp(1.0, 30), std::round(e)));
  const auto& gamma = g.val(n.in[1]).data;
  const auto& beta = g.val(n.in[2]).data;
  for (std::int64_t c = 0; c < C; ++c) {
    const auto i = static_cast<std::size_t>(c);
    push_fixed(n.q, double(gamma[i]) * std::sqrt(double(C)) / (std::ldexp(1.0, 31) * y.scale));
    n.q.bias.push_back(static_cast<std::int32_t>(sat8(std::llround(double(beta[i]) / y.scale))));
  }
  y.nonneg = false;
}

// The largest |x| of a tensor: 16 running maxima, then theirs (a maximum
// is the same in any order; a NaN is passed over as std::max passes it).
float max_abs(const std::vector<float>& d) {
  constexpr std::size_t kLanes = 16;
  float m[kLanes] = {};
  std::size_t i = 0;
  for (; i + kLanes <= d.size(); i += kLanes)
    for (std::size_t k = 0; k < kLanes; ++k) m[k] = std::max(m[k], std::fabs(d[i + k]));
  for (; i < d.size(); ++i) m[0] = std::max(m[0], std::fabs(d[i]));
  return *std::max_element(m, m + kLanes);
}

// One calibration input's range of every value: its largest |x|, or the
// given percentile of |x|; 0 for constants.
std::vector<float> input_ranges(const Graph& g, const std::vector<FTensor>& set, double percentile,
                                const Fp32Weights& packed) {
  std::vector<float> range(g.values.size(), 0.f);
  std::vector<float> mag;
  run_fp32_visit(g, set, [&](int id, const FTensor& t) {
    if (t.data.empty()) return;
    float& r = range[static_cast<std::size_t>(id)];
    if (percentile >= 100) {
      r = max_abs(t.data);
      return;
    }
    mag.resize(t.data.size());
    std::transform(t.data.begin(), t.data.end(), mag.begin(), [](float v) { return std::fabs(v); });
    const auto k = std::min(mag.size() - 1, static_cast<std::size_t>(std::ceil(percentile / 100.0 * double(mag.size()))) - 1);
    std::nth_element(mag.begin(), mag.begin() + static_cast<std::ptrdiff_t>(k), mag.end());
    r = mag[k];
  }, &packed);
  return range;
}

}  // namespace

std::vector<std::vector<FTensor>> default_calibration(const Graph& g, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> nd(0.f, 1.f);
  std::vector<std::vector<FTensor>> sets;
  for (int k = 0; k < count; ++k) {
    std::vector<FTensor> in;
    for (int id : g.inputs) {
      FTensor t;
      t.shape = g.val(id).shape;
      t.data.resize(static_cast<std::size_t>(t.shape.numel()));
      for (auto& v : t.data) v = nd(rng);
      in.push_back(std::move(t));
    }
    sets.push_back(std::move(in));
  }
  return sets;
}

void quantize(Graph& g, const std::vector<std::vector<FTensor>>& calib, double percentile, unsigned threads) {
  if (calib.empty()) throw CompileError("quantize: no calibration inputs");
  if (!(percentile > 0 && percentile <= 100)) throw CompileError("quantize: percentile must be in (0, 100]");
  threads = common::host_threads(threads);
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, calib.size()));
  const Fp32Weights packed = pack_fp32_weights(g, threads);
  // Each input's range of every value, on worker threads; merged in input
  // order (a maximum, so the order is moot, but the first error reported
  // is that of the first input that fails whatever the thread count).
  std::vector<std::vector<float>> ranges(calib.size());
  common::for_each_index(calib.size(), threads,
                         [&](std::size_t k) { ranges[k] = input_ranges(g, calib[k], percentile, packed); });
  std::vector<float> amax(g.values.size(), 0.f);
  for (const auto& r : ranges)
    for (std::size_t i = 0; i < amax.size(); ++i) amax[i] = std::max(amax[i], r[i]);
  for (std::size_t i = 0; i < g.values.size(); ++i)
    if (!g.values[i].is_const) g.values[i].scale = amax[i] > 0 ? amax[i] / 127.0 : 1.0;
  // A preloaded map's codes, rounded as an input's are (C x H x W), at the
  // step of its own largest |value|: it is known exactly, so no percentile
  // of the calibration clips it.
  for (Value& v : g.values) {
    if (!v.preload) continue;
    if (v.softmax_mask) {  // codes of its own (Value::softmax_mask)
      v.scale = 1.0;
      v.nonneg = false;
      continue;
    }
    const float m = max_abs(v.data);
    v.scale = m > 0 ? m / 127.0 : 1.0;
    const FTensor t = from_onnx_order(v, v.data);
    v.codes.clear();
    v.nonneg = true;
    for (const float f : t.data) {
      v.codes.push_back(vp::common::quantize_int8(f, v.scale));
      v.nonneg = v.nonneg && v.codes.back() >= 0;
    }
  }

  for (Node& n : g.nodes) {
    const Value& x = g.val(n.in[0]);
    Value& y = g.val(n.out[0]);
    n.q = QuantParams{};
    switch (n.op) {
      case OpKind::Conv:
        quantize_conv(g, n);
        break;
      case OpKind::Add: {
        const Value& b = g.val(n.in[1]);
        n.q.mult = {static_cast<std::int32_t>(std::llround(std::ldexp(x.scale / y.scale, kAddShift))),
                    static_cast<std::int32_t>(std::llround(std::ldexp(b.scale / y.scale, kAddShift)))};
        n.q.shift = {kAddShift};
        set_act_bounds(n, y);
        y.nonneg = n.q.lo >= 0;
        break;
      }
      case OpKind::Mul: {
        const Value& b = g.val(n.in[1]);
        if (!b.is_const) {  // of two activations: s_a * s_b / s_y
          push_fixed(n.q, x.scale * b.scale / y.scale);
          y.nonneg = x.nonneg && b.nonneg;
          break;
        }
        const auto& k = b.data;
        for (float c : k) push_fixed(n.q, x.scale * c / y.scale);
        y.nonneg = x.nonneg && std::all_of(k.begin(), k.end(), [](float c) { return c >= 0; });
        break;
      }
      case OpKind::Relu:
      case OpKind::Clip:
        // Same step as the input: the activation is a clamp of int8 codes.
        y.scale = x.scale;
        if (n.op == OpKind::Relu) n.q.lo = 0;
        else {
          n.q.lo = q_bound(n.clip_lo, y.scale);
          n.q.hi = q_bound(n.clip_hi, y.scale);
        }
        y.nonneg = n.q.lo >= 0 || x.nonneg;
        break;
      case OpKind::LeakyRelu:
      case OpKind::Sigmoid:
      case OpKind::Tanh:
      case OpKind::HardSigmoid:
      case OpKind::HardSwish:
      case OpKind::Erf:
      case OpKind::Gelu: {
        // One entry per input code: the function at the code's real value,
        // rounded to the output's calibrated step. Non-negative when every
        // code the input can hold maps to a non-negative entry.
        y.nonneg = true;
        for (int code = -128; code < 128; ++code) {
          const auto q = static_cast<std::int8_t>(sat8(std::llround(table_function(n, code * x.scale) / y.scale)));
          n.q.lut.push_back(q);
          if (q < 0 && (code >= 0 || !x.nonneg)) y.nonneg = false;
        }
        break;
      }
      case OpKind::LayerNormalization:
        quantize_layer_norm(g, n);
        break;
      case OpKind::MatMul: {  // of two activations: s_a * s_b * alpha / s_y
        const Value& b = g.val(n.in[1]);
        push_fixed(n.q, x.scale * b.scale * double(n.alpha) / y.scale);
        y.nonneg = x.nonneg && b.nonneg && n.alpha >= 0;
        break;
      }
      case OpKind::Softmax:
      {
        // The output step is 1/127 whatever the calibration saw (a
        // probability is at most 1); the table holds 127 * exp of each code
        // difference from the row's maximum, in steps of 2^shift input
        // steps (softmax_int.h).
        y.scale = kSoftmaxScale;
        y.nonneg = true;
        const int k = softmax_shift(x.scale);
        n.q.shift = {k};
        for (int code = -128; code < 128; ++code)
          n.q.lut.push_back(code == -128 ? std::int8_t{0}
                                         : static_cast<std::int8_t>(sat8(std::llround(
                                               127.0 * std::exp(std::min(0, code) * std::ldexp(x.scale, k))))));
        break;
      }
      case OpKind::MaxPool:
        y.scale = x.scale;
        y.nonneg = x.nonneg;
        break;
      case OpKind::AveragePool:
      case OpKind::GlobalAveragePool: {
        // The output keeps its own calibrated step: an average spans a much
        // narrower range than its inputs (ResNet's 7x7 global pooling), and
        // reusing the input step would leave it few int8 codes.
        const double count = n.op == OpKind::GlobalAveragePool ? double(x.shape.h * x.shape.w)
                                                               : double(n.geom.kh * n.geom.kw);
        push_fixed(n.q, x.scale / (count * y.scale));
        y.nonneg = x.nonneg;
        break;
      }
      case OpKind::Concat: {
        if (!n.gather.empty()) {  // a pixel gather copies codes: the input's step
          y.scale = g.val(n.in[0]).scale;
          y.nonneg = g.val(n.in[0]).nonneg;
          push_fixed(n.q, 1.0);
          break;
        }
        double s = 0;
        bool nn = true;
        for (int in : n.in) {
          // A preloaded map of zeros (a class token before training) has
          // no range of its own: its codes are 0 at any step.
          const Value& v = g.val(in);
          const bool zeros = v.preload && std::all_of(v.data.begin(), v.data.end(), [](float f) { return f == 0.f; });
          if (!zeros) s = std::max(s, v.scale);
          nn = nn && v.nonneg;
        }
        if (s == 0) s = 1.0;
        y.scale = s;
        for (int in : n.in) push_fixed(n.q, g.val(in).scale / s);
        y.nonneg = nn;
        break;
      }
      default:  // not a chip operator (operators.def): canonicalize removes it
        throw CompileError("quantize: node '" + n.name + "' has op " + op_name(n.op));
    }
  }
}

QTensor quantize_input(const Graph& g, int input_index, const FTensor& x) {
  const Value& v = g.val(g.inputs.at(static_cast<std::size_t>(input_index)));
  if (x.data.size() != static_cast<std::size_t>(v.shape.numel()))
    throw CompileError("input '" + v.name + "' needs " + std::to_string(v.shape.numel()) + " elements, got " +
                       std::to_string(x.data.size()));
  QTensor q;
  q.shape = v.shape;
  q.data.reserve(x.data.size());
  // vp/common/quantize.h: the rule vp-run applies to a float input too.
  for (float f : x.data) q.data.push_back(vp::common::quantize_int8(f, v.scale));
  return q;
}

FTensor dequantize(const Graph& g, int value_id, const QTensor& q) {
  FTensor f;
  f.shape = q.shape;
  for (auto c : q.data) f.data.push_back(static_cast<float>(c * g.val(value_id).scale));
  return f;
}

}  // namespace vp::cc
