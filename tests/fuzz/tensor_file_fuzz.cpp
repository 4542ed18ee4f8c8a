// libFuzzer: arbitrary bytes through vp-run's input reader, as a .npy file
// or raw bytes (the first byte picks which). TensorFileError is the only
// acceptable failure; what reads as .npy must write back and read again to
// the same data bytes and element type.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "vp/platform/tensor_file.h"

using vp::platform::TensorData;
using vp::platform::TensorFileError;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool npy = (data[0] & 1) != 0;
  const char* name = npy ? "fuzz.npy" : "fuzz.bin";
  TensorData t;
  try {
    t = vp::platform::parse_tensor_bytes(name, data + 1, size - 1);
  } catch (const TensorFileError&) {
    return 0;
  }
  if (!npy) {
    if (t.bytes.size() != size - 1) std::abort();
    return 0;
  }
  const auto again = vp::platform::encode_tensor_file("back.npy", t.bytes, t.dtype, t.shape);
  TensorData back;
  try {
    back = vp::platform::parse_tensor_bytes("back.npy", again.data(), again.size());
  } catch (const TensorFileError&) {
    std::abort();  // the writer produced a file the reader refuses
  }
  if (back.bytes != t.bytes || back.dtype != t.dtype) std::abort();
  return 0;
}
