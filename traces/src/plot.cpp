#include "vp/trace/plot.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "plot_axis.hpp"
#include "vp/trace/canvas.hpp"

namespace vp::trace {
namespace {

// Shade level 0..8 of a column; any activity at all shows at least level 1,
// so short instructions (a 30-cycle CT over millions of cycles) stay visible.
int shade(float cover) {
  if (cover <= 0.0f) return 0;
  return std::max(1, static_cast<int>(std::lround(std::min(1.0f, cover) * 8)));
}

constexpr double kLeft = 180, kRight = 24, kTop = 44, kBottom = 64;
const Rgb kInk{30, 30, 30};
const Rgb kLane{240, 240, 240};

}  // namespace

void TimelinePlot::begin(const RunInfo& run) {
  run_ = run;
  const Catalog& cat = *run.catalog;
  const std::vector<std::uint32_t> order = cat.tracks_in_order();
  row_of_track_.assign(cat.tracks().size(), 0);
  covered_until_.assign(cat.tracks().size(), std::numeric_limits<std::int64_t>::min());

  // Fold rows until they fit: per track, then per (cluster, unit), then per unit.
  for (int level = 0; level < 3; ++level) {
    rows_.clear();
    std::map<std::string, std::uint32_t> by_key;
    for (const std::uint32_t t : order) {
      if (!run.track_used[t]) continue;
      const TrackInfo& info = cat.tracks()[t];
      std::string key;
      if (level == 0) key = info.label;
      else if (level == 1) key = info.cluster < 0 || info.zebu ? info.label : fmt::format("c{} {}", info.cluster, info.unit);
      else key = info.unit;
      auto it = by_key.find(key);
      if (it == by_key.end()) {
        it = by_key.emplace(key, static_cast<std::uint32_t>(rows_.size())).first;
        rows_.push_back(Row{key, 0, {}, {}, {}});
      }
      ++rows_[it->second].members;
      row_of_track_[t] = it->second;
    }
    if (rows_.size() <= max_rows_) break;
  }
  for (Row& r : rows_) {
    if (r.members > 1) r.label += fmt::format(" (x{})", r.members);
    r.cover.assign(columns_, 0.0f);
    r.best.assign(columns_, 0.0f);
    r.layer.assign(columns_, 0);
  }
}

void TimelinePlot::add(const Interval& iv, std::string_view) {
  // Union per track (start-ordered input), so overlapping queue entries do
  // not count a cycle twice.
  std::int64_t& until = covered_until_[iv.track];
  const std::int64_t a = std::max(iv.start, until);
  const std::int64_t b = iv.end;
  until = std::max(until, b);
  if (b <= a) return;
  Row& row = rows_[row_of_track_[iv.track]];
  const double span = std::max<double>(1.0, static_cast<double>(run_.span()));
  const double per_col = span / columns_;
  const double x0 = static_cast<double>(a - run_.t_min) / per_col;
  const double x1 = static_cast<double>(b - run_.t_min) / per_col;
  const int k0 = std::max(0, static_cast<int>(std::floor(x0)));
  const int k1 = std::min(columns_, static_cast<int>(std::ceil(x1)));
  for (int k = k0; k < k1; ++k) {
    const double overlap = std::min(x1, k + 1.0) - std::max(x0, static_cast<double>(k));
    if (overlap <= 0) continue;
    row.cover[k] += static_cast<float>(overlap / row.members);
    if (overlap > row.best[k]) {
      row.best[k] = static_cast<float>(overlap);
      row.layer[k] = iv.layer;
    }
  }
}

void TimelinePlot::finish() {
  const Catalog& cat = *run_.catalog;
  const std::size_t n = rows_.size();
  const double row_h = n <= 48 ? 16.0 : std::max(3.0, 800.0 / static_cast<double>(n));
  const int width = static_cast<int>(kLeft + columns_ + kRight);
  const int height = static_cast<int>(kTop + row_h * static_cast<double>(n) + kBottom);
  auto canvas = make_canvas(out_.path(), width, height);
  Canvas& c = *canvas;
  const auto units = std::count(run_.track_used.begin(), run_.track_used.end(), true);
  c.text(kLeft, 18, fmt::format("timeline: {} instructions on {} units, cycles {}..{}", run_.count, units,
                                run_.t_min, run_.t_max), kInk);
  c.text(kLeft, 34, "colour = layer (hover for its name), shade = share of the column the unit was busy", kInk);
  for (std::size_t r = 0; r < n; ++r) {
    const Row& row = rows_[r];
    const double y = kTop + row_h * static_cast<double>(r);
    c.rect(kLeft, y, columns_, row_h - (row_h > 4 ? 1 : 0), kLane);
    if (row_h >= 9) c.text(kLeft - 6, y + row_h - 4, row.label, kInk, Anchor::End);
    int k = 0;
    while (k < columns_) {
      const int level = shade(row.cover[k]);
      if (level == 0) {
        ++k;
        continue;
      }
      int e = k + 1;
      while (e < columns_ && row.layer[e] == row.layer[k] && shade(row.cover[e]) == level)
        ++e;
      const LayerInfo& layer = cat.layers()[row.layer[k]];
      c.rect(kLeft + k, y, e - k, row_h - (row_h > 4 ? 1 : 0), palette(row.layer[k]), 0.2 + 0.8 * level / 8.0,
             fmt::format("{}: layer {} ({}% busy)", row.label, layer.name, level * 100 / 8));
      k = e;
    }
  }
  detail::time_axis(c, kLeft, columns_, kTop + row_h * static_cast<double>(n) + 4, run_.t_min, run_.t_max,
                    run_.clock_mhz);
  out_.write(c.finish());
}

void write_layers_plot(OutputFile& out, const StatsReport& report) {
  const std::size_t n = report.layers.size();
  const double row_h = n <= 60 ? 16.0 : std::max(4.0, 960.0 / static_cast<double>(n));
  const double plot_w = 900, right = 190;
  const int width = static_cast<int>(kLeft + plot_w + right);
  const int height = static_cast<int>(kTop + row_h * static_cast<double>(n) + kBottom);
  auto canvas = make_canvas(out.path(), width, height);
  Canvas& c = *canvas;
  const double t0 = static_cast<double>(report.t_min);
  const double span = std::max<double>(1.0, static_cast<double>(report.t_max - report.t_min));
  c.text(kLeft, 18, fmt::format("layers: {} layers over {} cycles; bar = first start .. last end", n,
                                report.t_max - report.t_min), kInk);
  c.text(kLeft, 34, "outlined red = on the critical path; right: cycles (share of the run)", kInk);
  const Rgb critical{200, 30, 30};
  for (std::size_t r = 0; r < n; ++r) {
    const LayerStats& l = report.layers[r];
    const double y = kTop + row_h * static_cast<double>(r);
    const double h = row_h - (row_h > 4 ? 2 : 0);
    c.rect(kLeft, y, plot_w, h, kLane);
    const double x = kLeft + (static_cast<double>(l.start) - t0) / span * plot_w;
    const double w = std::max(1.0, static_cast<double>(l.cycles) / span * plot_w);
    c.rect(x, y, w, h, palette(l.order), 1.0,
           fmt::format("{} (id {}): {}..{}, {} cycles, {:.2f}% of the run, {} records", l.name, l.id, l.start, l.end,
                       l.cycles, 100 * l.share, l.count));
    if (l.critical) c.outline(x, y, w, h, critical);
    if (row_h >= 9) {
      c.text(kLeft - 6, y + row_h - 5, l.name, l.critical ? critical : kInk, Anchor::End);
      c.text(kLeft + plot_w + 6, y + row_h - 5, fmt::format("{} ({:.1f}%)", l.cycles, 100 * l.share), kInk);
    }
  }
  detail::time_axis(c, kLeft, plot_w, kTop + row_h * static_cast<double>(n) + 4, report.t_min, report.t_max,
                    report.clock_mhz);
  out.write(c.finish());
}

}  // namespace vp::trace
