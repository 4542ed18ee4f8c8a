// libFuzzer: arbitrary text as a sweep file, read in a scratch folder that
// holds the files the seeds name (prog.s, model.onnx, x.bin, y.bin), then
// expanded into a plan. A SweepError naming file:line is the expected
// answer to a bad file; any other exception, a crash, a hang or a sanitizer
// report is a defect.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "vp/sweep/plan.h"
#include "vp/sweep/sweep_error.h"
#include "vp/sweep/sweep_spec.h"

namespace {
std::string g_dir;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_dir = (std::filesystem::temp_directory_path() / ("sweep_parser_fuzz_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(g_dir);
  for (const char* f : {"prog.s", "model.onnx", "x.bin", "y.bin"}) std::ofstream(g_dir + "/" + f) << "halt\n";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const vp::sweep::SweepSpec spec = vp::sweep::parse_sweep_text(text, g_dir + "/s.yaml");
    // Expanding is bounded by the file's own ranges: skip the huge ones.
    std::size_t points = spec.seeds.size() * spec.models.size();
    for (const auto& a : spec.axes) points *= a.texts.size();
    if (points > 4096) return 0;
    (void)vp::sweep::make_plan(spec);
  } catch (const vp::sweep::SweepError&) {
  }
  return 0;
}
