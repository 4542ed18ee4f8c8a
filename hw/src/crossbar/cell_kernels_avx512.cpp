// The AVX-512 lanes of cell_kernels.h. Compiled for the baseline ISA with
// the AVX-512 functions marked by a target attribute and entered only after
// a run-time check, so one binary runs on any x86-64 host. Every lane does
// the scalar loop's operations in the same order, in double precision,
// without fused multiply-adds (the selects below mirror std::max and
// std::clamp exactly), so its results are the scalar loop's bit for bit.
// The one exception, the ziggurat's wedge test against exp, makes the
// scalar code's decision by another way (ziggurat_lanes_avx512.cpp).
#include "vp/hw/crossbar/cell_kernels.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "vp/hw/crossbar/rng.h"
#include "ziggurat_lanes_avx512.h"

namespace vp::hw {

#if VP_HAVE_AVX512_KERNELS

bool host_has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                          __builtin_cpu_supports("avx512vl");
  return has;
}

namespace {

using detail::mix64_lanes;

// One standard normal per lane of `live` from the next word of the lane's
// stream (counter in `ctr`, advanced): BasicRng::normal() lane by lane.
// `band`: see ziggurat_rare_lanes.
VP_AVX512 inline __m512d normal_lanes(__m512i& ctr, __mmask8 live, const detail::Ziggurat& t,
                                      double band = detail::kWedgeBand) {
  ctr = _mm512_mask_add_epi64(ctr, live, ctr, _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ULL)));
  const __m512i w = mix64_lanes(ctr);
  const __m512i layer = _mm512_and_si512(w, _mm512_set1_epi64(127));
  const __m512i hz = _mm512_srai_epi64(w, 32);  // the high half as a signed 32-bit value
  const __m512i k = _mm512_i64gather_epi64(layer, t.k, 8);
  const __m512d wl = _mm512_i64gather_pd(layer, t.w, 8);
  __m512d x = _mm512_mul_pd(_mm512_cvtepi64_pd(hz), wl);
  const __mmask8 slow = _mm512_mask_cmpge_epi64_mask(live, _mm512_abs_epi64(hz), k);
  if (slow != 0) detail::ziggurat_rare_lanes(ctr, x, hz, layer, slow, t, band);
  return x;
}

// std::clamp(v, 0, top): v < 0 ? 0 : (top < v ? top : v).
VP_AVX512 inline __m512d clamp_lanes(__m512d v, __m512d zero, __m512d top) {
  v = _mm512_mask_mov_pd(v, _mm512_cmp_pd_mask(v, zero, _CMP_LT_OQ), zero);
  return _mm512_mask_mov_pd(v, _mm512_cmp_pd_mask(top, v, _CMP_LT_OQ), top);
}

// Eight lanes of cells, each lane holding one cell until it ends. A lane
// carries the normal of its cell's next pulse, drawn one pulse ahead: while
// the lane applies one step it already draws the next from the counter, so
// the draw (two 64-bit multiplies, two gathers) is not on the chain from
// one pulse to the next; a cell entering a lane brings its first normal,
// drawn for all cells of the job beforehand.
struct Lanes {
  __m512i ctr;      // stream counter after the words of x
  __m512d x;        // the normal of the next pulse
  __m512d level;
  __m512d target;
  __m512i cell;     // index of the lane's cell in the job
  __m512i pulses;
  __mmask8 live;
};

// Cells of one job: where the next waiting cell is, and where the ended
// cells' results go (compressed, in the order they end).
struct Queue {
  const CellPulseJob* job;
  const std::uint64_t* ctr0;  // per cell: counter after its first normal's words
  const double* x0;           // per cell: its first normal
  int next;
  int done;
  double* level_out;
  std::int64_t* pulses_out;
  std::int64_t* cell_out;
};

struct Consts {
  __m512d mean, sigma, min_step, tol, top, zero;
  __m512i cap, one, no_sign, lane, golden;
};

// The first normal of every cell: BasicRng::normal() on the first words of
// its stream, eight cells at a time.
VP_AVX512 void first_normals(const CellPulseJob& job, std::uint64_t* ctr0, double* x0, const detail::Ziggurat& t) {
  for (int i = 0; i < job.n; i += 8) {
    const int left = job.n - i;
    const __mmask8 m = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    __m512i ctr = _mm512_maskz_loadu_epi64(m, job.keys + i);
    const __m512d x = normal_lanes(ctr, m, t);
    _mm512_mask_storeu_epi64(ctr0 + i, m, ctr);
    _mm512_mask_storeu_pd(x0 + i, m, x);
  }
}

// Ended lanes, in lane order, take the next waiting cells (expand-load).
VP_AVX512 inline void refill(Lanes& l, __mmask8 free, Queue& q, const Consts& k) {
  const int waiting = q.job->n - q.next;
  __mmask8 take = free;
  if (__builtin_popcount(free) > waiting) {
    take = 0;
    for (unsigned j = 0, got = 0; j < 8 && got < static_cast<unsigned>(waiting); ++j) {
      if ((free >> j) & 1u) {
        take = static_cast<__mmask8>(take | (1u << j));
        ++got;
      }
    }
  }
  l.ctr = _mm512_mask_expandloadu_epi64(l.ctr, take, q.ctr0 + q.next);
  l.x = _mm512_mask_expandloadu_pd(l.x, take, q.x0 + q.next);
  l.level = _mm512_mask_expandloadu_pd(l.level, take, q.job->levels + q.next);
  l.target = _mm512_mask_expandloadu_pd(l.target, take, q.job->targets + q.next);
  l.cell = _mm512_mask_expand_epi64(l.cell, take, _mm512_add_epi64(k.lane, _mm512_set1_epi64(q.next)));
  l.pulses = _mm512_mask_mov_epi64(l.pulses, take, _mm512_setzero_si512());
  q.next += __builtin_popcount(take);
  l.live = static_cast<__mmask8>(l.live | take);
}

// One pulse on every live lane with the normal it carries, the next normal
// drawn meanwhile; ended cells leave and free lanes refill.
VP_AVX512 inline void pulse(Lanes& l, Queue& q, const Consts& k, const detail::Ziggurat& t) {
  const __mmask8 live = l.live;
  // The next draw, from the counter alone.
  const __m512i ctr_n = _mm512_add_epi64(l.ctr, k.golden);
  const __m512i w = mix64_lanes(ctr_n);
  const __m512i layer = _mm512_and_si512(w, _mm512_set1_epi64(127));
  const __m512i hz = _mm512_srai_epi64(w, 32);  // the high half as a signed 32-bit value
  const __m512i kl = _mm512_i64gather_epi64(layer, t.k, 8);
  const __m512d wl = _mm512_i64gather_pd(layer, t.w, 8);
  __m512d x_n = _mm512_mul_pd(_mm512_cvtepi64_pd(hz), wl);
  const __mmask8 rare = _mm512_mask_cmpge_epi64_mask(live, _mm512_abs_epi64(hz), kl);
  // This pulse. step = max(mean + sigma * N(0,1), min_step), as std::max(a, b) = a < b ? b : a.
  __m512d step = _mm512_add_pd(k.mean, _mm512_mul_pd(k.sigma, l.x));
  step = _mm512_mask_mov_pd(step, _mm512_cmp_pd_mask(step, k.min_step, _CMP_LT_OQ), k.min_step);
  const __mmask8 below = _mm512_cmp_pd_mask(l.level, l.target, _CMP_LT_OQ);
  const __m512d nv = _mm512_mask_add_pd(_mm512_sub_pd(l.level, step), below, l.level, step);
  l.level = _mm512_mask_mov_pd(l.level, live, clamp_lanes(nv, k.zero, k.top));
  l.pulses = _mm512_mask_add_epi64(l.pulses, live, l.pulses, k.one);
  const __m512d dist =
      _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(_mm512_sub_pd(l.level, l.target)), k.no_sign));
  const __mmask8 going =
      _mm512_mask_cmp_pd_mask(_mm512_mask_cmplt_epi64_mask(live, l.pulses, k.cap), dist, k.tol, _CMP_GT_OQ);
  const __mmask8 ended = static_cast<__mmask8>(live & ~going);
  // Compress the ended lanes to the front and store all eight: the buffers
  // have eight spare slots, and the next store starts after the real ones.
  _mm512_storeu_pd(q.level_out + q.done, _mm512_maskz_compress_pd(ended, l.level));
  _mm512_storeu_si512(q.pulses_out + q.done, _mm512_maskz_compress_epi64(ended, l.pulses));
  _mm512_storeu_si512(q.cell_out + q.done, _mm512_maskz_compress_epi64(ended, l.cell));
  q.done += __builtin_popcount(ended);
  // The rare path of the next draw, for the cells that go on to use it.
  __m512i ctr = ctr_n;
  const __mmask8 rare_going = static_cast<__mmask8>(rare & going);
  if (rare_going != 0) detail::ziggurat_rare_lanes(ctr, x_n, hz, layer, rare_going, t, detail::kWedgeBand);
  l.ctr = ctr;
  l.x = x_n;
  l.live = going;
  refill(l, ended, q, k);
}

// Two groups of eight lanes in flight: the groups are independent, so the
// core overlaps their chains.
constexpr int kGroups = 2;

VP_AVX512 void pulse_lanes(const CellPulseParams& p, const CellPulseJob& job) {
  const detail::Ziggurat& t = detail::ziggurat();
  Consts k;
  k.mean = _mm512_set1_pd(p.step_mean);
  k.sigma = _mm512_set1_pd(p.step_sigma);
  k.min_step = _mm512_set1_pd(p.min_step);
  k.tol = _mm512_set1_pd(p.tolerance);
  k.top = _mm512_set1_pd(p.top);
  k.zero = _mm512_setzero_pd();
  k.cap = _mm512_set1_epi64(p.cap);
  k.one = _mm512_set1_epi64(1);
  k.no_sign = _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFLL);
  k.lane = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  k.golden = _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ULL));

  thread_local std::vector<double> level_out;
  thread_local std::vector<std::int64_t> pulses_out;
  thread_local std::vector<std::int64_t> cell_out;
  thread_local std::vector<std::uint64_t> ctr0;
  thread_local std::vector<double> x0;
  const auto room = static_cast<std::size_t>(job.n) + 8;
  if (level_out.size() < room) {
    level_out.resize(room);
    pulses_out.resize(room);
    cell_out.resize(room);
    ctr0.resize(room);
    x0.resize(room);
  }
  first_normals(job, ctr0.data(), x0.data(), t);
  Queue q{&job, ctr0.data(), x0.data(), 0, 0, level_out.data(), pulses_out.data(), cell_out.data()};

  Lanes g[kGroups];
  for (Lanes& l : g) {
    l.ctr = _mm512_setzero_si512();
    l.x = _mm512_setzero_pd();
    l.level = _mm512_setzero_pd();
    l.target = _mm512_setzero_pd();
    l.cell = _mm512_setzero_si512();
    l.pulses = _mm512_setzero_si512();
    l.live = 0;
    refill(l, 0xFF, q, k);
  }
  for (;;) {
    __mmask8 any = 0;
    for (Lanes& l : g) {
      pulse(l, q, k, t);
      any = static_cast<__mmask8>(any | l.live);
    }
    if (any == 0) break;
  }
  for (int i = 0; i < q.done; ++i) {
    const auto c = static_cast<std::size_t>(cell_out[static_cast<std::size_t>(i)]);
    job.levels[c] = level_out[static_cast<std::size_t>(i)];
    job.pulses[c] = static_cast<std::int32_t>(pulses_out[static_cast<std::size_t>(i)]);
  }
}

VP_AVX512 void start_lanes(const std::uint64_t* keys, double mean, double sigma, double top, float* out, int n) {
  const detail::Ziggurat& t = detail::ziggurat();
  const __m512d vmean = _mm512_set1_pd(mean);
  const __m512d vsigma = _mm512_set1_pd(sigma);
  const __m512d vtop = _mm512_set1_pd(top);
  const __m512d zero = _mm512_setzero_pd();
  for (int i = 0; i < n; i += 8) {
    const int left = n - i;
    const __mmask8 live = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    __m512i ctr = _mm512_maskz_loadu_epi64(live, keys + i);
    const __m512d v = _mm512_add_pd(vmean, _mm512_mul_pd(vsigma, normal_lanes(ctr, live, t)));
    _mm256_mask_storeu_ps(out + i, live, _mm512_cvtpd_ps(clamp_lanes(v, zero, vtop)));
  }
}

// For the tests: `draws` normals of each stream, eight streams at a time.
VP_AVX512 void stream_normal_lanes(const std::uint64_t* keys, int n, int draws, double band, double* out,
                                   std::uint64_t* counters) {
  const detail::Ziggurat& t = detail::ziggurat();
  for (int i = 0; i < n; i += 8) {
    const int left = n - i;
    const __mmask8 live = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    __m512i ctr = _mm512_maskz_loadu_epi64(live, keys + i);
    for (int d = 0; d < draws; ++d) {
      _mm512_mask_storeu_pd(out + static_cast<std::ptrdiff_t>(d) * n + i, live, normal_lanes(ctr, live, t, band));
    }
    _mm512_mask_storeu_epi64(counters + i, live, ctr);
  }
}

VP_AVX512 void key_lanes(std::uint64_t row_key, const std::int32_t* cols, int n, std::uint64_t* out) {
  const __m512i key = _mm512_set1_epi64(static_cast<long long>(row_key));
  const __m512i mult = _mm512_set1_epi64(static_cast<long long>(0xD1B54A32D192ED03ULL));
  for (int i = 0; i < n; i += 8) {
    const int left = n - i;
    const __mmask8 m = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    const __m512i col = _mm512_cvtepi32_epi64(_mm256_maskz_loadu_epi32(m, cols + i));
    _mm512_mask_storeu_epi64(out + i, m, mix64_lanes(_mm512_xor_si512(key, _mm512_mullo_epi64(col, mult))));
  }
}

// The start state of every cell of a row, eight cells at a time; the
// lanes whose first word misses its rectangle (one vector in five) finish
// in the rare path's lanes, which draw what the scalar code draws. (Drawn
// again in scalar code afterwards, with the stream rebuilt and glibc's exp,
// those 2.7 % of ResNet-50's 340 M start states took about as long as all
// the others.)
VP_AVX512 void start_row_lanes(std::uint64_t row_key, double mean, double sigma, double top, float* out, int n) {
  const detail::Ziggurat& t = detail::ziggurat();
  const __m512d vmean = _mm512_set1_pd(mean);
  const __m512d vsigma = _mm512_set1_pd(sigma);
  const __m512d vtop = _mm512_set1_pd(top);
  const __m512d zero = _mm512_setzero_pd();
  const __m512i key = _mm512_set1_epi64(static_cast<long long>(row_key));
  const __m512i mult = _mm512_set1_epi64(static_cast<long long>(0xD1B54A32D192ED03ULL));
  const __m512i golden = _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ULL));
  const __m512i low7 = _mm512_set1_epi64(127);
  const __m512i eight = _mm512_set1_epi64(8);
  __m512i col = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  for (int i = 0; i < n; i += 8) {
    const int left = n - i;
    const __mmask8 live = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    // The counter past the stream's first word (cell_stream_key, then one step).
    __m512i ctr = _mm512_add_epi64(mix64_lanes(_mm512_xor_si512(key, _mm512_mullo_epi64(col, mult))), golden);
    const __m512i w = mix64_lanes(ctr);
    const __m512i layer = _mm512_and_si512(w, low7);
    const __m512i hz = _mm512_srai_epi64(w, 32);
    const __m512i kl = _mm512_i64gather_epi64(layer, t.k, 8);
    const __m512d wl = _mm512_i64gather_pd(layer, t.w, 8);
    __m512d x = _mm512_mul_pd(_mm512_cvtepi64_pd(hz), wl);
    const __mmask8 slow = _mm512_mask_cmpge_epi64_mask(live, _mm512_abs_epi64(hz), kl);
    if (slow != 0) detail::ziggurat_rare_lanes(ctr, x, hz, layer, slow, t, detail::kWedgeBand);
    const __m512d v = _mm512_add_pd(vmean, _mm512_mul_pd(vsigma, x));
    _mm256_mask_storeu_ps(out + i, live, _mm512_cvtpd_ps(clamp_lanes(v, zero, vtop)));
    col = _mm512_add_epi64(col, eight);
  }
}

// Eight cells at a time: a cell's level and target as doubles, exactly as
// the scalar loops convert them.
VP_AVX512 inline __m512d targets_lanes(const std::uint8_t* targets, int left) {
  std::uint64_t b = 0;
  std::memcpy(&b, targets, static_cast<std::size_t>(left >= 8 ? 8 : left));
  return _mm512_cvtepi32_pd(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(b))));
}

VP_AVX512 int outside_lanes(const float* lv, const std::uint8_t* targets, int n, double tolerance, int col_begin,
                            double* level, const RowCells& out) {
  const __m512d tol = _mm512_set1_pd(tolerance);
  const __m512i no_sign = _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFLL);
  const __m256i lane = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
  int m = 0;
  for (int i = 0; i < n; i += 8) {
    const int left = n - i;
    const __mmask8 k = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    const __m512d v = _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, lv + i));
    const __m512d t = targets_lanes(targets + i, left);
    _mm512_mask_storeu_pd(level + i, k, v);
    const __m512d dist = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(_mm512_sub_pd(v, t)), no_sign));
    const __mmask8 far = _mm512_mask_cmp_pd_mask(k, dist, tol, _CMP_GT_OQ);
    if (far == 0) continue;
    const __m256i col = _mm256_add_epi32(lane, _mm256_set1_epi32(col_begin + i));
    // Compress in registers and store the first lanes: the compress-to-
    // memory forms are microcoded on AMD Zen 4, tens of cycles each (this
    // loop was a tenth of a ResNet-50 deployment's host time with them).
    const int got = __builtin_popcount(far);
    const auto first = static_cast<__mmask8>((1u << got) - 1u);
    _mm256_mask_storeu_epi32(out.col + m, first, _mm256_maskz_compress_epi32(far, col));
    _mm512_mask_storeu_pd(out.target + m, first, _mm512_maskz_compress_pd(far, t));
    _mm512_mask_storeu_pd(out.level + m, first, _mm512_maskz_compress_pd(far, v));
    m += got;
  }
  return m;
}

VP_AVX512 RowEnd finish_lanes(const double* level, const std::int32_t* pulses, const std::uint8_t* targets, int n,
                              double tolerance, bool keep_residual, float* lv) {
  const __m512d tol = _mm512_set1_pd(tolerance);
  const __m512i no_sign = _mm512_set1_epi64(0x7FFFFFFFFFFFFFFFLL);
  __m512i sum = _mm512_setzero_si512();
  __m256i top = _mm256_setzero_si256();
  RowEnd end;
  for (int i = 0; i < n; i += 8) {
    const int left = n - i;
    const __mmask8 k = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    const __m512d v = _mm512_maskz_loadu_pd(k, level + i);
    const __m512d t = targets_lanes(targets + i, left);
    const __m256i p = _mm256_maskz_loadu_epi32(k, pulses + i);
    const __m512d dist = _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(_mm512_sub_pd(v, t)), no_sign));
    const __mmask8 in = _mm512_mask_cmp_pd_mask(k, dist, tol, _CMP_LE_OQ);
    end.failed += __builtin_popcount(static_cast<unsigned>(k & ~in));
    const __m512d stored = keep_residual ? v : _mm512_mask_mov_pd(v, in, t);
    _mm256_mask_storeu_ps(lv + i, k, _mm512_cvtpd_ps(stored));
    sum = _mm512_add_epi64(sum, _mm512_cvtepi32_epi64(p));
    top = _mm256_max_epi32(top, p);
  }
  end.pulses = static_cast<std::uint64_t>(_mm512_reduce_add_epi64(sum));
  alignas(32) std::int32_t most[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(most), top);
  for (const std::int32_t x : most) end.iterations = std::max(end.iterations, static_cast<int>(x));
  return end;
}

}  // namespace

bool detail::start_row_levels_avx512(std::uint64_t row_key, double mean, double sigma, double top, float* out,
                                     int n) {
  if (!host_has_avx512()) return false;
  start_row_lanes(row_key, mean, sigma, top, out, n);
  return true;
}

bool detail::cells_outside_avx512(const float* lv, const std::uint8_t* targets, int n, double tolerance, int col_begin,
                                  double* level, const RowCells& out, int& m) {
  if (!host_has_avx512()) return false;
  m = outside_lanes(lv, targets, n, tolerance, col_begin, level, out);
  return true;
}

bool detail::finish_cells_avx512(const double* level, const std::int32_t* pulses, const std::uint8_t* targets, int n,
                                 double tolerance, bool keep_residual, float* lv, RowEnd& end) {
  if (!host_has_avx512()) return false;
  end = finish_lanes(level, pulses, targets, n, tolerance, keep_residual, lv);
  return true;
}

bool detail::cell_stream_keys_avx512(std::uint64_t row_key, const std::int32_t* cols, int n, std::uint64_t* out) {
  if (!host_has_avx512()) return false;
  key_lanes(row_key, cols, n, out);
  return true;
}

bool detail::stream_normals_avx512(const std::uint64_t* keys, int n, int draws, double band, double* out,
                                   std::uint64_t* counters) {
  if (!host_has_avx512()) return false;
  stream_normal_lanes(keys, n, draws, band, out, counters);
  return true;
}

bool pulse_cells_avx512(const CellPulseParams& p, const CellPulseJob& job) {
  if (!host_has_avx512()) return false;
  pulse_lanes(p, job);
  return true;
}

bool start_levels_avx512(const std::uint64_t* keys, double mean, double sigma, double top, float* out, int n) {
  if (!host_has_avx512()) return false;
  start_lanes(keys, mean, sigma, top, out, n);
  return true;
}

#else

bool host_has_avx512() { return false; }
bool detail::start_row_levels_avx512(std::uint64_t, double, double, double, float*, int) { return false; }
bool detail::cells_outside_avx512(const float*, const std::uint8_t*, int, double, int, double*, const RowCells&, int&) {
  return false;
}
bool detail::finish_cells_avx512(const double*, const std::int32_t*, const std::uint8_t*, int, double, bool, float*,
                                 RowEnd&) {
  return false;
}
bool detail::cell_stream_keys_avx512(std::uint64_t, const std::int32_t*, int, std::uint64_t*) { return false; }
bool detail::stream_normals_avx512(const std::uint64_t*, int, int, double, double*, std::uint64_t*) { return false; }
bool pulse_cells_avx512(const CellPulseParams&, const CellPulseJob&) { return false; }
bool start_levels_avx512(const std::uint64_t*, double, double, double, float*, int) { return false; }

#endif

}  // namespace vp::hw
