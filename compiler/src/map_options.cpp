// The map pass's count options (--replicate, --lanes): a word or a whole
// decimal count in its range, else a CompileError naming the option and
// what it takes.
#include <string>

#include "vp/cc/passes.h"
#include "vp/common/parse_number.h"

namespace vp::cc {
namespace {

int parse_count(const std::string& text, const std::string& option, const std::string& expected, int most) {
  try {
    return static_cast<int>(common::parse_int(text, option, 1, most));
  } catch (const common::NumberError&) {
    throw CompileError(option + " '" + text + "': expected " + expected + " from 1 to " + std::to_string(most));
  }
}

}  // namespace

int parse_replicate(const std::string& text) {
  if (text == "auto") return kReplicateAuto;
  if (text == "none") return 1;
  return parse_count(text, "--replicate", "auto, none or a count of copies", 65536);
}

int parse_lanes(const std::string& text) {
  if (text == "auto") return 0;
  return parse_count(text, "--lanes", "auto or a count of lanes", 1024);
}

}  // namespace vp::cc
