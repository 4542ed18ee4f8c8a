// Typed storage and access; the file formats live in yaml_source.cpp and
// json_source.cpp, cross-parameter rules in constraints.cpp.
#include "vp/config/param_set.h"

#include <fmt/format.h>

#include <cctype>

namespace vp::config {
namespace {

using Kind = ConfigError::Kind;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

ParamSet::ParamSet() {
  const auto& defs = registry();
  values_.reserve(defs.size());
  for (const auto& d : defs) values_.push_back(d.default_value);
  origins_.assign(defs.size(), "default");
}

void ParamSet::set(std::string_view key, std::string_view text, const std::string& origin) {
  const std::size_t i = param_index(key, origin);
  values_[i] = parse_value(registry()[i], text, origin);
  origins_[i] = origin;
}

void ParamSet::set_value(std::string_view key, const Value& value, const std::string& origin) {
  const std::size_t i = param_index(key, origin);
  const ParamDef& def = registry()[i];
  Value v = value;
  // An int is acceptable where a float is expected; nothing else converts.
  if (def.type == ParamType::kFloat && std::holds_alternative<std::int64_t>(v)) {
    v = static_cast<double>(std::get<std::int64_t>(v));
  }
  if (v.index() != def.default_value.index()) {
    throw ConfigError(Kind::kWrongType, def.name, origin,
                      fmt::format("expected {} ({})", type_name(def.type), def.unit));
  }
  check_value(def, v, origin);
  values_[i] = std::move(v);
  origins_[i] = origin;
}

void ParamSet::apply_set(std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos) {
    throw ConfigError(Kind::kMalformed, std::string(trim(assignment)), "--set",
                      "expected key=value (e.g. --set xbar.rows=128)");
  }
  const std::string_view key = trim(assignment.substr(0, eq));
  if (key.empty()) {
    throw ConfigError(Kind::kMalformed, "", "--set",
                      fmt::format("'{}' has no key before '='", assignment));
  }
  set(key, assignment.substr(eq + 1), "--set");
}

void ParamSet::apply_sets(const std::vector<std::string>& assignments) {
  for (const auto& a : assignments) apply_set(a);
}

const ParamDef& ParamSet::def_checked(std::string_view key, ParamType want,
                                      std::size_t* index) const {
  *index = param_index(key);
  const ParamDef& def = registry()[*index];
  const bool ok = def.type == want || (want == ParamType::kFloat && def.type == ParamType::kInt) ||
                  (want == ParamType::kString && def.type == ParamType::kEnum);
  if (!ok) {
    throw ConfigError(Kind::kWrongType, def.name, {},
                      fmt::format("is {}, read as {}", type_name(def.type), type_name(want)));
  }
  return def;
}

std::int64_t ParamSet::get_int(std::string_view key) const {
  std::size_t i = 0;
  def_checked(key, ParamType::kInt, &i);
  return std::get<std::int64_t>(values_[i]);
}

double ParamSet::get_double(std::string_view key) const {
  std::size_t i = 0;
  const ParamDef& def = def_checked(key, ParamType::kFloat, &i);
  if (def.type == ParamType::kInt) return static_cast<double>(std::get<std::int64_t>(values_[i]));
  return std::get<double>(values_[i]);
}

bool ParamSet::get_bool(std::string_view key) const {
  std::size_t i = 0;
  def_checked(key, ParamType::kBool, &i);
  return std::get<bool>(values_[i]);
}

const std::string& ParamSet::get_string(std::string_view key) const {
  std::size_t i = 0;
  def_checked(key, ParamType::kString, &i);
  return std::get<std::string>(values_[i]);
}

const Value& ParamSet::value(std::string_view key) const { return values_[param_index(key)]; }

const std::string& ParamSet::origin(std::string_view key) const {
  return origins_[param_index(key)];
}

std::string ParamSet::text(std::string_view key) const {
  const std::size_t i = param_index(key);
  return format_value(registry()[i], values_[i]);
}

std::vector<std::string> ParamSet::differences(const ParamSet& other) const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (values_[i] != other.values_[i]) names.push_back(registry()[i].name);
  }
  return names;
}

std::int64_t ParamSet::ns_to_cycles(double ns) const {
  return static_cast<std::int64_t>(config::ns_to_cycles(ns, get_double("chip.clock_mhz")));
}

std::int64_t ParamSet::noc_ns_to_cycles(double ns) const {
  return static_cast<std::int64_t>(config::ns_to_cycles(ns, get_double("noc.clock_mhz")));
}

double ParamSet::cycle_ns() const { return 1000.0 / get_double("chip.clock_mhz"); }

}  // namespace vp::config
