// libFuzzer: mutated serialized ONNX models through the importer (with its
// validation and ONNX's shape inference), canonicalization and, for small
// graphs, calibration and quantization. A CompileError is the expected
// answer to a bad model; any other exception, a crash, a hang or a
// sanitizer report is a defect.
#include <cstddef>
#include <cstdint>
#include <string>

#include "vp/cc/passes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    vp::cc::Graph g = vp::cc::import_onnx_bytes(bytes, "fuzz.onnx");
    vp::cc::canonicalize(g);
    // Calibration runs the FP32 interpreter: only on graphs small enough
    // that one input stays within the time budget.
    std::int64_t work = 0;
    for (const auto& v : g.values) work += v.is_const ? static_cast<std::int64_t>(v.data.size()) : v.shape.numel();
    if (work > (1 << 16)) return 0;
    vp::cc::quantize(g, vp::cc::default_calibration(g), 100.0, 1);  // one thread: a crash replays alike
  } catch (const vp::cc::CompileError&) {
  }
  return 0;
}
