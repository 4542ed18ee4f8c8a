// libFuzzer target for vp-trace above the reader: the filter and option
// parsers (--cores, --units, --layers, --mnemonics, --from, --to, --top)
// and the whole conversion (filters, sorting, statistics, VCD, Perfetto).
// The first line of the input holds the options, separated by '|':
//   cores|units|layers|mnemonics|from|to|top
// the rest is the trace. A bad option or a bad trace must end in a named
// exception, never a crash, hang or sanitizer report.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/common/parse_number.h"
#include "vp/trace/convert.hpp"

namespace {

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == '|') out.emplace_back();
    else out.back() += c;
  }
  out.resize(7);
  return out;
}

// A scratch folder per fuzzing process, for the trace and the outputs,
// removed at exit. Kept in a static array: it must outlive static strings,
// which are destroyed before the exit handler runs.
char g_scratch[64];

const char* scratch() {
  if (!g_scratch[0]) {
    std::snprintf(g_scratch, sizeof g_scratch, "/tmp/vp-trace-cli-fuzz-XXXXXX");
    if (!::mkdtemp(g_scratch)) std::abort();
    std::atexit([] {
      for (const char* f : {"/in.trace", "/out.vcd", "/out.json"}) std::remove((std::string(g_scratch) + f).c_str());
      ::rmdir(g_scratch);
    });
  }
  return g_scratch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = text.find('\n');
  const auto f = fields(text.substr(0, nl));
  const std::string body = nl == std::string::npos ? std::string() : text.substr(nl + 1);

  vp::trace::ConvertOptions o;
  o.input = std::string(scratch()) + "/in.trace";
  o.stats_table = true;
  o.vcd = std::string(scratch()) + "/out.vcd";
  o.perfetto = std::string(scratch()) + "/out.json";
  o.sort_run_bytes = 1 << 16;  // small runs: the spill-and-merge path is fuzzed too
  try {
    // The same parsers, in the same order, as vp-trace's option handling.
    if (!f[0].empty()) o.filter.cores = vp::trace::FilterSpec::parse_cores(f[0]);
    if (!f[1].empty()) o.filter.units = vp::trace::FilterSpec::parse_units(f[1]);
    if (!f[2].empty()) o.filter.layers = vp::trace::FilterSpec::parse_layers(f[2]);
    if (!f[3].empty()) o.filter.mnemonics = vp::trace::FilterSpec::parse_names(f[3]);
    const std::int64_t last = std::numeric_limits<std::int64_t>::max() - 1;
    if (!f[4].empty()) o.filter.from = vp::common::parse_int(f[4], "--from", 0, last);
    if (!f[5].empty()) o.filter.to = vp::common::parse_int(f[5], "--to", 0, last);
    if (!f[6].empty()) o.top = static_cast<std::size_t>(vp::common::parse_uint(f[6], "--top", 1000000));
    if (o.filter.to <= o.filter.from) return 0;
  } catch (const std::invalid_argument&) {
    return 0;  // a named usage error
  }
  {
    std::ofstream in(o.input, std::ios::binary | std::ios::trunc);
    in << body;
  }
  std::ostringstream out, err;
  try {
    vp::trace::convert(o, out, err);
  } catch (const vp::trace::TraceError&) {
  } catch (const std::runtime_error&) {
  }
  return 0;
}
