// Builds ONNX models in C++ through the protobuf API, with seeded random
// weights: the tests' small CNNs and MLPs, and ResNet-18/50 shaped exactly
// like torchvision's for compile-time and simulation benchmarks when no
// exported model is at hand.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace vp::cc {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(const std::string& name, int opset = 13, std::uint64_t seed = 1);
  ~OnnxBuilder();
  OnnxBuilder(const OnnxBuilder&) = delete;
  OnnxBuilder& operator=(const OnnxBuilder&) = delete;

  std::string input(const std::string& name, const std::vector<std::int64_t>& dims);
  void output(const std::string& value);

  // Weights ~ N(0, gain^2 * 2 / fan_in), bias ~ N(0, 0.1^2).
  std::string conv(const std::string& x, int cin, int cout, int k, int stride = 1, int pad = 0, int group = 1,
                   bool bias = true, int dilation = 1, float gain = 1.f);
  // A Conv whose bias is an Identity of an initializer, as PyTorch's
  // exporter writes a parameter equal to one it already wrote.
  std::string conv_aliased_bias(const std::string& x, int cin, int cout, int k, int pad);
  std::string batchnorm(const std::string& x, int c);
  std::string relu(const std::string& x);
  std::string clip(const std::string& x, float lo, float hi);
  std::string leaky_relu(const std::string& x, float alpha);
  std::string sigmoid(const std::string& x);
  std::string tanh(const std::string& x);
  std::string hard_sigmoid(const std::string& x, float alpha = 0.2f, float beta = 0.5f);
  std::string hard_swish(const std::string& x);
  std::string erf(const std::string& x);
  // GELU as PyTorch exports it at opsets below 20: x * (1 + erf(x / sqrt 2)) * 0.5.
  std::string gelu(const std::string& x);
  // LayerNorm over the c channels of a map as PyTorch writes it: permute to
  // NHWC, normalize the last axis (decomposed into ReduceMean, Sub, Pow,
  // Sqrt, Div, Mul, Add; or one LayerNormalization, opset 17), permute back.
  // affine false: no gamma and beta (the decomposed form ends in the Div, the
  // operator has no bias and a scale of ones).
  std::string layer_norm_channels(const std::string& x, int c, bool decomposed, float eps = 1e-6f, bool affine = true);
  // LayerNormalization over the last axis (a transformer's tokens), opset 17.
  std::string layer_norm(const std::string& x, int c, float eps = 1e-6f);
  std::string add(const std::string& a, const std::string& b);
  std::string mul(const std::string& a, const std::string& b);  // of two activations
  std::string mul_const(const std::string& x, const std::vector<float>& k, const std::vector<std::int64_t>& dims);
  std::string add_const(const std::string& x, const std::vector<float>& k, const std::vector<std::int64_t>& dims);
  std::string maxpool(const std::string& x, int k, int stride, int pad);
  std::string reduce_mean(const std::string& x, const std::vector<std::int64_t>& axes, bool keepdims);
  std::string pad(const std::string& x, const std::vector<std::int64_t>& pads);  // constant 0
  std::string transpose(const std::string& x, const std::vector<std::int64_t>& perm);
  std::string div_const(const std::string& x, float k);
  std::string slice_channels(const std::string& x, std::int64_t start, std::int64_t end);
  // ShuffleNet's channel shuffle of a [1, c, h, w] map: Reshape to
  // [1, groups, c/groups, h, w], Transpose (0, 2, 1, 3, 4), Reshape back.
  std::string channel_shuffle(const std::string& x, int c, int h, int w, int groups);
  // The second half of x's channels, its bounds computed from Shape(x) as
  // PyTorch exports x.chunk(2, dim=1): Gather, Add, Sub, Div, Mul.
  std::string second_half_by_shape(const std::string& x);
  std::string maxpool_ceil(const std::string& x, int k, int stride);  // ceil_mode=1, no pads
  std::string avgpool_ceil(const std::string& x, int k, int stride);
  std::string avgpool(const std::string& x, int k, int stride, int pad = 0, bool count_include_pad = false);
  std::string global_avgpool(const std::string& x);
  std::string flatten(const std::string& x);
  std::string reshape(const std::string& x, const std::vector<std::int64_t>& shape);
  std::string gemm(const std::string& x, int k, int n, bool trans_b = true);
  std::string matmul(const std::string& x, int k, int n);
  std::string concat(const std::vector<std::string>& xs, int axis = 1);
  std::string softmax(const std::string& x);
  std::string softmax(const std::string& x, int axis);
  std::string matmul_act(const std::string& a, const std::string& b);  // of two activations
  // Causal multi-head self-attention over x [T, c] as PyTorch exports
  // GPT-2's: q, k, v Linear layers, each Reshape to [T, heads, d] and
  // Transpose to [heads, T, d] (k to [heads, d, T] in one), q @ k^T, Mul by
  // 1/sqrt(d), Add of a -1e4 upper triangle (causal), Softmax, @ v,
  // Transpose back, Reshape to [T, c], the output Linear.
  std::string attention(const std::string& x, int T, int c, int heads, bool causal = true);
  // The same without the causal mask, a constant [T, T] added to every
  // head's scores before the Softmax instead (a bias, a mask of -100s).
  std::string attention_plus(const std::string& x, int T, int c, int heads, const std::vector<float>& add);
  // The same attention as GPT-2's own code writes it: one Linear of 3c
  // outputs Split into q, k and v, and masked_fill(-inf) as a Where whose
  // condition is true from column t + 1 + offset of row t on (offset 0: the
  // causal mask), a bool constant, or with mask_chain the Equal(tril, 0)
  // and Cast to bool that an export without constant folding writes.
  std::string attention_gpt2(const std::string& x, int T, int c, int heads, int offset = 0, bool mask_chain = false);
  // That masked_fill alone, on scores whose last two axes are [T, T].
  std::string masked_fill_causal(const std::string& scores, int T, int offset = 0, bool mask_chain = false);
  // Split along `axis` into parts of the given sizes (opset 13+: sizes as an input).
  std::vector<std::string> split(const std::string& x, const std::vector<std::int64_t>& sizes, int axis);
  // GELU's tanh form written out, 0.5 x (1 + tanh(sqrt(2/pi) (x + kappa x^3))),
  // x^3 as Pow (GPT-2's code) or as x * x * x (torch's approximate='tanh').
  std::string gelu_tanh(const std::string& x, float kappa = 0.044715f, bool cube_as_pow = true);
  // A vision transformer's tokens as torchvision exports them: the patch
  // embedding's map [1, c, h, w] reshaped to [1, c, pixels] and transposed to
  // [1, pixels, c], a class token [1, 1, c] concatenated before the patches
  // on the token axis, the position embedding [1, pixels + 1, c] added.
  std::string vit_tokens(const std::string& map, int c, int pixels);
  // x[:, row] of a [1, T, c] tensor: Gather along the token axis by a scalar.
  std::string token(const std::string& x, std::int64_t row);
  std::string identity(const std::string& x);
  std::string dropout(const std::string& x, bool training = false);
  std::string custom(const std::string& op, const std::string& x);  // for error-path tests

  std::string serialize() const;
  void save(const std::string& path) const;

 private:
  std::string fresh(const std::string& base);
  std::string init(const std::string& base, const std::vector<std::int64_t>& dims, const std::vector<float>& data);
  std::string init_i64(const std::string& base, const std::vector<std::int64_t>& data);
  std::vector<float> normal(std::size_t n, float sigma, float mean = 0.f);
  std::unique_ptr<onnx::ModelProto> model_;
  std::mt19937_64 rng_;
  int counter_ = 0;
};

// torchvision-shaped ResNet (depth 18 or 50) with random weights and
// BatchNormalization layers, input [1, 3, image, image], output logits.
std::string resnet_onnx(int depth, int classes = 1000, int image = 224, std::uint64_t seed = 7);

}  // namespace vp::cc
