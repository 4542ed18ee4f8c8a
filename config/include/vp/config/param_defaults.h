// The default of every parameter as a typed constant, expanded from
// params.def: param_default::xbar_rows == 256. The hw configuration structs
// take their default member values from here, so a model built stand-alone
// starts from the same chip as vp-run without a configuration.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "vp/config/param_columns.h"
#include "vp/config/param_units.h"

namespace vp::config::param_default {

#define VP_PARAM(id, name, type, unit, def, lo, hi, use, desc, src, field) \
  inline constexpr VP_PARAM_CTYPE_##type id = def;
#include "vp/config/params.def"

}  // namespace vp::config::param_default
