// Model validation before the passes: every check here stands in front of
// a division, an index or an allocation further on.
#include "onnx_validate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include <onnx/onnx_pb.h>

#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

std::string node_label(const onnx::NodeProto& n, int index) {
  return "node '" + (n.name().empty() ? n.op_type() + "#" + std::to_string(index) : n.name()) + "' (" + n.op_type() +
         ")";
}

// Dimensions of a tensor: each >= 0, the product within kMaxTensorElements
// (checked without overflow). Returns the element count.
std::int64_t checked_count(const google::protobuf::RepeatedField<std::int64_t>& dims, const std::string& what) {
  std::int64_t n = 1;
  for (const auto d : dims) {
    if (d < 0) throw CompileError(what + " has dimension " + std::to_string(d) + "; dimensions are >= 0");
    if (d != 0 && n > kMaxTensorElements / d)
      throw CompileError(what + " has more than " + std::to_string(kMaxTensorElements) + " elements");
    n *= d;
  }
  return n;
}

void check_tensor(const onnx::TensorProto& t, const std::string& what) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw CompileError(what + " keeps its data in an external file; save the model with the data inside");
  // ONNX's shape inference dereferences the type of an untyped
  // initializer: that it has a type is checked before it runs (which types
  // vp-cc reads is checked when the data is read).
  const auto dt = t.data_type();
  if (dt == onnx::TensorProto::UNDEFINED || !onnx::TensorProto::DataType_IsValid(dt))
    throw CompileError(what + " has no valid data type (" + std::to_string(dt) + ")");
  const std::int64_t count = checked_count(t.dims(), what);
  // ONNX's shape inference reads constant inputs (Range's bounds, Reshape's
  // shape) by their dimensions and indexes the data it finds: an initializer
  // with fewer values than its dimensions say was read past its end (found
  // by onnx_import_fuzz: a Range's delta with no data). So the data must
  // hold exactly the elements the dimensions say, in the one field the type
  // uses, or in raw bytes of the type's size.
  using T = onnx::TensorProto;
  std::int64_t size = 0;  // bytes per element in raw_data
  int typed = 0;          // values in the typed field
  const int per = dt == T::COMPLEX64 || dt == T::COMPLEX128 ? 2 : 1;
  switch (dt) {
    case T::FLOAT: size = 4; typed = t.float_data_size(); break;
    case T::COMPLEX64: size = 8; typed = t.float_data_size(); break;
    case T::DOUBLE: size = 8; typed = t.double_data_size(); break;
    case T::COMPLEX128: size = 16; typed = t.double_data_size(); break;
    case T::INT64: size = 8; typed = t.int64_data_size(); break;
    case T::UINT32: size = 4; typed = t.uint64_data_size(); break;
    case T::UINT64: size = 8; typed = t.uint64_data_size(); break;
    case T::INT32: size = 4; typed = t.int32_data_size(); break;
    case T::INT16: case T::UINT16: case T::FLOAT16: case T::BFLOAT16: size = 2; typed = t.int32_data_size(); break;
    case T::INT8: case T::UINT8: case T::BOOL: size = 1; typed = t.int32_data_size(); break;
    case T::STRING: typed = t.string_data_size(); break;
    default: return;  // float8 kinds and later: read (and refused) where the data is used
  }
  if (!t.raw_data().empty() && dt != T::STRING) {
    if (static_cast<std::int64_t>(t.raw_data().size()) != count * size)
      throw CompileError(what + " has " + std::to_string(t.raw_data().size()) + " raw bytes, its dimensions say " +
                         std::to_string(count) + " elements");
  } else if (typed != count * per) {
    throw CompileError(what + " has " + std::to_string(typed) + " values, its dimensions say " + std::to_string(count));
  }
}

// Attributes a window operator's shape inference divides or indexes by.
void check_attributes(const onnx::NodeProto& n, const std::string& label) {
  std::map<std::string, std::vector<std::int64_t>> ints;
  for (const auto& a : n.attribute()) {
    // ONNX's shape inference reads a window attribute's integers whatever
    // type the attribute declares (found by onnx_import_fuzz: strides [0, 1]
    // declared GRAPHS passed the range check below and divided by zero).
    const auto declared = onnx::AttributeProto::AttributeType_Name(a.type());
    const bool window = a.name() == "strides" || a.name() == "dilations" || a.name() == "kernel_shape" ||
                        a.name() == "pads" || a.name() == "group";
    const auto want = a.name() == "group" ? onnx::AttributeProto::INT : onnx::AttributeProto::INTS;
    if (window && a.type() != want)
      throw CompileError(label + ": attribute '" + a.name() + "' has type " + (declared.empty() ? "?" : declared) +
                         "; expected " + onnx::AttributeProto::AttributeType_Name(want));
    if ((a.ints_size() > 0 && a.type() != onnx::AttributeProto::INTS) ||
        (a.floats_size() > 0 && a.type() != onnx::AttributeProto::FLOATS))
      throw CompileError(label + ": attribute '" + a.name() + "' holds a list of " +
                         (a.ints_size() > 0 ? "integers" : "floats") + " but declares type " +
                         (declared.empty() ? std::to_string(a.type()) : declared));
    if (a.type() == onnx::AttributeProto::INTS) ints[a.name()].assign(a.ints().begin(), a.ints().end());
    else if (a.type() == onnx::AttributeProto::INT) ints[a.name()] = {a.i()};
    else if (a.type() == onnx::AttributeProto::TENSOR) check_tensor(a.t(), label + " attribute '" + a.name() + "'");
    // epsilon, alpha, Clip bounds: a NaN would pass through every scale.
    const bool bad_float = (a.type() == onnx::AttributeProto::FLOAT && !std::isfinite(a.f())) ||
                           (a.type() == onnx::AttributeProto::FLOATS &&
                            std::any_of(a.floats().begin(), a.floats().end(), [](float f) { return !std::isfinite(f); }));
    if (bad_float) throw CompileError(label + ": attribute '" + a.name() + "' is not a finite number");
  }
  auto each = [&](const char* name, std::int64_t lo, const char* expected) {
    const auto it = ints.find(name);
    if (it == ints.end()) return;
    for (const auto v : it->second)
      if (v < lo || v > (1 << 20))
        throw CompileError(label + ": " + name + " " + std::to_string(v) + " is out of range; expected " + expected);
  };
  each("strides", 1, "values >= 1");
  each("dilations", 1, "values >= 1");
  each("kernel_shape", 1, "values >= 1");
  each("pads", 0, "values >= 0");
  each("group", 1, "a value >= 1");
  const auto ks = ints.find("kernel_shape");
  if (ks != ints.end()) {
    const std::size_t rank = ks->second.size();
    auto count = [&](const char* name, std::size_t want) {
      const auto it = ints.find(name);
      if (it != ints.end() && it->second.size() != want)
        throw CompileError(label + ": " + name + " has " + std::to_string(it->second.size()) + " values; expected " +
                           std::to_string(want) + " for a " + std::to_string(rank) + "-D kernel");
    };
    count("strides", rank);
    count("dilations", rank);
    count("pads", 2 * rank);
  }
}

// Inputs each operator takes (ONNX's schemas): the first `required` must be
// present, at most `most` may be given.
struct Arity {
  int required, most;
};
Arity arity_of(OpKind op) {
  switch (op) {
    case OpKind::Conv: case OpKind::Gemm: return {2, 3};
    case OpKind::MatMul: case OpKind::Add: case OpKind::Mul: case OpKind::Reshape: return {2, 2};
    case OpKind::Div: case OpKind::Sub: case OpKind::Gather: case OpKind::Pow: return {2, 2};
    case OpKind::LayerNormalization: return {2, 3};
    case OpKind::Slice: return {3, 5};
    case OpKind::Where: return {3, 3};
    case OpKind::Split: return {1, 2};
    case OpKind::Equal: return {2, 2};
    case OpKind::Clip: case OpKind::Pad: case OpKind::Dropout: return {1, 3};
    case OpKind::BatchNormalization: return {5, 5};
    case OpKind::Concat: return {1, 1 << 20};
    case OpKind::Constant: return {0, 0};
    default: return {1, 1};
  }
}

// A Conv's kernel_shape is optional in ONNX (it then follows the weight's
// dimensions), but libonnx's shape inference reads it from the weight without
// checking the ranks agree, and indexes past the data's shape when they do not
// (found by onnx_import_fuzz). So the kernel is made explicit here, from a
// weight initializer whose rank is checked, before inference runs.
void conv_kernels_from_weights(onnx::GraphProto& gp, const std::string& file) {
  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& init : gp.initializer()) inits[init.name()] = &init;
  for (int i = 0; i < gp.node_size(); ++i) {
    onnx::NodeProto& n = *gp.mutable_node(i);
    if (n.op_type() != "Conv" || n.input_size() < 2) continue;
    const onnx::AttributeProto* ks = nullptr;
    for (const auto& a : n.attribute())
      if (a.name() == "kernel_shape") ks = &a;
    const auto w = inits.find(n.input(1));
    const std::string label = file + ": " + node_label(n, i);
    if (w == inits.end()) {
      if (!ks) throw CompileError(label + " has no kernel_shape and its weight '" + n.input(1) +
                                  "' is not an initializer; expected one of the two");
      continue;
    }
    const auto& dims = w->second->dims();
    if (dims.size() < 3)
      throw CompileError(label + ": weight '" + n.input(1) + "' has " + std::to_string(dims.size()) +
                         " dimensions; expected [out, in/group, kernel...] (at least 3)");
    if (ks) {
      if (ks->ints_size() + 2 != dims.size())
        throw CompileError(label + ": kernel_shape has " + std::to_string(ks->ints_size()) + " values but weight '" +
                           n.input(1) + "' has " + std::to_string(dims.size()) + " dimensions; expected " +
                           std::to_string(dims.size() - 2));
      continue;
    }
    onnx::AttributeProto* a = n.add_attribute();
    a->set_name("kernel_shape");
    a->set_type(onnx::AttributeProto::INTS);
    for (int d = 2; d < dims.size(); ++d) a->add_ints(dims[d]);
  }
}

}  // namespace

void validate_onnx_model(onnx::ModelProto& model, const std::string& file) {
  if (!model.has_graph() || (model.graph().node_size() == 0 && model.graph().output_size() == 0))
    throw CompileError(file + ": not an ONNX model (no graph)");
  onnx::GraphProto& gp = *model.mutable_graph();

  // Where each value comes from: a graph input, an initializer or one node.
  // Names are unique: ONNX's shape inference keeps one type per name and
  // crashed on two graph inputs of the same name.
  std::set<std::string> defined, inputs;
  for (const auto& init : gp.initializer()) {
    check_tensor(init, "initializer '" + init.name() + "'");
    if (!defined.insert(init.name()).second)
      throw CompileError(file + ": initializer '" + init.name() + "' is defined twice");
  }
  for (const auto& vi : gp.input()) {
    if (!inputs.insert(vi.name()).second) throw CompileError(file + ": graph input '" + vi.name() + "' is listed twice");
    defined.insert(vi.name());
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      for (const auto& d : vi.type().tensor_type().shape().dim())
        if (d.has_dim_value() && d.dim_value() <= 0)
          throw CompileError(file + ": graph input '" + vi.name() + "' has dimension " +
                             std::to_string(d.dim_value()) + "; dimensions are >= 1");
  }
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < gp.node_size(); ++i) {
    const auto& n = gp.node(i);
    const std::string label = node_label(n, i);
    check_attributes(n, label);
    if (n.output_size() == 0 || n.output(0).empty()) throw CompileError(file + ": " + label + " has no output");
    for (const auto& o : n.output()) {
      if (o.empty()) continue;
      if (defined.count(o) || producer.count(o))
        throw CompileError(file + ": " + label + " writes '" + o + "', which is already defined elsewhere");
      producer[o] = i;
    }
  }
  conv_kernels_from_weights(gp, file);
  for (int i = 0; i < gp.node_size(); ++i)
    for (const auto& in : gp.node(i).input())
      if (!in.empty() && !defined.count(in) && !producer.count(in))
        throw CompileError(file + ": " + node_label(gp.node(i), i) + " reads '" + in +
                           "', which no node, initializer or graph input defines");
  for (const auto& vi : gp.output())
    if (!defined.count(vi.name()) && !producer.count(vi.name()))
      throw CompileError(file + ": graph output '" + vi.name() + "' is not computed by any node");

  // Topological order (Kahn, always taking the earliest ready node, so a
  // sorted graph keeps its order); what is left over lies on a cycle.
  const int n_nodes = gp.node_size();
  std::vector<int> waiting(static_cast<std::size_t>(n_nodes), 0);
  std::vector<std::vector<int>> users(static_cast<std::size_t>(n_nodes));
  for (int i = 0; i < n_nodes; ++i)
    for (const auto& in : gp.node(i).input()) {
      const auto it = producer.find(in);
      if (in.empty() || it == producer.end()) continue;
      if (it->second == i) throw CompileError(file + ": " + node_label(gp.node(i), i) + " reads its own output '" + in + "'");
      ++waiting[static_cast<std::size_t>(i)];
      users[static_cast<std::size_t>(it->second)].push_back(i);
    }
  std::set<int> ready;
  for (int i = 0; i < n_nodes; ++i)
    if (waiting[static_cast<std::size_t>(i)] == 0) ready.insert(i);
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (const int u : users[static_cast<std::size_t>(i)])
      if (--waiting[static_cast<std::size_t>(u)] == 0) ready.insert(u);
  }
  if (static_cast<int>(order.size()) != n_nodes) {
    for (int i = 0; i < n_nodes; ++i)
      if (waiting[static_cast<std::size_t>(i)] > 0)
        throw CompileError(file + ": the graph has a cycle through " + node_label(gp.node(i), i) +
                           "; an ONNX graph is acyclic");
  }
  bool sorted = true;
  for (int i = 0; i < n_nodes; ++i) sorted = sorted && order[static_cast<std::size_t>(i)] == i;
  if (!sorted) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (const int i : order) *nodes.Add() = gp.node(i);
    gp.mutable_node()->Swap(&nodes);
  }
}

void validate_graph(const Graph& g, const std::string& file) {
  if (g.inputs.empty()) throw CompileError(file + ": the graph has no input (a model of constants only)");
  if (g.outputs.empty()) throw CompileError(file + ": the graph has no output");
  // -infinity is a value only as a Where's fill (masked_fill of a causal
  // mask, canonicalize_attention.cpp), which never reaches an interpreter.
  std::vector<bool> fill(g.values.size(), false);
  for (const Node& n : g.nodes)
    for (std::size_t k = 1; n.op == OpKind::Where && k < n.in.size(); ++k)
      if (n.in[k] >= 0) fill[static_cast<std::size_t>(n.in[k])] = true;
  for (const Node& n : g.nodes)
    for (std::size_t k = 0; k < n.in.size(); ++k)
      if (n.in[k] >= 0 && (n.op != OpKind::Where || k == 0)) fill[static_cast<std::size_t>(n.in[k])] = false;
  for (std::size_t id = 0; id < g.values.size(); ++id) {
    const Value& v = g.values[id];
    if (!v.is_const) continue;
    for (std::size_t i = 0; i < v.data.size(); ++i)
      if (!std::isfinite(v.data[i]) && !(fill[id] && v.data[i] < 0 && std::isinf(v.data[i])))
        throw CompileError(file + ": constant '" + v.name + "' holds " + (std::isnan(v.data[i]) ? "NaN" : "infinity") +
                           " at element " + std::to_string(i) + "; weights must be finite");
  }
  for (const Node& n : g.nodes) {
    const std::string label = "node '" + n.name + "' (" + op_name(n.op) + ")";
    const Arity ar = arity_of(n.op);
    const int given = static_cast<int>(n.in.size());
    if (given > ar.most || given < ar.required)
      throw CompileError(file + ": " + label + " has " + std::to_string(given) + " inputs; expected " +
                         (ar.required == ar.most ? std::to_string(ar.required)
                                                 : std::to_string(ar.required) + " to " + std::to_string(ar.most)));
    for (int i = 0; i < ar.required; ++i)
      if (n.in[static_cast<std::size_t>(i)] < 0)
        throw CompileError(file + ": " + label + ": input " + std::to_string(i) + " is required but empty");
    if (n.out.empty() || n.out[0] < 0) throw CompileError(file + ": " + label + " has no output");
    for (const int id : n.in) {
      if (id < 0) continue;
      const Value& v = g.val(id);
      if (v.is_const && v.data.empty() && !(n.op == OpKind::Reshape && id == n.in.back()))
        throw CompileError(file + ": " + label + " reads the empty constant '" + v.name + "'");
    }
    if (n.in.empty() || n.in[0] < 0) continue;
    // A data input that is a constant would need constant folding; the
    // interpreters hold no activation for it (Add and Mul are checked by
    // canonicalize, which accepts a constant operand).
    // (A Where's first input is its condition: a causal mask, constant.)
    // (A Concat may put a constant beside activations: a class token.)
    const bool beside = n.op == OpKind::Concat && std::any_of(n.in.begin(), n.in.end(), [&](int id) {
                          return id >= 0 && !g.val(id).is_const;
                        });
    if (n.op != OpKind::Add && n.op != OpKind::Mul && n.op != OpKind::Where && !beside && g.val(n.in[0]).is_const)
      throw CompileError(file + ": " + label + " reads the constant '" + g.val(n.in[0]).name +
                         "' as its data input; expected an activation (constant folding is not supported)");
    const auto rank = static_cast<std::int64_t>(g.val(n.in[0]).dims.size());
    auto attr = [&](const char* name, std::int64_t fallback) {
      const auto it = n.ints.find(name);
      return it == n.ints.end() || it->second.empty() ? fallback : it->second[0];
    };
    auto axis_in = [&](std::int64_t lo, std::int64_t hi, std::int64_t fallback) {
      const std::int64_t a = attr("axis", fallback);
      if (a < lo || a > hi)
        throw CompileError(file + ": " + label + ": axis " + std::to_string(a) + " is out of range; expected " +
                           std::to_string(lo) + " to " + std::to_string(hi) + " for rank " + std::to_string(rank));
    };
    if (n.op == OpKind::Concat || n.op == OpKind::Softmax || n.op == OpKind::Split)
      axis_in(-rank, rank - 1, n.op == OpKind::Softmax ? -1 : 0);
    if (n.op == OpKind::Flatten) axis_in(-rank, rank, 1);
    if (n.op == OpKind::Conv && n.in.size() > 1 && n.in[1] >= 0) {
      const std::int64_t group = attr("group", 1);
      const auto& x = g.val(n.in[0]).dims;
      const auto& w = g.val(n.in[1]).dims;
      if (x.size() >= 2 && w.size() >= 2 && (x[1] % group != 0 || w[0] % group != 0 || w[1] * group != x[1]))
        throw CompileError(file + ": " + label + ": group " + std::to_string(group) + " does not divide " +
                           std::to_string(x[1]) + " input and " + std::to_string(w[0]) +
                           " output channels with a weight of " + std::to_string(w[1]) + " input channels");
    }
  }
}

}  // namespace vp::cc
