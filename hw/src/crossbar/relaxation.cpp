#include "vp/hw/crossbar/relaxation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vp::hw {
namespace {

// sigma(x) = c0 + c1 x + c2 x^2 + c3 x^3 + c4 x^4 in uS, x = G / Gmax,
// Gmax = 40 uS (aihwkit ReRamWan2022NoiseModel's fits of Wan et al. 2022).
struct Fit {
  double t_s;
  double c[5];
};
constexpr Fit kFits[] = {
    {1.0, {0.348, 16.030, -43.853, 45.393, -16.815}},
    {86400.0, {0.701, 22.086, -50.773, 47.095, -16.458}},
    {172800.0, {0.782, 20.274, -43.507, 37.062, -11.934}},
};
constexpr double kFitGmaxUs = 40.0;

double poly(const Fit& f, double x) {
  double v = 0;
  for (int i = 4; i >= 0; --i) v = v * x + f.c[i];
  return std::max(0.0, v);
}

}  // namespace

Relaxation parse_relaxation(const std::string& s) {
  if (s == "none") return Relaxation::none;
  if (s == "wan2022") return Relaxation::wan2022;
  throw std::invalid_argument("nonideal.relaxation: expected none or wan2022, got '" + s + "'");
}

const char* to_string(Relaxation r) { return r == Relaxation::wan2022 ? "wan2022" : "none"; }

double wan2022_sigma_us(double g_ratio, double t_s, double g_max_us) {
  const double x = std::clamp(g_ratio, 0.0, 1.0);
  const double scale = g_max_us / kFitGmaxUs;
  constexpr int n = sizeof kFits / sizeof kFits[0];
  if (!(t_s > kFits[0].t_s)) return poly(kFits[0], x) * scale;
  if (t_s >= kFits[n - 1].t_s) return poly(kFits[n - 1], x) * scale;
  int k = 0;
  while (t_s >= kFits[k + 1].t_s) ++k;
  const double a = std::log10(kFits[k].t_s), b = std::log10(kFits[k + 1].t_s);
  const double w = (std::log10(t_s) - a) / (b - a);
  return ((1 - w) * poly(kFits[k], x) + w * poly(kFits[k + 1], x)) * scale;
}

}  // namespace vp::hw
