// ONNX models built node by node with seeded random weights (onnx_builder.h).
#include "vp/cc/onnx_builder.h"

#include <cmath>
#include <limits>

#include <onnx/onnx_pb.h>

#include "vp/cc/graph.h"
#include "vp/common/atomic_file.h"

namespace vp::cc {
namespace {

onnx::NodeProto* node(onnx::ModelProto& m, const std::string& op, const std::string& name,
                      const std::vector<std::string>& in, const std::string& out) {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void attr_ints(onnx::NodeProto* n, const std::string& key, const std::vector<std::int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}
void attr_int(onnx::NodeProto* n, const std::string& key, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void attr_float(onnx::NodeProto* n, const std::string& key, float v) {
  auto* a = n->add_attribute();
  a->set_name(key);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

}  // namespace

OnnxBuilder::OnnxBuilder(const std::string& name, int opset, std::uint64_t seed)
    : model_(std::make_unique<onnx::ModelProto>()), rng_(seed) {
  model_->set_ir_version(8);
  model_->set_producer_name("vp-cc onnx_builder");
  auto* op = model_->add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  model_->mutable_graph()->set_name(name);
}

OnnxBuilder::~OnnxBuilder() = default;

std::string OnnxBuilder::fresh(const std::string& base) { return base + "_" + std::to_string(counter_++); }

std::vector<float> OnnxBuilder::normal(std::size_t n, float sigma, float mean) {
  std::normal_distribution<float> nd(mean, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = nd(rng_);
  return v;
}

std::string OnnxBuilder::init(const std::string& base, const std::vector<std::int64_t>& dims,
                              const std::vector<float>& data) {
  const std::string name = fresh(base);
  auto* t = model_->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float)));
  return name;
}

std::string OnnxBuilder::init_i64(const std::string& base, const std::vector<std::int64_t>& data) {
  const std::string name = fresh(base);
  auto* t = model_->mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<std::int64_t>(data.size()));
  for (auto v : data) t->add_int64_data(v);
  return name;
}

std::string OnnxBuilder::input(const std::string& name, const std::vector<std::int64_t>& dims) {
  auto* vi = model_->mutable_graph()->add_input();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  return name;
}

void OnnxBuilder::output(const std::string& value) {
  auto* vi = model_->mutable_graph()->add_output();
  vi->set_name(value);
  vi->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

std::string OnnxBuilder::conv(const std::string& x, int cin, int cout, int k, int stride, int pad, int group, bool bias,
                              int dilation, float gain) {
  const int fan_in = cin / group * k * k;
  const std::string w = init("W", {cout, cin / group, k, k},
                             normal(static_cast<std::size_t>(cout * fan_in), gain * std::sqrt(2.f / float(fan_in))));
  std::vector<std::string> in = {x, w};
  if (bias) in.push_back(init("B", {cout}, normal(static_cast<std::size_t>(cout), 0.1f)));
  const std::string y = fresh("conv");
  auto* n = node(*model_, "Conv", y, in, y);
  attr_ints(n, "kernel_shape", {k, k});
  attr_ints(n, "strides", {stride, stride});
  attr_ints(n, "pads", {pad, pad, pad, pad});
  attr_ints(n, "dilations", {dilation, dilation});
  attr_int(n, "group", group);
  return y;
}

std::string OnnxBuilder::conv_aliased_bias(const std::string& x, int cin, int cout, int k, int pad) {
  const int fan_in = cin * k * k;
  const std::string w = init("W", {cout, cin, k, k},
                             normal(static_cast<std::size_t>(cout * fan_in), std::sqrt(2.f / float(fan_in))));
  const std::string b0 = init("B", {cout}, normal(static_cast<std::size_t>(cout), 0.1f));
  const std::string b = fresh("B_alias");
  node(*model_, "Identity", b, {b0}, b);
  const std::string y = fresh("conv");
  auto* n = node(*model_, "Conv", y, {x, w, b}, y);
  attr_ints(n, "kernel_shape", {k, k});
  attr_ints(n, "pads", {pad, pad, pad, pad});
  return y;
}

std::string OnnxBuilder::batchnorm(const std::string& x, int c) {
  std::uniform_real_distribution<float> u(0.5f, 1.5f);
  std::vector<float> gamma(static_cast<std::size_t>(c)), var(static_cast<std::size_t>(c));
  for (auto& v : gamma) v = u(rng_) * 0.7f;
  for (auto& v : var) v = u(rng_);
  const auto n = static_cast<std::size_t>(c);
  const std::string y = fresh("bn");
  node(*model_, "BatchNormalization", y,
       {x, init("gamma", {c}, gamma), init("beta", {c}, normal(n, 0.1f)), init("mean", {c}, normal(n, 0.1f)),
        init("var", {c}, var)},
       y);
  return y;
}

std::string OnnxBuilder::relu(const std::string& x) {
  const std::string y = fresh("relu");
  node(*model_, "Relu", y, {x}, y);
  return y;
}

std::string OnnxBuilder::clip(const std::string& x, float lo, float hi) {
  const std::string y = fresh("clip");
  node(*model_, "Clip", y, {x, init("min", {}, {lo}), init("max", {}, {hi})}, y);
  return y;
}

std::string OnnxBuilder::leaky_relu(const std::string& x, float alpha) {
  const std::string y = fresh("leaky");
  attr_float(node(*model_, "LeakyRelu", y, {x}, y), "alpha", alpha);
  return y;
}

std::string OnnxBuilder::sigmoid(const std::string& x) { return custom("Sigmoid", x); }
std::string OnnxBuilder::tanh(const std::string& x) { return custom("Tanh", x); }
std::string OnnxBuilder::hard_swish(const std::string& x) { return custom("HardSwish", x); }
std::string OnnxBuilder::erf(const std::string& x) { return custom("Erf", x); }

std::string OnnxBuilder::gelu(const std::string& x) {
  auto op = [&](const char* type, const std::vector<std::string>& in) {
    const std::string y = fresh(type);
    node(*model_, type, y, in, y);
    return y;
  };
  const std::string e = erf(op("Div", {x, init("sqrt2", {}, {std::sqrt(2.f)})}));
  const std::string m = op("Mul", {x, op("Add", {e, init("one", {}, {1.f})})});
  return op("Mul", {m, init("half", {}, {0.5f})});
}

std::string OnnxBuilder::layer_norm_channels(const std::string& x, int c, bool decomposed, float eps, bool affine) {
  auto op = [&](const char* type, const std::vector<std::string>& in) {
    const std::string y = fresh(type);
    node(*model_, type, y, in, y);
    return y;
  };
  const std::string t = transpose(x, {0, 2, 3, 1});
  const std::string gamma = affine ? init("gamma", {c}, normal(static_cast<std::size_t>(c), 0.2f, 1.f))
                                  : init("ones", {c}, std::vector<float>(static_cast<std::size_t>(c), 1.f));
  const std::string beta = affine ? init("beta", {c}, normal(static_cast<std::size_t>(c), 0.2f)) : std::string();
  std::string y;
  if (decomposed) {
    const std::string d = op("Sub", {t, reduce_mean(t, {-1}, true)});
    const std::string var = reduce_mean(op("Pow", {d, init("two", {}, {2.f})}), {-1}, true);
    const std::string sd = op("Sqrt", {op("Add", {var, init("eps", {}, {eps})})});
    y = op("Div", {d, sd});
    if (affine) y = op("Add", {op("Mul", {y, gamma}), beta});
  } else {
    y = fresh("layernorm");
    std::vector<std::string> in = {t, gamma};
    if (affine) in.push_back(beta);
    auto* n = node(*model_, "LayerNormalization", y, in, y);
    attr_int(n, "axis", -1);
    attr_float(n, "epsilon", eps);
  }
  return transpose(y, {0, 3, 1, 2});
}

std::string OnnxBuilder::layer_norm(const std::string& x, int c, float eps) {
  const std::string y = fresh("layernorm");
  auto* n = node(*model_, "LayerNormalization", y,
                 {x, init("gamma", {c}, normal(static_cast<std::size_t>(c), 0.2f, 1.f)),
                  init("beta", {c}, normal(static_cast<std::size_t>(c), 0.2f))},
                 y);
  attr_int(n, "axis", -1);
  attr_float(n, "epsilon", eps);
  return y;
}

std::string OnnxBuilder::hard_sigmoid(const std::string& x, float alpha, float beta) {
  const std::string y = fresh("hardsigmoid");
  auto* n = node(*model_, "HardSigmoid", y, {x}, y);
  attr_float(n, "alpha", alpha);
  attr_float(n, "beta", beta);
  return y;
}

std::string OnnxBuilder::mul(const std::string& a, const std::string& b) {
  const std::string y = fresh("mul");
  node(*model_, "Mul", y, {a, b}, y);
  return y;
}

std::string OnnxBuilder::add(const std::string& a, const std::string& b) {
  const std::string y = fresh("add");
  node(*model_, "Add", y, {a, b}, y);
  return y;
}

std::string OnnxBuilder::mul_const(const std::string& x, const std::vector<float>& k,
                                   const std::vector<std::int64_t>& dims) {
  const std::string y = fresh("mul");
  node(*model_, "Mul", y, {x, init("k", dims, k)}, y);
  return y;
}

std::string OnnxBuilder::add_const(const std::string& x, const std::vector<float>& k,
                                   const std::vector<std::int64_t>& dims) {
  const std::string y = fresh("add");
  node(*model_, "Add", y, {x, init("k", dims, k)}, y);
  return y;
}

std::string OnnxBuilder::reduce_mean(const std::string& x, const std::vector<std::int64_t>& axes, bool keepdims) {
  const std::string y = fresh("mean");
  auto* n = node(*model_, "ReduceMean", y, {x}, y);
  attr_ints(n, "axes", axes);
  attr_int(n, "keepdims", keepdims ? 1 : 0);
  return y;
}

std::string OnnxBuilder::pad(const std::string& x, const std::vector<std::int64_t>& pads) {
  const std::string y = fresh("pad");
  node(*model_, "Pad", y, {x, init_i64("pads", pads)}, y);
  return y;
}

std::string OnnxBuilder::div_const(const std::string& x, float k) {
  const std::string y = fresh("div");
  node(*model_, "Div", y, {x, init("k", {}, {k})}, y);
  return y;
}

std::string OnnxBuilder::slice_channels(const std::string& x, std::int64_t start, std::int64_t end) {
  const std::string y = fresh("slice");
  node(*model_, "Slice", y, {x, init_i64("starts", {start}), init_i64("ends", {end}), init_i64("axes", {1})}, y);
  return y;
}

std::string OnnxBuilder::channel_shuffle(const std::string& x, int c, int h, int w, int groups) {
  return reshape(transpose(reshape(x, {1, groups, c / groups, h, w}), {0, 2, 1, 3, 4}), {1, c, h, w});
}

std::string OnnxBuilder::transpose(const std::string& x, const std::vector<std::int64_t>& perm) {
  const std::string t = fresh("transpose");
  auto* n = node(*model_, "Transpose", t, {x}, t);
  attr_ints(n, "perm", perm);
  return t;
}

std::string OnnxBuilder::vit_tokens(const std::string& map, int c, int pixels) {
  const std::string t = transpose(reshape(map, {1, c, pixels}), {0, 2, 1});
  const std::string cls = init("class_token", {1, 1, c}, normal(static_cast<std::size_t>(c), 0.5f));
  const std::string pos = init("pos_embedding", {1, pixels + 1, c},
                               normal(static_cast<std::size_t>((pixels + 1) * c), 0.5f));
  return add(concat({cls, t}, 1), pos);
}

std::string OnnxBuilder::token(const std::string& x, std::int64_t row) {
  auto* idx = model_->mutable_graph()->add_initializer();
  idx->set_name(fresh("token_index"));
  idx->set_data_type(onnx::TensorProto::INT64);
  idx->add_int64_data(row);
  const std::string y = fresh("gather");
  attr_int(node(*model_, "Gather", y, {x, idx->name()}, y), "axis", 1);
  return y;
}

std::string OnnxBuilder::second_half_by_shape(const std::string& x) {
  auto op = [&](const char* type, const std::vector<std::string>& in) {
    const std::string y = fresh(type);
    node(*model_, type, y, in, y);
    return y;
  };
  const std::string shape = op("Shape", {x});
  const std::string c = op("Gather", {shape, init_i64("one", {1})});
  // (C + 2 - 1) / 2 with integer division: C / 2 rounded up, then * 1 and * 2.
  const std::string half = op("Div", {op("Sub", {op("Add", {c, init_i64("two", {2})}), init_i64("one", {1})}),
                                      init_i64("two", {2})});
  const std::string lo = op("Mul", {half, init_i64("one", {1})});
  const std::string hi = op("Mul", {half, init_i64("two", {2})});
  const std::string y = fresh("slice");
  node(*model_, "Slice", y, {x, lo, hi, init_i64("axes", {1})}, y);
  return y;
}

std::string OnnxBuilder::maxpool_ceil(const std::string& x, int k, int stride) {
  const std::string y = fresh("maxpool");
  auto* n = node(*model_, "MaxPool", y, {x}, y);
  attr_ints(n, "kernel_shape", {k, k});
  attr_ints(n, "strides", {stride, stride});
  attr_int(n, "ceil_mode", 1);
  return y;
}

std::string OnnxBuilder::avgpool_ceil(const std::string& x, int k, int stride) {
  const std::string y = fresh("avgpool");
  auto* n = node(*model_, "AveragePool", y, {x}, y);
  attr_ints(n, "kernel_shape", {k, k});
  attr_ints(n, "strides", {stride, stride});
  attr_int(n, "ceil_mode", 1);
  return y;
}

std::string OnnxBuilder::maxpool(const std::string& x, int k, int stride, int pad) {
  const std::string y = fresh("maxpool");
  auto* n = node(*model_, "MaxPool", y, {x}, y);
  attr_ints(n, "kernel_shape", {k, k});
  attr_ints(n, "strides", {stride, stride});
  attr_ints(n, "pads", {pad, pad, pad, pad});
  return y;
}

std::string OnnxBuilder::avgpool(const std::string& x, int k, int stride, int pad, bool count_include_pad) {
  const std::string y = fresh("avgpool");
  auto* n = node(*model_, "AveragePool", y, {x}, y);
  attr_ints(n, "kernel_shape", {k, k});
  attr_ints(n, "strides", {stride, stride});
  attr_ints(n, "pads", {pad, pad, pad, pad});
  attr_int(n, "count_include_pad", count_include_pad ? 1 : 0);
  return y;
}

std::string OnnxBuilder::global_avgpool(const std::string& x) {
  const std::string y = fresh("gap");
  node(*model_, "GlobalAveragePool", y, {x}, y);
  return y;
}

std::string OnnxBuilder::flatten(const std::string& x) {
  const std::string y = fresh("flatten");
  attr_int(node(*model_, "Flatten", y, {x}, y), "axis", 1);
  return y;
}

std::string OnnxBuilder::reshape(const std::string& x, const std::vector<std::int64_t>& shape) {
  const std::string y = fresh("reshape");
  node(*model_, "Reshape", y, {x, init_i64("shape", shape)}, y);
  return y;
}

std::string OnnxBuilder::gemm(const std::string& x, int k, int n, bool trans_b) {
  const std::string w = init("W", trans_b ? std::vector<std::int64_t>{n, k} : std::vector<std::int64_t>{k, n},
                             normal(static_cast<std::size_t>(k * n), std::sqrt(2.f / float(k))));
  const std::string y = fresh("gemm");
  auto* nd = node(*model_, "Gemm", y, {x, w, init("B", {n}, normal(static_cast<std::size_t>(n), 0.1f))}, y);
  attr_int(nd, "transB", trans_b ? 1 : 0);
  return y;
}

std::string OnnxBuilder::matmul(const std::string& x, int k, int n) {
  const std::string w = init("W", {k, n}, normal(static_cast<std::size_t>(k * n), std::sqrt(2.f / float(k))));
  const std::string y = fresh("matmul");
  node(*model_, "MatMul", y, {x, w}, y);
  return y;
}

std::string OnnxBuilder::concat(const std::vector<std::string>& xs, int axis) {
  const std::string y = fresh("concat");
  attr_int(node(*model_, "Concat", y, xs, y), "axis", axis);
  return y;
}

std::string OnnxBuilder::softmax(const std::string& x) {
  const std::string y = fresh("softmax");
  node(*model_, "Softmax", y, {x}, y);
  return y;
}

std::string OnnxBuilder::softmax(const std::string& x, int axis) {
  const std::string y = fresh("softmax");
  attr_int(node(*model_, "Softmax", y, {x}, y), "axis", axis);
  return y;
}

std::string OnnxBuilder::matmul_act(const std::string& a, const std::string& b) {
  const std::string y = fresh("matmul");
  node(*model_, "MatMul", y, {a, b}, y);
  return y;
}

std::string OnnxBuilder::attention(const std::string& x, int T, int c, int heads, bool causal) {
  const int d = c / heads;
  const std::vector<std::int64_t> split{T, heads, d};
  auto q = transpose(reshape(gemm(x, c, c), split), {1, 0, 2});
  auto k = transpose(reshape(gemm(x, c, c), split), {1, 2, 0});
  auto v = transpose(reshape(gemm(x, c, c), split), {1, 0, 2});
  auto s = mul_const(matmul_act(q, k), {1.f / std::sqrt(float(d))}, {});
  if (causal) {
    std::vector<float> mask(static_cast<std::size_t>(T * T), 0.f);
    for (int t = 0; t < T; ++t)
      for (int u = t + 1; u < T; ++u) mask[static_cast<std::size_t>(t * T + u)] = -1e4f;
    const std::string y = fresh("add");
    node(*model_, "Add", y, {s, init("mask", {T, T}, mask)}, y);
    s = y;
  }
  auto o = matmul_act(softmax(s, -1), v);
  return gemm(reshape(transpose(o, {1, 0, 2}), {T, c}), c, c);
}

std::string OnnxBuilder::attention_plus(const std::string& x, int T, int c, int heads, const std::vector<float>& add) {
  const int d = c / heads;
  const std::vector<std::int64_t> split{T, heads, d};
  auto q = transpose(reshape(gemm(x, c, c), split), {1, 0, 2});
  auto k = transpose(reshape(gemm(x, c, c), split), {1, 2, 0});
  auto v = transpose(reshape(gemm(x, c, c), split), {1, 0, 2});
  const std::string s = fresh("add");
  node(*model_, "Add", s, {mul_const(matmul_act(q, k), {1.f / std::sqrt(float(d))}, {}), init("plus", {T, T}, add)}, s);
  auto o = matmul_act(softmax(s, -1), v);
  return gemm(reshape(transpose(o, {1, 0, 2}), {T, c}), c, c);
}

std::vector<std::string> OnnxBuilder::split(const std::string& x, const std::vector<std::int64_t>& sizes, int axis) {
  const std::string name = fresh("split");
  auto* n = node(*model_, "Split", name, {x, init_i64("sizes", sizes)}, name + "_0");
  std::vector<std::string> out{name + "_0"};
  for (std::size_t k = 1; k < sizes.size(); ++k) {
    out.push_back(name + "_" + std::to_string(k));
    n->add_output(out.back());
  }
  attr_int(n, "axis", axis);
  return out;
}

std::string OnnxBuilder::attention_gpt2(const std::string& x, int T, int c, int heads, int offset, bool mask_chain) {
  const int d = c / heads;
  const std::vector<std::int64_t> view{T, heads, d};
  const auto qkv = split(gemm(x, c, 3 * c), {c, c, c}, 1);
  auto q = transpose(reshape(qkv[0], view), {1, 0, 2});
  auto k = transpose(reshape(qkv[1], view), {1, 2, 0});
  auto v = transpose(reshape(qkv[2], view), {1, 0, 2});
  const auto s = masked_fill_causal(mul_const(matmul_act(q, k), {1.f / std::sqrt(float(d))}, {}), T, offset, mask_chain);
  auto o = matmul_act(softmax(s, -1), v);
  return gemm(reshape(transpose(o, {1, 0, 2}), {T, c}), c, c);
}

std::string OnnxBuilder::masked_fill_causal(const std::string& s, int T, int offset, bool mask_chain) {
  std::string cond;
  if (mask_chain) {  // tril(ones) == 0, cast to bool
    std::vector<float> tril(static_cast<std::size_t>(T * T), 0.f);
    for (int t = 0; t < T; ++t)
      for (int u = 0; u <= std::min(T - 1, t + offset); ++u) tril[static_cast<std::size_t>(t * T + u)] = 1.f;
    const std::string eq = fresh("equal");
    node(*model_, "Equal", eq, {init("tril", {T, T}, tril), init("zero", {}, {0.f})}, eq);
    cond = fresh("cast");
    attr_int(node(*model_, "Cast", cond, {eq}, cond), "to", onnx::TensorProto::BOOL);
  } else {
    auto* t = model_->mutable_graph()->add_initializer();
    t->set_name(fresh("mask"));
    t->set_data_type(onnx::TensorProto::BOOL);
    t->add_dims(T);
    t->add_dims(T);
    for (int r = 0; r < T; ++r)
      for (int u = 0; u < T; ++u) t->add_int32_data(u > r + offset ? 1 : 0);
    cond = t->name();
  }
  const std::string y = fresh("where");
  node(*model_, "Where", y, {cond, init("fill", {}, {-std::numeric_limits<float>::infinity()}), s}, y);
  return y;
}

std::string OnnxBuilder::gelu_tanh(const std::string& x, float kappa, bool cube_as_pow) {
  auto op = [&](const char* type, const std::vector<std::string>& in) {
    const std::string y = fresh(type);
    node(*model_, type, y, in, y);
    return y;
  };
  const std::string cube = cube_as_pow ? op("Pow", {x, init("three", {}, {3.f})}) : op("Mul", {op("Mul", {x, x}), x});
  const std::string inner = op("Add", {x, op("Mul", {cube, init("kappa", {}, {kappa})})});
  const std::string th = tanh(op("Mul", {inner, init("k", {}, {std::sqrt(2.f / 3.14159265f)})}));
  return op("Mul", {op("Mul", {x, init("half", {}, {0.5f})}), op("Add", {th, init("one", {}, {1.f})})});
}

std::string OnnxBuilder::identity(const std::string& x) {
  const std::string y = fresh("identity");
  node(*model_, "Identity", y, {x}, y);
  return y;
}

std::string OnnxBuilder::dropout(const std::string& x, bool training) {
  const std::string y = fresh("dropout");
  std::vector<std::string> in{x};
  if (training) {
    in.push_back(init("ratio", {}, {0.5f}));
    auto* t = model_->mutable_graph()->add_initializer();
    t->set_name(fresh("training"));
    t->set_data_type(onnx::TensorProto::BOOL);
    t->add_int32_data(1);
    in.push_back(t->name());
  }
  node(*model_, "Dropout", y, in, y);
  return y;
}

std::string OnnxBuilder::custom(const std::string& op, const std::string& x) {
  const std::string y = fresh(op);
  node(*model_, op, y, {x}, y);
  return y;
}

std::string OnnxBuilder::serialize() const {
  std::string s;
  model_->SerializeToString(&s);
  return s;
}

void OnnxBuilder::save(const std::string& path) const {
  try {
    vp::common::write_file_atomically(path, serialize());  // whole or not at all, write errors included
  } catch (const vp::common::OutputError& e) {
    throw CompileError(e.what());
  }
}

std::string resnet_onnx(int depth, int classes, int image, std::uint64_t seed) {
  if (depth != 18 && depth != 50) throw CompileError("resnet_onnx: depth 18 or 50");
  OnnxBuilder b("resnet" + std::to_string(depth), 13, seed);
  std::string x = b.input("input", {1, 3, image, image});
  x = b.relu(b.batchnorm(b.conv(x, 3, 64, 7, 2, 3, 1, false), 64));
  x = b.maxpool(x, 3, 2, 1);
  const bool bottleneck = depth == 50;
  const int blocks[4] = {2, 2, 2, 2};
  const int blocks50[4] = {3, 4, 6, 3};
  int cin = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int width = 64 << stage;
    const int cout = bottleneck ? width * 4 : width;
    const int nblocks = bottleneck ? blocks50[stage] : blocks[stage];
    for (int i = 0; i < nblocks; ++i) {
      const int stride = (i == 0 && stage > 0) ? 2 : 1;
      std::string y;
      // Residual branches are scaled down as a trained network's are, so
      // the random model's activations stay in a realistic range.
      if (bottleneck) {
        y = b.relu(b.batchnorm(b.conv(x, cin, width, 1, 1, 0, 1, false), width));
        y = b.relu(b.batchnorm(b.conv(y, width, width, 3, stride, 1, 1, false), width));
        y = b.batchnorm(b.conv(y, width, cout, 1, 1, 0, 1, false, 1, 0.3f), cout);
      } else {
        y = b.relu(b.batchnorm(b.conv(x, cin, width, 3, stride, 1, 1, false), width));
        y = b.batchnorm(b.conv(y, width, cout, 3, 1, 1, 1, false, 1, 0.3f), cout);
      }
      std::string sc = x;
      if (stride != 1 || cin != cout) sc = b.batchnorm(b.conv(x, cin, cout, 1, stride, 0, 1, false), cout);
      x = b.relu(b.add(y, sc));
      cin = cout;
    }
  }
  x = b.flatten(b.global_avgpool(x));
  x = b.gemm(x, cin, classes);
  b.output(x);
  return b.serialize();
}

}  // namespace vp::cc
