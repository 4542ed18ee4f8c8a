// libFuzzer: arbitrary bytes as a .npy file. An accepted file must convert
// to floats and survive encode -> parse unchanged.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "vp/cc/graph.h"
#include "vp/cc/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  vp::cc::NpyArray a;
  std::vector<float> values;
  try {
    a = vp::cc::parse_npy(bytes, "fuzz.npy");
    values = a.as_float();
  } catch (const vp::cc::CompileError&) {
    return 0;
  }
  if (static_cast<std::int64_t>(values.size()) != a.count()) __builtin_trap();
  const vp::cc::NpyArray back = vp::cc::parse_npy(vp::cc::encode_npy(a.shape, values), "back.npy");
  const std::vector<float> again = back.as_float();
  if (back.shape != a.shape || again.size() != values.size() ||
      (!values.empty() && std::memcmp(again.data(), values.data(), values.size() * sizeof(float)) != 0))
    __builtin_trap();
  return 0;
}
