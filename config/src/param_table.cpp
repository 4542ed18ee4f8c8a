// The registry's raw rows, expanded from the parameter table
// (include/vp/config/params.def); registry.cpp turns them into ParamDefs.
#include "param_table.h"

#include <iterator>
#include <limits>

#include "vp/config/param_columns.h"

namespace vp::config::detail {
namespace {

const RawParam kTable[] = {
#define VP_PARAM(id, name, type, unit, def, lo, hi, use, desc, src, field) \
  {name, VP_PARAM_TYPE_TEXT_##type, unit, VP_PARAM_DEFAULT_TEXT_##type(def), lo, hi, desc, src, #field},
#include "vp/config/params.def"
};

// Parameters the compiler reads (USE = PROGRAM; ParamDef::affects_program).
// vp-sweep recompiles per point only when one of these varies.
#define VP_PARAM_PROGRAM_NAME_PROGRAM(name) name,
#define VP_PARAM_PROGRAM_NAME_RUN(name)
const char* const kProgramParams[] = {
#define VP_PARAM(id, name, type, unit, def, lo, hi, use, desc, src, field) \
  VP_PARAM_PROGRAM_NAME_##use(name)
#include "vp/config/params.def"
};

}  // namespace

const RawParam* raw_table_begin() { return std::begin(kTable); }
const RawParam* raw_table_end() { return std::end(kTable); }
const char* const* program_params_begin() { return std::begin(kProgramParams); }
const char* const* program_params_end() { return std::end(kProgramParams); }

}  // namespace vp::config::detail
