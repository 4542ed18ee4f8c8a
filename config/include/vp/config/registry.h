// The parameter registry: one table (vp/config/params.def) that names
// every hardware parameter of the chip with its type, unit, default, range,
// description and the source of the default. ParamSet, the YAML/JSON loaders,
// `vp-run --list-params`, `--dump-config` and docs/parameters.md all derive
// from it, so a parameter added there is documented and settable everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace vp::config {

enum class ParamType { kInt, kFloat, kBool, kString, kEnum };

// Enum values are held as their string; ints as int64 so sizes never narrow.
using Value = std::variant<std::int64_t, double, bool, std::string>;

struct ParamDef {
  std::string name;                  // dotted path, e.g. "xbar.rows"
  ParamType type = ParamType::kInt;
  std::string unit;                  // "cycles", "ns", "pJ", ... ; "-" if none
  Value default_value;
  double min = 0;                    // inclusive; -inf/+inf when unbounded;
  double max = 0;                    // only meaningful for int and float
  std::vector<std::string> allowed;  // enum values, in documented order
  std::string description;           // one line
  std::string source;                // where the default comes from
  // The compiler reads it (mapping, placement, memory allocation): a sweep
  // changing it must recompile; other parameters only change timing,
  // energy or analog behaviour of one compiled program.
  bool affects_program = false;

  bool numeric() const { return type == ParamType::kInt || type == ParamType::kFloat; }
  bool has_min() const;
  bool has_max() const;
};

// Every parameter, in table order (grouped by first path component).
const std::vector<ParamDef>& registry();

// nullptr when the name is not a parameter.
const ParamDef* find_param(std::string_view name);

// Index into registry(); throws ConfigError(kUnknownKey) with a suggestion.
std::size_t param_index(std::string_view name, const std::string& where = {});

// Closest parameter names to a misspelt key ("" when nothing is close).
std::string suggest_param(std::string_view unknown);

// True when `name` is a prefix group such as "xbar" or "cu.scalar".
bool is_param_group(std::string_view name);

const char* type_name(ParamType type);

// "int", "float", ..., or "enum" for the docs' type column.
std::string type_label(const ParamDef& def);

// "1..4096", ">= 0", "offset_slices|differential", or "-" for bool/string.
std::string range_text(const ParamDef& def);

// Text of a value as written in YAML and on the command line; round-trips
// through parse_value exactly (floats use the shortest exact form).
std::string format_value(const ParamDef& def, const Value& value);

// Parse text as the parameter's type and check its range or enum list.
// `quoted` says the text came from a quoted YAML/JSON string, which is never
// accepted for a number or a bool. Throws ConfigError naming def.name.
Value parse_value(const ParamDef& def, std::string_view text, const std::string& where,
                  bool quoted = false);

// Range/enum check of an already typed value; throws ConfigError.
void check_value(const ParamDef& def, const Value& value, const std::string& where);

}  // namespace vp::config
