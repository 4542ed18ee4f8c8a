// libFuzzer: arbitrary source text through the assembler, in memory. Errors
// are fine; crashes, hangs and sanitizer reports are not. A successful
// object must also survive serialize -> parse -> to_source -> assemble.
#include <cstddef>
#include <cstdint>
#include <string>

#include "vp/as/assembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vp::as::Options opt;
  opt.max_literal_bytes = 1 << 20;  // hostile .space cannot exhaust memory
  opt.max_errors = 20;
  const std::string src(reinterpret_cast<const char*>(data), size);
  vp::as::Result r = vp::as::assemble_string(src, "fuzz.s", opt);
  if (!r.ok()) {
    (void)r.error_text();
    return 0;
  }
  const auto bytes = vp::obj::serialize_object(r.object);
  vp::obj::Object back = vp::obj::parse_object(bytes.data(), bytes.size(), "fuzz.vpo");
  vp::as::Result again = vp::as::assemble_string(vp::as::to_source(back), "regen.s", opt);
  if (!again.ok() || vp::obj::serialize_object(again.object) != bytes) __builtin_trap();
  return 0;
}
