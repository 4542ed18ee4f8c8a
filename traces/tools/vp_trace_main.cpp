// vp-trace: convert and summarise ZeBu-style instruction traces (ours and
// the ZeBu emulator's) into VCD, Perfetto JSON, statistics and plots.
#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <iostream>

#include "vp/trace/convert.hpp"

namespace po = boost::program_options;
using vp::trace::ConvertOptions;
using vp::trace::FilterSpec;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitInput = 1;  // bad or unreadable trace, failed output
constexpr int kExitUsage = 2;

std::int64_t parse_cycle(const std::string& opt, const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 0)
    throw std::invalid_argument(fmt::format("--{}: '{}' is not a cycle count (a non-negative integer)", opt, text));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  ConvertOptions o;
  std::string from, to, cores, units, layers, mnemonics;
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
    ("top", po::value(&o.top)->default_value(10)->value_name("N"), "rows in the top-instruction tables")
    ("plot-timeline", po::value(&o.plot_timeline)->value_name("FILE.svg|png"), "draw units x time")
    ("plot-layers", po::value(&o.plot_layers)->value_name("FILE.svg|png"), "draw one bar per layer")
    ("clock-mhz", po::value(&o.clock_mhz)->default_value(1000.0)->value_name("MHZ"), "core clock: cycles -> time")
    ("from", po::value(&from)->value_name("CYCLE"), "keep what runs at or after this cycle (clipped)")
    ("to", po::value(&to)->value_name("CYCLE"), "keep what runs before this cycle (clipped)")
    ("cores", po::value(&cores)->value_name("LIST"), "clusters / CUs: 3,3.2,cp (ZeBu: 0)")
    ("units", po::value(&units)->value_name("LIST"), "units: scalar,xbar,vector,dma,noc,sync,ctrl,cp or ZeBu CT,LD,LW,ST,DT,PE,VP")
    ("layers", po::value(&layers)->value_name("LIST"), "layer ids, ranges (3-7) or names")
    ("mnemonics", po::value(&mnemonics)->value_name("LIST"), "mnemonics, globs allowed (pe_*,vp_pool)")
    ("strict", "stop at the first malformed line (default: report it and skip it)")
    ("sort-memory-mb", po::value<std::size_t>()->default_value(64)->value_name("MB"), "memory for sorting before spilling to disk");
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
    if (!(o.clock_mhz > 0)) throw std::invalid_argument("--clock-mhz must be positive");
    o.strict = vm.count("strict") > 0;
    o.stats_table = vm.count("stats") > 0;
    o.perfetto_args = vm.count("no-args") == 0;
    o.vcd_names = vm.count("vcd-strict") == 0;
    o.sort_run_bytes = vm["sort-memory-mb"].as<std::size_t>() << 20;
    if (!from.empty()) o.filter.from = parse_cycle("from", from);
    if (!to.empty()) o.filter.to = parse_cycle("to", to);
    if (o.filter.to <= o.filter.from) throw std::invalid_argument("--to must be after --from");
    if (!cores.empty()) o.filter.cores = FilterSpec::parse_cores(cores);
    if (!units.empty()) o.filter.units = FilterSpec::parse_names(units);
    if (!layers.empty()) o.filter.layers = FilterSpec::parse_layers(layers);
    if (!mnemonics.empty()) o.filter.mnemonics = FilterSpec::parse_names(mnemonics);
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
  return kExitOk;
}
