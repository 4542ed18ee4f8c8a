// AVX-512 VNNI for the direct MVM path. Built for the baseline ISA with
// the kernel marked by a target attribute and entered after a run-time
// check, as the cell kernels are.
#include "vp/hw/crossbar/mvm_vnni.h"

#include <vector>

#include "vp/hw/crossbar/crossbar.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define VP_HAVE_VNNI_KERNEL 1
#endif

// GCC 12's AVX-512 headers build their "undefined" vectors by
// self-initialisation, which the uninitialised-use warnings report.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace vp::hw {

#if VP_HAVE_VNNI_KERNEL

namespace {

bool host_has_vnni() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vnni");
  return has;
}

// Four 16-column chunks per pass (four independent accumulators hide the
// dot product's latency). `x_unsigned`: the inputs are the unsigned operand
// and the levels the signed one; otherwise the other way round.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void dot_quads(const std::uint8_t* quads, int cols,
                                                                     const std::vector<int>& live,
                                                                     const std::vector<std::int32_t>& x4,
                                                                     bool x_unsigned, int col0, int n,
                                                                     std::int32_t* acc) {
  const std::size_t quad_bytes = static_cast<std::size_t>(cols) * 4;
  for (int c = 0; c < n; c += 64) {
    __mmask16 m[4];
    for (int k = 0; k < 4; ++k) {
      const int left = n - c - 16 * k;
      m[k] = static_cast<__mmask16>(left >= 16 ? 0xFFFFu : left <= 0 ? 0u : (1u << left) - 1u);
    }
    __m512i a0 = _mm512_setzero_si512();
    __m512i a1 = _mm512_setzero_si512();
    __m512i a2 = _mm512_setzero_si512();
    __m512i a3 = _mm512_setzero_si512();
    const std::uint8_t* base = quads + static_cast<std::size_t>(col0 + c) * 4;
    for (std::size_t j = 0; j < live.size(); ++j) {
      const int q = live[j];
      const std::uint8_t* p = base + static_cast<std::size_t>(q) * quad_bytes;
      const __m512i xv = _mm512_set1_epi32(x4[j]);
      const __m512i t0 = _mm512_maskz_loadu_epi32(m[0], p);
      const __m512i t1 = _mm512_maskz_loadu_epi32(m[1], p + 64);
      const __m512i t2 = _mm512_maskz_loadu_epi32(m[2], p + 128);
      const __m512i t3 = _mm512_maskz_loadu_epi32(m[3], p + 192);
      if (x_unsigned) {
        a0 = _mm512_dpbusd_epi32(a0, xv, t0);
        a1 = _mm512_dpbusd_epi32(a1, xv, t1);
        a2 = _mm512_dpbusd_epi32(a2, xv, t2);
        a3 = _mm512_dpbusd_epi32(a3, xv, t3);
      } else {
        a0 = _mm512_dpbusd_epi32(a0, t0, xv);
        a1 = _mm512_dpbusd_epi32(a1, t1, xv);
        a2 = _mm512_dpbusd_epi32(a2, t2, xv);
        a3 = _mm512_dpbusd_epi32(a3, t3, xv);
      }
    }
    _mm512_mask_storeu_epi32(acc + c, m[0], a0);
    _mm512_mask_storeu_epi32(acc + c + 16, m[1], a1);
    _mm512_mask_storeu_epi32(acc + c + 32, m[2], a2);
    _mm512_mask_storeu_epi32(acc + c + 48, m[3], a3);
  }
}

}  // namespace

bool mvm_direct_vnni(const Crossbar& xb, const std::int64_t* x, int n_inputs, int col0, int n, std::int32_t* acc) {
  if (!host_has_vnni() || n_inputs > xb.rows() || col0 < 0 || n < 0 || col0 + n > xb.cols()) return false;
  bool fits_u8 = true;
  bool fits_s8 = true;
  for (int r = 0; r < n_inputs; ++r) {
    fits_u8 = fits_u8 && x[r] >= 0 && x[r] <= 255;
    fits_s8 = fits_s8 && x[r] >= -128 && x[r] <= 127;
  }
  const bool x_unsigned = fits_u8 && xb.max_level() <= 127;
  if (!x_unsigned && !fits_s8) return false;
  // The driven quads of rows and their four inputs as one 32-bit word.
  thread_local std::vector<int> live;
  thread_local std::vector<std::int32_t> x4;
  live.clear();
  x4.clear();
  for (int q = 0; 4 * q < n_inputs; ++q) {
    std::uint32_t word = 0;
    for (int k = 0; k < 4; ++k) {
      const int r = 4 * q + k;
      const std::uint32_t b = r < n_inputs ? static_cast<std::uint32_t>(static_cast<std::uint8_t>(x[r])) : 0u;
      word |= b << (8 * k);
    }
    if (word == 0) continue;
    live.push_back(q);
    x4.push_back(static_cast<std::int32_t>(word));
  }
  dot_quads(xb.target_quads(), xb.cols(), live, x4, x_unsigned, col0, n, acc);
  return true;
}

#else

bool mvm_direct_vnni(const Crossbar&, const std::int64_t*, int, int, int, std::int32_t*) { return false; }

#endif

}  // namespace vp::hw
