#include "vp/platform/waveform_export.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "vp/trace/convert.hpp"

namespace vp::platform {

void write_run_vcd(const std::string& trace_path, const std::string& fabric_path, const std::string& vcd_path,
                   double clock_mhz) {
  // The converter reads one stream: the instruction trace followed by the
  // fabric lines (it sorts by start time itself).
  const std::string both = vcd_path + ".input.tmp";
  {
    std::ofstream out(both, std::ios::binary | std::ios::trunc);
    for (const std::string& p : {trace_path, fabric_path}) {
      std::ifstream in(p, std::ios::binary);
      if (!in) {
        out.close();
        std::remove(both.c_str());
        throw std::runtime_error(p + ": cannot read");
      }
      out << in.rdbuf();
    }
    if (!out) {
      out.close();
      std::remove(both.c_str());
      throw std::runtime_error(both + ": write failed");
    }
  }
  trace::ConvertOptions opt;
  opt.input = both;
  opt.strict = true;  // every line here was written by this run
  opt.clock_mhz = clock_mhz;
  opt.vcd = vcd_path;
  std::ostringstream out, err;
  try {
    trace::convert(opt, out, err);
  } catch (const std::exception& e) {
    std::remove(both.c_str());
    throw std::runtime_error(vcd_path + ": " + e.what());
  }
  std::remove(both.c_str());
}

}  // namespace vp::platform
