// Renderings of a StatsReport: text table, CSV and JSON.
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <ostream>

#include "vp/trace/stats.hpp"

namespace vp::trace {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

}  // namespace

void StatsReport::print_table(std::ostream& os, std::size_t top) const {
  const double us = 1.0 / clock_mhz;
  const std::int64_t span = t_max - t_min;
  fmt::print(os, "run: {} records, cycles {}..{} ({} cycles, {:.3f} us at {} MHz)\n\n", records, t_min, t_max, span,
             static_cast<double>(span) * us, clock_mhz);

  fmt::print(os, "layers ({}; * = on the critical path)\n", layers.size());
  fmt::print(os, "  {:<24} {:>6} {:>12} {:>12} {:>12} {:>7} {:>12} {:>8}\n", "layer", "id", "start", "end", "cycles",
             "share", "busy", "records");
  for (const LayerStats& l : layers)
    fmt::print(os, "{} {:<24} {:>6} {:>12} {:>12} {:>12} {:>6.2f}% {:>12} {:>8}\n", l.critical ? '*' : ' ', l.name,
               l.id, l.start, l.end, l.cycles, 100.0 * l.share, l.busy_cycles, l.count);

  fmt::print(os, "\nunits ({})\n", units.size());
  fmt::print(os, "  {:<24} {:>10} {:>14} {:>14} {:>7}\n", "unit", "records", "inst cycles", "busy cycles", "busy");
  for (const UnitStats& u : units)
    fmt::print(os, "  {:<24} {:>10} {:>14} {:>14} {:>6.2f}%\n", u.name, u.count, u.inst_cycles, u.busy_cycles,
               100.0 * u.busy_fraction);

  fmt::print(os, "\ntop instructions by total time\n");
  fmt::print(os, "  {:<20} {:>10} {:>14} {:>10} {:>10} {:>7}\n", "mnemonic", "count", "total cycles", "mean", "max",
             "share");
  for (std::size_t k = 0; k < mnemonics.size() && k < top; ++k) {
    const MnemonicStats& m = mnemonics[k];
    fmt::print(os, "  {:<20} {:>10} {:>14} {:>10.1f} {:>10} {:>6.2f}%\n", m.name, m.count, m.total_cycles,
               static_cast<double>(m.total_cycles) / static_cast<double>(m.count), m.max_cycles, 100.0 * m.share);
  }

  fmt::print(os, "\nlongest single instructions\n");
  fmt::print(os, "  {:>9} {:<16} {:<16} {:<12} {:>12} {:>12} {:>10}\n", "inst_idx", "mnemonic", "unit", "layer", "start",
             "end", "cycles");
  for (const LongInstruction& l : longest)
    fmt::print(os, "  {:>9} {:<16} {:<16} {:<12} {:>12} {:>12} {:>10}\n", l.inst_idx, l.mnemonic, l.unit, l.layer,
               l.start, l.end, l.end - l.start);

  fmt::print(os, "\ncritical path through layers ({} layers)\n", critical_path.size());
  fmt::print(os, "  {:<24} {:>12} {:>12} {:>12} {:>10}\n", "layer", "start", "end", "exposed", "gap");
  for (const CriticalStep& c : critical_path)
    fmt::print(os, "  {:<24} {:>12} {:>12} {:>12} {:>10}\n", c.layer, c.start, c.end, c.exposed, c.gap);
}

void StatsReport::write_csv(OutputFile& out) const {
  // One table, a section column first, so one file loads into a spreadsheet
  // or pandas and filters by section.
  std::string& b = out.buf();
  auto it = std::back_inserter(b);
  b += "section,name,id,unit,cluster,cu,start,end,cycles,share,busy_cycles,busy_fraction,count,exposed,gap,critical\n";
  fmt::format_to(it, "run,run,,,,,{},{},{},1,,,{},,,\n", t_min, t_max, t_max - t_min, records);
  for (const LayerStats& l : layers)
    fmt::format_to(it, "layer,{},{},,,,{},{},{},{:.6f},{},,{},,,{}\n", csv_field(l.name), l.id, l.start, l.end, l.cycles,
                   l.share, l.busy_cycles, l.count, l.critical ? 1 : 0);
  for (const UnitStats& u : units)
    fmt::format_to(it, "unit,{},,{},{},{},,,{},,{},{:.6f},{},,,\n", csv_field(u.name), csv_field(u.unit), u.cluster, u.cu,
                   u.inst_cycles, u.busy_cycles, u.busy_fraction, u.count);
  for (const MnemonicStats& m : mnemonics)
    fmt::format_to(it, "mnemonic,{},,,,,,,{},{:.6f},,,{},,,\n", csv_field(m.name), m.total_cycles, m.share, m.count);
  for (const LongInstruction& l : longest)
    fmt::format_to(it, "longest,{},{},{},,,{},{},{},,,,1,,,\n", csv_field(l.mnemonic), l.inst_idx, csv_field(l.unit),
                   l.start, l.end, l.end - l.start);
  for (const CriticalStep& c : critical_path)
    fmt::format_to(it, "critical,{},,,,,{},{},{},,,,,{},{},1\n", csv_field(c.layer), c.start, c.end, c.end - c.start,
                   c.exposed, c.gap);
}

void StatsReport::write_json(OutputFile& out, std::size_t top) const {
  using nlohmann::json;
  json j;
  j["clock_mhz"] = clock_mhz;
  j["records"] = records;
  j["start"] = t_min;
  j["end"] = t_max;
  j["cycles"] = t_max - t_min;
  json& jl = j["layers"] = json::array();
  for (const LayerStats& l : layers)
    jl.push_back({{"name", l.name}, {"id", l.id}, {"start", l.start}, {"end", l.end}, {"cycles", l.cycles},
                  {"share", l.share}, {"busy_cycles", l.busy_cycles}, {"records", l.count}, {"critical", l.critical}});
  json& ju = j["units"] = json::array();
  for (const UnitStats& u : units)
    ju.push_back({{"name", u.name}, {"unit", u.unit}, {"cluster", u.cluster}, {"cu", u.cu}, {"records", u.count},
                  {"inst_cycles", u.inst_cycles}, {"busy_cycles", u.busy_cycles}, {"busy_fraction", u.busy_fraction}});
  json& jm = j["top_mnemonics"] = json::array();
  for (std::size_t k = 0; k < mnemonics.size() && k < top; ++k) {
    const MnemonicStats& m = mnemonics[k];
    jm.push_back({{"mnemonic", m.name}, {"count", m.count}, {"total_cycles", m.total_cycles},
                  {"max_cycles", m.max_cycles}, {"share", m.share}});
  }
  json& jt = j["longest"] = json::array();
  for (const LongInstruction& l : longest)
    jt.push_back({{"inst_idx", l.inst_idx}, {"line", l.line}, {"mnemonic", l.mnemonic}, {"unit", l.unit},
                  {"layer", l.layer}, {"start", l.start}, {"end", l.end}, {"cycles", l.end - l.start}});
  json& jc = j["critical_path"] = json::array();
  for (const CriticalStep& c : critical_path)
    jc.push_back({{"layer", c.layer}, {"start", c.start}, {"end", c.end}, {"exposed", c.exposed}, {"gap", c.gap}});
  out.write(j.dump(2));
  out.write("\n");
}

}  // namespace vp::trace
