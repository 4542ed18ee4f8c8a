// Conductance relaxation of RRAM cells after program-and-verify: the cell
// leaves the verified window over time, by an amount that depends on its
// conductance. Wan et al. (Nature 2022, NeuRRAM) measured the deviation of
// programmed cells from their targets at 1 s, 1 day and 2 days; aihwkit's
// ReRamWan2022NoiseModel fits its standard deviation at each time with a
// 4th-order polynomial in G/Gmax (in uS, at Gmax = 40 uS). Those fits are
// the model's data.
#pragma once

#include <string>
#include <string_view>

namespace vp::hw {

enum class Relaxation { none, wan2022 };
// For the table's default (a constant expression); parse_relaxation checks.
constexpr Relaxation relaxation_named(std::string_view s) { return s == "wan2022" ? Relaxation::wan2022 : Relaxation::none; }
Relaxation parse_relaxation(const std::string& s);  // throws std::invalid_argument
const char* to_string(Relaxation r);

// Standard deviation, in uS, of a cell's conductance around its target
// g_ratio x g_max_us, t_s seconds after programming. Between the measured
// times sigma is interpolated linearly in log10(t); before 1 s it is the
// 1 s fit and after 2 days the 2-day fit (nothing is extrapolated). The fits
// scale with g_max_us / 40 uS, as aihwkit scales them.
double wan2022_sigma_us(double g_ratio, double t_s, double g_max_us);

}  // namespace vp::hw
