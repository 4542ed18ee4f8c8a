#include "vp/trace/stats.hpp"

#include <algorithm>
#include <functional>
#include <limits>

namespace vp::trace {
namespace {

// Sums of instruction cycles (durations are >= 0) stop at 2^63 - 1: two
// records that each span most of the 64-bit time range add up to more.
std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t s;
  return __builtin_add_overflow(a, b, &s) ? std::numeric_limits<std::int64_t>::max() : s;
}

}  // namespace

void StatsCollector::Cover::add(std::int64_t s, std::int64_t e) {
  // Start-ordered input: the union grows at the right end only.
  if (!any || s > until) {
    busy += e - s;
    until = e;
    any = true;
  } else if (e > until) {
    busy += e - until;
    until = e;
  }
}

void StatsCollector::begin(const RunInfo& run) {
  run_ = run;
  const Catalog& cat = *run.catalog;
  track_cover_.assign(cat.tracks().size(), {});
  track_acc_.assign(cat.tracks().size(), {});
  layer_cover_.assign(cat.layers().size(), {});
  layer_acc_.assign(cat.layers().size(), {});
  opcode_acc_.assign(cat.opcodes().size(), {});
}

void StatsCollector::add(const Interval& iv, std::string_view) {
  const std::int64_t d = iv.cycles();
  track_cover_[iv.track].add(iv.start, iv.end);
  layer_cover_[iv.layer].add(iv.start, iv.end);
  for (Acc* a : {&track_acc_[iv.track], &layer_acc_[iv.layer], &opcode_acc_[iv.opcode]}) {
    if (a->count == 0 || iv.start < a->start) a->start = iv.start;
    if (a->count == 0 || iv.end > a->end) a->end = iv.end;
    ++a->count;
    a->cycles = saturating_add(a->cycles, d);
    a->max = std::max(a->max, d);
  }
  if (keep_longest_ == 0) return;
  const Long cand{d, iv};
  if (longest_.size() < keep_longest_) {
    longest_.push_back(cand);
    std::push_heap(longest_.begin(), longest_.end(), std::greater<Long>());
  } else if (cand > longest_.front()) {
    std::pop_heap(longest_.begin(), longest_.end(), std::greater<Long>());
    longest_.back() = cand;
    std::push_heap(longest_.begin(), longest_.end(), std::greater<Long>());
  }
}

void StatsCollector::finish() {
  const Catalog& cat = *run_.catalog;
  StatsReport& r = report_;
  r.clock_mhz = run_.clock_mhz;
  r.t_min = run_.t_min;
  r.t_max = run_.t_max;
  r.records = run_.count;
  const double span = run_.span() > 0 ? static_cast<double>(run_.span()) : 1.0;

  // Layers with no kept record (filtered out) do not appear.
  for (std::size_t l = 0; l < cat.layers().size(); ++l) {
    const Acc& a = layer_acc_[l];
    if (a.count == 0) continue;
    LayerStats s;
    s.name = cat.layers()[l].name;
    s.id = cat.layers()[l].id;
    s.order = static_cast<std::uint32_t>(l);
    s.start = a.start;
    s.end = a.end;
    s.cycles = a.end - a.start;
    s.share = static_cast<double>(s.cycles) / span;
    s.busy_cycles = layer_cover_[l].busy;
    s.count = a.count;
    s.unassigned = cat.layers()[l].id < 0 && cat.layers()[l].name == "-";
    r.layers.push_back(std::move(s));
  }

  for (const std::uint32_t t : cat.tracks_in_order()) {
    const Acc& a = track_acc_[t];
    if (a.count == 0) continue;
    const TrackInfo& info = cat.tracks()[t];
    UnitStats u;
    u.name = info.label;
    u.unit = info.unit;
    u.cluster = info.cluster;
    u.cu = info.cu;
    u.count = a.count;
    u.inst_cycles = a.cycles;
    u.busy_cycles = track_cover_[t].busy;
    u.busy_fraction = static_cast<double>(u.busy_cycles) / span;
    r.units.push_back(std::move(u));
  }

  std::int64_t all_cycles = 0;
  for (const Acc& a : opcode_acc_) all_cycles = saturating_add(all_cycles, a.cycles);
  for (std::uint32_t k = 0; k < opcode_acc_.size(); ++k) {
    const Acc& a = opcode_acc_[k];
    if (a.count == 0) continue;
    r.mnemonics.push_back({cat.opcode_name(k), a.count, a.cycles, a.max,
                           all_cycles > 0 ? static_cast<double>(a.cycles) / static_cast<double>(all_cycles) : 0.0});
  }
  std::stable_sort(r.mnemonics.begin(), r.mnemonics.end(),
                   [](const MnemonicStats& a, const MnemonicStats& b) { return a.total_cycles > b.total_cycles; });

  std::sort_heap(longest_.begin(), longest_.end(), std::greater<Long>());
  for (const Long& l : longest_) {
    r.longest.push_back({l.iv.inst_idx, l.iv.line, cat.opcode_name(l.iv.opcode), cat.layers()[l.iv.layer].name,
                         cat.tracks()[l.iv.track].label, l.iv.start, l.iv.end});
  }

  // Critical path (see the header): walk back from the last-finishing layer.
  // r.layers is in first-appearance order, so "earlier layer" = lower row.
  // latest[k]: among rows 0..k, the assigned layer that ends last (the
  // later row on a tie), so each step back is one lookup: a trace of
  // 100,000 layers is walked in linear time, not by rescanning every
  // earlier row at each step (40 s before).
  std::vector<std::size_t> latest(r.layers.size(), SIZE_MAX);
  for (std::size_t k = 0; k < r.layers.size(); ++k) {
    const std::size_t before = k ? latest[k - 1] : SIZE_MAX;
    latest[k] = !r.layers[k].unassigned && (before == SIZE_MAX || r.layers[k].end >= r.layers[before].end) ? k : before;
  }
  std::vector<std::size_t> path;
  std::size_t cur = r.layers.empty() ? SIZE_MAX : latest.back();
  while (cur != SIZE_MAX) {
    path.push_back(cur);
    cur = cur ? latest[cur - 1] : SIZE_MAX;
  }
  std::reverse(path.begin(), path.end());
  std::int64_t prev_end = run_.t_min;
  for (const std::size_t k : path) {
    LayerStats& l = r.layers[k];
    l.critical = true;
    CriticalStep step;
    step.layer = l.name;
    step.start = l.start;
    step.end = l.end;
    step.gap = std::max<std::int64_t>(0, l.start - prev_end);
    step.exposed = std::max<std::int64_t>(0, l.end - std::max(l.start, prev_end));
    r.critical_path.push_back(step);
    prev_end = std::max(prev_end, l.end);
  }
}

}  // namespace vp::trace
