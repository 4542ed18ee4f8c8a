// Small models for the compiler tests, built with the onnx protobuf API, and
// comparison helpers.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "vp/cc/onnx_builder.h"

namespace vp::cc {

struct TestModel {
  std::string name;
  std::string onnx;
};

inline double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return aa == 0 || bb == 0 ? (aa == bb ? 1.0 : 0.0) : ab / std::sqrt(aa * bb);
}

// Two-layer perceptron over a batch of two: Gemm, ReLU, MatMul.
inline TestModel mlp_model() {
  OnnxBuilder b("mlp", 13, 11);
  auto x = b.input("x", {2, 64});
  x = b.relu(b.gemm(x, 64, 32));
  b.output(b.matmul(x, 32, 10));
  return {"mlp", b.serialize()};
}

// Conv+BN+ReLU, max pooling, a padded strided conv, global pooling, classifier.
inline TestModel cnn_model() {
  OnnxBuilder b("cnn", 13, 12);
  auto x = b.input("x", {1, 3, 12, 12});
  x = b.relu(b.batchnorm(b.conv(x, 3, 8, 3, 1, 1, 1, false), 8));
  x = b.maxpool(x, 3, 2, 1);
  x = b.relu(b.conv(x, 8, 16, 3, 1, 1));
  x = b.flatten(b.global_avgpool(x));
  b.output(b.softmax(b.gemm(x, 16, 10)));
  return {"cnn", b.serialize()};
}

// A ResNet basic block with a projection shortcut, then a Flatten+Gemm head
// over a 4x4 map (a 4x4 convolution after canonicalization).
inline TestModel residual_model() {
  OnnxBuilder b("residual", 13, 13);
  auto x = b.input("x", {1, 8, 8, 8});
  auto y = b.relu(b.batchnorm(b.conv(x, 8, 16, 3, 2, 1, 1, false), 16));
  y = b.batchnorm(b.conv(y, 16, 16, 3, 1, 1, 1, false), 16);
  auto s = b.batchnorm(b.conv(x, 8, 16, 1, 2, 0, 1, false), 16);
  x = b.relu(b.add(y, s));
  b.output(b.gemm(b.flatten(x), 16 * 4 * 4, 12));
  return {"residual", b.serialize()};
}

// Softmax inside the graph, on the chip: over the scores of each of six
// rows, then per pixel over the channels of a map (axis 1 of NCHW).
inline TestModel softmax_model() {
  OnnxBuilder b("softmax", 13, 17);
  auto x = b.input("x", {6, 32});
  x = b.gemm(b.softmax(b.gemm(x, 32, 24)), 24, 12);
  b.output(x);
  return {"softmax", b.serialize()};
}
inline TestModel softmax_map_model() {
  OnnxBuilder b("softmax_map", 13, 18);
  auto x = b.input("x", {1, 4, 6, 6});
  x = b.conv(b.softmax(b.conv(x, 4, 16, 3, 1, 1), 1), 16, 8, 1);
  b.output(x);
  return {"softmax_map", b.serialize()};
}

// Causal multi-head self-attention as PyTorch exports it (OnnxBuilder::
// attention) between two Linear layers: heads 4, T 8, 32 channels.
inline TestModel attention_model(bool causal = true, int heads = 4) {
  OnnxBuilder b(causal ? "attention" : "attention_full", 17, 19);
  auto x = b.gemm(b.input("x", {8, 24}), 24, 32);
  x = b.attention(x, 8, 32, heads, causal);
  b.output(b.gemm(x, 32, 16));
  return {causal ? "attention" : "attention_full", b.serialize()};
}

// A vision transformer's front and back as torchvision exports them: a
// patch embedding of 4x4 patches on an 8x8 image (4 tokens of 16
// channels), the class token before them, the position embedding added, a
// LayerNorm and a Linear layer over the 5 tokens of [1, T, C], and the
// classifier on the class token's row.
inline TestModel vit_tokens_model() {
  OnnxBuilder b("vit_tokens", 17, 21);
  auto x = b.conv(b.input("x", {1, 3, 8, 8}), 3, 16, 4, 4);
  x = b.vit_tokens(x, 16, 4);
  x = b.matmul(b.layer_norm(x, 16), 16, 16);
  b.output(b.gemm(b.token(x, 0), 16, 10));
  return {"vit_tokens", b.serialize()};
}

// Unmasked attention over T tokens of c channels between two Linear
// layers (a vision transformer's), as OnnxBuilder::attention writes it.
inline TestModel wide_attention_model(int T, int c, int heads) {
  OnnxBuilder b("wide_attention", 17, 23);
  auto x = b.gemm(b.input("x", {T, 16}), 16, c);
  x = b.attention(x, T, c, heads, false);
  b.output(b.gemm(x, c, 8));
  return {"wide_attention", b.serialize()};
}

// Depthwise conv with ReLU6, LeakyRelu, average pooling, channel concat,
// multiplication by a per-channel constant, dilation.
inline TestModel mixed_model() {
  OnnxBuilder b("mixed", 13, 14);
  auto x = b.input("x", {1, 6, 10, 10});
  auto d = b.clip(b.conv(x, 6, 6, 3, 1, 1, 6), 0.f, 6.f);
  auto l = b.leaky_relu(b.conv(x, 6, 4, 3, 1, 2, 1, true, 2), 0.1f);
  auto c = b.concat({d, l});
  c = b.mul_const(c, {0.5f, 1.f, 1.5f, 2.f, 0.25f, 1.f, 3.f, 0.75f, 1.25f, 0.5f}, {1, 10, 1, 1});
  c = b.avgpool(c, 2, 2);
  b.output(b.relu(b.conv(c, 10, 8, 1)));
  return {"mixed", b.serialize()};
}

// The table activations (one vlut each): Sigmoid, Tanh, HardSwish,
// HardSigmoid with its own alpha and beta, Erf, SiLU written as
// Mul(x, Sigmoid(x)), and at the end HardSwish written as
// Mul(y, HardSigmoid(y)) as an older exporter spells it.
inline TestModel activations_model() {
  OnnxBuilder b("activations", 14, 15);
  auto x = b.input("x", {1, 6, 10, 10});
  auto s = b.sigmoid(b.conv(x, 6, 4, 3, 1, 1));
  auto t = b.tanh(b.conv(x, 6, 4, 3, 1, 1));
  auto h = b.hard_swish(b.conv(x, 6, 4, 1));
  auto hs = b.hard_sigmoid(b.conv(x, 6, 4, 3, 1, 1), 0.25f, 0.4f);
  auto e = b.erf(b.conv(x, 6, 4, 1));
  auto c = b.conv(x, 6, 4, 3, 1, 1);
  auto silu = b.mul(c, b.sigmoid(c));
  auto y = b.conv(b.concat({s, t, h, hs, e, silu}), 24, 8, 1);
  b.output(b.mul(y, b.hard_sigmoid(y, 1.f / 6.f, 0.5f)));
  return {"activations", b.serialize()};
}

// A squeeze-and-excitation block: a map scaled channel by channel by a
// gate computed from its own global pooling (MobileNetV3's).
inline TestModel se_model() {
  OnnxBuilder b("se", 13, 14);
  auto x = b.relu(b.conv(b.input("x", {1, 4, 12, 12}), 4, 16, 3, 1, 1));
  auto gate = b.hard_sigmoid(b.conv(b.relu(b.conv(b.global_avgpool(x), 16, 8, 1)), 8, 16, 1), 1.f / 6.f, 0.5f);
  b.output(b.conv(b.mul(x, gate), 16, 8, 1));
  return {"se", b.serialize()};
}

inline std::vector<TestModel> test_models() {
  return {mlp_model(), cnn_model(), residual_model(), mixed_model(), activations_model()};
}

}  // namespace vp::cc
