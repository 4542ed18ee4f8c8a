// The FIELD column of the parameter table in words, for docs/parameters.md:
// which member of hw::ChipConfig (`c`) the chip builder sets from the row.
#include <stdexcept>
#include <string>

#include "param_table.h"

namespace vp::config::detail {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::string model_field_text(std::string_view name) {
  const RawParam* row = raw_table_begin();
  while (row != raw_table_end() && name != row->name) ++row;
  if (row == raw_table_end()) throw std::logic_error("param table: no row " + std::string(name));
  // "HW(conversion, member)", "DERIVED(member)" or "NO_HW("why")", as the
  // preprocessor spelt the tokens.
  const std::string_view field = row->field;
  const auto open = field.find('(');
  if (open == std::string_view::npos || field.back() != ')') {
    throw std::logic_error("param table: " + std::string(name) + ": bad field " + std::string(field));
  }
  const std::string_view kind = field.substr(0, open);
  const std::string_view args = field.substr(open + 1, field.size() - open - 2);
  if (kind == "HW") {
    const auto comma = args.find(',');
    const std::string_view conversion = trim(args.substr(0, comma));
    const std::string member = "`c." + std::string(trim(args.substr(comma + 1))) + "`";
    return conversion == "as_is" ? member : member + " (" + std::string(conversion) + ")";
  }
  if (kind == "DERIVED") return "`c." + std::string(trim(args)) + "` (derived)";
  if (kind == "NO_HW") {
    std::string_view why = trim(args);
    if (why.size() >= 2 && why.front() == '"' && why.back() == '"') why = why.substr(1, why.size() - 2);
    std::string text = "none: ";
    for (std::size_t i = 0; i < why.size(); ++i) {
      if (why[i] == '\\' && i + 1 < why.size()) ++i;  // the spelling escapes quotes
      text += why[i];
    }
    return text;
  }
  throw std::logic_error("param table: " + std::string(name) + ": bad field " + std::string(field));
}

}  // namespace vp::config::detail
