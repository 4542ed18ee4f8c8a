#include "vp/trace/perfetto_writer.hpp"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <iterator>
#include <set>

#include "vp/trace/value.hpp"

namespace vp::trace {

std::int64_t PerfettoWriter::pid_of(const TrackInfo& t) const {
  // pid 1 = control processor or ZeBu core, clusters from 2; chip K of a
  // system's traces read together from (K + 1) x 100000.
  const std::int64_t base = t.chip >= 0 ? (t.chip + 1) * 100000 : 0;
  return base + (t.zebu || t.cluster < 0 ? 1 : t.cluster + 2);
}

void PerfettoWriter::begin(const RunInfo& run) {
  catalog_ = run.catalog;
  us_per_cycle_ = 1.0 / run.clock_mhz;
  lanes_.assign(catalog_->tracks().size(), {});
  out_.write("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"vp-trace\"},\"traceEvents\":[\n");
}

void PerfettoWriter::add(const Interval& iv, std::string_view payload) {
  // Start-ordered input: the first lane whose last slice has ended is free.
  std::vector<Lane>& lanes = lanes_[iv.track];
  Lane* lane = nullptr;
  for (Lane& l : lanes) {
    if (l.busy_until <= iv.start) {
      lane = &l;
      break;
    }
  }
  if (!lane) {
    lanes.push_back({0, next_tid_++});
    lane = &lanes.back();
  }
  lane->busy_until = iv.end;

  const TrackInfo& t = catalog_->tracks()[iv.track];
  std::string& b = out_.buf();
  if (!first_event_) b += ",\n";
  first_event_ = false;
  b += "{\"ph\":\"X\",\"name\":";
  append_json_string(b, catalog_->opcode_name(iv.opcode));
  b += ",\"cat\":";
  append_json_string(b, catalog_->layers()[iv.layer].name);
  // Compiled format: this line runs once per slice.
  fmt::format_to(std::back_inserter(b), FMT_COMPILE(",\"ts\":{},\"dur\":{},\"pid\":{},\"tid\":{}"),
                 static_cast<double>(iv.start) * us_per_cycle_, static_cast<double>(iv.cycles()) * us_per_cycle_,
                 pid_of(t), lane->tid);
  if (!payload.empty()) {
    b += ",\"args\":";
    b += payload;
  }
  b += '}';
  ++slices_;
  out_.maybe_flush();
}

void PerfettoWriter::finish() {
  std::string& b = out_.buf();
  auto it = std::back_inserter(b);
  const auto sep = [&] {
    if (!first_event_) b += ",\n";
    first_event_ = false;
  };
  std::set<std::int64_t> named;
  for (const std::uint32_t t : catalog_->tracks_in_order()) {
    const TrackInfo& info = catalog_->tracks()[t];
    const std::int64_t pid = pid_of(info);
    if (named.insert(pid).second) {
      std::string pname = info.zebu ? "ZeBu core" : info.cluster < 0 ? "control processor"
                                                                     : fmt::format("cluster {}", info.cluster);
      if (info.chip >= 0) pname = fmt::format("chip {} {}", info.chip, pname);
      sep();
      fmt::format_to(it, "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":", pid);
      append_json_string(b, pname);
      b += "}}";
      sep();
      fmt::format_to(it, "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"args\":{{\"sort_index\":{}}}}}",
                     pid, pid);
    }
    const auto& lanes = lanes_[t];
    for (std::size_t k = 0; k < lanes.size(); ++k) {
      std::string name = info.zebu || info.cluster < 0 ? info.unit : fmt::format("cu{} {}", info.cu, info.unit);
      if (k > 0) name += fmt::format(" #{}", k + 1);
      sep();
      fmt::format_to(it, "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":", pid,
                     lanes[k].tid);
      append_json_string(b, name);
      b += "}}";
      sep();
      fmt::format_to(it,
                     "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
                     pid, lanes[k].tid, info.rank * 64 + std::min<std::size_t>(k, 63));
    }
  }
  b += "\n]}\n";
}

}  // namespace vp::trace
