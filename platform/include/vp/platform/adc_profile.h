// The ADC profile of a run (vp-run --adc-profile): for every crossbar that
// ran an MVM, the largest analog column sum one of its conversions saw.
// A calibration run on representative inputs measures it; vp-cc
// --adc-ranges turns it into one xadc range per crossbar (docs/analog.md).
#pragma once

#include <nlohmann/json.hpp>

#include "vp/hw/chip/chip.h"

namespace vp::platform {

// {"format": "vp-adc-profile", "version": 1, "adc": {bits, max_code,
//  configured_lsb_shift, max_column_sum}, "crossbars_per_cu",
//  "crossbars": [{"crossbar", "core", "xbar", "max_column_sum", "mvms"}...]}
// in crossbar order.
nlohmann::json adc_profile_json(const hw::Chip& chip, const hw::ChipConfig& cfg);

}  // namespace vp::platform
