#include "vp/hw/crossbar/cell_kernels.h"

#include <algorithm>
#include <cmath>

#include "vp/hw/crossbar/rng.h"

namespace vp::hw {

void pulse_cells_scalar(const CellPulseParams& p, const CellPulseJob& job) {
  for (int i = 0; i < job.n; ++i) {
    StreamRng rng(job.keys[i]);
    const double target = job.targets[i];
    double v = job.levels[i];
    int pulses = 0;
    do {
      const double step = std::max(rng.normal(p.step_mean, p.step_sigma), p.min_step);
      v = std::clamp(v < target ? v + step : v - step, 0.0, p.top);
      ++pulses;
    } while (pulses < p.cap && std::fabs(v - target) > p.tolerance);
    job.levels[i] = v;
    job.pulses[i] = pulses;
  }
}

void start_levels_scalar(const std::uint64_t* keys, double mean, double sigma, double top, float* out,
                         int n) {
  for (int i = 0; i < n; ++i) {
    StreamRng rng(keys[i]);
    out[i] = static_cast<float>(std::clamp(rng.normal(mean, sigma), 0.0, top));
  }
}

void start_row_levels(std::uint64_t row_key, double mean, double sigma, double top, float* out, int n) {
  if (detail::start_row_levels_avx512(row_key, mean, sigma, top, out, n)) return;
  for (int i = 0; i < n; ++i) {
    StreamRng rng(cell_stream_key(row_key, i));
    out[i] = static_cast<float>(std::clamp(rng.normal(mean, sigma), 0.0, top));
  }
}

void cell_stream_keys(std::uint64_t row_key, const std::int32_t* cols, int n, std::uint64_t* out) {
  if (detail::cell_stream_keys_avx512(row_key, cols, n, out)) return;
  for (int i = 0; i < n; ++i) out[i] = cell_stream_key(row_key, cols[i]);
}

int cells_outside_scalar(const float* lv, const std::uint8_t* targets, int n, double tolerance, int col_begin,
                         double* level, const RowCells& out) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const double v = lv[i];
    const double target = targets[i];
    level[i] = v;
    if (std::fabs(v - target) > tolerance) {
      out.col[m] = col_begin + i;
      out.target[m] = target;
      out.level[m] = v;
      ++m;
    }
  }
  return m;
}

int cells_outside(const float* lv, const std::uint8_t* targets, int n, double tolerance, int col_begin,
                  double* level, const RowCells& out) {
  int m = 0;
  if (detail::cells_outside_avx512(lv, targets, n, tolerance, col_begin, level, out, m)) return m;
  return cells_outside_scalar(lv, targets, n, tolerance, col_begin, level, out);
}

RowEnd finish_cells_scalar(const double* level, const std::int32_t* pulses, const std::uint8_t* targets, int n,
                           double tolerance, bool keep_residual, float* lv) {
  RowEnd end;
  for (int i = 0; i < n; ++i) {
    const double target = targets[i];
    const double v = level[i];
    const bool converged = std::fabs(v - target) <= tolerance;
    if (!converged) ++end.failed;
    lv[i] = converged && !keep_residual ? static_cast<float>(target) : static_cast<float>(v);
    end.pulses += static_cast<std::uint64_t>(pulses[i]);
    end.iterations = std::max(end.iterations, static_cast<int>(pulses[i]));
  }
  return end;
}

RowEnd finish_cells(const double* level, const std::int32_t* pulses, const std::uint8_t* targets, int n,
                    double tolerance, bool keep_residual, float* lv) {
  RowEnd end;
  if (detail::finish_cells_avx512(level, pulses, targets, n, tolerance, keep_residual, lv, end)) return end;
  return finish_cells_scalar(level, pulses, targets, n, tolerance, keep_residual, lv);
}

void pulse_cells(const CellPulseParams& p, const CellPulseJob& job) {
  if (!pulse_cells_avx512(p, job)) pulse_cells_scalar(p, job);
}

void start_levels(const std::uint64_t* keys, double mean, double sigma, double top, float* out, int n) {
  if (!start_levels_avx512(keys, mean, sigma, top, out, n)) start_levels_scalar(keys, mean, sigma, top, out, n);
}

}  // namespace vp::hw
