#include "symbols.h"

namespace vp::as::detail {

std::string core_name(vp::obj::CoreId c) {
  return c.is_control() ? "cp" : "c" + std::to_string(c.cluster) + "." + std::to_string(c.cu);
}

Symbols::Define Symbols::define_label(int scope, std::string_view name, uint32_t value, uint32_t* first) {
  if (equs_.count(name)) return Define::kIsEqu;
  auto [it, fresh] = scopes_[static_cast<size_t>(scope)].labels.emplace(name, value);
  if (!fresh) {
    *first = it->second;
    return Define::kDuplicate;
  }
  all_labels_.insert(name);
  return Define::kOk;
}

}  // namespace vp::as::detail
