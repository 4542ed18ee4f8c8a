// Time axis helpers shared by the plots (private to the library).
#pragma once

#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <string>

#include "vp/trace/canvas.hpp"

namespace vp::trace::detail {

// "1.25M" style cycle counts for axis labels.
inline std::string si(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:g}M", v / 1e6);
  if (a >= 1e3) return fmt::format("{:g}k", v / 1e3);
  return fmt::format("{:g}", v);
}

// Draws a horizontal cycle axis under [x0, x0 + w] for [t0, t1] at y.
inline void time_axis(Canvas& c, double x0, double w, double y, std::int64_t t0, std::int64_t t1, double clock_mhz) {
  const Rgb ink{60, 60, 60};
  c.line(x0, y, x0 + w, y, ink);
  const double span = std::max<double>(1.0, static_cast<double>(t1 - t0));
  // 1-2-5 steps, about 8 ticks across.
  const double raw = span / 8.0;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / p < 2 ? 2 * p : raw / p < 5 ? 5 * p : 10 * p;
  for (double t = std::ceil(static_cast<double>(t0) / step) * step; t <= static_cast<double>(t1); t += step) {
    const double x = x0 + (t - static_cast<double>(t0)) / span * w;
    c.line(x, y, x, y + 4, ink);
    c.text(x, y + 16, si(t), ink, Anchor::Middle);
  }
  c.text(x0 + w, y + 30, fmt::format("cycles (clock {} MHz, {:.3f} us shown)", clock_mhz, span / clock_mhz), ink,
         Anchor::End);
}

}  // namespace vp::trace::detail
