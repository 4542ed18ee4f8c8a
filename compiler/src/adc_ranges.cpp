// ADC ranges from a calibration run (SIDRA's simulator loop): vp-run
// --adc-profile measures, per crossbar, the largest analog column sum its
// conversions saw on the calibration inputs; each crossbar of the program
// then gets the finest xadc range whose top code still covers that sum
// (times a headroom for inputs larger than the calibration's). A crossbar
// the run never read keeps the configured full scale.
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw CompileError(path + ": " + what);
}

// The member `key` of an object, or null when it is absent.
const nlohmann::json* field(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

int adc_range_for(double max_column_sum, int adc_bits, double headroom) {
  const double top = std::ldexp(1.0, adc_bits) - 1;
  const double need = max_column_sum * headroom;
  int k = 1;
  while (k < kMaxAdcRangeCode && top * std::ldexp(1.0, k - 1) < need) ++k;
  return k;
}

std::map<int, int> adc_ranges_from_profile(const std::string& path, const Target& t, double headroom) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot read the ADC profile");
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) bad(path, "cannot read the ADC profile");
  return adc_ranges_from_profile_text(text.str(), path, t, headroom);
}

std::map<int, int> adc_ranges_from_profile_text(const std::string& text, const std::string& path, const Target& t,
                                                double headroom) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    bad(path, std::string("not JSON: ") + e.what());
  }
  const nlohmann::json* format = j.is_object() ? field(j, "format") : nullptr;
  if (format == nullptr || *format != "vp-adc-profile")
    bad(path, "expected an ADC profile (\"format\": \"vp-adc-profile\", written by vp-run --adc-profile)");
  const nlohmann::json* version = field(j, "version");
  if (version == nullptr || *version != 1) bad(path, "\"version\": expected 1");
  const nlohmann::json* per_cu = field(j, "crossbars_per_cu");
  if (per_cu == nullptr || !per_cu->is_number_integer() || per_cu->get<std::int64_t>() != t.xbars_per_cu)
    bad(path, "\"crossbars_per_cu\": the profile is of a chip with " + (per_cu ? per_cu->dump() : "no") +
                  " crossbars per CU, the target has " + std::to_string(t.xbars_per_cu));
  // A range is a number of LSBs of the ADC's own width: ranges measured
  // with another width would clip or waste codes.
  if (const nlohmann::json* adc = field(j, "adc"); adc != nullptr && adc->is_object()) {
    const nlohmann::json* bits = field(*adc, "bits");
    if (bits != nullptr && (!bits->is_number_integer() || bits->get<std::int64_t>() != t.adc_bits))
      bad(path, "\"adc\".\"bits\": the profile was measured with " + bits->dump() + "-bit ADCs, the target has " +
                    std::to_string(t.adc_bits) + " (compile with the profiled chip's --set adc.bits)");
  }
  const nlohmann::json* list = field(j, "crossbars");
  if (list == nullptr || !list->is_array()) bad(path, "\"crossbars\": expected a list");
  const std::int64_t total = static_cast<std::int64_t>(t.cores()) * t.xbars_per_cu;
  std::map<int, int> ranges;
  std::size_t i = 0;
  for (const auto& e : *list) {
    const std::string where = "crossbars[" + std::to_string(i++) + "]";
    const nlohmann::json* xb = e.is_object() ? field(e, "crossbar") : nullptr;
    const nlohmann::json* max_sum = e.is_object() ? field(e, "max_column_sum") : nullptr;
    if (xb == nullptr || max_sum == nullptr || !xb->is_number_integer() || !max_sum->is_number())
      bad(path, where + ": expected {\"crossbar\": N, \"max_column_sum\": S, ...}");
    const std::int64_t id = xb->get<std::int64_t>();
    const double sum = max_sum->get<double>();
    if (id < 0 || id >= total)
      bad(path, where + ": crossbar " + std::to_string(id) + " outside the target's 0.." + std::to_string(total - 1));
    if (!std::isfinite(sum) || sum < 0) bad(path, where + ": max_column_sum must be a finite sum >= 0");
    if (!ranges.emplace(static_cast<int>(id), adc_range_for(sum, t.adc_bits, headroom)).second)
      bad(path, where + ": crossbar " + std::to_string(id) + " is listed twice");
  }
  return ranges;
}

}  // namespace vp::cc
