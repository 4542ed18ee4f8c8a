// Lookups over the operator table (operators.def).
#include "vp/cc/operators.h"

#include <ostream>
#include <unordered_map>

namespace vp::cc {
namespace {

constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < kOpCount; ++i)
    if (static_cast<std::size_t>(kOpTable[i].kind) != i) return false;
  return true;
}
static_assert(table_in_enum_order(), "op_def() indexes kOpTable by OpKind");

}  // namespace

const std::vector<std::string>& supported_ops() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const OpDef& d : kOpTable) v.emplace_back(d.onnx);
    return v;
  }();
  return names;
}

const std::string& op_name(OpKind k) { return supported_ops().at(static_cast<std::size_t>(k)); }

std::optional<OpKind> op_from_onnx(const std::string& op_type) {
  static const std::unordered_map<std::string, OpKind> by_name = [] {
    std::unordered_map<std::string, OpKind> m;
    for (const OpDef& d : kOpTable) m.emplace(d.onnx, d.kind);
    return m;
  }();
  const auto it = by_name.find(op_type);
  if (it == by_name.end()) return std::nullopt;
  return it->second;
}

std::ostream& operator<<(std::ostream& os, OpKind k) { return os << op_name(k); }

}  // namespace vp::cc
