// Turns the raw table into ParamDefs once, and answers look-ups by name.
#include "vp/config/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "param_table.h"
#include "vp/common/suggest.h"
#include "vp/config/config_error.h"

namespace vp::config {
namespace {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

ParamDef make_def(const detail::RawParam& raw) {
  ParamDef def;
  def.name = raw.name;
  def.unit = raw.unit;
  def.min = raw.min;
  def.max = raw.max;
  def.description = raw.description;
  def.source = raw.source;
  const std::string_view type = raw.type;
  if (type == "int") {
    def.type = ParamType::kInt;
  } else if (type == "float") {
    def.type = ParamType::kFloat;
  } else if (type == "bool") {
    def.type = ParamType::kBool;
  } else if (type == "string") {
    def.type = ParamType::kString;
  } else if (type.substr(0, 5) == "enum:") {
    def.type = ParamType::kEnum;
    def.allowed = split(type.substr(5), '|');
  } else {
    throw std::logic_error(fmt::format("param table: {}: bad type '{}'", def.name, type));
  }
  // A bad default is a bug in the table; the registry test reaches this.
  def.default_value = parse_value(def, raw.default_text, "param table");
  return def;
}

struct Index {
  std::vector<ParamDef> defs;
  std::unordered_map<std::string_view, std::size_t> by_name;
};

const Index& index() {
  static const Index idx = [] {
    Index built;
    for (const auto* raw = detail::raw_table_begin(); raw != detail::raw_table_end(); ++raw) {
      built.defs.push_back(make_def(*raw));
    }
    for (std::size_t i = 0; i < built.defs.size(); ++i) {
      if (!built.by_name.emplace(built.defs[i].name, i).second) {
        throw std::logic_error("param table: duplicate " + built.defs[i].name);
      }
    }
    for (auto p = detail::program_params_begin(); p != detail::program_params_end(); ++p) {
      const auto it = built.by_name.find(*p);
      if (it == built.by_name.end()) throw std::logic_error(std::string("param table: ") + *p);
      built.defs[it->second].affects_program = true;
    }
    return built;
  }();
  return idx;
}

std::string_view last_component(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

}  // namespace

const std::vector<ParamDef>& registry() { return index().defs; }

const ParamDef* find_param(std::string_view name) {
  const auto& idx = index();
  const auto it = idx.by_name.find(name);
  return it == idx.by_name.end() ? nullptr : &idx.defs[it->second];
}

bool is_param_group(std::string_view name) {
  if (name.empty()) return false;
  return std::any_of(registry().begin(), registry().end(), [&](const ParamDef& d) {
    return d.name.size() > name.size() && d.name.compare(0, name.size(), name) == 0 &&
           d.name[name.size()] == '.';
  });
}

std::string suggest_param(std::string_view unknown) {
  // A key written without its group ("rows") or in the wrong group
  // ("xbar.bits") is found by its last component first.
  std::vector<std::string> same_leaf;
  for (const auto& d : registry()) {
    if (last_component(d.name) == last_component(unknown)) same_leaf.push_back(d.name);
  }
  if (!same_leaf.empty() && same_leaf.size() <= 3) return fmt::format("{}", fmt::join(same_leaf, " or "));

  common::Nearest nearest(unknown, std::max<std::size_t>(2, unknown.size() / 4));
  for (const auto& d : registry()) nearest.offer(d.name);
  return nearest.best();
}

std::size_t param_index(std::string_view name, const std::string& where) {
  const auto& idx = index();
  const auto it = idx.by_name.find(name);
  if (it != idx.by_name.end()) return it->second;
  std::string detail = is_param_group(name) ? "is a group of parameters, not a parameter"
                                            : "unknown parameter";
  if (!is_param_group(name)) {
    const std::string hint = suggest_param(name);
    if (!hint.empty()) detail += fmt::format(" (did you mean {}?)", hint);
  }
  detail += "; `vp-params --list` shows them all";
  throw ConfigError(ConfigError::Kind::kUnknownKey, std::string(name), where, detail);
}

}  // namespace vp::config
