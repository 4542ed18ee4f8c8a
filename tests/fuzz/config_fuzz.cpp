// libFuzzer: arbitrary bytes through the configuration loader as a YAML file,
// a JSON file or a list of --set assignments (the first byte picks which).
// ConfigError is the only acceptable failure. A configuration that loads and
// validates must dump to YAML and JSON that load back to the same values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "vp/config/config_error.h"
#include "vp/config/param_set.h"
#include "vp/config/report.h"

using vp::config::ConfigError;
using vp::config::ParamSet;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int mode = data[0] % 3;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  ParamSet p;
  try {
    if (mode == 0) {
      p.apply_yaml(text, "fuzz.yaml");
    } else if (mode == 1) {
      p.apply_json(text, "fuzz.json");
    } else {
      std::vector<std::string> sets;
      size_t start = 0;
      for (size_t i = 0; i <= text.size(); ++i)
        if (i == text.size() || text[i] == '\n') {
          sets.push_back(text.substr(start, i - start));
          start = i + 1;
        }
      p.apply_sets(sets);
    }
    p.validate();
  } catch (const ConfigError&) {
    return 0;
  }
  // What loaded dumps and loads back unchanged, in both formats. A dump
  // and reload costs ten times a load, so one input in eight (by its first
  // byte) is checked, and the loader itself is fuzzed at full speed.
  if ((data[0] / 3) % 8 != 0) return 0;
  for (const bool json : {false, true}) {
    ParamSet back;
    try {
      if (json) back.apply_json(vp::config::dump_json(p), "dump.json");
      else back.apply_yaml(vp::config::dump_yaml(p), "dump.yaml");
    } catch (const ConfigError&) {
      std::abort();  // a dump the loader refuses
    }
    if (!back.differences(p).empty()) std::abort();
  }
  return 0;
}
