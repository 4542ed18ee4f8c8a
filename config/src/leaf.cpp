#include "leaf.h"

#include <fmt/format.h>

#include <unordered_map>

namespace vp::config::detail {

std::string join_key(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

void not_a_scalar(const std::string& key, const std::string& where, const char* what) {
  const ParamDef* def = find_param(key);
  if (def != nullptr) {
    throw ConfigError(ConfigError::Kind::kWrongType, key, where,
                      fmt::format("expected {} ({}), got {}", type_name(def->type), def->unit, what));
  }
  // Not a parameter at all: report it as unknown, with a suggestion.
  param_index(key, where);
  throw ConfigError(ConfigError::Kind::kWrongType, key, where, std::string("unexpected ") + what);
}

void apply_leaves(ParamSet& params, const std::vector<Leaf>& leaves) {
  // All or nothing: a bad key on line 40 must not leave lines 1-39 applied.
  ParamSet staged = params;
  std::unordered_map<std::string, std::string> seen;
  for (const auto& leaf : leaves) {
    const std::size_t index = param_index(leaf.key, leaf.where);
    const ParamDef& def = registry()[index];
    const auto [it, fresh] = seen.emplace(def.name, leaf.where);
    if (!fresh) {
      throw ConfigError(ConfigError::Kind::kMalformed, def.name, leaf.where,
                        fmt::format("set twice in one file (first at {})", it->second));
    }
    const Value v = parse_value(def, leaf.text, leaf.where, leaf.quoted);
    staged.set_value(def.name, v, leaf.where);
  }
  params = std::move(staged);
}

}  // namespace vp::config::detail
