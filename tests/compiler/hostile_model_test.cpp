// Broken and hostile models and .npy files, in process: each is refused
// with a CompileError naming what is wrong, before any pass runs on it.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "vp/cc/npy.h"
#include "vp/cc/onnx_builder.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

// A small CNN (Conv, ReLU, Conv, GlobalAveragePool) as a protobuf to mutate.
onnx::ModelProto base_model() {
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 4, 6, 6});
  x = b.relu(b.conv(x, 4, 4, 3, 1, 1));
  x = b.conv(x, 4, 8, 3, 1, 1);
  b.output(b.global_avgpool(x));
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(b.serialize()));
  return m;
}

onnx::NodeProto* first(onnx::ModelProto& m, const std::string& op) {
  for (auto& n : *m.mutable_graph()->mutable_node())
    if (n.op_type() == op) return &n;
  return nullptr;
}

onnx::AttributeProto* attr(onnx::NodeProto* n, const std::string& name) {
  for (auto& a : *n->mutable_attribute())
    if (a.name() == name) return &a;
  auto* a = n->add_attribute();
  a->set_name(name);
  return a;
}

// The error of importing and canonicalizing `m`, or "" when it is accepted.
std::string error_of(const onnx::ModelProto& m) {
  try {
    Graph g = import_onnx_bytes(m.SerializeAsString(), "bad.onnx");
    canonicalize(g);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

std::string error_of_bytes(const std::string& bytes, const std::string& name) {
  try {
    import_onnx_bytes(bytes, name);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_REFUSED(model, ...)                                                \
  do {                                                                            \
    const std::string msg = error_of(model);                                      \
    ASSERT_FALSE(msg.empty()) << "accepted";                                      \
    for (const char* part : {__VA_ARGS__}) EXPECT_NE(msg.find(part), std::string::npos) << msg; \
  } while (0)

TEST(HostileModel, BaseModelIsAccepted) { EXPECT_EQ(error_of(base_model()), ""); }

TEST(HostileModel, CycleIsNamed) {
  auto m = base_model();
  // The first Conv reads the Relu's output: Conv -> Relu -> Conv.
  auto* conv = first(m, "Conv");
  conv->set_input(0, first(m, "Relu")->output(0));
  EXPECT_REFUSED(m, "bad.onnx", "cycle", "Conv");
}

TEST(HostileModel, NodeReadingItsOwnOutput) {
  auto m = base_model();
  auto* relu = first(m, "Relu");
  relu->set_input(0, relu->output(0));
  EXPECT_REFUSED(m, "reads its own output");
}

TEST(HostileModel, NodesOutOfOrderAreSorted) {
  auto m = base_model();
  auto* nodes = m.mutable_graph()->mutable_node();
  nodes->SwapElements(0, nodes->size() - 1);
  const Graph sorted = import_onnx_bytes(base_model().SerializeAsString(), "a");
  const Graph swapped = import_onnx_bytes(m.SerializeAsString(), "b");
  ASSERT_EQ(sorted.nodes.size(), swapped.nodes.size());
  for (std::size_t i = 0; i < sorted.nodes.size(); ++i) EXPECT_EQ(sorted.nodes[i].name, swapped.nodes[i].name);
}

TEST(HostileModel, ZeroStrideDilationKernelAndNegativePads) {
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> cases = {
      {"strides", {0, 0}}, {"strides", {1, -3}}, {"dilations", {0, 1}}, {"kernel_shape", {0, 3}}, {"pads", {-1, 0, 0, 0}}};
  for (const auto& [name, values] : cases) {
    auto m = base_model();
    auto* a = attr(first(m, "Conv"), name);
    a->set_type(onnx::AttributeProto::INTS);
    a->clear_ints();
    for (auto v : values) a->add_ints(v);
    EXPECT_REFUSED(m, "bad.onnx: ", name.c_str(), "out of range", "Conv");
  }
}

// Found by onnx_import_fuzz: strides [0, 1] declared GRAPHS passed the range
// check (which read INTS only) and ONNX's shape inference, which reads the
// integers whatever the type, divided by the zero (SIGFPE).
TEST(HostileModel, WindowAttributesOfAnotherTypeAreRefused) {
  for (const auto type : {onnx::AttributeProto::GRAPHS, onnx::AttributeProto::FLOATS, onnx::AttributeProto::INT}) {
    auto m = base_model();
    auto* a = attr(first(m, "Conv"), "strides");
    a->set_type(type);
    a->clear_ints();
    a->add_ints(0);
    a->add_ints(1);
    const std::string want = "attribute 'strides' has type " + onnx::AttributeProto::AttributeType_Name(type) +
                             "; expected INTS";
    EXPECT_REFUSED(m, "bad.onnx: ", want.c_str(), "Conv");
  }
  auto m = base_model();
  attr(first(m, "Conv"), "group")->set_type(onnx::AttributeProto::INTS);
  EXPECT_REFUSED(m, "attribute 'group' has type INTS; expected INT");
  // Integers under any other attribute's name must be declared INTS too.
  m = base_model();
  auto* odd = attr(first(m, "Relu"), "extra");
  odd->set_type(onnx::AttributeProto::STRING);
  odd->add_ints(0);
  EXPECT_REFUSED(m, "attribute 'extra' holds a list of integers but declares type STRING");
}

TEST(HostileModel, AttributeCountMustMatchTheKernel) {
  auto m = base_model();
  auto* a = attr(first(m, "Conv"), "strides");
  a->clear_ints();
  a->add_ints(1);
  EXPECT_REFUSED(m, "strides has 1 values; expected 2");
}

TEST(HostileModel, GroupMustDivideTheChannels) {
  for (const std::int64_t group : {0LL, 3LL, -2LL}) {
    auto m = base_model();
    auto* a = attr(first(m, "Conv"), "group");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(group);
    EXPECT_REFUSED(m, "bad.onnx: ", "group");
  }
}

TEST(HostileModel, ZeroSizeTensors) {
  {
    auto m = base_model();
    m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_value(0);
    EXPECT_REFUSED(m, "graph input 'x'", "dimension 0");
  }
  {
    // A 3x3 kernel over a 2x2 map without padding: a 0x0 output.
    OnnxBuilder b("m");
    auto x = b.input("x", {1, 4, 2, 2});
    b.output(b.conv(x, 4, 4, 3, 1, 0));
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(b.serialize()));
    EXPECT_REFUSED(m, "bad.onnx: ", "tensor 'conv_2' has a zero-size dimension");
  }
}

TEST(HostileModel, NonFiniteWeightsAreNamed) {
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    auto m = base_model();
    auto& init = *m.mutable_graph()->mutable_initializer(0);
    std::string raw = init.raw_data();
    ASSERT_GE(raw.size(), 8u);
    std::memcpy(raw.data() + 4, &bad, 4);
    init.set_raw_data(raw);
    EXPECT_REFUSED(m, init.name().c_str(), std::isnan(bad) ? "NaN" : "infinity", "element 1");
  }
}

TEST(HostileModel, InitializerSizesAreCheckedBeforeAllocating) {
  {
    auto m = base_model();
    auto& init = *m.mutable_graph()->mutable_initializer(0);
    init.clear_raw_data();
    init.clear_dims();
    init.add_dims(1LL << 40);
    init.add_dims(1LL << 40);
    EXPECT_REFUSED(m, init.name().c_str(), "elements");
  }
  {
    auto m = base_model();
    auto& init = *m.mutable_graph()->mutable_initializer(0);
    init.add_dims(-4);
    EXPECT_REFUSED(m, "dimension -4");
  }
  {
    // float_data shorter than the dims: used to be copied past the end.
    auto m = base_model();
    auto& init = *m.mutable_graph()->mutable_initializer(0);
    init.clear_raw_data();
    init.add_float_data(1.f);
    EXPECT_REFUSED(m, init.name().c_str(), "1 values");
  }
  {
    auto m = base_model();
    auto& init = *m.mutable_graph()->mutable_initializer(0);
    init.set_raw_data(init.raw_data().substr(1));
    EXPECT_REFUSED(m, init.name().c_str(), "raw bytes");
  }
  {
    auto m = base_model();
    m.mutable_graph()->mutable_initializer(0)->set_data_location(onnx::TensorProto::EXTERNAL);
    EXPECT_REFUSED(m, "external file");
  }
}

// A Range whose delta initializer holds no value: ONNX's shape inference
// reads the bounds by their dimensions and dereferenced the missing value
// (found by onnx_import_fuzz). Refused, naming it, before inference runs.
TEST(HostileModel, ConstantInputsWithoutTheirDataAreNamed) {
  for (const bool raw : {false, true}) {
    auto m = base_model();
    auto* gp = m.mutable_graph();
    for (const char* name : {"r0", "r1", "r2"}) {
      auto* t = gp->add_initializer();
      t->set_name(name);
      t->set_data_type(onnx::TensorProto::INT64);
      if (std::string(name) != "r2") t->add_int64_data(name[1] == '0' ? 0 : 4);
      else if (raw) t->set_raw_data(std::string(4, '\0'));  // half an int64
    }
    auto* range = gp->add_node();
    range->set_op_type("Range");
    range->set_name("range");
    range->add_input("r0");
    range->add_input("r1");
    range->add_input("r2");
    range->add_output("steps");
    EXPECT_REFUSED(m, "initializer 'r2'", raw ? "4 raw bytes" : "0 values", "dimensions say 1");
  }
}

TEST(HostileModel, UndefinedAndDoublyDefinedValues) {
  {
    auto m = base_model();
    first(m, "Relu")->set_input(0, "nowhere");
    EXPECT_REFUSED(m, "reads 'nowhere'", "no node, initializer or graph input");
  }
  {
    auto m = base_model();
    first(m, "Relu")->set_output(0, first(m, "Conv")->output(0));
    EXPECT_REFUSED(m, "already defined");
  }
  {
    auto m = base_model();
    m.mutable_graph()->mutable_output(0)->set_name("ghost");
    EXPECT_REFUSED(m, "graph output 'ghost'");
  }
  {
    auto m = base_model();
    first(m, "Relu")->clear_output();
    EXPECT_REFUSED(m, "has no output");
  }
}

TEST(HostileModel, AxisOutOfRange) {
  OnnxBuilder b("m");
  auto x = b.input("x", {1, 4, 3, 3});
  b.output(b.concat({b.relu(x), b.relu(x)}));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(b.serialize()));
  auto* a = attr(first(m, "Concat"), "axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(7);
  EXPECT_REFUSED(m, "bad.onnx: ", "Concat", "axis 7 is out of range");
}

// Found by onnx_import_fuzz: a variance below -epsilon made the folded
// weights NaN, and quantization converted NaN to int8 (undefined behaviour).
TEST(HostileModel, BatchNormThatFoldsToNonFiniteWeights) {
  auto bn_model = [] {
    OnnxBuilder b("m");
    auto x = b.input("x", {1, 3, 4, 4});
    b.output(b.relu(b.batchnorm(b.conv(x, 3, 3, 1, 1, 0, 1, false), 3)));
    onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(b.serialize()));
    return m;
  };
  auto input_of = [](onnx::ModelProto& m, int k) -> onnx::TensorProto& {
    const std::string name = first(m, "BatchNormalization")->input(k);
    for (auto& t : *m.mutable_graph()->mutable_initializer())
      if (t.name() == name) return t;
    throw std::runtime_error("no initializer " + name);
  };
  {
    auto m = bn_model();
    auto& var = input_of(m, 4);
    std::string raw = var.raw_data();
    const float neg = -1.f;
    std::memcpy(raw.data() + 4, &neg, 4);
    var.set_raw_data(raw);
    EXPECT_REFUSED(m, "BatchNormalization", "var + epsilon", "channel 1");
  }
  {
    auto m = bn_model();
    auto& beta = input_of(m, 2);
    beta.set_dims(0, 2);
    beta.set_raw_data(beta.raw_data().substr(0, 8));
    EXPECT_REFUSED(m, "BatchNormalization", "3 values each");
  }
  {
    auto m = bn_model();
    auto* eps = attr(first(m, "BatchNormalization"), "epsilon");
    eps->set_type(onnx::AttributeProto::FLOAT);
    eps->set_f(std::numeric_limits<float>::quiet_NaN());
    EXPECT_REFUSED(m, "attribute 'epsilon' is not a finite number");
  }
  {
    // Finite weights whose fold overflows float: gamma 1e30 over sqrt(1e-30).
    auto m = bn_model();
    auto& gamma = input_of(m, 1);
    std::string raw = gamma.raw_data();
    const float big = 3e38f;
    std::memcpy(raw.data(), &big, 4);
    gamma.set_raw_data(raw);
    auto& var = input_of(m, 4);
    std::string vr = var.raw_data();
    const float tiny = 0.f;
    std::memcpy(vr.data(), &tiny, 4);
    var.set_raw_data(vr);
    auto* eps = attr(first(m, "BatchNormalization"), "epsilon");
    eps->set_type(onnx::AttributeProto::FLOAT);
    eps->set_f(1e-30f);
    EXPECT_REFUSED(m, "not finite after folding");
  }
}

// Found by onnx_import_fuzz: a kernel_shape attribute that contradicts the
// weight's dims passed shape inference, and the FP32 interpreter read the
// weights out of bounds.
TEST(HostileModel, KernelShapeMustMatchTheWeights) {
  auto m = base_model();
  auto* a = attr(first(m, "Conv"), "kernel_shape");
  a->set_type(onnx::AttributeProto::INTS);
  a->clear_ints();
  a->add_ints(3);
  a->add_ints(1);
  auto* pads = attr(first(m, "Conv"), "pads");
  pads->clear_ints();
  for (int v : {1, 0, 1, 0}) pads->add_ints(v);
  EXPECT_REFUSED(m, "weight shape does not match", "kernel 3x1");
}

// Found by onnx_import_fuzz: a Conv without kernel_shape whose weight's rank
// disagreed with its data's made libonnx's shape inference index past the
// data's shape (SIGSEGV). The kernel is taken from the weight initializer,
// whose rank is checked first; a weight that is not an initializer needs
// the attribute.
TEST(HostileModel, ConvKernelComesFromACheckedWeight) {
  {
    auto m = base_model();
    auto* conv = first(m, "Conv");
    auto* attrs = conv->mutable_attribute();
    for (int i = 0; i < attrs->size(); ++i)
      if (attrs->Get(i).name() == "kernel_shape") attrs->DeleteSubrange(i, 1);
    EXPECT_EQ(error_of(m), "");  // the kernel follows the 4-D weight
  }
  {
    auto m = base_model();
    auto* conv = first(m, "Conv");
    for (auto& init : *m.mutable_graph()->mutable_initializer())
      if (init.name() == conv->input(1)) {
        init.clear_dims();
        init.add_dims(4 * 4 * 3 * 3);  // same data, one dimension
      }
    EXPECT_REFUSED(m, "has 1 dimensions", "at least 3");
  }
  {
    auto m = base_model();
    // A consistent 1-D kernel on a 4-D weight.
    auto* conv = first(m, "Conv");
    for (const char* name : {"kernel_shape", "strides", "dilations", "pads"}) {
      auto* a = attr(conv, name);
      a->set_type(onnx::AttributeProto::INTS);
      a->clear_ints();
    }
    attr(conv, "kernel_shape")->add_ints(3);
    attr(conv, "strides")->add_ints(1);
    attr(conv, "dilations")->add_ints(1);
    attr(conv, "pads")->add_ints(1);
    attr(conv, "pads")->add_ints(1);
    EXPECT_REFUSED(m, "kernel_shape has 1 values", "4 dimensions");
  }
}

// Found by onnx_import_fuzz: an Add with one input was indexed at its
// second; every operator's input count is checked against its schema.
TEST(HostileModel, InputCountsFollowTheOperatorSchemas) {
  {
    OnnxBuilder b("m");
    auto x = b.input("x", {1, 2, 3, 3});
    b.output(b.add(b.relu(x), b.relu(x)));
    onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(b.serialize()));
    first(m, "Add")->mutable_input()->RemoveLast();
    EXPECT_REFUSED(m, "bad.onnx: ", "(Add) has 1 inputs; expected 2");
  }
  {
    auto m = base_model();
    first(m, "Relu")->add_input(first(m, "Relu")->input(0));
    EXPECT_REFUSED(m, "(Relu) has 2 inputs; expected 1");
  }
  {
    auto m = base_model();
    first(m, "Conv")->set_input(1, "");
    EXPECT_REFUSED(m, "(Conv): input 1 is required but empty");
  }
}

// Found by onnx_import_fuzz: ONNX's own shape inference dereferenced a null
// type when a Conv without kernel_shape had an initializer without a data
// type as its weight (a SIGSEGV inside libonnx); refused before it runs.
// Only an operator's first output is computed: a second output that a
// node or the graph reads is refused by name, not left empty (a Conv with
// two outputs whose second feeds the pooling, as a fuzzer found).
TEST(HostileModel, ASecondOutputThatIsReadIsRefused) {
  onnx::ModelProto m = base_model();
  auto& nodes = *m.mutable_graph()->mutable_node();
  onnx::NodeProto* conv = nullptr;
  for (auto& n : nodes)
    if (n.op_type() == "Conv") conv = &n;  // the last one, read by the pooling
  ASSERT_NE(conv, nullptr);
  conv->add_output("second");
  onnx::NodeProto* gap = first(m, "GlobalAveragePool");
  gap->set_input(0, "second");
  const std::string e = error_of(m);
  EXPECT_NE(e.find("only an operator's first output is computed"), std::string::npos) << e;
  EXPECT_NE(e.find("'second'"), std::string::npos) << e;
}

// Shape inference follows a Pad's constants: dims whose product overflows
// int64 are refused by their element count before anything multiplies them
// (found by onnx_import_fuzz: regress_pad_overflowing_dims.onnx).
TEST(HostileModel, PadToOverflowingDimsIsRefused) {
  OnnxBuilder b("pad");
  auto x = b.input("x", {1, 4, 6, 6});
  const std::int64_t huge = std::int64_t{1} << 61;
  b.output(b.avgpool(b.pad(x, {0, 0, huge, huge, 0, 0, 1, 1}), 3, 1));
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(b.serialize()));
  EXPECT_REFUSED(m, "elements; at most");
}

TEST(HostileModel, UntypedWeightBeforeShapeInference) {
  auto m = base_model();
  auto* conv = first(m, "Conv");
  for (int i = 0; i < conv->attribute_size(); ++i)
    if (conv->attribute(i).name() == "kernel_shape") conv->mutable_attribute()->DeleteSubrange(i, 1);
  for (auto& t : *m.mutable_graph()->mutable_initializer())
    if (t.name() == conv->input(1)) {
      t.set_data_type(0);
      t.add_dims(1);  // rank 5 against a rank-4 input
    }
  EXPECT_REFUSED(m, "bad.onnx: ", "initializer", "has no valid data type");
}

// Found by onnx_import_fuzz: two graph inputs named alike, one feeding a
// Conv without kernel_shape, crashed ONNX's shape inference (SIGSEGV).
TEST(HostileModel, DuplicateNamesBeforeShapeInference) {
  {
    auto m = base_model();
    *m.mutable_graph()->add_input() = m.graph().input(0);
    EXPECT_REFUSED(m, "bad.onnx: ", "graph input 'x' is listed twice");
  }
  {
    auto m = base_model();
    *m.mutable_graph()->add_initializer() = m.graph().initializer(0);
    EXPECT_REFUSED(m, "bad.onnx: ", "is defined twice");
  }
}

// Found by onnx_import_fuzz: a MaxPool reading an initializer made the FP32
// interpreter read an activation that does not exist (null dereference).
TEST(HostileModel, ConstantAsDataInputIsRefused) {
  auto m = base_model();
  first(m, "Relu")->set_input(0, m.graph().initializer(1).name());
  EXPECT_REFUSED(m, "bad.onnx: ", "(Relu) reads the constant", "expected an activation");
}

TEST(HostileModel, UntypedGraphInputBeforeShapeInference) {
  auto m = base_model();
  m.mutable_graph()->mutable_input(0)->clear_type();
  EXPECT_REFUSED(m, "bad.onnx: ", "graph input 'x'");
}

TEST(HostileModel, NotAModelSaysWhatItIs) {
  EXPECT_NE(error_of_bytes("", "e.onnx").find("empty file"), std::string::npos);
  EXPECT_NE(error_of_bytes("\xff\xff\xff\xff garbage", "g.onnx").find("not an ONNX model"), std::string::npos);
  onnx::ModelProto no_graph;
  no_graph.set_ir_version(7);
  EXPECT_NE(error_of_bytes(no_graph.SerializeAsString(), "n.onnx").find("not an ONNX model"), std::string::npos);
}

// .npy files: every malformed part named.
std::string npy_error(const std::string& bytes) {
  try {
    parse_npy(bytes, "x.npy").as_float();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "";
}

std::string npy_with(const std::string& dict, std::size_t data_bytes) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + std::string(data_bytes, '\0');
}

TEST(HostileNpy, RoundTripAndEveryMalformedPart) {
  const std::string good = encode_npy({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const NpyArray a = parse_npy(good, "x.npy");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(a.as_float(), (std::vector<float>{1, 2, 3, 4, 5, 6}));

  auto expect = [](const std::string& bytes, const char* part) {
    const std::string m = npy_error(bytes);
    EXPECT_NE(m.find("x.npy"), std::string::npos) << m;
    EXPECT_NE(m.find(part), std::string::npos) << "expected '" << part << "' in: " << m;
  };
  expect("", "empty");
  expect("PK\x03\x04 a zip file, not an array", "not a .npy file");
  expect(good.substr(0, 40), "header says");
  expect(good.substr(0, good.size() - 3), "truncated");
  expect(good + "xx", "trailing bytes");
  std::string v9 = good;
  v9[6] = 9;
  expect(v9, "version 9");
  expect(npy_with("{'fortran_order': False, 'shape': (2,), }", 8), "no 'descr'");
  expect(npy_with("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8), "'>f4' is not supported");
  expect(npy_with("{'descr': '<c16', 'fortran_order': False, 'shape': (2,), }", 32), "not supported");
  expect(npy_with("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8), "Fortran");
  expect(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", 8), "'-1' is not a size");
  expect(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': 7, }", 28), "not a tuple");
  expect(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }", 8),
         "truncated");
  expect(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (3,", 12), "unterminated");
}

// Found by npy_fuzz: a zero among the dims after a large one was taken for
// a size overflow, so an empty array's own encoding did not read back.
TEST(HostileNpy, EmptyArraysOfAnyShapeReadBack) {
  for (const std::vector<std::int64_t>& shape : {std::vector<std::int64_t>{31, 0, 2}, {0}, {4096, 4096, 0, 7}}) {
    const NpyArray a = parse_npy(encode_npy(shape, std::vector<float>{}), "e.npy");
    EXPECT_EQ(a.shape, shape);
    EXPECT_TRUE(a.as_float().empty());
  }
  EXPECT_NE(npy_error(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (31, 0, 2), }", 4)).find("trailing"),
            std::string::npos);
  // Also found by npy_fuzz: counting the elements of such a shape overflowed
  // (undefined behaviour) before the zero was reached.
  const NpyArray big = parse_npy(
      npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296, 0), }", 0),
      "b.npy");
  EXPECT_EQ(big.count(), 0);
  EXPECT_TRUE(big.as_float().empty());
}

}  // namespace
}  // namespace vp::cc
