// The device model's inner loops over the cells of one row write: the ISPP
// pulses of every cell still outside its window, and the start states a
// reset draws. Each cell draws from its own SplitMix64 stream (key from
// DeviceModel::RowDraws::key), so the cells of a row can be run in SIMD
// lanes: eight at a time in AVX-512 (the ziggurat's rare path in lanes too,
// but for its tail), a lane taking the next waiting cell as soon as its
// cell ends. The lanes compute exactly what the scalar loop does, operation
// for operation in double precision (the ziggurat's wedge test reaches the
// scalar code's decision through another exp: ziggurat_lanes_avx512.h), so
// both give the same levels and pulses bit for bit; the scalar loop is the
// reference and the fallback on hosts without AVX-512.
#pragma once

#include <cstdint>

#include "vp/hw/crossbar/rng.h"

namespace vp::hw {

// The stream key of column `col` in the write keyed `row_key`.
inline std::uint64_t cell_stream_key(std::uint64_t row_key, int col) {
  return mix64(row_key ^ (static_cast<std::uint64_t>(col) * 0xD1B54A32D192ED03ULL));
}
// out[i] = cell_stream_key(row_key, cols[i]), i < n.
void cell_stream_keys(std::uint64_t row_key, const std::int32_t* cols, int n, std::uint64_t* out);

struct CellPulseParams {
  double step_mean = 0.0;   // device.step_levels_mean
  double step_sigma = 0.0;  // device.step_levels_sigma (> 0: the kernels draw)
  double min_step = 0.0;    // DeviceModel::min_step()
  double tolerance = 0.0;   // ispp.tolerance_levels
  double top = 0.0;         // the crossbar's max_level
  int cap = 1;              // ispp.max_pulses
};

// n cells, each entering outside its window (|level - target| > tolerance):
// pulse until inside or at the cap. levels in/out; pulses out.
struct CellPulseJob {
  const std::uint64_t* keys = nullptr;  // stream key of each cell
  const double* targets = nullptr;
  double* levels = nullptr;
  std::int32_t* pulses = nullptr;
  int n = 0;
};

void pulse_cells_scalar(const CellPulseParams& p, const CellPulseJob& job);
// False (and nothing done) when the host has no AVX-512F/DQ/VL.
bool pulse_cells_avx512(const CellPulseParams& p, const CellPulseJob& job);
// The fastest of the two the host runs.
void pulse_cells(const CellPulseParams& p, const CellPulseJob& job);

// Start states of n cells: cell i draws N(mean, sigma) from the first words
// of the stream keyed keys[i] and is clamped to [0, top]. sigma > 0.
void start_levels_scalar(const std::uint64_t* keys, double mean, double sigma, double top, float* out, int n);
bool start_levels_avx512(const std::uint64_t* keys, double mean, double sigma, double top, float* out, int n);
void start_levels(const std::uint64_t* keys, double mean, double sigma, double top, float* out, int n);

// Start states of columns 0..n-1 of the write keyed row_key: the same as
// cell_stream_keys over 0..n-1 followed by start_levels, without the keys
// in memory (a reset of a row without stuck cells).
void start_row_levels(std::uint64_t row_key, double mean, double sigma, double top, float* out, int n);

// The two ends of a row write without stuck cells (the bulk of a
// deployment), in lanes where the host has AVX-512, else the scalar loops
// they equal bit for bit.
//
// Before the pulses: level[i] = lv[i] for every cell; the cells outside
// their window (|lv - target| > tolerance) listed in column order, their
// absolute column (col_begin + i), target and level. Returns how many.
struct RowCells {
  std::int32_t* col = nullptr;
  double* target = nullptr;
  double* level = nullptr;
};
int cells_outside(const float* lv, const std::uint8_t* targets, int n, double tolerance, int col_begin,
                  double* level, const RowCells& out);
int cells_outside_scalar(const float* lv, const std::uint8_t* targets, int n, double tolerance, int col_begin,
                         double* level, const RowCells& out);

// After the pulses: every cell's stored level (its target when it
// converged and the residual is not kept, else the level reached, as a
// float) and the row's sums.
struct RowEnd {
  std::uint64_t pulses = 0;
  int iterations = 0;  // the largest pulse count
  int failed = 0;      // cells with |level - target| > tolerance
};
RowEnd finish_cells(const double* level, const std::int32_t* pulses, const std::uint8_t* targets, int n,
                    double tolerance, bool keep_residual, float* lv);
RowEnd finish_cells_scalar(const double* level, const std::int32_t* pulses, const std::uint8_t* targets, int n,
                           double tolerance, bool keep_residual, float* lv);

bool host_has_avx512();

namespace detail {
bool cell_stream_keys_avx512(std::uint64_t row_key, const std::int32_t* cols, int n, std::uint64_t* out);
bool start_row_levels_avx512(std::uint64_t row_key, double mean, double sigma, double top, float* out, int n);
bool cells_outside_avx512(const float* lv, const std::uint8_t* targets, int n, double tolerance, int col_begin,
                          double* level, const RowCells& out, int& m);
bool finish_cells_avx512(const double* level, const std::int32_t* pulses, const std::uint8_t* targets, int n,
                         double tolerance, bool keep_residual, float* lv, RowEnd& end);
// For the tests of the ziggurat's rare path in lanes. out[d * n + i] = the
// d-th normal of the stream keyed keys[i] (d < draws), counters[i] = that
// stream's counter after them, the wedge tests within `band` (relative) of
// the lanes' exp asked of glibc's exp (the kernels use 2^-40).
bool stream_normals_avx512(const std::uint64_t* keys, int n, int draws, double band, double* out,
                           std::uint64_t* counters);
// out[i] = the lanes' exp(a[i]) that the wedge test uses, for a[i] in [-6, 0].
bool wedge_exp_avx512(const double* a, double* out, int n);
}  // namespace detail

}  // namespace vp::hw
