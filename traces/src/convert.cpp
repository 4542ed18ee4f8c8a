#include "vp/trace/convert.hpp"

#include <algorithm>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <memory>
#include <ostream>

#include "vp/trace/interval_sorter.hpp"
#include "vp/trace/perfetto_writer.hpp"
#include "vp/trace/plot.hpp"
#include "vp/trace/vcd_writer.hpp"

namespace vp::trace {
namespace {

void render_args(std::string& out, const TraceRecord& r, const Catalog& cat, std::uint32_t track, std::uint32_t layer) {
  out.clear();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{{\"inst_idx\":{},\"line\":{},\"layer\":"), r.inst_idx, r.line_no);
  append_json_string(out, cat.layers()[layer].name);
  out += ",\"unit\":";
  append_json_string(out, cat.tracks()[track].label);
  // Our mapping only repeats what track and category already say; the
  // ZeBu one carries compiler IR links (clyr, wkl, tile) worth showing.
  if (r.has_location) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"pc\":{}"), r.pc);
  } else {
    out += ",\"mapping\":";
    append_json(out, r.mapping);
  }
  out += ",\"params\":";
  append_json(out, r.params);
  out += '}';
}

// Pass 1: read, filter, intern; intervals go to the sorter. Fills `run`
// (time range, used tracks/layers) and the reader part of `summary`.
void ingest(const ConvertOptions& o, std::ostream& err, Catalog& catalog, IntervalSorter& sorter, RunInfo& run,
            ConvertSummary& summary) {
  std::uint64_t printed = 0;  // malformed-line reports shown
  ReaderOptions ropts;
  ropts.strict = o.strict;
  ropts.on_diagnostic = [&](const Diagnostic& d) {
    if (d.kind == Diagnostic::Kind::Truncated) {
      fmt::print(err, "{}\n", d.format());
    } else if (printed < o.max_printed_diagnostics) {
      fmt::print(err, "{}\n", d.format());
      ++printed;
    }
  };
  TraceReader reader(o.input, ropts);
  Filter filter(o.filter, catalog);
  std::string payload;
  const bool want_payload = !o.perfetto.empty() && o.perfetto_args;

  TraceRecord r;
  while (reader.next(r)) {
    if (!r.timed) {
      ++summary.untimed;
      continue;
    }
    Interval iv;
    iv.start = r.start;
    iv.end = r.end;
    iv.inst_idx = r.inst_idx;
    iv.line = r.line_no;
    iv.opcode = catalog.opcode_of(r.mnemonic);
    iv.track = catalog.track_of(r, iv.opcode);
    iv.layer = catalog.layer_of(r);
    if (!filter.apply(iv)) continue;
    if (iv.track >= run.track_used.size()) run.track_used.resize(iv.track + 1, false);
    if (iv.layer >= run.layer_used.size()) run.layer_used.resize(iv.layer + 1, false);
    run.track_used[iv.track] = true;
    run.layer_used[iv.layer] = true;
    if (summary.kept == 0 || iv.start < run.t_min) run.t_min = iv.start;
    if (summary.kept == 0 || iv.end > run.t_max) run.t_max = iv.end;
    ++summary.kept;
    if (want_payload) render_args(payload, r, catalog, iv.track, iv.layer);
    sorter.add(iv, want_payload ? std::string_view(payload) : std::string_view());
  }
  summary.reader = reader.stats();
  summary.t_min = run.t_min;
  summary.t_max = run.t_max;

  const ReaderStats& rs = summary.reader;
  if (rs.malformed > printed)
    fmt::print(err, "{}: {} more malformed lines not shown\n", o.input, rs.malformed - printed);
  if (rs.records == 0 && rs.malformed > 0)
    throw TraceError(fmt::format("{}: none of its {} non-blank lines is a trace record", o.input, rs.malformed));
  if (rs.records > 0 && summary.untimed == rs.records)
    throw TraceError(fmt::format("{}: no record has a timing element {{'inst_idx': N, 'time': [start, end]}}: "
                                 "this looks like an assembly listing, not a trace",
                                 o.input));
  if (summary.untimed > 0) fmt::print(err, "{}: {} records without timing ignored\n", o.input, summary.untimed);

  catalog.finalize_ranks();
  run.catalog = &catalog;
  run.count = summary.kept;
  run.clock_mhz = o.clock_mhz;
  run.track_used.resize(catalog.tracks().size(), false);
  run.layer_used.resize(catalog.layers().size(), false);
}

}  // namespace

ConvertSummary convert(const ConvertOptions& o, std::ostream& out, std::ostream& err) {
  ConvertSummary summary;
  Catalog catalog;
  IntervalSorter sorter(o.sort_run_bytes);
  RunInfo run;
  ingest(o, err, catalog, sorter, run, summary);

  // Pass 2: every sink sees the intervals in start order. Every output is
  // built in a temporary file and renamed only after the whole conversion
  // succeeded (OutputFile); if anything throws, none appears.
  std::vector<std::unique_ptr<IntervalSink>> sinks;
  if (!o.vcd.empty()) sinks.push_back(std::make_unique<VcdWriter>(o.vcd, o.vcd_names));
  if (!o.perfetto.empty()) sinks.push_back(std::make_unique<PerfettoWriter>(o.perfetto));
  StatsCollector* stats = nullptr;
  if (o.stats_table || !o.stats_csv.empty() || !o.stats_json.empty() || !o.plot_layers.empty()) {
    sinks.push_back(std::make_unique<StatsCollector>(o.top));
    stats = static_cast<StatsCollector*>(sinks.back().get());
  }
  if (!o.plot_timeline.empty()) sinks.push_back(std::make_unique<TimelinePlot>(o.plot_timeline));

  for (auto& s : sinks) s->begin(run);
  sorter.drain([&sinks](const Interval& iv, std::string_view p) {
    for (auto& s : sinks) s->add(iv, p);
  });
  for (auto& s : sinks) s->finish();

  // Outputs made from the statistics.
  std::vector<std::unique_ptr<OutputFile>> files;
  if (stats) {
    summary.stats = stats->report();
    if (!o.plot_layers.empty()) {
      files.push_back(std::make_unique<OutputFile>(o.plot_layers));
      write_layers_plot(*files.back(), *summary.stats);
    }
    if (!o.stats_csv.empty()) {
      files.push_back(std::make_unique<OutputFile>(o.stats_csv));
      summary.stats->write_csv(*files.back());
    }
    if (!o.stats_json.empty()) {
      files.push_back(std::make_unique<OutputFile>(o.stats_json));
      summary.stats->write_json(*files.back(), o.top);
    }
  }
  // Every output complete in its temporary before any is renamed, and a
  // rename that fails puts back the ones before it: a full disk or a
  // destination that cannot be replaced leaves none of them published.
  std::vector<OutputFile*> outputs;
  for (auto& s : sinks)
    if (OutputFile* f = s->output()) outputs.push_back(f);
  for (auto& f : files) outputs.push_back(f.get());
  commit_together(outputs);
  if (stats && o.stats_table) summary.stats->print_table(out, o.top);
  const ReaderStats& rs = summary.reader;
  if (rs.truncated)
    fmt::print(err, "{}: trace is truncated: converted {} records up to line {}\n", o.input, rs.records, rs.lines - 1);
  return summary;
}

}  // namespace vp::trace
