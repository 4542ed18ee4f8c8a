// Private: the raw rows of the parameter table (vp/config/params.def),
// turned into ParamDefs by registry.cpp.
#pragma once

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
};

const RawParam* raw_table_begin();
const RawParam* raw_table_end();
const char* const* program_params_begin();
const char* const* program_params_end();

}  // namespace vp::config::detail
