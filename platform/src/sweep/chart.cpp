#include "chart.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace vp::sweep::detail {
namespace {

using trace::Anchor;
using trace::Rgb;

constexpr int kWidth = 800, kHeight = 480;
constexpr double kLeft = 80, kTop = 40, kPlotW = 440, kPlotH = 360;
constexpr Rgb kInk{50, 50, 50}, kGrid{225, 225, 225};

std::string label_of(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  double map(double v, double len) const {
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return t * len;
  }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
        for (double m : {1.0, 2.0, 5.0})
          if (d * m >= lo * 0.9999 && d * m <= hi * 1.0001) out.push_back(d * m);
      return out;
    }
    const double raw = (hi - lo) / 6;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / p < 2 ? 2 * p : raw / p < 5 ? 5 * p : 10 * p;
    for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
    return out;
  }
};

Axis fit(const std::vector<double>& vs, bool log) {
  Axis a;
  a.log = log;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : vs)
    if (!log || v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(lo <= hi)) lo = log ? 1 : 0, hi = log ? 10 : 1;
  if (log) {
    if (lo == hi) lo /= 2, hi *= 2;
    a.lo = lo / std::pow(hi / lo, 0.04);
    a.hi = hi * std::pow(hi / lo, 0.04);
  } else {
    if (lo == hi) {
      const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
      lo -= pad, hi += pad;
    }
    const double pad = (hi - lo) * 0.05;
    a.lo = lo - pad, a.hi = hi + pad;
  }
  return a;
}

}  // namespace

std::string render_chart(const Chart& chart, const std::string& path) {
  std::vector<double> xs, ys;
  for (const auto& s : chart.series)
    for (const auto& [x, y] : s.points) xs.push_back(x), ys.push_back(y);
  const Axis ax = fit(xs, chart.log_x), ay = fit(ys, chart.log_y);
  auto px = [&](double x) { return kLeft + ax.map(x, kPlotW); };
  auto py = [&](double y) { return kTop + kPlotH - ay.map(y, kPlotH); };

  auto canvas = trace::make_canvas(path, kWidth, kHeight);
  trace::Canvas& c = *canvas;
  c.rect(0, 0, kWidth, kHeight, Rgb{255, 255, 255});
  c.text(8, 16, chart.title, kInk, Anchor::Start);
  c.text(8, kTop - 8, chart.y_label + (chart.log_y ? " (log)" : ""), kInk, Anchor::Start);
  for (double t : chart.x_ticks.empty() ? ax.ticks() : chart.x_ticks) {
    c.line(px(t), kTop, px(t), kTop + kPlotH, kGrid);
    c.line(px(t), kTop + kPlotH, px(t), kTop + kPlotH + 4, kInk);
    c.text(px(t), kTop + kPlotH + 16, label_of(t), kInk, Anchor::Middle);
  }
  for (double t : ay.ticks()) {
    c.line(kLeft, py(t), kLeft + kPlotW, py(t), kGrid);
    c.line(kLeft - 4, py(t), kLeft, py(t), kInk);
    c.text(kLeft - 7, py(t) + 4, label_of(t), kInk, Anchor::End);
  }
  c.outline(kLeft, kTop, kPlotW, kPlotH, kInk);
  c.text(kLeft + kPlotW / 2, kTop + kPlotH + 36, chart.x_label + (chart.log_x ? " (log)" : ""), kInk, Anchor::Middle);

  for (const auto& s : chart.series) {
    if (s.lines)
      for (std::size_t i = 1; i < s.points.size(); ++i)
        c.line(px(s.points[i - 1].first), py(s.points[i - 1].second), px(s.points[i].first), py(s.points[i].second),
               s.color);
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const double h = s.marker / 2;
      const std::string tip = i < s.tips.size() ? s.tips[i]
                                                : fmt::format("{}: ({:.6g}, {:.6g})", s.label, s.points[i].first,
                                                              s.points[i].second);
      c.rect(px(s.points[i].first) - h, py(s.points[i].second) - h, s.marker, s.marker, s.color, 1.0, tip);
    }
  }

  // Legend on the right; long lists end with a count of what is left out.
  const double lx = kLeft + kPlotW + 20;
  double ly = kTop + 4;
  int shown = 0, legend_entries = 0;
  for (const auto& s : chart.series) legend_entries += !s.label.empty();
  for (const auto& s : chart.series) {
    if (s.label.empty()) continue;
    if (shown == 24 && legend_entries > 25) {
      c.text(lx, ly + 4, fmt::format("... and {} more", legend_entries - shown), kInk, Anchor::Start);
      break;
    }
    c.rect(lx, ly - 3, 14, 6, s.color, 1.0, s.label);
    std::string text = s.label;
    if (text.size() > 34) text = text.substr(0, 33) + "~";
    c.text(lx + 20, ly + 4, text, kInk, Anchor::Start);
    ly += 16;
    ++shown;
  }

  return c.finish();
}

}  // namespace vp::sweep::detail
