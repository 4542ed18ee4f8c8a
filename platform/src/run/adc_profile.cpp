#include "vp/platform/adc_profile.h"

#include "vp/hw/crossbar/adc.h"

namespace vp::platform {

nlohmann::json adc_profile_json(const hw::Chip& chip, const hw::ChipConfig& cfg) {
  const hw::Adc adc = hw::Adc::for_crossbar(cfg.xbar);
  nlohmann::json j;
  j["format"] = "vp-adc-profile";
  j["version"] = 1;
  j["adc"] = {{"bits", adc.bits()},
              {"max_code", adc.max_code()},
              {"configured_lsb_shift", adc.lsb_shift()},
              {"max_column_sum", cfg.xbar.max_column_sum()}};
  j["crossbars_per_cu"] = cfg.xbars_per_cu;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [id, p] : chip.crossbars().adc_profile())
    list.push_back({{"crossbar", id},
                    {"core", id / cfg.xbars_per_cu},
                    {"xbar", id % cfg.xbars_per_cu},
                    {"max_column_sum", p.max_column_sum},
                    {"mvms", p.mvms}});
  j["crossbars"] = std::move(list);
  return j;
}

}  // namespace vp::platform
