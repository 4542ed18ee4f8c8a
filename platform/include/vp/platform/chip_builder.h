// From the parameter registry's effective values to the plain structs the
// hardware models take. The one place that knows both sides' names.
#pragma once

#include "vp/config/param_set.h"
#include "vp/hw/chip/chip_config.h"

namespace vp::platform {

// Throws vp::config::ConfigError (naming the key) when a value is unusable.
hw::ChipConfig chip_config_from(const config::ParamSet& params);

}  // namespace vp::platform
