// The operator table (operators.def) against the passes: names round-trip,
// properties agree with roles, and every row's kind goes through a tiny
// graph, through every pass its role names (import, canonicalize, FP32
// interpreter, quantize, golden model, map, plan, emit, reports).
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

#include "compiler_test_util.h"
#include "vp/cc/onnx_builder.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

namespace fs = std::filesystem;

// The error canonicalize gives for a model ("" when it accepts it).
std::string compile_error(const std::string& onnx) {
  try {
    Graph g = import_onnx_bytes(onnx, "model");
    canonicalize(g);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}


std::vector<OpKind> all_kinds() {
  std::vector<OpKind> v;
  for (const OpDef& d : kOpTable) v.push_back(d.kind);
  return v;
}

int count_kind(const Graph& g, OpKind k) {
  return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op == k; }));
}

// A Mul by a per-channel constant whose constant comes from a Constant node
// instead of an initializer.
std::string constant_node_model() {
  OnnxBuilder b("constant");
  auto x = b.input("x", {1, 4, 5, 5});
  b.output(b.mul_const(x, {0.5f, 1.f, -1.5f, 2.f}, {1, 4, 1, 1}));
  onnx::ModelProto m;
  if (!m.ParseFromString(b.serialize())) throw std::runtime_error("builder model does not parse");
  auto* gp = m.mutable_graph();
  const std::string k = gp->node(0).input(1);
  auto* inits = gp->mutable_initializer();
  const auto it = std::find_if(inits->begin(), inits->end(), [&](const onnx::TensorProto& t) { return t.name() == k; });
  if (it == inits->end()) throw std::runtime_error("no initializer " + k);
  onnx::NodeProto c;
  c.set_op_type("Constant");
  c.set_name("k_const");
  c.add_output(k);
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = *it;
  inits->erase(it);
  *gp->add_node() = gp->node(0);
  *gp->mutable_node(0) = c;
  std::string out;
  m.SerializeToString(&out);
  return out;
}

// One tiny graph per operator, where it survives import and, for chip
// operators, canonicalization (Relu and Clip standalone, not fused).
// x [4, 16] -> Gemm -> Reshape -> Relu, the Reshape's [4, 16] computed by
// the nodes `shape` adds (with its initializers) ahead of the graph into a
// value named "view_shape": what an export without constant folding writes.
std::string reshape_of_computed_shape(const char* name,
                                      const std::function<std::vector<onnx::NodeProto>(onnx::GraphProto&)>& shape) {
  OnnxBuilder b(name);
  b.output(b.relu(b.reshape(b.gemm(b.input("x", {4, 16}), 16, 16), {4, 16})));
  onnx::ModelProto m;
  if (!m.ParseFromString(b.serialize())) throw std::runtime_error("builder model does not parse");
  auto* gp = m.mutable_graph();
  const auto reshape = std::find_if(gp->mutable_node()->begin(), gp->mutable_node()->end(),
                                    [](const onnx::NodeProto& n) { return n.op_type() == "Reshape"; });
  reshape->set_input(1, "view_shape");
  std::vector<onnx::NodeProto> nodes = shape(*gp);
  for (const auto& n : gp->node()) nodes.push_back(n);
  gp->clear_node();
  for (const auto& n : nodes) *gp->add_node() = n;
  return m.SerializeAsString();
}

void int64_initializer(onnx::GraphProto& gp, const std::string& name, const std::vector<std::int64_t>& dims,
                       const std::vector<std::int64_t>& values) {
  auto* t = gp.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (auto d : dims) t->add_dims(d);
  for (auto v : values) t->add_int64_data(v);
}

onnx::NodeProto onnx_node(const char* op, const std::vector<std::string>& in, const std::string& out) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(out + "_node");
  for (const auto& i : in) n.add_input(i);
  n.add_output(out);
  return n;
}

// x.view(4, 16) as PyTorch exports it without constant folding: the
// Reshape's shape a Concat of Unsqueezed scalars.
std::string unsqueeze_concat_model() {
  return reshape_of_computed_shape("unsqueeze", [](onnx::GraphProto& gp) {
    int64_initializer(gp, "rows", {}, {4});
    int64_initializer(gp, "cols", {}, {16});
    int64_initializer(gp, "axis0", {1}, {0});
    std::vector<onnx::NodeProto> nodes{onnx_node("Unsqueeze", {"rows", "axis0"}, "rows_1d"),
                                       onnx_node("Unsqueeze", {"cols", "axis0"}, "cols_1d"),
                                       onnx_node("Concat", {"rows_1d", "cols_1d"}, "view_shape")};
    auto* ax = nodes[2].add_attribute();
    ax->set_name("axis");
    ax->set_type(onnx::AttributeProto::INT);
    ax->set_i(0);
    return nodes;
  });
}

// x.expand(1, -1, -1) of a class token as PyTorch exports it (ViT): the
// shape a Where over a ConstantOfShape, here the Reshape's [4, 16] built as
// Where(Equal(ConstantOfShape([2], 1) * -1, -1), Expand([4, 16], [2]), 0).
std::string expand_shape_model() {
  return reshape_of_computed_shape("expand", [](onnx::GraphProto& gp) {
    int64_initializer(gp, "rank", {1}, {2});
    int64_initializer(gp, "minus_one", {1}, {-1});
    int64_initializer(gp, "sizes", {2}, {4, 16});
    int64_initializer(gp, "zeros", {2}, {0, 0});
    std::vector<onnx::NodeProto> nodes{onnx_node("ConstantOfShape", {"rank"}, "ones")};
    auto* v = nodes.back().add_attribute();
    v->set_name("value");
    v->set_type(onnx::AttributeProto::TENSOR);
    v->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    v->mutable_t()->add_dims(1);
    v->mutable_t()->add_int64_data(1);
    nodes.push_back(onnx_node("Mul", {"ones", "minus_one"}, "negated"));
    nodes.push_back(onnx_node("Equal", {"negated", "minus_one"}, "is_free"));
    nodes.push_back(onnx_node("Expand", {"sizes", "rank"}, "expanded"));
    nodes.push_back(onnx_node("Where", {"is_free", "expanded", "zeros"}, "view_shape"));
    return nodes;
  });
}

// Swin's shifted-window mask as PyTorch 1.13 exports it, in small: window
// ids (a Mod of a Range) written into a zero map by ScatterND, compared
// pairwise (a broadcast Sub), then Not of Equal. The Reshape's [4, 16] is
// the mask's shape read back and scaled, so the graph imports only if every
// step folded. (The values: fold_mask_check.py, against ONNX Runtime.)
std::string shifted_window_mask_model() {
  return reshape_of_computed_shape("swin_mask", [](onnx::GraphProto& gp) {
    int64_initializer(gp, "start", {}, {-3});
    int64_initializer(gp, "limit", {}, {1});
    int64_initializer(gp, "delta", {}, {1});
    int64_initializer(gp, "three", {}, {3});
    int64_initializer(gp, "map_shape", {1}, {4});
    int64_initializer(gp, "rows", {4, 1}, {0, 1, 2, 3});
    int64_initializer(gp, "col_shape", {2}, {4, 1});
    int64_initializer(gp, "row_shape", {2}, {1, 4});
    int64_initializer(gp, "zero", {}, {0});
    int64_initializer(gp, "wide", {2}, {4, 16});
    std::vector<onnx::NodeProto> nodes{
        onnx_node("Range", {"start", "limit", "delta"}, "ids_raw"),       // -3, -2, -1, 0
        onnx_node("Mod", {"ids_raw", "three"}, "ids"),                    // 0, 1, 2, 0 (the divisor's sign)
        onnx_node("ConstantOfShape", {"map_shape"}, "blank"),             // 0, 0, 0, 0 (float)
        onnx_node("Cast", {"blank"}, "blank_i"),                          // as int64
        onnx_node("ScatterND", {"blank_i", "rows", "ids"}, "window"),     // 0, 1, 2, 0
        onnx_node("Reshape", {"window", "col_shape"}, "w_col"),
        onnx_node("Reshape", {"window", "row_shape"}, "w_row"),
        onnx_node("Sub", {"w_col", "w_row"}, "pairs"),                    // [4, 4], broadcast
        onnx_node("Equal", {"pairs", "zero"}, "same"),
        onnx_node("Not", {"same"}, "other"),
        onnx_node("Cast", {"other"}, "other_i"),
        onnx_node("Shape", {"other_i"}, "pair_shape"),                    // [4, 4]
        onnx_node("Mul", {"pair_shape", "map_shape"}, "view_raw"),        // [16, 16]
        onnx_node("Div", {"view_raw", "map_shape"}, "view_div"),          // [4, 4]
        onnx_node("Mul", {"view_div", "wide"}, "view_mul"),               // [16, 64]
        onnx_node("Div", {"view_mul", "map_shape"}, "view_shape")};       // [4, 16]
    auto* cast = nodes[3].add_attribute();
    cast->set_name("to");
    cast->set_type(onnx::AttributeProto::INT);
    cast->set_i(onnx::TensorProto::INT64);
    auto* cast2 = nodes[10].add_attribute();
    cast2->set_name("to");
    cast2->set_type(onnx::AttributeProto::INT);
    cast2->set_i(onnx::TensorProto::INT64);
    return nodes;
  });
}

// masked_fill's condition as an export without constant folding writes
// it, Equal(tril, 0) cast to bool: folded at import.
// Scores of x against itself, as the MatMul's tiny graph, masked above
// the diagonal before the Softmax.
std::string masked_scores_model(bool mask_chain) {
  OnnxBuilder b("tiny", 17);
  auto x = b.gemm(b.input("x", {6, 16}), 16, 16);
  const auto s = b.masked_fill_causal(b.matmul_act(x, b.transpose(x, {1, 0})), 6, 0, mask_chain);
  b.output(b.gemm(b.softmax(s, -1), 6, 8));
  return b.serialize();
}
std::string gpt2_mask_chain_model() { return masked_scores_model(true); }

const std::map<OpKind, std::function<std::string()>>& tiny_graphs() {
  using F = std::function<std::string(OnnxBuilder&, const std::string&)>;
  auto image = [](F f) {
    return [f] {
      OnnxBuilder b("tiny");
      b.output(f(b, b.input("x", {1, 4, 6, 6})));
      return b.serialize();
    };
  };
  auto vector = [](F f) {
    return [f] {
      OnnxBuilder b("tiny");
      b.output(f(b, b.input("x", {2, 16})));
      return b.serialize();
    };
  };
  auto layer_norm = [](bool decomposed) {
    return [decomposed] {
      OnnxBuilder b("tiny", 17);
      b.output(b.layer_norm_channels(b.input("x", {1, 16, 6, 6}), 16, decomposed));
      return b.serialize();
    };
  };
  static const std::map<OpKind, std::function<std::string()>> graphs = {
      {OpKind::Conv, image([](OnnxBuilder& b, const std::string& x) { return b.conv(x, 4, 8, 3, 1, 1); })},
      {OpKind::Gemm, vector([](OnnxBuilder& b, const std::string& x) { return b.gemm(x, 16, 8); })},
      // Of two activations (one head): the scores of x against itself, on
      // the digital path.
      {OpKind::MatMul,
       [] {
         OnnxBuilder b("tiny");
         auto x = b.gemm(b.input("x", {6, 16}), 16, 16);
         b.output(b.gemm(b.softmax(b.matmul_act(x, b.transpose(x, {1, 0})), -1), 6, 8));
         return b.serialize();
       }},
      {OpKind::Relu, image([](OnnxBuilder& b, const std::string& x) { return b.relu(x); })},
      {OpKind::Clip, image([](OnnxBuilder& b, const std::string& x) { return b.clip(x, -0.5f, 1.f); })},
      {OpKind::LeakyRelu, image([](OnnxBuilder& b, const std::string& x) { return b.leaky_relu(x, 0.1f); })},
      {OpKind::Sigmoid, image([](OnnxBuilder& b, const std::string& x) { return b.sigmoid(x); })},
      {OpKind::Tanh, image([](OnnxBuilder& b, const std::string& x) { return b.tanh(x); })},
      {OpKind::HardSigmoid,
       image([](OnnxBuilder& b, const std::string& x) { return b.hard_sigmoid(x, 0.3f, 0.4f); })},
      {OpKind::HardSwish, image([](OnnxBuilder& b, const std::string& x) { return b.hard_swish(x); })},
      {OpKind::Erf, image([](OnnxBuilder& b, const std::string& x) { return b.erf(x); })},
      {OpKind::Gelu, image([](OnnxBuilder& b, const std::string& x) { return b.gelu(x); })},
      // A LayerNorm divides by each pixel's spread over its channels, so the
      // input's rounding grows where that spread is small: 16 channels keep
      // the spread of these random inputs away from zero.
      {OpKind::LayerNormalization, layer_norm(false)},
      {OpKind::Pow, layer_norm(true)},
      {OpKind::Sqrt, layer_norm(true)},
      {OpKind::Add,
       [] {
         OnnxBuilder b("tiny");
         b.output(b.add(b.input("a", {1, 4, 6, 6}), b.input("b", {1, 4, 6, 6})));
         return b.serialize();
       }},
      {OpKind::Mul, image([](OnnxBuilder& b, const std::string& x) {
         return b.mul_const(x, {0.5f, 1.f, -1.5f, 2.f}, {1, 4, 1, 1});
       })},
      {OpKind::MaxPool, image([](OnnxBuilder& b, const std::string& x) { return b.maxpool(x, 3, 2, 1); })},
      {OpKind::AveragePool, image([](OnnxBuilder& b, const std::string& x) { return b.avgpool(x, 2, 2); })},
      {OpKind::GlobalAveragePool, image([](OnnxBuilder& b, const std::string& x) { return b.global_avgpool(x); })},
      {OpKind::Flatten,
       image([](OnnxBuilder& b, const std::string& x) { return b.flatten(b.global_avgpool(x)); })},
      {OpKind::Reshape,
       image([](OnnxBuilder& b, const std::string& x) { return b.reshape(b.global_avgpool(x), {1, 4}); })},
      {OpKind::BatchNormalization, image([](OnnxBuilder& b, const std::string& x) { return b.batchnorm(x, 4); })},
      {OpKind::Concat,
       [] {
         OnnxBuilder b("tiny");
         b.output(b.concat({b.input("a", {1, 4, 6, 6}), b.input("b", {1, 2, 6, 6})}));
         return b.serialize();
       }},
      {OpKind::ReduceMean,
       image([](OnnxBuilder& b, const std::string& x) { return b.reduce_mean(x, {-1, 2}, false); })},
      {OpKind::Pad, image([](OnnxBuilder& b, const std::string& x) {
         return b.avgpool(b.pad(x, {0, 0, 1, 0, 0, 0, 2, 1}), 3, 1);
       })},
      {OpKind::Div, image([](OnnxBuilder& b, const std::string& x) { return b.div_const(x, 4.f); })},
      {OpKind::Slice, image([](OnnxBuilder& b, const std::string& x) { return b.slice_channels(x, 1, 3); })},
      {OpKind::Transpose,
       image([](OnnxBuilder& b, const std::string& x) { return b.channel_shuffle(x, 4, 6, 6, 2); })},
      {OpKind::Shape, image([](OnnxBuilder& b, const std::string& x) { return b.second_half_by_shape(x); })},
      {OpKind::Gather, image([](OnnxBuilder& b, const std::string& x) { return b.second_half_by_shape(x); })},
      {OpKind::Sub, layer_norm(true)},
      {OpKind::Dropout, image([](OnnxBuilder& b, const std::string& x) { return b.relu(b.dropout(x)); })},
      {OpKind::Identity, image([](OnnxBuilder& b, const std::string& x) { return b.relu(b.identity(x)); })},
      {OpKind::Softmax,
       [] {
         // Inside the graph, over the channels of each row: on the chip.
         OnnxBuilder b("tiny");
         b.output(b.gemm(b.softmax(b.gemm(b.input("x", {4, 16}), 16, 8)), 8, 8));
         return b.serialize();
       }},
      // Of the graph's input (no Linear to cut): channel copies; the first
      // part unread.
      {OpKind::Split, vector([](OnnxBuilder& b, const std::string& x) { return b.split(x, {6, 10}, 1)[1]; })},
      // masked_fill(-inf) of GPT-2's attention: the Softmax's causal flag.
      {OpKind::Where, [] { return masked_scores_model(false); }},
      {OpKind::Equal, gpt2_mask_chain_model},
      {OpKind::Cast, gpt2_mask_chain_model},
      {OpKind::Constant, constant_node_model},
      {OpKind::Unsqueeze, unsqueeze_concat_model},
      {OpKind::ConstantOfShape, expand_shape_model},
      {OpKind::Expand, expand_shape_model},
      {OpKind::Mod, shifted_window_mask_model},
      {OpKind::Range, shifted_window_mask_model},
      {OpKind::ScatterND, shifted_window_mask_model},
      {OpKind::Not, shifted_window_mask_model},
  };
  return graphs;
}

TEST(OperatorTable, NamesRoundTripAndAreUnique) {
  std::set<std::string> names;
  for (const OpDef& d : kOpTable) {
    EXPECT_TRUE(names.insert(d.onnx).second) << "duplicate op type " << d.onnx;
    EXPECT_EQ(op_name(d.kind), d.onnx);
    const auto k = op_from_onnx(d.onnx);
    ASSERT_TRUE(k.has_value()) << d.onnx;
    EXPECT_EQ(*k, d.kind) << d.onnx;
    EXPECT_EQ(&op_def(d.kind), &d);
    std::ostringstream os;
    os << d.kind;
    EXPECT_EQ(os.str(), d.onnx);
  }
  EXPECT_FALSE(op_from_onnx("Einsum").has_value());
  EXPECT_FALSE(op_from_onnx("conv").has_value());
  EXPECT_FALSE(op_from_onnx("").has_value());
  // The importer's supported list is the table, in its order.
  ASSERT_EQ(supported_ops().size(), kOpCount);
  for (std::size_t i = 0; i < kOpCount; ++i) EXPECT_EQ(supported_ops()[i], kOpTable[i].onnx);
  EXPECT_EQ(supported_ops().front(), "Conv");
  EXPECT_EQ(supported_ops().back(), "Constant");
}

TEST(OperatorTable, PropertiesAgreeWithRoles) {
  int crossbar = 0;
  for (const OpDef& d : kOpTable) {
    // Only operators that stay on the chip have back-end properties.
    for (unsigned f : {op_crossbar, op_window, op_activation, op_takes_activation, op_table})
      if (d.has(f)) {
        EXPECT_TRUE(d.on_chip()) << d.onnx << " has a chip property but role " << int(d.role);
      }
    EXPECT_FALSE(d.has(op_activation) && d.has(op_takes_activation)) << d.onnx;
    EXPECT_EQ(d.flags & ~(op_crossbar | op_window | op_activation | op_takes_activation | op_since_opset1 | op_table), 0u)
        << d.onnx << " has an unknown flag";
    crossbar += d.has(op_crossbar);
  }
  // canonicalize rewrites to_conv operators into the one crossbar operator.
  EXPECT_EQ(crossbar, 1);
  EXPECT_TRUE(op_has(OpKind::Conv, op_crossbar));
  EXPECT_EQ(op_def(OpKind::Conv).role, OpRole::chip);
}

// A mask the import cannot compute is refused naming its node and why: a
// Range of 10^9 values (past the folds' limit), a zero delta, a Mod by 0,
// a ScatterND index outside the data.
TEST(Folding, MasksThatCannotBeComputedAreNamed) {
  auto error_of = [](const std::function<std::vector<onnx::NodeProto>(onnx::GraphProto&)>& shape) {
    try {
      import_onnx_bytes(reshape_of_computed_shape("bad_mask", shape), "bad_mask");
    } catch (const CompileError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  auto range = [](std::int64_t limit, std::int64_t delta) {
    return [limit, delta](onnx::GraphProto& gp) {
      int64_initializer(gp, "zero", {}, {0});
      int64_initializer(gp, "limit", {}, {limit});
      int64_initializer(gp, "delta", {}, {delta});
      int64_initializer(gp, "s0", {1}, {0});
      int64_initializer(gp, "s1", {1}, {2});
      int64_initializer(gp, "sizes", {2}, {4, 15});  // + [0, 1] = [4, 16]
      return std::vector<onnx::NodeProto>{onnx_node("Range", {"zero", "limit", "delta"}, "steps"),
                                          onnx_node("Slice", {"steps", "s0", "s1"}, "first"),
                                          onnx_node("Add", {"first", "sizes"}, "view_shape")};
    };
  };
  ASSERT_EQ(error_of(range(2, 1)), "");  // the same graph within the limits folds
  std::string e = error_of(range(1000000000, 1));
  EXPECT_NE(e.find("node 'steps_node' (Range)"), std::string::npos) << e;
  EXPECT_NE(e.find("its inputs are constants, but its result is not computed at import"), std::string::npos) << e;
  e = error_of(range(2, 0));
  EXPECT_NE(e.find("node 'steps_node' (Range): delta is 0"), std::string::npos) << e;
  e = error_of([](onnx::GraphProto& gp) {
    int64_initializer(gp, "sizes", {2}, {4, 16});
    int64_initializer(gp, "zeros", {2}, {0, 0});
    return std::vector<onnx::NodeProto>{onnx_node("Mod", {"sizes", "zeros"}, "view_shape")};
  });
  EXPECT_NE(e.find("node 'view_shape_node' (Mod): integer division by zero"), std::string::npos) << e;
  e = error_of([](onnx::GraphProto& gp) {
    int64_initializer(gp, "sizes", {2}, {4, 16});
    int64_initializer(gp, "at", {1, 1}, {7});
    int64_initializer(gp, "value", {1}, {16});
    return std::vector<onnx::NodeProto>{onnx_node("ScatterND", {"sizes", "at", "value"}, "view_shape")};
  });
  EXPECT_NE(e.find("node 'view_shape_node' (ScatterND): index 7 is out of range for 2 values on axis 0"),
            std::string::npos)
      << e;
}

TEST(OperatorTable, EveryKindHasATinyGraph) {
  for (const OpDef& d : kOpTable)
    EXPECT_TRUE(tiny_graphs().count(d.kind)) << "operators.def row " << d.onnx << " has no tiny graph in this test";
}

class OperatorThroughPasses : public ::testing::TestWithParam<OpKind> {};

TEST_P(OperatorThroughPasses, EveryPassOfItsRoleHandlesIt) {
  const OpKind k = GetParam();
  const OpDef& d = op_def(k);
  const auto it = tiny_graphs().find(k);
  ASSERT_NE(it, tiny_graphs().end());
  Graph g = import_onnx_bytes(it->second(), "tiny");
  if (d.role == OpRole::constant || d.role == OpRole::fold) {
    EXPECT_EQ(count_kind(g, k), 0) << "a constant operator becomes a value, not a node";
    EXPECT_TRUE(std::any_of(g.values.begin(), g.values.end(), [](const Value& v) { return v.is_const && !v.data.empty(); }));
  } else if (k == OpKind::Gelu) {
    // ONNX's Gelu is an opset-20 operator: at 11 to 17 it is the Erf
    // pattern PyTorch exports, which canonicalize makes one node.
    EXPECT_EQ(count_kind(g, k), 0);
  } else {
    EXPECT_EQ(count_kind(g, k), 1);
  }
  canonicalize(g);
  EXPECT_EQ(count_kind(g, k), d.on_chip() ? 1 : 0);
  if (d.role == OpRole::to_conv) {
    EXPECT_EQ(count_kind(g, OpKind::Conv), 1);
  }
  if (k == OpKind::Where) {  // into the Softmax's causal flag
    EXPECT_TRUE(std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.op == OpKind::Softmax && n.causal; }));
  } else if (d.role == OpRole::rewrite) {  // into a GlobalAveragePool, the pads of the pooling, a Mul, a Conv or a LayerNorm
    EXPECT_EQ(count_kind(g, OpKind::GlobalAveragePool) + count_kind(g, OpKind::AveragePool) +
                  count_kind(g, OpKind::Mul) + count_kind(g, OpKind::Conv) + count_kind(g, OpKind::LayerNormalization),
              1);
  }
  if (d.role == OpRole::host) {
    EXPECT_TRUE(std::find(g.host_softmax.begin(), g.host_softmax.end(), true) != g.host_softmax.end());
  }
  for (const Node& n : g.nodes) EXPECT_TRUE(op_def(n.op).on_chip()) << n.name << " (" << n.op << ") left";

  const auto calib = default_calibration(g);
  quantize(g, calib);
  const Target t = load_target("sidra-y1");
  map_crossbars(g, t);
  plan_memory(g, t);
  for (const Node& n : g.nodes) {
    EXPECT_EQ(n.tiles.empty(), !op_has(n.op, op_crossbar)) << n.name;
    EXPECT_FALSE(n.cores.empty()) << n.name;
  }
  const fs::path dir = fs::temp_directory_path() / ("vp_cc_op_" + op_name(k) + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  EmitOptions eo;
  eo.asm_path = (dir / "tiny.asm").string();
  const EmitResult res = emit_program(g, t, eo);
  EXPECT_GT(res.instructions, 0);
  const bool weights = std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return op_has(n.op, op_crossbar); });
  EXPECT_EQ(res.image_bytes > 0, weights);
  fs::remove_all(dir);

  const std::string ir = ir_json(g, "5-planned");
  for (const Node& n : g.nodes) EXPECT_NE(ir.find("\"op\": \"" + op_name(n.op) + "\""), std::string::npos) << ir;
  EXPECT_NE(layer_report(g, t).find(op_name(g.nodes.at(0).op)), std::string::npos);

  // The golden model and the FP32 interpreter agree within a few output
  // steps: half a step of rounding for the operators without weights, the
  // weight rounding summed over a 36-tap patch for Conv (at most 1.5 steps
  // measured on these graphs).
  std::vector<QTensor> q;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) q.push_back(quantize_input(g, static_cast<int>(i), calib[0][i]));
  const auto ref = run_fp32(g, calib[0]);
  const auto got = run_golden(g, q);
  ASSERT_EQ(got.size(), g.outputs.size());
  for (std::size_t o = 0; o < g.outputs.size(); ++o) {
    const FTensor y = dequantize(g, g.outputs[o], got[o]);
    ASSERT_EQ(y.data.size(), ref[o].data.size());
    const double step = g.val(g.outputs[o]).scale;
    double worst = 0;
    for (std::size_t i = 0; i < y.data.size(); ++i) worst = std::max(worst, std::fabs(double(y.data[i]) - ref[o].data[i]));
    EXPECT_LE(worst / step, 3.0) << "output " << o;
  }
}

// A LayerNorm without its affine part (the decomposed form ending in the
// Div, ONNX's operator without a bias) gets gamma 1 and beta 0, and goes
// through every pass; the golden model stays within a few steps of FP32.
TEST(LayerNorm, WithoutAffinePartGetsUnitGammaAndZeroBeta) {
  for (bool decomposed : {true, false}) {
    SCOPED_TRACE(decomposed ? "decomposed" : "operator");
    OnnxBuilder b("ln", 17);
    b.output(b.layer_norm_channels(b.input("x", {1, 16, 5, 5}), 16, decomposed, 1e-6f, false));
    Graph g = import_onnx_bytes(b.serialize(), "ln");
    canonicalize(g);
    ASSERT_EQ(g.nodes.size(), 1u);
    const Node& n = g.nodes[0];
    ASSERT_EQ(n.op, OpKind::LayerNormalization);
    ASSERT_EQ(n.in.size(), 3u);
    EXPECT_EQ(g.val(n.in[1]).data, std::vector<float>(16, 1.f));
    EXPECT_EQ(g.val(n.in[2]).data, std::vector<float>(16, 0.f));
    const auto calib = default_calibration(g);
    quantize(g, calib);
    const auto q = quantize_input(g, 0, calib[0][0]);
    const FTensor y = dequantize(g, g.outputs[0], run_golden(g, {q})[0]);
    const FTensor ref = run_fp32(g, {calib[0][0]})[0];
    double worst = 0;
    for (std::size_t i = 0; i < y.data.size(); ++i) worst = std::max(worst, std::fabs(double(y.data[i]) - ref.data[i]));
    EXPECT_LE(worst / g.val(g.outputs[0]).scale, 3.0);
  }
}

// The table operators' entries against the functions as ONNX defines them,
// written out here: entry k is f((k - 128) * s_in) rounded to the output's
// step and saturated.
TEST(TableOperators, EntriesAreTheFunctionAtEachCode) {
  const std::map<OpKind, std::function<double(double)>> f = {
      {OpKind::LeakyRelu, [](double x) { return x >= 0 ? x : double(0.1f) * x; }},
      {OpKind::Sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }},
      {OpKind::Tanh, [](double x) { return std::tanh(x); }},
      {OpKind::HardSigmoid, [](double x) { return std::clamp(double(0.3f) * x + double(0.4f), 0.0, 1.0); }},
      {OpKind::HardSwish, [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }},
      {OpKind::Erf, [](double x) { return std::erf(x); }},
      {OpKind::Gelu, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
  };
  int kinds = 0;
  for (const OpDef& d : kOpTable) {
    if (!d.has(op_table)) continue;
    ++kinds;
    SCOPED_TRACE(d.onnx);
    ASSERT_TRUE(f.count(d.kind)) << "no reference function for " << d.onnx;
    Graph g = import_onnx_bytes(tiny_graphs().at(d.kind)(), "tiny");
    canonicalize(g);
    quantize(g, default_calibration(g));
    ASSERT_EQ(g.nodes.size(), 1u);
    const Node& n = g.nodes[0];
    const double sx = g.val(n.in[0]).scale, sy = g.val(n.out[0]).scale;
    ASSERT_EQ(n.q.lut.size(), 256u);
    int distinct = 0;
    for (int code = -128; code < 128; ++code) {
      const double want = std::clamp(std::round(f.at(d.kind)(code * sx) / sy), -128.0, 127.0);
      EXPECT_EQ(n.q.lut[static_cast<std::size_t>(code + 128)], want) << "code " << code;
      distinct += code > -128 && n.q.lut[static_cast<std::size_t>(code + 128)] != n.q.lut[static_cast<std::size_t>(code + 127)];
    }
    // The calibrated output step spreads the outputs over many codes.
    EXPECT_GT(distinct, 20);
  }
  EXPECT_EQ(kinds, static_cast<int>(f.size()));
}

// Mul(x, f(x)) of a table operator f is one table of x * f(x) (SiLU);
// a Mul of f of another tensor, or of an f with another reader, is not.
TEST(TableOperators, MulOfInputAndItsFunctionIsOneTable) {
  {
    OnnxBuilder b("silu");
    auto x = b.relu(b.conv(b.input("x", {1, 4, 6, 6}), 4, 4, 3, 1, 1));
    b.output(b.mul(b.sigmoid(x), x));
    Graph g = import_onnx_bytes(b.serialize(), "silu");
    canonicalize(g);
    ASSERT_EQ(count_kind(g, OpKind::Mul), 0);
    ASSERT_EQ(count_kind(g, OpKind::Sigmoid), 1);
    const Node& s = g.nodes.back();
    EXPECT_TRUE(s.times_input);
    EXPECT_EQ(s.out[0], g.outputs[0]);
    const auto calib = default_calibration(g);
    const auto all = run_fp32_all(g, calib[0]);
    const auto& in = all[static_cast<std::size_t>(s.in[0])].data;
    const auto& out = all[static_cast<std::size_t>(s.out[0])].data;
    ASSERT_EQ(in.size(), out.size());
    double big = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      EXPECT_NEAR(out[i], in[i] / (1 + std::exp(-double(in[i]))), 1e-6);
      big = std::max(big, double(in[i]));
    }
    EXPECT_GT(big, 0.5);
    EXPECT_NE(ir_json(g, "1-canonical").find("\"times_input\": true"), std::string::npos);
  }
  {
    // Of f of another tensor: no table, the Mul of two activations stays.
    OnnxBuilder b("other");
    auto x = b.input("x", {1, 4, 6, 6});
    auto y = b.conv(x, 4, 4, 1);
    b.output(b.mul(b.sigmoid(y), b.relu(y)));
    Graph g = import_onnx_bytes(b.serialize(), "other");
    canonicalize(g);
    EXPECT_EQ(count_kind(g, OpKind::Mul), 1);
    EXPECT_EQ(count_kind(g, OpKind::Sigmoid), 1);
    for (const Node& n : g.nodes) EXPECT_FALSE(n.times_input);
  }
  {
    OnnxBuilder b("shared");
    auto x = b.input("x", {1, 4, 6, 6});
    auto s = b.sigmoid(x);
    b.output(b.mul(s, x));
    b.output(s);
    Graph g = import_onnx_bytes(b.serialize(), "shared");
    canonicalize(g);  // the Sigmoid has another reader: a Mul of two activations
    EXPECT_EQ(count_kind(g, OpKind::Mul), 1);
    for (const Node& n : g.nodes) EXPECT_FALSE(n.times_input);
  }
}

// Quantize, golden model and FP32 of a graph; the golden model's worst
// distance from FP32 on output 0, in output steps.
double golden_steps(Graph& g) {
  const auto calib = default_calibration(g);
  quantize(g, calib);
  const Target t = load_target("sidra-y1");
  map_crossbars(g, t);
  plan_memory(g, t);
  std::vector<QTensor> q;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) q.push_back(quantize_input(g, static_cast<int>(i), calib[0][i]));
  const auto ref = run_fp32(g, calib[0]);
  const auto got = run_golden(g, q);
  const FTensor y = dequantize(g, g.outputs[0], got[0]);
  double worst = 0;
  for (std::size_t i = 0; i < y.data.size(); ++i) worst = std::max(worst, std::fabs(double(y.data[i]) - ref[0].data[i]));
  return worst / g.val(g.outputs[0]).scale;
}

// A global pooling ends a stretch of the pipeline (node_segments): the
// gate's Convs, the Mul that waits for the gate and what follows run in
// the next; the pooling and the map before it in the first.
TEST(MulOfActivations, AGlobalPoolingEndsAStretchOfThePipeline) {
  Graph g = import_onnx_bytes(se_model().onnx, "se");
  canonicalize(g);
  const std::vector<int> seg = node_segments(g);
  ASSERT_EQ(seg.size(), g.nodes.size());
  std::map<OpKind, std::set<int>> by_op;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) by_op[g.nodes[i].op].insert(seg[i]);
  EXPECT_EQ(by_op[OpKind::GlobalAveragePool], (std::set<int>{0}));
  EXPECT_EQ(by_op[OpKind::Mul], (std::set<int>{1}));
  EXPECT_EQ(by_op[OpKind::Conv], (std::set<int>{0, 1}));  // the map's Conv; the gate's and the last
  EXPECT_EQ(seg.front(), 0);
  EXPECT_EQ(seg.back(), 1);
  // No pooling to one pixel: one stretch; a classifier after one: two.
  Graph plain = import_onnx_bytes(mixed_model().onnx, "mixed");
  canonicalize(plain);
  for (int k : node_segments(plain)) EXPECT_EQ(k, 0);
  Graph head = import_onnx_bytes(cnn_model().onnx, "cnn");
  canonicalize(head);
  const std::vector<int> heads = node_segments(head);
  EXPECT_EQ(heads.front(), 0);
  EXPECT_EQ(heads.back(), 1);
}

// Mul of two activations: a squeeze-excitation gate (one value per channel,
// either operand order) and two maps of the same shape; FP32 against the
// products computed here, the golden model within a step of it (the two
// inputs' rounding, each at most half a step times the other's largest
// value, 127 steps: 127.25 s_a s_b / s_y, plus the output's own half step).
TEST(MulOfActivations, GateOverChannelsAndSameShape) {
  for (int form = 0; form < 3; ++form) {
    SCOPED_TRACE(form);
    OnnxBuilder b("se");
    auto x = b.relu(b.conv(b.input("x", {1, 4, 6, 6}), 4, 8, 3, 1, 1));
    auto gate = form == 2 ? b.sigmoid(b.conv(x, 8, 8, 1)) : b.hard_sigmoid(b.conv(b.global_avgpool(x), 8, 8, 1), 1 / 6.f, 0.5f);
    b.output(form == 1 ? b.mul(gate, x) : b.mul(x, gate));
    Graph g = import_onnx_bytes(b.serialize(), "se");
    canonicalize(g);
    ASSERT_EQ(count_kind(g, OpKind::Mul), 1);
    const Node& mul = g.nodes.back();
    EXPECT_EQ(g.val(mul.in[0]).shape, (Shape{8, 6, 6}));  // the map first
    const auto calib = default_calibration(g);
    const auto all = run_fp32_all(g, calib[0]);
    const auto& a = all[static_cast<std::size_t>(mul.in[0])].data;
    const auto& s = all[static_cast<std::size_t>(mul.in[1])].data;
    const auto& y = all[static_cast<std::size_t>(mul.out[0])].data;
    ASSERT_EQ(y.size(), a.size());
    for (std::size_t i = 0; i < y.size(); ++i)
      EXPECT_FLOAT_EQ(y[i], a[i] * s[form == 2 ? i : i / 36]) << i;
    // The whole chain against FP32: the convolutions' weight rounding too.
    EXPECT_LE(golden_steps(g), 3.0);
    // The Mul alone: its output is the product of its int8 inputs' values
    // rounded to its step (the fixed-point multiplier's error is far below
    // a step).
    const double sa = g.val(mul.in[0]).scale, sb = g.val(mul.in[1]).scale, sy = g.val(mul.out[0]).scale;
    const auto q = run_golden_all(g, {quantize_input(g, 0, calib[0][0])});
    const auto& qa = q[static_cast<std::size_t>(mul.in[0])].data;
    const auto& qb = q[static_cast<std::size_t>(mul.in[1])].data;
    const auto& qy = q[static_cast<std::size_t>(mul.out[0])].data;
    int codes = 0;
    for (std::size_t i = 0; i < qy.size(); ++i) {
      const double want = std::clamp(qa[i] * sa * qb[form == 2 ? i : i / 36] * sb / sy, -128.0, 127.0);
      EXPECT_LE(std::fabs(qy[i] - want), 0.5 + 1e-6) << i;
      codes += qy[i] != 0;
    }
    EXPECT_GT(codes, 100);
  }
  {
    OnnxBuilder b("bad");
    auto x = b.input("x", {1, 4, 6, 6});
    b.output(b.mul(b.conv(x, 4, 4, 1), b.conv(x, 4, 4, 3, 2, 1)));  // 6x6 by 3x3
    const std::string error = compile_error(b.serialize());  // "" if the Mul of 6x6 by 3x3 is accepted
    EXPECT_NE(error.find("same shape or one value per channel"), std::string::npos) << error;
  }
}

// A zero Pad before an AveragePool: the pool's pads, the zeros counted.
// FP32 against the average over the padded map computed here; ReduceMean
// over H and W against the plain mean.
TEST(Rewrites, PadIntoAveragePoolAndReduceMeanIntoGlobalPool) {
  OnnxBuilder b("pad");
  auto x = b.input("x", {1, 2, 5, 4});
  b.output(b.avgpool(b.pad(x, {0, 0, 1, 2, 0, 0, 0, 1}), 3, 2));  // 6x7 padded -> 2x3
  b.output(b.reduce_mean(x, {2, 3}, true));
  Graph g = import_onnx_bytes(b.serialize(), "pad");
  canonicalize(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  const Node& p = g.nodes[0];
  EXPECT_EQ(p.op, OpKind::AveragePool);
  EXPECT_EQ(std::vector<int>({p.geom.pt, p.geom.pl, p.geom.pb, p.geom.pr}), std::vector<int>({1, 2, 0, 1}));
  EXPECT_EQ(g.nodes[1].op, OpKind::GlobalAveragePool);
  const auto calib = default_calibration(g);
  const auto& in = calib[0][0].data;
  const auto y = run_fp32(g, calib[0]);
  ASSERT_EQ(y[0].data.size(), 2u * 2 * 3);
  for (int c = 0; c < 2; ++c) {
    double total = 0;
    for (int i = 0; i < 20; ++i) total += in[static_cast<std::size_t>(c * 20 + i)];
    EXPECT_NEAR(y[1].data[static_cast<std::size_t>(c)], total / 20, 1e-5);
    for (int oh = 0; oh < 2; ++oh)
      for (int ow = 0; ow < 3; ++ow) {
        double s = 0;
        for (int r = 0; r < 3; ++r)
          for (int q = 0; q < 3; ++q) {
            const int h = oh * 2 + r - 1, w = ow * 2 + q - 2;  // in the unpadded map
            if (h >= 0 && h < 5 && w >= 0 && w < 4) s += in[static_cast<std::size_t>((c * 5 + h) * 4 + w)];
          }
        EXPECT_NEAR(y[0].data[static_cast<std::size_t>((c * 2 + oh) * 3 + ow)], s / 9, 1e-5);
      }
  }
  // A Pad read by a MaxPool (0 is not its border) or reflecting: refused.
  OnnxBuilder m("maxpad");
  m.output(m.maxpool(m.pad(m.input("x", {1, 2, 5, 5}), {0, 0, 1, 1, 0, 0, 1, 1}), 3, 1, 0));
  Graph gm = import_onnx_bytes(m.serialize(), "maxpad");
  EXPECT_THROW(canonicalize(gm), CompileError);
  OnnxBuilder r("mean");
  r.output(r.reduce_mean(r.input("x", {1, 2, 5, 5}), {1}, true));
  Graph gr = import_onnx_bytes(r.serialize(), "mean");
  EXPECT_THROW(canonicalize(gr), CompileError);
}

// Layout operators on the channel axis as 1x1 Convs of 0/1 weights: the
// golden model's output codes equal its input codes, moved (the same scale:
// a channel shuffle keeps every value), and Slice's bounds computed from
// Shape at import.
TEST(Rewrites, ChannelShuffleAndSliceMoveCodesExactly) {
  OnnxBuilder b("shuffle");
  auto x = b.conv(b.input("x", {1, 3, 5, 5}), 3, 6, 3, 1, 1);
  b.output(b.channel_shuffle(x, 6, 5, 5, 2));   // channel j*2 + i <- i*3 + j
  b.output(b.second_half_by_shape(x));         // channels [3, 6)
  Graph g = import_onnx_bytes(b.serialize(), "shuffle");
  EXPECT_EQ(count_kind(g, OpKind::Shape), 0);  // folded at import
  EXPECT_EQ(count_kind(g, OpKind::Gather), 0);
  canonicalize(g);
  ASSERT_EQ(count_kind(g, OpKind::Conv), 3);
  EXPECT_EQ(count_kind(g, OpKind::Reshape), 0);
  const auto calib = default_calibration(g);
  quantize(g, calib);
  const auto all = run_golden_all(g, {quantize_input(g, 0, calib[0][0])});
  const int xid = g.nodes[0].out[0];
  const auto& qx = all[static_cast<std::size_t>(xid)].data;
  const auto& qs = all[static_cast<std::size_t>(g.outputs[0])].data;
  const auto& qh = all[static_cast<std::size_t>(g.outputs[1])].data;
  EXPECT_EQ(g.val(g.outputs[0]).scale, g.val(xid).scale);
  ASSERT_EQ(qs.size(), 150u);
  ASSERT_EQ(qh.size(), 75u);
  const double r = g.val(xid).scale / g.val(g.outputs[1]).scale;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int p = 0; p < 25; ++p) {
        EXPECT_EQ(qs[static_cast<std::size_t>((j * 2 + i) * 25 + p)], qx[static_cast<std::size_t>((i * 3 + j) * 25 + p)]);
        if (i == 1) {
          EXPECT_EQ(qh[static_cast<std::size_t>(j * 25 + p)],
                    std::clamp(std::round(qx[static_cast<std::size_t>((3 + j) * 25 + p)] * r), -128.0, 127.0));
        }
      }
  // A Transpose that is not a channel shuffle is refused, naming the form.
  OnnxBuilder t("transpose");
  auto y = t.input("x", {1, 4, 6, 6});
  t.output(t.relu(t.transpose(y, {0, 1, 3, 2})));  // H and W swapped
  const std::string error = compile_error(t.serialize());
  EXPECT_NE(error.find("channel shuffle"), std::string::npos) << error;
}

// DenseNet's Concat chain: Concat(f0, f1, f2) after Concat(f0, f1) reads
// the first one, Concat(c01, f2); FP32 gives the same tensor as the Concat
// of the three features, and the golden model stays within 3 steps of it.
TEST(Rewrites, ConcatChainReadsThePreviousConcat) {
  OnnxBuilder b("dense");
  auto x = b.input("x", {1, 3, 5, 5});
  auto f0 = b.relu(b.conv(x, 3, 4, 3, 1, 1, 1, true, 1, 3.f));
  auto f1 = b.relu(b.conv(f0, 4, 2, 3, 1, 1));
  auto c01 = b.concat({f0, f1});
  auto f2 = b.relu(b.conv(c01, 6, 2, 1));
  b.output(b.concat({f0, f1, f2}));
  Graph raw = import_onnx_bytes(b.serialize(), "dense");
  Graph g = raw;
  canonicalize(g);
  const Node& last = g.nodes.back();
  ASSERT_EQ(last.op, OpKind::Concat);
  ASSERT_EQ(last.in.size(), 2u);
  const int c01_id = g.nodes[2].out[0];
  EXPECT_EQ(g.nodes[2].op, OpKind::Concat);
  EXPECT_EQ(last.in[0], c01_id);
  const auto calib = default_calibration(g);
  const auto all = run_fp32_all(g, calib[0]);
  const auto& y = all[static_cast<std::size_t>(g.outputs[0])].data;
  ASSERT_EQ(y.size(), 8u * 25);
  std::vector<float> want;
  for (int id : {g.nodes[0].out[0], g.nodes[1].out[0], g.nodes[3].out[0]}) {
    const auto& d = all[static_cast<std::size_t>(id)].data;
    want.insert(want.end(), d.begin(), d.end());
  }
  EXPECT_EQ(y, want);
  EXPECT_LE(golden_steps(g), 3.0);
}

// A Slice to INT64_MAX (how exporters write "to the end") keeps the rest of
// the channels.
TEST(Rewrites, SliceToTheEnd) {
  OnnxBuilder b("end");
  b.output(b.slice_channels(b.input("x", {1, 5, 3, 3}), 2, std::numeric_limits<std::int64_t>::max()));
  Graph g = import_onnx_bytes(b.serialize(), "end");
  canonicalize(g);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, OpKind::Conv);
  EXPECT_EQ(g.val(g.outputs[0]).shape, (Shape{3, 3, 3}));
  const auto calib = default_calibration(g);
  const auto y = run_fp32(g, calib[0]);
  for (std::size_t i = 0; i < 27; ++i) EXPECT_FLOAT_EQ(y[0].data[i], calib[0][0].data[18 + i]);
}

// Dropout at inference is dropped; in training mode (random masks) refused.
TEST(Rewrites, DropoutIsTheIdentityAtInferenceOnly) {
  OnnxBuilder b("drop");
  b.output(b.relu(b.dropout(b.conv(b.input("x", {1, 3, 5, 5}), 3, 4, 3, 1, 1))));
  Graph g = import_onnx_bytes(b.serialize(), "drop");
  canonicalize(g);
  ASSERT_EQ(g.nodes.size(), 1u);  // the ReLU fused into the Conv through the dropped Dropout
  EXPECT_EQ(g.nodes[0].act, Act::relu);
  OnnxBuilder t("train");
  t.output(t.dropout(t.conv(t.input("x", {1, 3, 5, 5}), 3, 4, 3, 1, 1), true));
  const std::string error = compile_error(t.serialize());
  EXPECT_NE(error.find("training mode"), std::string::npos) << error;
}

// MaxPool with ceil_mode=1: the partial last windows as a wider end pad of
// the -128 border; the golden model equals a max over the clipped windows
// computed here.
TEST(MaxPoolCeilMode, PartialWindowsAreMaxOverTheirInsidePart) {
  OnnxBuilder b("ceil");
  auto x = b.conv(b.input("x", {1, 3, 8, 8}), 3, 4, 3, 1, 0);  // 6x6, signed
  b.output(b.maxpool_ceil(x, 3, 2));  // (6 - 3) / 2 + 1 = 2 by floor, 3 by ceil
  Graph g = import_onnx_bytes(b.serialize(), "ceil");
  canonicalize(g);
  const Node& p = g.nodes.back();
  ASSERT_EQ(p.op, OpKind::MaxPool);
  EXPECT_EQ(g.val(p.out[0]).shape, (Shape{4, 3, 3}));
  EXPECT_EQ(p.geom.pb, 2);
  EXPECT_EQ(p.geom.pr, 2);
  const auto calib = default_calibration(g);
  quantize(g, calib);
  const auto all = run_golden_all(g, {quantize_input(g, 0, calib[0][0])});
  const auto& in = all[static_cast<std::size_t>(p.in[0])].data;
  const auto& out = all[static_cast<std::size_t>(p.out[0])].data;
  for (int c = 0; c < 4; ++c)
    for (int oh = 0; oh < 3; ++oh)
      for (int ow = 0; ow < 3; ++ow) {
        int m = -128;
        for (int h = oh * 2; h < std::min(6, oh * 2 + 3); ++h)
          for (int w = ow * 2; w < std::min(6, ow * 2 + 3); ++w) m = std::max<int>(m, in[static_cast<std::size_t>((c * 6 + h) * 6 + w)]);
        EXPECT_EQ(out[static_cast<std::size_t>((c * 3 + oh) * 3 + ow)], m) << c << " " << oh << " " << ow;
      }
  // An AveragePool's partial window divides by its clipped count: refused.
  OnnxBuilder a("avg");
  a.output(a.avgpool_ceil(a.input("x", {1, 3, 6, 6}), 3, 2));
  Graph ga = import_onnx_bytes(a.serialize(), "avg");
  EXPECT_THROW(canonicalize(ga), CompileError);
}

INSTANTIATE_TEST_SUITE_P(Table, OperatorThroughPasses, ::testing::ValuesIn(all_kinds()),
                         [](const ::testing::TestParamInfo<OpKind>& p) { return op_name(p.param); });

}  // namespace
}  // namespace vp::cc

namespace vp::cc {
namespace {


// What the attention rewrite cannot read is refused with the node and the
// reason, never run with the bytes in the wrong order.
TEST(Attention, RefusesOperandsItCannotReadInPlace) {
  {
    OnnxBuilder b("attn");
    auto x = b.gemm(b.input("x", {6, 16}), 16, 16);
    b.output(b.matmul_act(b.transpose(x, {1, 0}), x));  // x^T x: A is not row-major
    EXPECT_NE(compile_error(b.serialize()).find("first operand is not [M][heads][K]"), std::string::npos);
  }
  {
    OnnxBuilder b("attn");
    auto x = b.gemm(b.input("x", {8, 16}), 16, 16);
    auto q = b.transpose(b.reshape(x, {8, 2, 8}), {1, 0, 2});
    auto s = b.matmul_act(q, b.transpose(b.reshape(x, {8, 2, 8}), {1, 2, 0}));
    b.output(b.gemm(b.reshape(b.softmax(s, 1), {8, 16}), 16, 4));  // Softmax over the query axis
    EXPECT_NE(compile_error(b.serialize()).find("over the last axis"), std::string::npos);
  }
  {
    OnnxBuilder b("attn");
    auto x = b.gemm(b.input("x", {8, 16}), 16, 16);
    auto q = b.transpose(b.reshape(x, {8, 2, 8}), {1, 0, 2});
    auto o = b.matmul_act(b.softmax(b.matmul_act(q, b.transpose(b.reshape(x, {8, 2, 8}), {1, 2, 0})), -1),
                          b.transpose(b.reshape(x, {8, 2, 8}), {1, 0, 2}));
    b.output(b.gemm(b.reshape(o, {8, 16}), 16, 4));  // [heads, T, d] viewed as [T, C] without the transpose back
    EXPECT_NE(compile_error(b.serialize()).find("reorders the attention's output"), std::string::npos);
  }
  {
    OnnxBuilder b("attn");
    auto x = b.gemm(b.input("x", {8, 16}), 16, 16);
    auto q = b.transpose(b.reshape(x, {8, 2, 8}), {1, 0, 2});
    b.output(b.softmax(b.matmul_act(q, b.transpose(b.reshape(x, {8, 2, 8}), {1, 2, 0})), -1));  // the scores themselves
    EXPECT_NE(compile_error(b.serialize()).find("is attention heads"), std::string::npos);
  }
}

// Heads, the key operand's orientation, the folded scale and the causal
// mask as canonicalize leaves them.
TEST(Attention, CanonicalFormOfTheExportedPattern) {
  OnnxBuilder b("attn", 17);
  auto x = b.gemm(b.input("x", {8, 24}), 24, 32);
  b.output(b.attention(x, 8, 32, 4, true));
  Graph g = import_onnx_bytes(b.serialize(), "attn");
  canonicalize(g);
  std::vector<const Node*> mm;
  const Node* sm = nullptr;
  for (const Node& n : g.nodes) {
    if (n.op == OpKind::MatMul) mm.push_back(&n);
    if (n.op == OpKind::Softmax) sm = &n;
    EXPECT_NE(n.op, OpKind::Transpose);
    EXPECT_NE(n.op, OpKind::Reshape);
    EXPECT_NE(n.op, OpKind::Add) << "the mask is the Softmax's";
  }
  ASSERT_EQ(mm.size(), 2u);
  ASSERT_NE(sm, nullptr);
  EXPECT_EQ(mm[0]->heads, 4);
  EXPECT_TRUE(mm[0]->trans_b);
  EXPECT_NEAR(mm[0]->alpha, 1 / std::sqrt(8.f), 1e-6);
  EXPECT_EQ(mm[1]->heads, 4);
  EXPECT_FALSE(mm[1]->trans_b);
  EXPECT_TRUE(sm->causal);
  EXPECT_TRUE(mm[0]->causal) << "the scores need the keys up to their own row only";
  EXPECT_TRUE(mm[1]->causal) << "the probabilities are 0 past their own row";
  EXPECT_EQ(sm->group, 8);
  EXPECT_EQ(g.val(mm[0]->out[0]).shape, (Shape{32, 8, 1}));
}

// A constant added to the scores (Swin's relative position bias and its
// shifted windows' mask of -100s): its entries of -30 or below are the
// Softmax's mask input (127 where a score counts, -128 where it is masked),
// the rest a preloaded map laid out as the scores are stored ([T][heads][T])
// and added by the vector unit; a constant that masks a whole row is
// refused.
TEST(Attention, AConstantAddedToTheScoresIsABiasMapAndAMask) {
  const int T = 8, heads = 4;
  std::vector<float> add(static_cast<std::size_t>(T * T));
  for (int t = 0; t < T; ++t)
    for (int u = 0; u < T; ++u) add[static_cast<std::size_t>(t * T + u)] = std::abs(t - u) > 2 ? -100.f : 0.25f * float(t - u);
  OnnxBuilder b("band", 17);
  b.output(b.attention_plus(b.gemm(b.input("x", {T, 24}), 24, 32), T, 32, heads, add));
  Graph g = import_onnx_bytes(b.serialize(), "band");
  canonicalize(g);
  const Node* sm = nullptr;
  const Node* bias = nullptr;
  for (const Node& n : g.nodes) {
    if (n.op == OpKind::Softmax) sm = &n;
    if (n.op == OpKind::Add && n.in.size() == 2 && g.val(n.in[1]).preload) bias = &n;
  }
  ASSERT_NE(sm, nullptr);
  ASSERT_NE(bias, nullptr);
  EXPECT_FALSE(sm->causal);
  ASSERT_EQ(sm->in.size(), 2u);
  const Value& mask = g.val(sm->in[1]);
  EXPECT_TRUE(mask.softmax_mask);
  const Value& b_map = g.val(bias->in[1]);
  ASSERT_EQ(b_map.data.size(), static_cast<std::size_t>(T * heads * T));
  ASSERT_EQ(mask.codes.size(), static_cast<std::size_t>(T * heads * T));
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < heads; ++h)
      for (int u = 0; u < T; ++u) {
        const auto stored = static_cast<std::size_t>((t * heads + h) * T + u);      // [T][heads][T]
        const auto planar = static_cast<std::size_t>((h * T + u) * T + t);          // channel (h, u) of pixel row t
        const bool kept = std::abs(t - u) <= 2;
        EXPECT_EQ(b_map.data[stored], kept ? 0.25f * float(t - u) : 0.f) << t << " " << h << " " << u;
        EXPECT_EQ(mask.codes[planar], kept ? 127 : -128) << t << " " << h << " " << u;
      }
  // Row 3 masked throughout: the chip's Softmax would have nothing to weigh.
  for (int u = 0; u < T; ++u) add[static_cast<std::size_t>(3 * T + u)] = -100.f;
  OnnxBuilder w("whole_row", 17);
  w.output(w.attention_plus(w.gemm(w.input("x", {T, 24}), 24, 32), T, 32, heads, add));
  const std::string error = compile_error(w.serialize());
  EXPECT_NE(error.find("masks every score of row 3"), std::string::npos) << error;
}

// GPT-2's q, k, v projection: one Linear of 3c outputs Split along the
// channels becomes one Conv per part, each with its rows of the weights and
// bias, reading the Linear's input; a Split of anything else becomes channel
// copies (0/1 weights).
TEST(Rewrites, SplitOfALinearIsOneConvPerPart) {
  {
    OnnxBuilder b("split");
    const auto parts = b.split(b.gemm(b.input("x", {6, 16}), 16, 24), {8, 4, 12}, -1);
    for (const auto& p : parts) b.output(p);
    Graph g = import_onnx_bytes(b.serialize(), "split");
    const Node* gemm = nullptr;
    for (const Node& n : g.nodes)
      if (n.op == OpKind::Gemm) gemm = &n;
    ASSERT_NE(gemm, nullptr);
    const std::vector<float> w = g.val(gemm->in[1]).data, bias = g.val(gemm->in[2]).data;  // B is [24, 16] (transB)
    const int x = gemm->in[0];
    canonicalize(g);
    EXPECT_EQ(count_kind(g, OpKind::Split), 0);
    ASSERT_EQ(count_kind(g, OpKind::Conv), 3);
    std::int64_t row = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const Node& c = g.nodes[k];
      ASSERT_EQ(c.op, OpKind::Conv);
      EXPECT_EQ(c.in[0], x) << "each part reads the Linear's input";
      EXPECT_EQ(c.out[0], g.outputs[k]);
      const Value& cw = g.val(c.in[1]);
      const std::int64_t rows = std::vector<std::int64_t>{8, 4, 12}[k];
      ASSERT_EQ(cw.dims, (std::vector<std::int64_t>{rows, 16, 1, 1}));
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t i = 0; i < 16; ++i)
          EXPECT_EQ(cw.data[static_cast<std::size_t>(r * 16 + i)], w[static_cast<std::size_t>((row + r) * 16 + i)]);
        EXPECT_EQ(g.val(c.in[2]).data[static_cast<std::size_t>(r)], bias[static_cast<std::size_t>(row + r)]);
      }
      row += rows;
    }
    EXPECT_LE(golden_steps(g), 3.0);
  }
  {
    // After a Relu the Linear is not the Split's to cut: copies.
    OnnxBuilder b("split_relu");
    const auto parts = b.split(b.relu(b.gemm(b.input("x", {6, 16}), 16, 24)), {12, 12}, 1);
    b.output(b.add(parts[0], parts[1]));
    Graph g = import_onnx_bytes(b.serialize(), "split_relu");
    canonicalize(g);
    ASSERT_EQ(count_kind(g, OpKind::Conv), 3);
    for (std::size_t k = 1; k < 3; ++k) {
      const Value& cw = g.val(g.nodes[k].in[1]);
      for (std::size_t i = 0; i < cw.data.size(); ++i) EXPECT_TRUE(cw.data[i] == 0.f || cw.data[i] == 1.f);
    }
  }
  {
    OnnxBuilder b("split_rows");
    b.output(b.split(b.gemm(b.input("x", {6, 16}), 16, 24), {2, 4}, 0)[0]);
    EXPECT_NE(compile_error(b.serialize()).find("Split): supported along the channels only"), std::string::npos);
  }
  {
    OnnxBuilder b("split_sizes");
    b.output(b.split(b.gemm(b.input("x", {6, 16}), 16, 24), {8, 8}, 1)[0]);
    EXPECT_NE(compile_error(b.serialize()).find("24"), std::string::npos) << "sizes that do not add up to the channels";
  }
}

// masked_fill of the entries above the diagonal with -inf (a bool
// constant, or the Equal and Cast an unfolded export writes) is the causal
// mask; any other mask is refused by name.
TEST(Attention, MaskedFillAboveTheDiagonalIsTheCausalMask) {
  for (const bool chain : {false, true}) {
    OnnxBuilder b("gpt2", 17);
    b.output(b.attention_gpt2(b.gemm(b.input("x", {8, 24}), 24, 32), 8, 32, 4, 0, chain));
    Graph g = import_onnx_bytes(b.serialize(), "gpt2");
    canonicalize(g);
    EXPECT_EQ(count_kind(g, OpKind::Where), 0);
    EXPECT_EQ(count_kind(g, OpKind::Split), 0);
    int causal = 0, matmuls = 0;
    for (const Node& n : g.nodes) {
      if (n.op == OpKind::Softmax) causal += n.causal;
      if (n.op == OpKind::MatMul) matmuls += n.causal;
    }
    EXPECT_EQ(causal, 1) << "chain " << chain;
    EXPECT_EQ(matmuls, 2) << "chain " << chain;
  }
  OnnxBuilder b("gpt2_offset", 17);
  b.output(b.attention_gpt2(b.gemm(b.input("x", {8, 24}), 24, 32), 8, 32, 4, 1));
  EXPECT_NE(compile_error(b.serialize()).find("(Where): on attention scores it is supported as a causal mask only"),
            std::string::npos);
}

// GELU's tanh form, x^3 as Pow or as x * x * x, is one table of that form;
// an expression that is not GELU (another coefficient) is left as it is.
TEST(TableOperators, GeluTanhFormIsOneTable) {
  for (const bool pow : {true, false}) {
    OnnxBuilder b("gelu_tanh", 17);
    b.output(b.gelu_tanh(b.gemm(b.input("x", {4, 16}), 16, 16), 0.044715f, pow));
    Graph g = import_onnx_bytes(b.serialize(), "gelu_tanh");
    canonicalize(g);
    ASSERT_EQ(count_kind(g, OpKind::Gelu), 1) << "pow " << pow;
    EXPECT_EQ(count_kind(g, OpKind::Tanh), 0);
    EXPECT_EQ(count_kind(g, OpKind::Mul), 0);
    const Node& n = g.nodes.back();
    EXPECT_TRUE(n.ints.count("approximate_tanh"));
    const auto calib = default_calibration(g);
    const auto all = run_fp32_all(g, calib[0]);
    const auto& in = all[static_cast<std::size_t>(n.in[0])].data;
    const auto& out = all[static_cast<std::size_t>(n.out[0])].data;
    ASSERT_EQ(in.size(), out.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      const double x = in[i];
      EXPECT_NEAR(out[i], 0.5 * x * (1 + std::tanh(std::sqrt(2 / 3.14159265358979) * (x + 0.044715 * x * x * x))), 1e-5);
    }
    EXPECT_LE(golden_steps(g), 3.0);  // the Linear's weights' rounding, as for any graph with weights
  }
  // Another coefficient: not GELU, so its Pow is left and refused, never
  // made a wrong table.
  OnnxBuilder b("not_gelu", 17);
  b.output(b.gelu_tanh(b.gemm(b.input("x", {4, 16}), 16, 16), 0.2f));
  EXPECT_NE(compile_error(b.serialize()).find("Pow"), std::string::npos);
}

}  // namespace
}  // namespace vp::cc

namespace vp::cc {
namespace {

// A vision transformer's tokens after canonicalization: the patches' map
// read in place (no Reshape or Transpose left), the class token and the
// position embedding preloaded maps, a Concat along the rows, the class
// token's row read by a one-pixel pooling.
TEST(VisionTransformer, TokensBecomeRowsOfTheMap) {
  Graph g = import_onnx_bytes(vit_tokens_model().onnx, "vit");
  // Import squeezed the batch axis: the tokens are a [T, C] matrix.
  bool matrix = false;
  for (const Node& n : g.nodes)
    if (n.op == OpKind::LayerNormalization) matrix = g.val(n.in[0]).dims == std::vector<std::int64_t>{5, 16};
  EXPECT_TRUE(matrix);
  canonicalize(g);
  EXPECT_EQ(count_kind(g, OpKind::Reshape), 0);
  EXPECT_EQ(count_kind(g, OpKind::Transpose), 0);
  EXPECT_EQ(count_kind(g, OpKind::Gather), 0);
  int preloaded = 0;
  for (const Value& v : g.values) preloaded += v.preload;
  EXPECT_EQ(preloaded, 2);  // the class token and the position embedding
  for (const Node& n : g.nodes) {
    if (n.op == OpKind::Concat) {
      EXPECT_TRUE(n.concat_rows);
      EXPECT_TRUE(g.val(n.in[0]).preload);
      EXPECT_EQ(g.val(n.in[1]).shape, (Shape{16, 2, 2}));  // the patches' own map, 4 pixels
      EXPECT_EQ(g.val(n.out[0]).shape, (Shape{16, 5, 1}));
    }
    if (n.op == OpKind::MaxPool) {
      EXPECT_EQ(n.geom.sh, 5);  // one pixel, past the last row: row 0 alone
      EXPECT_EQ(g.val(n.out[0]).shape, (Shape{16, 1, 1}));
    }
  }
}

// A token graph with a node the rewrite does not know (a Softmax over the
// tokens, not the channels) is imported as it was written: no value loses
// its unit axis and nothing the rewrite appended is left.
TEST(VisionTransformer, AnUnknownReaderLeavesTheGraphAsItWas) {
  OnnxBuilder b("vit", 17, 21);
  auto x = b.vit_tokens(b.conv(b.input("x", {1, 3, 8, 8}), 3, 16, 4, 4), 16, 4);
  b.output(b.softmax(x, 1));
  const Graph g = import_onnx_bytes(b.serialize(), "vit");
  int transposes = 0;
  for (const Node& n : g.nodes) {
    transposes += n.op == OpKind::Transpose;
    if (n.op == OpKind::Concat) {
      EXPECT_EQ(g.val(n.out[0]).dims, (std::vector<std::int64_t>{1, 5, 16}));
    }
  }
  EXPECT_EQ(transposes, 1);
  for (const Value& v : g.values) EXPECT_EQ(v.name.find(".tokens"), std::string::npos) << v.name;
}

// What the token rewrite cannot compute is refused by name: a row other
// than the class token's, and an Add of a constant that broadcasts.
TEST(VisionTransformer, RefusesWhatItCannotRead) {
  {
    OnnxBuilder b("vit", 17, 21);
    auto x = b.vit_tokens(b.conv(b.input("x", {1, 3, 8, 8}), 3, 16, 4, 4), 16, 4);
    b.output(b.gemm(b.token(x, 2), 16, 10));
    EXPECT_NE(compile_error(b.serialize()).find("for row 0 only"), std::string::npos);
  }
  {
    OnnxBuilder b("vit", 17, 21);
    b.output(b.gemm(b.add_const(b.input("x", {4, 16}), std::vector<float>(16, 0.5f), {16}), 16, 4));
    EXPECT_NE(compile_error(b.serialize()).find("not broadcast"), std::string::npos);
  }
}

}  // namespace
}  // namespace vp::cc
