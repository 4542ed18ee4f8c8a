// The vp-trace pipeline: read -> filter -> sort by start -> outputs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "vp/trace/filter.hpp"
#include "vp/trace/reader.hpp"
#include "vp/trace/stats.hpp"

namespace vp::trace {

struct ConvertOptions {
  std::string input;  // path or "-"
  bool strict = false;
  FilterSpec filter;
  double clock_mhz = 1000.0;

  std::string vcd;            // output paths; empty = not wanted
  std::string perfetto;
  std::string stats_csv;
  std::string stats_json;
  std::string plot_timeline;  // .svg or .png
  std::string plot_layers;    // .svg or .png
  bool stats_table = false;   // print the table to `out`

  std::size_t top = 10;               // rows in "top instructions" tables
  bool perfetto_args = true;          // operands in slice args
  bool vcd_names = true;              // mnemonic as a VCD string signal (GTKWave extension)
  std::size_t sort_run_bytes = 64u << 20;
  std::size_t max_printed_diagnostics = 20;
};

struct ConvertSummary {
  ReaderStats reader;
  std::uint64_t kept = 0;     // records that passed the filters
  std::uint64_t untimed = 0;  // records without a third element (assembly)
  std::int64_t t_min = 0, t_max = 0;
  std::optional<StatsReport> stats;
};

// Runs the conversion. Diagnostics and the summary go to `err`, the stats
// table to `out`. Throws TraceError (bad input under --strict, I/O) or
// std::runtime_error (cannot write an output); outputs are then not created.
ConvertSummary convert(const ConvertOptions& options, std::ostream& out, std::ostream& err);

}  // namespace vp::trace
