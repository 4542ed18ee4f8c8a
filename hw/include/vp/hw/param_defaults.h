// The parameter table's defaults (vp/config/params.def) as hw spells them:
// every hw configuration struct takes its default member values from
// hw::param_default, so a model built without a configuration is sidra-y1.
#pragma once

#include "vp/config/param_defaults.h"

namespace vp::hw {
namespace param_default = config::param_default;
namespace unit = config::unit;
}  // namespace vp::hw
