// The effective configuration as YAML (commented, loads back) and JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "param_tree.h"
#include "vp/config/report.h"

namespace vp::config {
namespace {

using detail::ParamNode;

// Double-quoted YAML scalar; YAML's escapes are JSON's for these characters.
std::string yaml_quote(const std::string& s) { return nlohmann::json(s).dump(); }

// Text inside a YAML comment, which ends at the first line break: a chip
// name or file name with control characters in it is shown escaped, so
// the dump still loads back.
std::string comment_text(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') out += "\\n";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += ch;
  }
  return out;
}

void emit_yaml(const ParamSet& params, const ParamNode& node, int depth, std::string& out) {
  const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
  for (const auto& c : node.children) {
    if (c.param < 0) {
      out += fmt::format("{}{}:\n", indent, c.name);
      emit_yaml(params, c, depth + 1, out);
      continue;
    }
    const auto i = static_cast<std::size_t>(c.param);
    const ParamDef& def = registry()[i];
    std::string note = fmt::format("{} [{}", def.description, type_label(def));
    if (def.unit != "-") note += ", " + def.unit;
    if (def.type != ParamType::kBool && def.type != ParamType::kString) note += ", " + range_text(def);
    note += "]";
    if (params.origin_at(i) != "default") note += " set by " + params.origin_at(i);
    std::string value = format_value(def, params.value_at(i));
    if (def.type == ParamType::kString) value = yaml_quote(value);
    out += fmt::format("{}# {}\n{}{}: {}\n", indent, comment_text(note), indent, c.name, value);
  }
}

void emit_json(const ParamSet& params, const ParamNode& node, nlohmann::ordered_json& out) {
  for (const auto& c : node.children) {
    if (c.param < 0) {
      emit_json(params, c, out[c.name]);
      continue;
    }
    std::visit([&](const auto& v) { out[c.name] = v; },
               params.value_at(static_cast<std::size_t>(c.param)));
  }
}

}  // namespace

std::string dump_yaml(const ParamSet& params) {
  std::string out = fmt::format(
      "# Sidra VP effective configuration of '{}'{}.\n"
      "# Every parameter is listed; feed this file back with --config.\n",
      comment_text(params.get_string("chip.name")),
      params.preset().empty() ? "" : comment_text(fmt::format(" (preset {})", params.preset())));
  emit_yaml(params, detail::param_tree(), 0, out);
  return out;
}

std::string dump_json(const ParamSet& params) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  emit_json(params, detail::param_tree(), out);
  return out.dump(2) + "\n";
}

}  // namespace vp::config
