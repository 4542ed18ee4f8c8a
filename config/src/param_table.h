// Private: the raw rows of the parameter table (vp/config/params.def),
// turned into ParamDefs by registry.cpp.
#pragma once

#include <string>
#include <string_view>

namespace vp::config::detail {

struct RawParam {
  const char* name;
  const char* type;  // "int" | "float" | "bool" | "string" | "enum:a|b"
  const char* unit;
  const char* default_text;
  double min;
  double max;
  const char* description;
  const char* source;
  const char* field;  // the FIELD column as written: "HW(kib_to_bytes, memory.spad_bytes)"
};

const RawParam* raw_table_begin();
const RawParam* raw_table_end();
const char* const* program_params_begin();
const char* const* program_params_end();

// The FIELD column of parameter `name` for the docs: "`c.memory.spad_bytes`
// (kib_to_bytes)", "`c.xbar.rows`", "... (derived)" or the reason it has none.
std::string model_field_text(std::string_view name);

}  // namespace vp::config::detail
