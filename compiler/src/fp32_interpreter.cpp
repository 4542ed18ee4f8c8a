// FP32 reference interpreter of the canonical graph: what the quantizer
// calibrates against and what the tests measure quantization error with.
// NCHW (batch 1), ONNX semantics; convolutions in conv_fp32.cpp.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "pixel_gather.h"
#include "table_function.h"
#include "vp/cc/conv_kernels.h"
#include "vp/cc/passes.h"
#include "vp/common/host_threads.h"

namespace vp::cc {
namespace {

// Both write into y, whose shape is set and whose buffer may be reused.
void conv(const Graph& g, const Node& n, const FTensor& x, const std::vector<float>* packed, FTensor& y) {
  y.data.resize(static_cast<std::size_t>(y.shape.numel()));
  ConvFp32Args a;
  a.geom = &n.geom;
  a.x = x.shape;
  a.y = y.shape;
  a.in = x.data.data();
  a.w = g.val(n.in[1]).data.data();
  a.bias = g.val(n.in[2]).data.data();
  a.act = n.act;
  a.clip_lo = n.clip_lo;
  a.clip_hi = n.clip_hi;
  if (packed != nullptr && !packed->empty()) a.packed = packed->data();
  conv_fp32(a, y.data.data());  // conv_fp32.cpp: the fixed summation order
}

void pool(const Node& n, const FTensor& x, bool max, bool include_pad, FTensor& y) {
  const ConvGeom& c = n.geom;
  y.data.resize(static_cast<std::size_t>(y.shape.numel()));
  for (std::int64_t ch = 0; ch < y.shape.c; ++ch)
    for (std::int64_t oh = 0; oh < y.shape.h; ++oh)
      for (std::int64_t ow = 0; ow < y.shape.w; ++ow) {
        float m = -std::numeric_limits<float>::infinity();
        double sum = 0;
        int count = 0;
        for (int r = 0; r < c.kh; ++r)
          for (int s = 0; s < c.kw; ++s) {
            const std::int64_t ih = oh * c.sh - c.pt + r * c.dh, iw = ow * c.sw - c.pl + s * c.dw;
            if (ih < 0 || ih >= x.shape.h || iw < 0 || iw >= x.shape.w) {
              if (include_pad) ++count;
              continue;
            }
            const float v = x.data[static_cast<std::size_t>((ch * x.shape.h + ih) * x.shape.w + iw)];
            m = std::max(m, v);
            sum += v;
            ++count;
          }
        y.data[static_cast<std::size_t>((ch * y.shape.h + oh) * y.shape.w + ow)] =
            max ? m : static_cast<float>(sum / count);
      }
}

// One node's output from the values computed before it.
// `buf`: storage of a tensor freed earlier, reused to spare the page faults
// of fresh memory.
FTensor eval_node(const Graph& g, const Node& n, const std::vector<FTensor>& v, const std::vector<float>* packed,
                  std::vector<float> buf) {
  const FTensor& x = v[static_cast<std::size_t>(n.in[0])];
  FTensor y;
  y.shape = g.val(n.out[0]).shape;
  y.data = std::move(buf);
  y.data.clear();
  switch (n.op) {
    case OpKind::Conv:
      conv(g, n, x, packed, y);
      break;
    case OpKind::Add: {
      const FTensor& b = v[static_cast<std::size_t>(n.in[1])];
      y.data.resize(x.data.size());
      // One loop per activation, so each vectorizes (act() element-wise).
      const float *xa = x.data.data(), *xb = b.data.data();
      float* yd = y.data.data();
      const std::size_t count = x.data.size();
      if (n.act == Act::relu)
        for (std::size_t i = 0; i < count; ++i) yd[i] = std::max(xa[i] + xb[i], 0.f);
      else if (n.act == Act::clip)
        for (std::size_t i = 0; i < count; ++i) yd[i] = std::min(std::max(xa[i] + xb[i], n.clip_lo), n.clip_hi);
      else
        for (std::size_t i = 0; i < count; ++i) yd[i] = xa[i] + xb[i];
      break;
    }
    case OpKind::Mul: {
      // By a constant (a scalar or one per channel), or by an activation of
      // the same shape or of one value per channel (canonicalize).
      const Value& kv = g.val(n.in[1]);
      const auto& k = kv.is_const ? kv.data : v[static_cast<std::size_t>(n.in[1])].data;
      const std::size_t hw = static_cast<std::size_t>(x.shape.h * x.shape.w);
      y.data.resize(x.data.size());
      if (k.size() == x.data.size())
        for (std::size_t i = 0; i < x.data.size(); ++i) y.data[i] = x.data[i] * k[i];
      else
        for (std::size_t i = 0; i < x.data.size(); ++i) y.data[i] = x.data[i] * k[k.size() == 1 ? 0 : i / hw];
      break;
    }
    case OpKind::Relu:
      y.data.resize(x.data.size());
      for (std::size_t i = 0; i < x.data.size(); ++i) y.data[i] = std::max(x.data[i], 0.f);
      break;
    case OpKind::Clip:
      y.data.resize(x.data.size());
      for (std::size_t i = 0; i < x.data.size(); ++i) y.data[i] = std::min(std::max(x.data[i], n.clip_lo), n.clip_hi);
      break;
    case OpKind::MaxPool:
    case OpKind::AveragePool:
      pool(n, x, n.op == OpKind::MaxPool, n.ints.count("count_include_pad") && n.ints.at("count_include_pad")[0] != 0,
           y);
      break;
    case OpKind::GlobalAveragePool: {
      const std::size_t hw = static_cast<std::size_t>(x.shape.h * x.shape.w);
      y.data.assign(static_cast<std::size_t>(x.shape.c), 0.f);
      for (std::size_t c = 0; c < y.data.size(); ++c) {
        double s = 0;
        for (std::size_t i = 0; i < hw; ++i) s += x.data[c * hw + i];
        y.data[c] = static_cast<float>(s / static_cast<double>(hw));
      }
      break;
    }
    case OpKind::LayerNormalization: {
      // Per pixel over the channels, in double as the definition reads.
      const auto C = static_cast<std::size_t>(x.shape.c), hw = static_cast<std::size_t>(x.shape.h * x.shape.w);
      const auto& gamma = g.val(n.in[1]).data;
      const auto& beta = g.val(n.in[2]).data;
      const double eps = n.floats.count("epsilon") ? double(n.floats.at("epsilon")) : 1e-5;
      y.data.resize(x.data.size());
      for (std::size_t p = 0; p < hw; ++p) {
        double mean = 0, var = 0;
        for (std::size_t c = 0; c < C; ++c) mean += x.data[c * hw + p];
        mean /= double(C);
        for (std::size_t c = 0; c < C; ++c) var += (x.data[c * hw + p] - mean) * (x.data[c * hw + p] - mean);
        const double inv = 1.0 / std::sqrt(var / double(C) + eps);
        for (std::size_t c = 0; c < C; ++c)
          y.data[c * hw + p] = static_cast<float>((x.data[c * hw + p] - mean) * inv * gamma[c] + beta[c]);
      }
      break;
    }
    case OpKind::MatMul: {
      // Of two activations (canonicalize_attention.cpp): `heads` products;
      // A is [M][heads][K], B [N][heads][K] (trans_b) or [K][heads][N], the
      // output [M][heads][N], each a C x H map of rows; summed in double.
      const FTensor& b = v[static_cast<std::size_t>(n.in[1])];
      const auto h = static_cast<std::size_t>(n.heads), M = static_cast<std::size_t>(x.shape.h),
                 K = static_cast<std::size_t>(x.shape.c) / h, N = static_cast<std::size_t>(y.shape.c) / h,
                 rows = static_cast<std::size_t>(b.shape.h);
      // Inside windows (Node::windows) row m reads B's block of its window.
      const auto wins = static_cast<std::size_t>(std::max(1, n.windows)), per = M / wins, block = rows / wins;
      y.data.assign(h * N * M, 0.f);
      for (std::size_t hh = 0; hh < h; ++hh)
        for (std::size_t m = 0; m < M; ++m)
          for (std::size_t j = 0; j < N; ++j) {
            const std::size_t b0 = m / per * block;
            double s = 0;
            for (std::size_t k = 0; k < K; ++k)
              s += double(x.data[(hh * K + k) * M + m]) *
                   b.data[n.trans_b ? (hh * K + k) * rows + b0 + j : (hh * N + j) * rows + b0 + k];
            y.data[(hh * N + j) * M + m] = static_cast<float>(s * n.alpha);
          }
      break;
    }
    case OpKind::Softmax: {
      // Per pixel over runs of n.group channels, in double; a causal mask
      // leaves pixel row t the first t + 1 channels of each run (0 after).
      const auto C = static_cast<std::size_t>(x.shape.c), hw = static_cast<std::size_t>(x.shape.h * x.shape.w);
      const std::size_t G = n.group > 0 ? static_cast<std::size_t>(n.group) : C;
      y.data.assign(x.data.size(), 0.f);
      // A mask input (Value::softmax_mask): a channel counts where it is >= 0.
      const FTensor* mask = n.in.size() > 1 ? &v[static_cast<std::size_t>(n.in[1])] : nullptr;
      for (std::size_t p = 0; p < hw; ++p) {
        const std::size_t active = n.causal ? std::min(G, p / static_cast<std::size_t>(x.shape.w) + 1) : G;
        for (std::size_t g0 = 0; g0 < C; g0 += G) {
          auto counts = [&](std::size_t j) { return j < active && (!mask || mask->data[(g0 + j) * hw + p] >= 0.f); };
          double m = -INFINITY, sum = 0;
          for (std::size_t j = 0; j < G; ++j)
            if (counts(j)) m = std::max(m, double(x.data[(g0 + j) * hw + p]));
          for (std::size_t j = 0; j < G; ++j)
            if (counts(j)) sum += std::exp(double(x.data[(g0 + j) * hw + p]) - m);
          for (std::size_t j = 0; j < G; ++j)
            if (counts(j))
              y.data[(g0 + j) * hw + p] = static_cast<float>(std::exp(double(x.data[(g0 + j) * hw + p]) - m) / sum);
        }
      }
      break;
    }
    case OpKind::Concat:
      if (!n.gather.empty()) {
        y.data = gather_pixels(n, v[static_cast<std::size_t>(n.in[0])].data, v[static_cast<std::size_t>(n.in[0])].shape, y.shape);
        break;
      }
      if (n.concat_rows) {  // each input's pixels after the previous one's, channel by channel
        y.data.assign(static_cast<std::size_t>(y.shape.numel()), 0.f);
        std::int64_t off = 0;
        for (int in : n.in) {
          const FTensor& t = v[static_cast<std::size_t>(in)];
          const std::int64_t P = t.shape.h * t.shape.w;
          for (std::int64_t c = 0; c < y.shape.c; ++c)
            std::copy_n(t.data.begin() + c * P, P, y.data.begin() + c * y.shape.h + off);
          off += P;
        }
        break;
      }
      for (int in : n.in) {
        const auto& d = v[static_cast<std::size_t>(in)].data;
        y.data.insert(y.data.end(), d.begin(), d.end());
      }
      break;
    default:
      if (op_has(n.op, op_table)) {  // one function of one input (operators.def)
        y.data.resize(x.data.size());
        for (std::size_t i = 0; i < x.data.size(); ++i)
          y.data[i] = static_cast<float>(table_function(n, double(x.data[i])));
        break;
      }
      // not a chip operator (operators.def): canonicalize removes it
      throw CompileError("FP32 interpreter: node '" + n.name + "' has op " + op_name(n.op));
  }
  return y;
}

// Runs the graph; `keep` false frees each tensor after its last reader.
std::vector<FTensor> run(const Graph& g, const std::vector<FTensor>& inputs,
                         const std::function<void(int, const FTensor&)>& visit, bool keep,
                         const Fp32Weights* packed) {
  if (inputs.size() != g.inputs.size())
    throw CompileError("model has " + std::to_string(g.inputs.size()) + " inputs, got " + std::to_string(inputs.size()));
  std::vector<FTensor> v(g.values.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Value& gv = g.val(g.inputs[i]);
    if (inputs[i].data.size() != static_cast<std::size_t>(gv.shape.numel()))
      throw CompileError("input '" + gv.name + "' needs " + std::to_string(gv.shape.numel()) + " elements, got " +
                         std::to_string(inputs[i].data.size()));
    v[static_cast<std::size_t>(g.inputs[i])] = FTensor{gv.shape, inputs[i].data};
  }
  // The last node reading each value; npos: none.
  constexpr std::size_t npos = static_cast<std::size_t>(-1);
  std::vector<std::size_t> last(g.values.size(), npos);
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    for (int in : g.nodes[k].in)
      if (in >= 0) last[static_cast<std::size_t>(in)] = k;  // -1: an absent optional input
  // Constant maps the program preloads (Value::preload): read as inputs.
  std::vector<int> preloaded;
  for (std::size_t id = 0; id < g.values.size(); ++id)
    if (g.values[id].preload) {
      v[id] = from_onnx_order(g.values[id], g.values[id].data);
      preloaded.push_back(static_cast<int>(id));
    }
  if (visit) {
    for (int id : g.inputs) visit(id, v[static_cast<std::size_t>(id)]);
    for (int id : preloaded) visit(id, v[static_cast<std::size_t>(id)]);
  }
  // Buffers of freed tensors; each output takes the smallest that holds it.
  std::vector<std::vector<float>> spare;
  auto take = [&](std::size_t numel) {
    std::size_t best = spare.size();
    for (std::size_t i = 0; i < spare.size(); ++i)
      if (spare[i].capacity() >= numel && (best == spare.size() || spare[i].capacity() < spare[best].capacity()))
        best = i;
    if (best == spare.size()) return std::vector<float>{};
    std::vector<float> b = std::move(spare[best]);
    spare.erase(spare.begin() + static_cast<std::ptrdiff_t>(best));
    return b;
  };
  auto release = [&](std::size_t id) {
    if (v[id].data.capacity() > 0) spare.push_back(std::move(v[id].data));
    v[id] = FTensor{};
  };
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    const auto out = static_cast<std::size_t>(n.out[0]);
    v[out] = eval_node(g, n, v, packed != nullptr ? &(*packed)[k] : nullptr,
                       keep ? std::vector<float>{} : take(static_cast<std::size_t>(g.val(n.out[0]).shape.numel())));
    if (visit) visit(n.out[0], v[out]);
    if (keep) continue;
    for (int in : n.in)
      if (in >= 0 && last[static_cast<std::size_t>(in)] == k) release(static_cast<std::size_t>(in));
    if (last[out] == npos) release(out);
  }
  return v;
}

}  // namespace

std::vector<FTensor> run_fp32_all(const Graph& g, const std::vector<FTensor>& inputs) {
  return run(g, inputs, nullptr, true, nullptr);
}

void run_fp32_visit(const Graph& g, const std::vector<FTensor>& inputs,
                    const std::function<void(int value_id, const FTensor&)>& visit, const Fp32Weights* packed) {
  if (packed != nullptr && packed->size() != g.nodes.size())
    throw CompileError("FP32 interpreter: packed weights of another graph");
  run(g, inputs, visit, false, packed);
}

Fp32Weights pack_fp32_weights(const Graph& g, unsigned threads) {
  Fp32Weights packed(g.nodes.size());
  // An error (out of memory) on a worker is rethrown here.
  common::for_each_index(g.nodes.size(), threads, [&](std::size_t k) {
    const Node& n = g.nodes[k];
    if (n.op == OpKind::Conv)
      packed[k] = pack_conv_fp32(n.geom, g.val(n.in[0]).shape, g.val(n.out[0]).shape, g.val(n.in[1]).data.data());
  });
  return packed;
}

std::vector<FTensor> run_fp32(const Graph& g, const std::vector<FTensor>& inputs) {
  auto all = run_fp32_all(g, inputs);
  std::vector<FTensor> out;
  for (int o : g.outputs) out.push_back(all[static_cast<std::size_t>(o)]);
  return out;
}

}  // namespace vp::cc
