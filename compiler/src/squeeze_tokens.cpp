// Token matrices of a vision transformer without their unit axis, before
// import (after shape inference; squeeze_tokens.h).
//
// torchvision's ViT turns its patch embedding's map [1, C, h, w] into
// tokens with x.reshape(1, C, T).permute(0, 2, 1), keeps them as [1, T, C]
// and hands them to nn.MultiheadAttention as [T, 1, C]. Both are the same
// row-major bytes as the [T, C] matrix the chip stores (the map's pixels in
// order, each pixel's C channels together), and the 2-D [T, C] form is the
// one the importer reads as rows (C = channels, H = T, as a decoder's
// matrices). This pass rewrites the nodes reading such values so that they
// compute the same numbers on [T, C]: Transposes that only move the unit
// axis become Identities, Reshapes get explicit shapes without it, axes of
// Concat, Gather, Slice, Softmax and LayerNormalization shift, constant
// operands lose their leading 1. Anything it does not know leaves the graph
// as it was.
#include "squeeze_tokens.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace vp::cc {

namespace {

using Dims = std::vector<std::int64_t>;

Dims known_dims(const onnx::ValueInfoProto& vi) {
  Dims d;
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return {};
  for (const auto& dim : vi.type().tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() <= 0) return {};
    d.push_back(dim.dim_value());
  }
  return d;
}

// The unit axis a 3-D token value loses: 0 of [1, T, C], 1 of [T, 1, C].
int unit_axis(const Dims& d) {
  if (d.size() != 3) return -1;
  if (d[0] == 1) return 0;
  if (d[1] == 1) return 1;
  return -1;
}

Dims without(const Dims& d, int axis) {
  Dims r = d;
  r.erase(r.begin() + axis);
  return r;
}

std::int64_t attr_int(const onnx::NodeProto& n, const char* name, std::int64_t dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return dflt;
}

void set_attr_int(onnx::NodeProto& n, const char* name, std::int64_t v) {
  for (auto& a : *n.mutable_attribute())
    if (a.name() == name) {
      a.set_i(v);
      return;
    }
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// The values of an int64 constant, typed or raw; false for anything else.
bool int_values(const onnx::TensorProto& t, Dims& out) {
  if (t.data_type() != onnx::TensorProto::INT64) return false;
  out.assign(t.int64_data().begin(), t.int64_data().end());
  const std::string& raw = t.raw_data();
  if (out.empty() && !raw.empty()) {
    if (raw.size() % sizeof(std::int64_t)) return false;
    out.resize(raw.size() / sizeof(std::int64_t));
    std::memcpy(out.data(), raw.data(), raw.size());
  }
  return true;
}

class Squeezer {
 public:
  explicit Squeezer(onnx::GraphProto& gp) : gp_(gp) {
    for (const auto* list : {&gp.input(), &gp.value_info(), &gp.output()})
      for (const auto& vi : *list) dims_[vi.name()] = known_dims(vi);
    for (int i = 0; i < gp.initializer_size(); ++i) {
      inits_[gp.initializer(i).name()] = i;
      const auto& t = gp.initializer(i);
      dims_[t.name()] = Dims(t.dims().begin(), t.dims().end());
    }
    for (const auto& n : gp.node())
      if (n.op_type() == "Constant")
        for (const auto& a : n.attribute())
          if (a.name() == "value" && n.output_size() == 1) {
            constants_[n.output(0)] = &a.t();
            dims_[n.output(0)] = Dims(a.t().dims().begin(), a.t().dims().end());
          }
    for (const auto& o : gp.output()) outputs_.insert(o.name());
  }

  bool run() {
    // Seeds: Transpose(0, 2, 1) of Reshape([1, C, h, w] -> [1, C, T]).
    std::map<std::string, int> producer;
    for (int i = 0; i < gp_.node_size(); ++i)
      for (const auto& o : gp_.node(i).output()) producer[o] = i;
    std::vector<int> seeds;
    for (int i = 0; i < gp_.node_size(); ++i) {
      const auto& n = gp_.node(i);
      if (n.op_type() != "Transpose" || n.input_size() != 1 || n.output_size() != 1 || perm(n) != Dims{0, 2, 1})
        continue;
      const Dims& in = dims_[n.input(0)];
      const auto p = producer.find(n.input(0));
      if (in.size() != 3 || in[0] != 1 || p == producer.end()) continue;
      const auto& r = gp_.node(p->second);
      const Dims& map = r.op_type() == "Reshape" && r.input_size() > 0 ? dims_[r.input(0)] : Dims{};
      if (map.size() == 4 && map[0] == 1 && map[1] == in[1] && map[2] * map[3] == in[2]) seeds.push_back(i);
    }
    if (seeds.empty()) return false;
    // The rewrite edits nodes and appends initializers; undoing it restores
    // the nodes and drops what was appended (a copy of the whole graph
    // would copy every weight: 345 MB for ViT-B/16).
    const std::vector<onnx::NodeProto> nodes(gp_.node().begin(), gp_.node().end());
    const int initializers = gp_.initializer_size();
    if (!rewrite(seeds)) {
      gp_.clear_node();
      for (const auto& n : nodes) *gp_.add_node() = n;
      gp_.mutable_initializer()->DeleteSubrange(initializers, gp_.initializer_size() - initializers);
      return false;
    }
    return true;
  }

 private:
  static Dims perm(const onnx::NodeProto& n) {
    for (const auto& a : n.attribute())
      if (a.name() == "perm") return Dims(a.ints().begin(), a.ints().end());
    return {};
  }

  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int k = 1; dims_.count(name); ++k) name = base + "_" + std::to_string(k);
    dims_[name] = {};
    return name;
  }

  std::string int_constant(const std::string& base, const Dims& values, bool scalar = false) {
    auto* t = gp_.add_initializer();
    t->set_name(fresh(base));
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar) t->add_dims(static_cast<std::int64_t>(values.size()));
    for (const auto v : values) t->add_int64_data(v);
    dims_[t->name()] = scalar ? Dims{} : Dims{static_cast<std::int64_t>(values.size())};
    return t->name();
  }

  // A constant operand of rank 3 with a leading 1 ([1, T, C], [1, 1, C]):
  // a copy without it; an operand of lower rank broadcasts as it was.
  bool squeeze_constant(onnx::NodeProto& n, int i) {
    const std::string& name = n.input(i);
    const Dims& d = dims_[name];
    if (d.size() < 3) return true;
    if (d.size() != 3 || d[0] != 1) return false;
    const onnx::TensorProto* src = nullptr;
    if (inits_.count(name)) src = &gp_.initializer(inits_.at(name));
    else if (constants_.count(name)) src = constants_.at(name);
    if (!src) return false;
    onnx::TensorProto t = *src;
    t.set_name(fresh(name + ".tokens"));
    t.clear_dims();
    t.add_dims(d[1]);
    t.add_dims(d[2]);
    dims_[t.name()] = {d[1], d[2]};
    *gp_.add_initializer() = t;
    n.set_input(i, t.name());
    return true;
  }

  // Rewrites node n, some of whose inputs lost their unit axis (axis[input]).
  // Fills the axis its output loses (-1: keeps its dims), or false.
  bool node(onnx::NodeProto& n, const std::map<std::string, int>& axis, int& out_axis) {
    const std::string& op = n.op_type();
    int s = -1;
    for (const auto& i : n.input())
      if (axis.count(i)) {
        if (s >= 0 && axis.at(i) != s) return false;
        s = axis.at(i);
      }
    const Dims& od = dims_[n.output(0)];
    const int rank_in = 3;
    auto shifted = [&](std::int64_t a) -> std::int64_t {  // an axis of the 3-D input, on the 2-D one
      if (a < 0) a += rank_in;
      if (a < 0 || a >= rank_in || a == s) return -1;
      return a > s ? a - 1 : a;
    };
    static const std::set<std::string> elementwise{"Add", "Sub", "Mul", "Div", "Erf", "Relu", "Sigmoid", "Tanh",
                                                   "Identity", "Dropout"};
    if (elementwise.count(op)) {
      for (int i = 0; i < n.input_size(); ++i)
        if (!n.input(i).empty() && !axis.count(n.input(i)) && !squeeze_constant(n, i)) return false;
      out_axis = unit_axis(od) == s ? s : -1;
      return out_axis >= 0;
    }
    if (op == "LayerNormalization" || op == "Softmax") {
      const auto a = shifted(attr_int(n, "axis", -1));
      if (a != 1) return false;  // over the channels only
      set_attr_int(n, "axis", -1);
      out_axis = s;
      return unit_axis(od) == s;
    }
    if (op == "MatMul") {  // by a constant [C, N]
      if (n.input_size() != 2 || !axis.count(n.input(0)) || dims_[n.input(1)].size() != 2 ||
          !(inits_.count(n.input(1)) || constants_.count(n.input(1))))
        return false;
      out_axis = s;
      return unit_axis(od) == s;
    }
    if (op == "Transpose") {
      // Only the unit axis moves: the same bytes, an Identity.
      const Dims p = perm(n);
      if (p.size() != 3) return false;
      Dims rest;
      for (const auto a : p)
        if (a != s) rest.push_back(a);
      if (!std::is_sorted(rest.begin(), rest.end())) return false;
      const int moved = static_cast<int>(std::find(p.begin(), p.end(), s) - p.begin());
      if (unit_axis(od) != moved && !(od.size() == 3 && od[static_cast<std::size_t>(moved)] == 1)) return false;
      if (moved > 1) return false;
      n.set_op_type("Identity");
      n.clear_attribute();
      out_axis = moved;
      return true;
    }
    if (op == "Reshape") {
      if (od.empty() || n.input_size() != 2) return false;
      const int u = unit_axis(od);
      const Dims shape = u >= 0 ? without(od, u) : od;
      n.set_input(1, int_constant(n.output(0) + ".shape", shape));
      out_axis = u;
      return true;
    }
    if (op == "Concat") {
      const auto a = shifted(attr_int(n, "axis", 0));
      if (a < 0) return false;
      for (int i = 0; i < n.input_size(); ++i)
        if (!axis.count(n.input(i)) && !squeeze_constant(n, i)) return false;
      set_attr_int(n, "axis", a);
      out_axis = s;
      return unit_axis(od) == s;
    }
    if (op == "Gather") {
      // x[:, 0] of [1, T, C]: one row, [1, C] as before (the index as a
      // one-element list keeps the axis the scalar took away).
      if (n.input_size() != 2) return false;
      const auto a = shifted(attr_int(n, "axis", 0));
      const auto* idx = inits_.count(n.input(1)) ? &gp_.initializer(inits_.at(n.input(1)))
                        : constants_.count(n.input(1)) ? constants_.at(n.input(1))
                                                        : nullptr;
      Dims i;
      if (a < 0 || !idx || idx->dims_size() != 0 || od.size() != 2 || !int_values(*idx, i) || i.size() != 1)
        return false;
      set_attr_int(n, "axis", a);
      n.set_input(1, int_constant(n.output(0) + ".index", i));
      out_axis = -1;
      return true;
    }
    if (op == "Slice") {
      if (n.input_size() < 4) return false;
      const auto* ax = inits_.count(n.input(3)) ? &gp_.initializer(inits_.at(n.input(3)))
                       : constants_.count(n.input(3)) ? constants_.at(n.input(3))
                                                       : nullptr;
      Dims given, axes;
      if (!ax || !int_values(*ax, given)) return false;
      for (const auto a : given) {
        const auto b = shifted(a);
        if (b < 0) return false;
        axes.push_back(b);
      }
      n.set_input(3, int_constant(n.output(0) + ".axes", axes));
      out_axis = s;
      return unit_axis(od) == s;
    }
    return false;
  }

  bool rewrite(const std::vector<int>& seeds) {
    std::map<std::string, int> axis;  // squeezed value -> the axis it lost
    std::vector<onnx::NodeProto> extra;
    for (const int i : seeds) {
      // Transpose -> [1, T, C] under a new name, Reshape to [T, C] under the
      // old one: the canonicalizer reads the pair as the map's own bytes.
      auto& t = *gp_.mutable_node(i);
      const std::string out = t.output(0);
      const Dims d = dims_[out];
      if (outputs_.count(out)) return false;
      const std::string mid = fresh(out + ".batched");
      t.set_output(0, mid);
      onnx::NodeProto r;
      r.set_op_type("Reshape");
      r.set_name(t.name() + ".tokens");
      r.add_input(mid);
      r.add_input(int_constant(out + ".shape", without(d, 0)));
      r.add_output(out);
      extra.push_back(r);
      axis[out] = 0;
    }
    // Nodes in graph order (topological): each reads squeezed values or not.
    for (auto& n : *gp_.mutable_node()) {
      bool reads = false;
      for (const auto& i : n.input()) reads = reads || axis.count(i);
      if (!reads && n.op_type() == "Reshape" && n.input_size() == 2 && n.output_size() == 1 &&
          unit_axis(dims_[n.output(0)]) >= 0 &&
          dims_[n.input(0)].size() == 2 && without(dims_[n.output(0)], unit_axis(dims_[n.output(0)])) == dims_[n.input(0)] &&
          !outputs_.count(n.output(0))) {
        // Back into token form (MultiheadAttention's output projection
        // viewed as [T, 1, C]): the same values without the unit axis.
        const int u = unit_axis(dims_[n.output(0)]);
        n.set_input(1, int_constant(n.output(0) + ".shape", without(dims_[n.output(0)], u)));
        axis[n.output(0)] = u;
        continue;
      }
      if (!reads) continue;
      if (n.output_size() != 1 || n.domain() != "" ) return false;
      int out_axis = -1;
      if (!node(n, axis, out_axis)) return false;
      if (out_axis >= 0) {
        if (outputs_.count(n.output(0))) return false;
        axis[n.output(0)] = out_axis;
      }
    }
    // The new Reshapes after their Transposes (graph order).
    std::vector<onnx::NodeProto> nodes;
    for (const auto& n : gp_.node()) {
      nodes.push_back(n);
      for (const auto& r : extra)
        if (r.input(0) == n.output(0)) nodes.push_back(r);
    }
    gp_.clear_node();
    for (const auto& n : nodes) *gp_.add_node() = n;
    return true;
  }

  onnx::GraphProto& gp_;
  std::map<std::string, Dims> dims_;
  std::map<std::string, int> inits_;
  std::map<std::string, const onnx::TensorProto*> constants_;
  std::set<std::string> outputs_;
};

}  // namespace

bool squeeze_token_batch(onnx::GraphProto& gp) { return Squeezer(gp).run(); }

}  // namespace vp::cc
