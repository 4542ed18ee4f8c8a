// Shape arithmetic folded before import: a Shape of a tensor whose
// dimensions shape inference fixed, and Gather, Add, Sub, Mul, Div of small
// constants, become Constant nodes. PyTorch exports x.chunk(2, dim=1) of a
// static tensor as Shape -> Gather -> Add -> Div -> Mul feeding a Slice's
// ends (ShuffleNet V2); once they are constants, shape inference gives the
// Slice and everything after it their dimensions.
#include "fold_constants.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "vp/cc/graph.h"

namespace vp::cc {

namespace {

// Shape vectors and scalars only: a weight is never folded (nor copied).
constexpr std::int64_t kMaxFolded = 64;
// Integers folded stay well inside int64 (a product of two shape values
// beyond this is a malformed model, not a shape): larger results are left
// unfolded rather than converted with overflow.
constexpr double kMaxInteger = 4.0e18;

struct Const {
  std::vector<double> data;
  std::vector<std::int64_t> dims;
  bool integer = false;
};

bool read_tensor(const onnx::TensorProto& t, Const& c) {
  std::int64_t n = 1;
  for (const auto d : t.dims()) n *= d;
  if (n < 0 || n > kMaxFolded) return false;
  c.dims.assign(t.dims().begin(), t.dims().end());
  const auto count = static_cast<std::size_t>(n);
  const std::string& raw = t.raw_data();
  auto from = [&](auto sample, const auto& field) {
    using T = decltype(sample);
    if (!raw.empty()) {
      if (raw.size() != count * sizeof(T)) return false;
      for (std::size_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        c.data.push_back(static_cast<double>(v));
      }
      return true;
    }
    if (static_cast<std::size_t>(field.size()) != count) return false;
    for (const auto v : field) c.data.push_back(static_cast<double>(v));
    return true;
  };
  switch (t.data_type()) {
    case onnx::TensorProto::INT64: c.integer = true; return from(std::int64_t{}, t.int64_data());
    case onnx::TensorProto::INT32: c.integer = true; return from(std::int32_t{}, t.int32_data());
    case onnx::TensorProto::FLOAT: return from(float{}, t.float_data());
    default: return false;
  }
}

std::vector<std::int64_t> known_dims(const onnx::ValueInfoProto& vi) {
  std::vector<std::int64_t> d;
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return {};
  for (const auto& dim : vi.type().tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() <= 0) return {};
    d.push_back(dim.dim_value());
  }
  return d;
}

std::int64_t attr_int(const onnx::NodeProto& n, const char* name, std::int64_t dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return dflt;
}

// The node's output as a constant, or false.
bool evaluate(const onnx::NodeProto& n, const std::map<std::string, Const>& consts,
              const std::map<std::string, std::vector<std::int64_t>>& dims, Const& out) {
  auto in = [&](int i) -> const Const* {
    if (i >= n.input_size()) return nullptr;
    const auto it = consts.find(n.input(i));
    return it == consts.end() ? nullptr : &it->second;
  };
  const std::string& op = n.op_type();
  if (op == "Shape") {
    const auto it = n.input_size() == 1 ? dims.find(n.input(0)) : dims.end();
    if (it == dims.end() || it->second.empty()) return false;
    const auto rank = static_cast<std::int64_t>(it->second.size());
    std::int64_t lo = attr_int(n, "start", 0), hi = attr_int(n, "end", rank);
    if (lo < 0) lo += rank;
    if (hi < 0) hi += rank;
    lo = std::clamp<std::int64_t>(lo, 0, rank);
    hi = std::clamp<std::int64_t>(hi, lo, rank);
    for (auto i = lo; i < hi; ++i) out.data.push_back(static_cast<double>(it->second[static_cast<std::size_t>(i)]));
    out.dims = {hi - lo};
    out.integer = true;
    return true;
  }
  if (op == "Gather") {
    const Const *d = in(0), *idx = in(1);
    const auto axis = attr_int(n, "axis", 0);
    if (!d || !idx || d->dims.size() != 1 || (axis != 0 && axis != -1)) return false;
    const auto size = static_cast<std::int64_t>(d->data.size());
    for (const double f : idx->data) {
      if (!(std::fabs(f) < kMaxInteger)) return false;
      auto i = static_cast<std::int64_t>(f);
      if (i < 0) i += size;
      if (i < 0 || i >= size)
        throw CompileError("node '" + n.name() + "' (Gather): index " + std::to_string(static_cast<std::int64_t>(f)) +
                           " is out of range for " + std::to_string(size) + " values");
      out.data.push_back(d->data[static_cast<std::size_t>(i)]);
    }
    out.dims = idx->dims;  // a scalar index gives a scalar
    out.integer = d->integer;
    return true;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    const Const *a = in(0), *b = in(1);
    if (!a || !b || n.input_size() != 2) return false;
    const std::size_t na = a->data.size(), nb = b->data.size();
    if (na == 0 || nb == 0 || (na != nb && na != 1 && nb != 1)) return false;
    out.integer = a->integer && b->integer;
    out.dims = na >= nb ? a->dims : b->dims;
    for (std::size_t i = 0; i < std::max(na, nb); ++i) {
      const double x = a->data[na == 1 ? 0 : i], y = b->data[nb == 1 ? 0 : i];
      double r = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : 0;
      if (op == "Div") {
        if (y == 0 && out.integer) throw CompileError("node '" + n.name() + "' (Div): integer division by zero");
        r = out.integer ? std::trunc(x / y) : x / y;  // ONNX's integer Div truncates
      }
      if (out.integer && !(std::fabs(r) < kMaxInteger)) return false;
      out.data.push_back(out.integer ? r : static_cast<double>(static_cast<float>(r)));
    }
    return true;
  }
  return false;
}

}  // namespace

bool fold_shape_arithmetic(onnx::GraphProto& gp) {
  std::map<std::string, Const> consts;
  std::map<std::string, std::vector<std::int64_t>> dims;
  for (const auto& t : gp.initializer()) {
    Const c;
    if (read_tensor(t, c)) consts[t.name()] = c;
  }
  for (const auto* list : {&gp.input(), &gp.value_info(), &gp.output()})
    for (const auto& vi : *list) dims[vi.name()] = known_dims(vi);
  bool folded = false;
  for (auto& n : *gp.mutable_node()) {
    if (n.op_type() == "Constant") {
      for (const auto& a : n.attribute()) {
        Const c;
        if (a.name() == "value" && n.output_size() == 1 && read_tensor(a.t(), c)) consts[n.output(0)] = c;
      }
      continue;
    }
    if (n.output_size() != 1 || (!n.domain().empty() && n.domain() != "ai.onnx")) continue;
    Const c;
    if (!evaluate(n, consts, dims, c)) continue;
    onnx::TensorProto t;
    t.set_name(n.output(0));
    for (const auto d : c.dims) t.add_dims(d);
    t.set_data_type(c.integer ? onnx::TensorProto::INT64 : onnx::TensorProto::FLOAT);
    for (const double v : c.data) {
      if (c.integer) t.add_int64_data(static_cast<std::int64_t>(v));
      else t.add_float_data(static_cast<float>(v));
    }
    const std::string out = n.output(0), name = n.name();
    n.Clear();
    n.set_op_type("Constant");
    n.set_name(name);
    n.add_output(out);
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = t;
    consts[out] = c;
    folded = true;
  }
  return folded;
}

}  // namespace vp::cc
