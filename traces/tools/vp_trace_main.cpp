// vp-trace: convert and summarise ZeBu-style instruction traces (ours and
// the ZeBu emulator's) into VCD, Perfetto JSON, statistics and plots.
#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <cstdio>
#include <iostream>
#include <limits>

#include "vp/common/atomic_file.h"
#include "vp/common/parse_number.h"
#include "vp/trace/convert.hpp"

namespace po = boost::program_options;
using vp::trace::ConvertOptions;
using vp::trace::FilterSpec;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInput = 1;  // bad or unreadable trace, failed output
constexpr int kExitUsage = 2;

// --from / --to: a cycle in 0 .. 2^63 - 2 (2^63 - 1 is the open end).
std::int64_t parse_cycle(const std::string& opt, const std::string& text) {
  return vp::common::parse_int(text, "--" + opt, 0, std::numeric_limits<std::int64_t>::max() - 1);
}

}  // namespace

int main(int argc, char** argv) {
  ConvertOptions o;
  std::string from, to, cores, chips, units, layers, mnemonics;
  std::string top = "10", clock_mhz = "1000", sort_mb = "64";
  po::options_description visible("vp-trace TRACE [outputs] [filters]");
  // clang-format off
  visible.add_options()
    ("help,h", "this help")
    ("vcd", po::value(&o.vcd)->value_name("FILE"), "write a VCD waveform (GTKWave)")
    ("perfetto", po::value(&o.perfetto)->value_name("FILE"), "write Chrome trace-event JSON (ui.perfetto.dev)")
    ("vcd-strict", "only IEEE 1364 signal types in the VCD (drops the 'op' string signal)")
    ("no-args", "leave operands out of the Perfetto slices (smaller file)")
    ("stats", "print per-layer / per-unit / per-instruction statistics")
    ("stats-csv", po::value(&o.stats_csv)->value_name("FILE"), "write the statistics as CSV")
    ("stats-json", po::value(&o.stats_json)->value_name("FILE"), "write the statistics as JSON")
    ("top", po::value(&top)->value_name("N"), "rows in the top-instruction tables (default 10)")
    ("plot-timeline", po::value(&o.plot_timeline)->value_name("FILE.svg|png"), "draw units x time")
    ("plot-layers", po::value(&o.plot_layers)->value_name("FILE.svg|png"), "draw one bar per layer")
    ("clock-mhz", po::value(&clock_mhz)->value_name("MHZ"), "core clock: cycles -> time (default 1000)")
    ("from", po::value(&from)->value_name("CYCLE"), "keep what runs at or after this cycle (clipped)")
    ("to", po::value(&to)->value_name("CYCLE"), "keep what runs before this cycle (clipped)")
    ("cores", po::value(&cores)->value_name("LIST"), "clusters / CUs: 3,3.2,cp (ZeBu: 0)")
    ("chips", po::value(&chips)->value_name("LIST"), "a system's chips: 0,2 (its traces read together: cat T.chip*.trace | vp-trace -)")
    ("units", po::value(&units)->value_name("LIST"), "units: scalar,xbar,vector,dma,noc,sync,ctrl,cp or ZeBu CT,LD,LW,ST,DT,PE,VP")
    ("layers", po::value(&layers)->value_name("LIST"), "layer ids, ranges (3-7) or names")
    ("mnemonics", po::value(&mnemonics)->value_name("LIST"), "mnemonics, globs allowed (pe_*,vp_pool)")
    ("strict", "stop at the first malformed line (default: report it and skip it)")
    ("sort-memory-mb", po::value(&sort_mb)->value_name("MB"), "memory for sorting before spilling to disk (default 64)");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()("input", po::value(&o.input));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("input", 1);

  try {
    po::variables_map vm;
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << visible << "\nExit status: 0 ok, 1 bad input or failed output, 2 usage.\n";
      return kExitOk;
    }
    if (o.input.empty()) throw std::invalid_argument("no trace given (use - for stdin)");
    // Strict numbers: no wrap of -1 to 2^64 - 1, no trailing junk.
    o.top = static_cast<std::size_t>(vp::common::parse_uint(top, "--top", 1000000));
    o.clock_mhz = vp::common::parse_real(clock_mhz, "--clock-mhz", 1e-6, 1e9);
    o.sort_run_bytes = static_cast<std::size_t>(vp::common::parse_uint(sort_mb, "--sort-memory-mb", 1 << 20)) << 20;
    if (o.sort_run_bytes == 0) throw std::invalid_argument("--sort-memory-mb: expected at least 1 MB, got 0");
    o.strict = vm.count("strict") > 0;
    o.stats_table = vm.count("stats") > 0;
    o.perfetto_args = vm.count("no-args") == 0;
    o.vcd_names = vm.count("vcd-strict") == 0;
    if (!from.empty()) o.filter.from = parse_cycle("from", from);
    if (!to.empty()) o.filter.to = parse_cycle("to", to);
    if (o.filter.to <= o.filter.from) throw std::invalid_argument("--to must be after --from");
    if (!cores.empty()) o.filter.cores = FilterSpec::parse_cores(cores);
    if (!chips.empty()) o.filter.chips = FilterSpec::parse_chips(chips);
    if (vm.count("units")) o.filter.units = FilterSpec::parse_units(units);
    if (!layers.empty()) o.filter.layers = FilterSpec::parse_layers(layers);
    if (!mnemonics.empty()) o.filter.mnemonics = FilterSpec::parse_names(mnemonics);
    for (const std::string* f : {&o.vcd, &o.perfetto, &o.stats_csv, &o.stats_json, &o.plot_timeline, &o.plot_layers})
      if (!f->empty() && vp::common::same_file(o.input, *f))
        throw std::invalid_argument(fmt::format("refusing to write an output over the input trace {}", o.input));
    if (o.vcd.empty() && o.perfetto.empty() && o.stats_csv.empty() && o.stats_json.empty() &&
        o.plot_timeline.empty() && o.plot_layers.empty())
      o.stats_table = true;  // nothing asked for: summarise
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "vp-trace: {}\nTry 'vp-trace --help'.\n", e.what());
    return kExitUsage;
  }

  try {
    const auto summary = vp::trace::convert(o, std::cout, std::cerr);
    fmt::print(std::cerr, "vp-trace: {}: {} records read, {} kept, {} malformed skipped{}\n", o.input,
               summary.reader.records, summary.kept, summary.reader.malformed,
               summary.reader.truncated ? ", truncated at the end" : "");
  } catch (const std::exception& e) {
    fmt::print(std::cerr, "vp-trace: {}\n", e.what());
    return kExitInput;
  }
  // The statistics table on a full disk or a closed pipe is a failed output.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(std::cerr, "vp-trace: cannot write to standard output\n");
    return kExitInput;
  }
  return kExitOk;
}
