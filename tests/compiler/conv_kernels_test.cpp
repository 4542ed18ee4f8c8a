// The interpreters' fast convolutions against plain loops written here from
// the definition: FP32 bit for bit in the fixed summation order
// (conv_kernels.h), INT8 exactly, on odd shapes (groups, dilation, stride,
// asymmetric padding, 1x1, depthwise, a Gemm as a 1x1 convolution, channel
// counts that are no multiple of a block or a tile). Then the calibration
// and the golden model give the same results on 1 and several threads.
// Compiled with -ffp-contract=off, as the kernels are.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "vp/cc/conv_kernels.h"
#include "vp/cc/onnx_builder.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

struct Case {
  const char* name;
  std::int64_t c, h, w, oc;
  ConvGeom g;
};

ConvGeom geom(int k, int stride, int pad, int dil = 1, int group = 1) {
  ConvGeom c;
  c.kh = c.kw = k;
  c.sh = c.sw = stride;
  c.pt = c.pl = c.pb = c.pr = pad;
  c.dh = c.dw = dil;
  c.group = group;
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> v = {
      {"3x3_pad1", 16, 9, 11, 32, geom(3, 1, 1)},
      {"1x1", 64, 7, 7, 48, geom(1, 1, 0)},
      {"gemm_as_1x1", 37, 1, 1, 21, geom(1, 1, 0)},
      {"7x7_stride2_3ch", 3, 23, 19, 16, geom(7, 2, 3)},
      {"stride3_pad2", 10, 13, 14, 24, geom(3, 3, 2)},
      {"dilation2", 6, 12, 12, 17, geom(3, 1, 2, 2)},
      {"groups2_odd_channels", 14, 8, 9, 40, geom(3, 1, 1, 1, 2)},
      {"groups4_narrow", 12, 6, 6, 20, geom(3, 2, 1, 1, 4)},
      {"groups3_tile_of_8", 9, 7, 7, 24, geom(3, 1, 1, 1, 3)},
      {"depthwise", 24, 10, 10, 24, geom(3, 1, 1, 1, 24)},
      {"depthwise_x2", 8, 9, 9, 16, geom(3, 2, 1, 1, 8)},
      {"kernel_wider_than_image", 5, 3, 4, 16, geom(5, 1, 2)},
      {"one_channel_many_outputs", 1, 6, 5, 33, geom(2, 1, 0)},
  };
  Case asym{"asymmetric_pad", 7, 10, 8, 18, geom(3, 2, 0)};
  asym.g.kh = 3, asym.g.kw = 2, asym.g.pt = 0, asym.g.pb = 2, asym.g.pl = 1, asym.g.pr = 0, asym.g.dw = 3;
  v.push_back(asym);
  return v;
}

Shape out_shape(const Case& c) {
  const ConvGeom& g = c.g;
  return {c.oc, (c.h + g.pt + g.pb - (g.kh - 1) * g.dh - 1) / g.sh + 1,
          (c.w + g.pl + g.pr - (g.kw - 1) * g.dw - 1) / g.sw + 1};
}

// The definition: bias; each tap inside the image; blocks of 4 input
// channels, a partial block's absent channels weighing 0 and repeating the
// last channel's input; y += ((p0 + p1) + p2) + p3; then the activation.
std::vector<float> naive_fp32(const ConvFp32Args& a) {
  const ConvGeom& c = *a.geom;
  const std::int64_t cg = a.x.c / c.group, ng = a.y.c / c.group;
  std::vector<float> y(static_cast<std::size_t>(a.y.numel()));
  for (std::int64_t oc = 0; oc < a.y.c; ++oc)
    for (std::int64_t oh = 0; oh < a.y.h; ++oh)
      for (std::int64_t ow = 0; ow < a.y.w; ++ow) {
        const std::int64_t grp = oc / ng;
        float acc = a.bias[oc];
        for (int r = 0; r < c.kh; ++r)
          for (int s = 0; s < c.kw; ++s) {
            const std::int64_t ih = oh * c.sh - c.pt + r * c.dh, iw = ow * c.sw - c.pl + s * c.dw;
            if (ih < 0 || ih >= a.x.h || iw < 0 || iw >= a.x.w) continue;
            for (std::int64_t ic0 = 0; ic0 < cg; ic0 += 4) {
              float p[4];
              for (std::int64_t i = 0; i < 4; ++i) {
                const std::int64_t ic = std::min(ic0 + i, cg - 1);
                const float wv = ic0 + i < cg ? a.w[((oc * cg + ic) * c.kh + r) * c.kw + s] : 0.f;
                p[i] = wv * a.in[((grp * cg + ic) * a.x.h + ih) * a.x.w + iw];
              }
              acc += p[0] + p[1] + p[2] + p[3];
            }
          }
        if (a.act == Act::relu) acc = std::max(acc, 0.f);
        if (a.act == Act::clip) acc = std::min(std::max(acc, a.clip_lo), a.clip_hi);
        y[static_cast<std::size_t>((oc * a.y.h + oh) * a.y.w + ow)] = acc;
      }
  return y;
}

// Bits, not values: -0 and +0 differ, as they may in a sum.
void expect_same_bits(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&want[i], &got[i], sizeof(float)) != 0 && bad++ == 0) first = i;
  EXPECT_EQ(bad, 0u) << what << ": first at " << first << ": " << want[first] << " vs " << got[first];
}

TEST(ConvKernels, Fp32EqualsTheDefinitionBitForBit) {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (const Case& c : cases()) {
    for (Act act : {Act::none, Act::relu, Act::clip}) {
      SCOPED_TRACE(std::string(c.name) + " act " + std::to_string(int(act)));
      ConvFp32Args a;
      a.geom = &c.g;
      a.x = {c.c, c.h, c.w};
      a.y = out_shape(c);
      std::vector<float> x(static_cast<std::size_t>(a.x.numel())), b(static_cast<std::size_t>(c.oc));
      std::vector<float> w(static_cast<std::size_t>(c.oc * c.c / c.g.group * c.g.kh * c.g.kw));
      for (auto& v : x) v = nd(rng);
      for (auto& v : w) v = nd(rng);
      for (auto& v : b) v = nd(rng);
      // Zeros of both signs, and inputs whose products cancel.
      for (std::size_t i = 0; i < x.size(); i += 7) x[i] = (i / 7) % 2 ? 0.f : -0.f;
      for (std::size_t i = 0; i < w.size(); i += 5) w[i] = 0.f;
      for (std::size_t i = 0; i < b.size(); i += 3) b[i] = -0.f;
      a.in = x.data();
      a.w = w.data();
      a.bias = b.data();
      a.act = act;
      a.clip_lo = -0.5f;
      a.clip_hi = 1.5f;
      const auto want = naive_fp32(a);
      std::vector<float> ref(want.size()), fast(want.size()), packed(want.size());
      conv_fp32_reference(a, ref.data());
      conv_fp32(a, fast.data());
      for (ConvIsa isa : {ConvIsa::sse, ConvIsa::avx2, ConvIsa::avx512}) {
        if (!conv_fp32_isa_supported(isa)) continue;
        std::vector<float> y(want.size());
        conv_fp32_isa(a, y.data(), isa);
        expect_same_bits(want, y, "conv_fp32 with instruction set " + std::to_string(int(isa)));
      }
      const auto pk = pack_conv_fp32(c.g, a.x, a.y, a.w);
      a.packed = pk.empty() ? nullptr : pk.data();
      conv_fp32(a, packed.data());
      expect_same_bits(want, ref, "reference loops");
      expect_same_bits(want, fast, "conv_fp32");
      expect_same_bits(want, packed, "conv_fp32, weights packed beforehand");
    }
  }
}

std::vector<std::int32_t> naive_int8(const ConvInt8Args& a) {
  const ConvGeom& c = *a.geom;
  const std::int64_t cg = a.x.c / c.group, ng = a.y.c / c.group;
  std::vector<std::int32_t> y(static_cast<std::size_t>(a.y.numel()), 0);
  for (std::int64_t oc = 0; oc < a.y.c; ++oc)
    for (std::int64_t oh = 0; oh < a.y.h; ++oh)
      for (std::int64_t ow = 0; ow < a.y.w; ++ow) {
        std::int64_t acc = 0;
        for (std::int64_t ic = 0; ic < cg; ++ic)
          for (int r = 0; r < c.kh; ++r)
            for (int s = 0; s < c.kw; ++s) {
              const std::int64_t ih = oh * c.sh - c.pt + r * c.dh, iw = ow * c.sw - c.pl + s * c.dw;
              if (ih < 0 || ih >= a.x.h || iw < 0 || iw >= a.x.w) continue;
              acc += std::int64_t{a.w[((oc * cg + ic) * c.kh + r) * c.kw + s]} *
                     a.in[((oc / ng * cg + ic) * a.x.h + ih) * a.x.w + iw];
            }
        y[static_cast<std::size_t>((oc * a.y.h + oh) * a.y.w + ow)] = static_cast<std::int32_t>(acc);
      }
  return y;
}

TEST(ConvKernels, Int8EqualsTheDefinitionExactly) {
  std::mt19937_64 rng(12);
  std::uniform_int_distribution<int> code(-128, 127);
  std::vector<Case> all = cases();
  // Big enough to split over threads (conv_int8's threshold).
  all.push_back({"threaded_3x3", 64, 34, 30, 70, geom(3, 1, 1)});
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    ConvInt8Args a;
    a.geom = &c.g;
    a.x = {c.c, c.h, c.w};
    a.y = out_shape(c);
    std::vector<std::int8_t> x(static_cast<std::size_t>(a.x.numel()));
    // Weights of up to 12 bits (vp-cc --weight-bits), as wide as the
    // compiler lets a layer's sums stay within 32 bits.
    std::uniform_int_distribution<int> wide(-2047, 2047);
    std::vector<std::int16_t> w(static_cast<std::size_t>(c.oc * c.c / c.g.group * c.g.kh * c.g.kw));
    for (auto& v : x) v = static_cast<std::int8_t>(code(rng));
    for (auto& v : w) v = static_cast<std::int16_t>(wide(rng));
    // The extremes, where a 16-bit product or sum would overflow.
    for (std::size_t i = 0; i < x.size(); i += 3) x[i] = -128;
    for (std::size_t i = 0; i < w.size(); i += 4) w[i] = -2047;
    a.in = x.data();
    a.w = w.data();
    const auto want = naive_int8(a);
    EXPECT_EQ(conv_int8_reference(a), want) << "reference loops";
    for (unsigned t : {1u, 2u, 3u}) {
      a.threads = t;
      EXPECT_EQ(conv_int8(a), want) << "conv_int8 on " << t << " threads";
    }
  }
}

// A small ResNet-18: the calibration on 1, 2 and 3 threads sets the same
// scales and integer parameters, and the golden model on 1 and 3 threads
// gives the same bytes.
TEST(ConvKernels, CalibrationAndGoldenModelIndependentOfThreads) {
  const std::string onnx = resnet_onnx(18, 10, 32);
  std::vector<Graph> gs;
  const auto calib = [&] {
    Graph g = import_onnx_bytes(onnx, "resnet18");
    canonicalize(g);
    return default_calibration(g, 5, 3);
  }();
  for (unsigned t : {1u, 2u, 3u}) {
    Graph g = import_onnx_bytes(onnx, "resnet18");
    canonicalize(g);
    quantize(g, calib, 100.0, t);
    gs.push_back(std::move(g));
  }
  for (std::size_t k = 1; k < gs.size(); ++k) {
    ASSERT_EQ(gs[0].values.size(), gs[k].values.size());
    for (std::size_t i = 0; i < gs[0].values.size(); ++i)
      EXPECT_EQ(gs[0].values[i].scale, gs[k].values[i].scale) << "value " << gs[0].values[i].name;
    for (std::size_t i = 0; i < gs[0].nodes.size(); ++i) {
      const QuantParams &a = gs[0].nodes[i].q, &b = gs[k].nodes[i].q;
      EXPECT_TRUE(a.w == b.w && a.bias == b.bias && a.mult == b.mult && a.shift == b.shift && a.lut == b.lut &&
                  a.lo == b.lo && a.hi == b.hi)
          << "node " << gs[0].nodes[i].name << " with " << k + 1 << " threads";
    }
  }
  const Graph& g = gs[0];
  const QTensor q = quantize_input(g, 0, default_calibration(g, 1, 77)[0][0]);
  const auto one = run_golden(g, {q}, 1), three = run_golden(g, {q}, 3);
  EXPECT_EQ(one[0].data, three[0].data);
}

}  // namespace
}  // namespace vp::cc
