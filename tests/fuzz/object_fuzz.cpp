// libFuzzer: arbitrary bytes through the object loader. ObjectError is the
// only acceptable failure; what loads must serialize again and disassemble.
#include <cstddef>
#include <cstdint>

#include "vp/as/assembler.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    vp::obj::Object o = vp::obj::parse_object(data, size, "fuzz.vpo");
    (void)vp::obj::serialize_object(o);
    (void)vp::as::to_source(o);
    (void)o.cell_count();
  } catch (const vp::obj::ObjectError&) {
  }
  return 0;
}
