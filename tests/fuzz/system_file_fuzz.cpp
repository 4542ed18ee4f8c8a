// libFuzzer: arbitrary bytes as a system file (vp-cc --chips writes it,
// vp-run --system reads it). SystemFileError is the only acceptable
// failure; an accepted file has 2 to 64 programs and every route between
// two distinct chips among them, every chip after the first fed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vp/platform/system_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vp::platform::SystemFile s;
  try {
    s = vp::platform::parse_system_file(text, "fuzz/system.json");
  } catch (const vp::platform::SystemFileError&) {
    return 0;
  }
  if (s.chips() < 2 || s.chips() > 64) __builtin_trap();
  std::vector<bool> fed(s.chips(), false);
  for (const auto& r : s.routes) {
    if (r.from >= s.chips() || r.to >= s.chips() || r.from == r.to) __builtin_trap();
    fed[r.to] = true;
  }
  for (size_t k = 1; k < fed.size(); ++k)
    if (!fed[k]) __builtin_trap();
  return 0;
}
