// FP32 reference interpreter of the canonical graph: what the quantizer
// calibrates against and what the tests measure quantization error with.
// Plain loops in NCHW order (batch 1), ONNX semantics.
#include <algorithm>
#include <cmath>
#include <limits>

#include "table_function.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

float act(const Node& n, float v) {
  if (n.act == Act::relu) return std::max(v, 0.f);
  if (n.act == Act::clip) return std::min(std::max(v, n.clip_lo), n.clip_hi);
  return v;
}

FTensor conv(const Graph& g, const Node& n, const FTensor& x) {
  const ConvGeom& c = n.geom;
  const Value& w = g.val(n.in[1]);
  const Value& b = g.val(n.in[2]);
  FTensor y;
  y.shape = g.val(n.out[0]).shape;
  const std::int64_t OH = y.shape.h, OW = y.shape.w, H = x.shape.h, W = x.shape.w;
  y.data.assign(static_cast<std::size_t>(y.shape.numel()), 0.f);
  const std::int64_t cg = x.shape.c / c.group, ng = y.shape.c / c.group;
  auto wat = [&](std::int64_t oc, std::int64_t ic, int r, int s) {
    return w.data[static_cast<std::size_t>(((oc * cg + ic) * c.kh + r) * c.kw + s)];
  };
  // Blocks of up to 4 output channels x 4 input channels per kernel tap, the
  // output row innermost: each input row loaded once feeds 4 output rows,
  // and the 4 output rows stay in cache while the input channels stream
  // (the calibration pass runs this for every calibration input).
  for (std::int64_t grp = 0; grp < c.group; ++grp) {
    for (std::int64_t oc0 = grp * ng; oc0 < (grp + 1) * ng; oc0 += 4) {
      const std::int64_t nb = std::min<std::int64_t>(4, (grp + 1) * ng - oc0);
      float* yo[4] = {};
      for (std::int64_t j = 0; j < nb; ++j) {
        yo[j] = y.data.data() + (oc0 + j) * OH * OW;
        std::fill(yo[j], yo[j] + OH * OW, b.data[static_cast<std::size_t>(oc0 + j)]);
      }
      for (int r = 0; r < c.kh; ++r)
        for (int s = 0; s < c.kw; ++s) {
          const std::int64_t off = std::int64_t{s} * c.dw - c.pl;
          const std::int64_t ow0 = off >= 0 ? 0 : (-off + c.sw - 1) / c.sw;
          const std::int64_t ow1 = std::min<std::int64_t>(OW, W - 1 - off < 0 ? 0 : (W - 1 - off) / c.sw + 1);
          if (ow0 >= ow1) continue;
          for (std::int64_t oh = 0; oh < OH; ++oh) {
            const std::int64_t ih = oh * c.sh - c.pt + std::int64_t{r} * c.dh;
            if (ih < 0 || ih >= H) continue;
            for (std::int64_t ic0 = 0; ic0 < cg; ic0 += 4) {
              const std::int64_t ib = std::min<std::int64_t>(4, cg - ic0);
              const float* xr[4];
              float wv[4][4] = {};
              for (std::int64_t i = 0; i < 4; ++i) {
                const std::int64_t ic = ic0 + std::min(i, ib - 1);
                xr[i] = x.data.data() + (grp * cg + ic) * H * W + ih * W + off;
                for (std::int64_t j = 0; j < nb && i < ib; ++j) wv[j][i] = wat(oc0 + j, ic, r, s);
              }
              // Missing channels of a partial block have weight 0 and read a
              // valid row, so one loop serves every block.
              float* y0 = yo[0] + oh * OW;
              float* y1 = (nb > 1 ? yo[1] : yo[0]) + oh * OW;
              float* y2 = (nb > 2 ? yo[2] : yo[0]) + oh * OW;
              float* y3 = (nb > 3 ? yo[3] : yo[0]) + oh * OW;
              const std::int64_t sw = c.sw;
              if (nb == 4) {
                for (std::int64_t ow = ow0; ow < ow1; ++ow) {
                  const float a0 = xr[0][ow * sw], a1 = xr[1][ow * sw], a2 = xr[2][ow * sw], a3 = xr[3][ow * sw];
                  y0[ow] += wv[0][0] * a0 + wv[0][1] * a1 + wv[0][2] * a2 + wv[0][3] * a3;
                  y1[ow] += wv[1][0] * a0 + wv[1][1] * a1 + wv[1][2] * a2 + wv[1][3] * a3;
                  y2[ow] += wv[2][0] * a0 + wv[2][1] * a1 + wv[2][2] * a2 + wv[2][3] * a3;
                  y3[ow] += wv[3][0] * a0 + wv[3][1] * a1 + wv[3][2] * a2 + wv[3][3] * a3;
                }
              } else {
                for (std::int64_t j = 0; j < nb; ++j) {
                  float* yr = yo[j] + oh * OW;
                  for (std::int64_t ow = ow0; ow < ow1; ++ow)
                    yr[ow] += wv[j][0] * xr[0][ow * sw] + wv[j][1] * xr[1][ow * sw] + wv[j][2] * xr[2][ow * sw] +
                              wv[j][3] * xr[3][ow * sw];
                }
              }
            }
          }
        }
      for (std::int64_t j = 0; j < nb; ++j)
        for (std::int64_t i = 0; i < OH * OW; ++i) yo[j][i] = act(n, yo[j][i]);
    }
  }
  return y;
}

FTensor pool(const Graph& g, const Node& n, const FTensor& x, bool max, bool include_pad) {
  const ConvGeom& c = n.geom;
  FTensor y;
  y.shape = g.val(n.out[0]).shape;
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
  return y;
}

}  // namespace

std::vector<FTensor> run_fp32_all(const Graph& g, const std::vector<FTensor>& inputs) {
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
  for (const Node& n : g.nodes) {
    const FTensor& x = v[static_cast<std::size_t>(n.in[0])];
    FTensor y;
    y.shape = g.val(n.out[0]).shape;
    switch (n.op) {
      case OpKind::Conv:
        y = conv(g, n, x);
        break;
      case OpKind::Add: {
        const FTensor& b = v[static_cast<std::size_t>(n.in[1])];
        y.data.resize(x.data.size());
        for (std::size_t i = 0; i < x.data.size(); ++i) y.data[i] = act(n, x.data[i] + b.data[i]);
        break;
      }
      case OpKind::Mul: {
        const auto& k = g.val(n.in[1]).data;
        const std::size_t hw = static_cast<std::size_t>(x.shape.h * x.shape.w);
        y.data.resize(x.data.size());
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
        y = pool(g, n, x, n.op == OpKind::MaxPool,
                 n.ints.count("count_include_pad") && n.ints.at("count_include_pad")[0] != 0);
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
      case OpKind::Concat:
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
    v[static_cast<std::size_t>(n.out[0])] = std::move(y);
  }
  return v;
}

std::vector<FTensor> run_fp32(const Graph& g, const std::vector<FTensor>& inputs) {
  auto all = run_fp32_all(g, inputs);
  std::vector<FTensor> out;
  for (int o : g.outputs) out.push_back(all[static_cast<std::size_t>(o)]);
  return out;
}

}  // namespace vp::cc
