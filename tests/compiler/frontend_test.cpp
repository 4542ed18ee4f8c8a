// Parse, canonicalize, FP32 interpreter, quantize and golden model, in
// process, on models built with the onnx protobuf API.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include "compiler_test_util.h"
#include "vp/cc/onnx_builder.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

int count_op(const Graph& g, const std::string& op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op == op;
  return n;
}

const Value& value_named(const Graph& g, const std::string& prefix) {
  for (const auto& v : g.values)
    if (v.name == prefix) return v;
  throw std::runtime_error("no value " + prefix);
}

TEST(Frontend, ParsesShapesAndConstants) {
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 3, 8, 8});
  x = b.conv(x, 3, 4, 3, 2, 1);
  b.output(x);
  Graph g = import_onnx_bytes(b.serialize(), "m");
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.opset, 13);
  EXPECT_EQ(g.val(g.outputs[0]).shape, (Shape{4, 4, 4}));
  EXPECT_EQ(g.val(g.nodes[0].in[1]).data.size(), 4u * 3 * 3 * 3);
}

TEST(Frontend, IdentityOfAConstantIsThatConstant) {
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 3, 6, 6});
  b.output(b.conv_aliased_bias(x, 3, 4, 3, 1));
  Graph g = import_onnx_bytes(b.serialize(), "m");
  ASSERT_EQ(g.nodes.size(), 1u);  // the Identity is gone
  const Node& conv = g.nodes[0];
  ASSERT_EQ(conv.in.size(), 3u);
  const Value& bias = g.val(conv.in[2]);
  EXPECT_TRUE(bias.is_const);
  EXPECT_EQ(bias.dims, (std::vector<std::int64_t>{4}));
  ASSERT_EQ(bias.data.size(), 4u);
  // The same numbers as the initializer the Identity read.
  bool found = false;
  for (const auto& v : g.values)
    if (v.is_const && &v != &bias && v.data == bias.data) found = true;
  EXPECT_TRUE(found);
  canonicalize(g);
  EXPECT_EQ(count_op(g, "Conv"), 1);
}

TEST(Frontend, FoldsBatchNormFusesReluAbsorbsFlatten) {
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 2, 5, 5});
  auto y = b.relu(b.batchnorm(b.conv(x, 2, 3, 3, 1, 1), 3));
  y = b.identity(y);
  y = b.gemm(b.flatten(y), 3 * 5 * 5, 4);
  b.output(b.softmax(y));
  Graph raw = import_onnx_bytes(b.serialize(), "m");
  Graph g = raw;
  canonicalize(g);
  EXPECT_EQ(count_op(g, "Conv"), 2);
  EXPECT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].act, Act::relu);
  EXPECT_EQ(g.nodes[1].geom.kh, 5);  // Gemm over a flattened 3x5x5 map = 5x5 conv
  ASSERT_EQ(g.host_softmax.size(), 1u);
  EXPECT_TRUE(g.host_softmax[0]);

  // Reference by hand from the raw initializers: conv, BN, ReLU, Gemm.
  std::mt19937 rng(3);
  std::normal_distribution<float> nd;
  FTensor in{{2, 5, 5}, {}};
  for (int i = 0; i < 50; ++i) in.data.push_back(nd(rng));
  const auto& W = value_named(raw, "W_0").data;
  const auto& B = value_named(raw, "B_1").data;
  const auto& gamma = value_named(raw, "gamma_4").data;
  const auto& beta = value_named(raw, "beta_5").data;
  const auto& mean = value_named(raw, "mean_6").data;
  const auto& var = value_named(raw, "var_7").data;
  std::vector<float> h(75);
  for (int oc = 0; oc < 3; ++oc)
    for (int oy = 0; oy < 5; ++oy)
      for (int ox = 0; ox < 5; ++ox) {
        double acc = B[oc];
        for (int ic = 0; ic < 2; ++ic)
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              const int iy = oy + r - 1, ix = ox + s - 1;
              if (iy < 0 || iy >= 5 || ix < 0 || ix >= 5) continue;
              acc += W[((oc * 2 + ic) * 3 + r) * 3 + s] * in.data[(ic * 5 + iy) * 5 + ix];
            }
        const double bn = gamma[oc] * (acc - mean[oc]) / std::sqrt(var[oc] + 1e-5) + beta[oc];
        h[(oc * 5 + oy) * 5 + ox] = static_cast<float>(std::max(bn, 0.0));
      }
  const auto& G = value_named(raw, "W_11").data;  // [4][75], transB
  const auto& GB = value_named(raw, "B_13").data;
  const auto out = run_fp32(g, {in});
  ASSERT_EQ(out[0].data.size(), 4u);
  for (int n = 0; n < 4; ++n) {
    double acc = GB[n];
    for (int k = 0; k < 75; ++k) acc += G[n * 75 + k] * h[k];
    EXPECT_NEAR(out[0].data[n], acc, 1e-3 * (1 + std::fabs(acc)));
  }
}

TEST(Frontend, StandaloneBatchNormBecomesDepthwiseConv) {
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 3, 4, 4});
  b.output(b.batchnorm(b.relu(x), 3));
  Graph g = import_onnx_bytes(b.serialize(), "m");
  canonicalize(g);
  ASSERT_EQ(count_op(g, "Conv"), 1);
  EXPECT_EQ(g.nodes[1].geom.group, 3);
}

TEST(Golden, TracksFp32WithinQuantizationError) {
  for (const auto& model : test_models()) {
    SCOPED_TRACE(model.name);
    Graph g = import_onnx_bytes(model.onnx, model.name);
    canonicalize(g);
    quantize(g, default_calibration(g));
    const auto in = default_calibration(g, 1, 99)[0];
    const auto ref = run_fp32(g, in);
    std::vector<QTensor> qin;
    for (std::size_t i = 0; i < in.size(); ++i) qin.push_back(quantize_input(g, static_cast<int>(i), in[i]));
    const auto q = run_golden(g, qin);
    for (std::size_t o = 0; o < ref.size(); ++o) {
      const FTensor dq = dequantize(g, g.outputs[o], q[o]);
      EXPECT_GT(cosine(ref[o].data, dq.data), 0.98) << "output " << o;
    }
  }
}

TEST(Golden, RequantizationRoundsLikeTheVectorUnit) {
  // One 1x1 conv with a single weight: y = requant(x * w + b), checked against
  // the formula of docs/isa.md (vrq) for every int8 input.
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 1, 16, 16});
  b.output(b.conv(x, 1, 1, 1));
  Graph g = import_onnx_bytes(b.serialize(), "m");
  canonicalize(g);
  quantize(g, default_calibration(g));
  QTensor in{{1, 16, 16}, {}};
  for (int v = -128; v < 128; ++v) in.data.push_back(static_cast<std::int8_t>(v));
  const auto out = run_golden(g, {in})[0];
  const auto& q = g.nodes[0].q;
  for (int i = 0; i < 256; ++i) {
    const std::int64_t acc = std::int64_t{in.data[i]} * q.w[0] + q.bias[0];
    const std::int64_t s = q.shift[0];
    std::int64_t r = s ? (acc * q.mult[0] + (std::int64_t{1} << (s - 1))) >> s : acc * q.mult[0];
    r = std::min<std::int64_t>(127, std::max<std::int64_t>(-128, r));
    EXPECT_EQ(out.data[i], r) << "input " << int(in.data[i]);
  }
}

// --weight-bits: a layer's weights rounded to +-(2^(bits-1) - 1); one whose
// K x max|w| x 128 could reach 2^31 (12 bits, 8,197 weights per output
// channel) is refused by name, since neither the chip's 32-bit sums nor
// the golden model's would hold it; 8,196 of them are taken.
TEST(Golden, WeightBitsBoundTheWeightsAndTheSums) {
  Target t;
  for (const int k : {8196, 8197}) {
    OnnxBuilder b("m");
    auto x = b.input("x", {1, k});
    b.output(b.gemm(x, k, 2));
    Graph g = import_onnx_bytes(b.serialize(), "m");
    canonicalize(g);
    set_weight_bits(g, t, {{12, {}}});
    if (k == 8197) {
      try {
        quantize(g, default_calibration(g));
        FAIL() << "expected an error";
      } catch (const CompileError& e) {
        EXPECT_NE(std::string(e.what()).find("8197 weights per output channel of 12 bits"), std::string::npos) << e.what();
      }
      continue;
    }
    quantize(g, default_calibration(g));
    const auto& w = g.nodes[0].q.w;
    EXPECT_EQ(std::abs(*std::max_element(w.begin(), w.end(), [](auto p, auto q) { return std::abs(p) < std::abs(q); })), 2047);
    EXPECT_EQ(g.nodes[0].xbar_weight_bits, 12);
  }
  // Four bits: at most 7, and the layer's crossbars hold 4-bit weights.
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 3, 4, 4});
  b.output(b.conv(x, 3, 8, 3, 1, 1));
  Graph g = import_onnx_bytes(b.serialize(), "m");
  canonicalize(g);
  set_weight_bits(g, t, {{4, {}}});
  quantize(g, default_calibration(g));
  for (const std::int16_t v : g.nodes[0].q.w) EXPECT_LE(std::abs(v), 7);
  EXPECT_EQ(xbar_format(g.nodes[0], t).weight_bits, 4);
  EXPECT_EQ(t.lcols(xbar_format(g.nodes[0], t)), 128);  // two 2-bit slices per weight
}

TEST(Errors, UnsupportedOpNamesNodeOpAndList) {
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 3, 4, 4});
  b.output(b.custom("Einsum", x));
  try {
    import_onnx_bytes(b.serialize(), "m");
    FAIL() << "expected an error";
  } catch (const CompileError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("Einsum_0"), std::string::npos) << m;
    EXPECT_NE(m.find("'Einsum'"), std::string::npos) << m;
    EXPECT_NE(m.find("supported: Conv, Gemm"), std::string::npos) << m;
  }
}

TEST(Errors, OpsetOutsideRange) {
  {
    // Conv under opset 9: accepted only for operators unchanged since opset 1.
    OnnxBuilder b("m", 9);
    auto x = b.input("x", {1, 3, 4, 4});
    b.output(b.conv(x, 3, 4, 3, 1, 1));
    EXPECT_THROW(import_onnx_bytes(b.serialize(), "m"), CompileError);
  }
  {
    OnnxBuilder b("m", 18);
    auto x = b.input("x", {1, 3, 4, 4});
    b.output(b.relu(x));
    EXPECT_THROW(import_onnx_bytes(b.serialize(), "m"), CompileError);
  }
  {
    // GlobalAveragePool and Relu mean the same since opset 1 (the ONNX node
    // tests carry opset 1 for GlobalAveragePool).
    OnnxBuilder b("m", 1);
    auto x = b.input("x", {1, 3, 4, 4});
    b.output(b.global_avgpool(b.relu(x)));
    EXPECT_NO_THROW(import_onnx_bytes(b.serialize(), "m"));
  }
}

TEST(Errors, NotAModel) { EXPECT_THROW(import_onnx_bytes("\x01\x02garbage", "junk"), CompileError); }

}  // namespace
}  // namespace vp::cc
