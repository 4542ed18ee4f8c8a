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

constexpr int kChunks = 16;  // 16-column chunks per pass: sixteen accumulators in registers

// A pass's chunk masks (`left` columns from its first on) and zeroed
// accumulators.
__attribute__((target("avx512f,avx512bw,avx512vnni"))) inline void start_pass(int left, __mmask16* m, __m512i* a) {
#pragma GCC unroll 16
  for (int k = 0; k < kChunks; ++k) {
    const int l = left - 16 * k;
    m[k] = static_cast<__mmask16>(l >= 16 ? 0xFFFFu : l <= 0 ? 0u : (1u << l) - 1u);
    a[k] = _mm512_setzero_si512();
  }
}

// Up to 256 columns (sixteen 16-column chunks, sixteen accumulators in
// registers) per pass over the driven quads: the quads are read in memory
// order, one after the next, so the crossbar's 64 KiB stream from memory
// instead of being swept four times at a stride (a chip of thousands of
// crossbars keeps few of them in cache). `x_unsigned`: the inputs are the
// unsigned operand and the levels the signed one; otherwise the other way
// round.
template <bool XUnsigned>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void dot_quads_t(const std::uint8_t* quads, int cols,
                                                                       const std::vector<int>& live,
                                                                       const std::vector<std::int32_t>& x4, int col0,
                                                                       int n, std::int32_t* acc) {
  const std::size_t quad_bytes = static_cast<std::size_t>(cols) * 4;
  for (int c = 0; c < n; c += 16 * kChunks) {
    __mmask16 m[kChunks];
    __m512i a[kChunks];
    start_pass(n - c, m, a);
    const std::uint8_t* base = quads + static_cast<std::size_t>(col0 + c) * 4;
    for (std::size_t j = 0; j < live.size(); ++j) {
      const std::uint8_t* p = base + static_cast<std::size_t>(live[j]) * quad_bytes;
      const __m512i xv = _mm512_set1_epi32(x4[j]);
#pragma GCC unroll 16
      for (int k = 0; k < kChunks; ++k) {
        const __m512i t = _mm512_maskz_loadu_epi32(m[k], p + 64 * k);
        a[k] = XUnsigned ? _mm512_dpbusd_epi32(a[k], xv, t) : _mm512_dpbusd_epi32(a[k], t, xv);
      }
    }
#pragma GCC unroll 16
    for (int k = 0; k < kChunks; ++k) _mm512_mask_storeu_epi32(acc + c + 16 * k, m[k], a[k]);
  }
}

// The same over blocks of 16 rows of 2-bit cells (Crossbar::target_quads):
// one load of a column chunk's packed words gives its four quads by a
// shift and a mask each. x16 holds four input words per live block, one
// per quad. The crossbar is a quarter of the bytes, so an MVM that streams
// it from memory waits a quarter as long.
template <bool XUnsigned>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void dot_packed_t(const std::uint8_t* packed, int cols,
                                                                        const std::vector<int>& live,
                                                                        const std::vector<std::int32_t>& x16, int col0,
                                                                        int n, std::int32_t* acc) {
  const std::size_t block_bytes = static_cast<std::size_t>(cols) * 4;
  const __m512i two_bits = _mm512_set1_epi32(0x03030303);
  for (int c = 0; c < n; c += 16 * kChunks) {
    __mmask16 m[kChunks];
    __m512i a[kChunks];
    start_pass(n - c, m, a);
    const std::uint8_t* base = packed + static_cast<std::size_t>(col0 + c) * 4;
    for (std::size_t j = 0; j < live.size(); ++j) {
      const std::uint8_t* p = base + static_cast<std::size_t>(live[j]) * block_bytes;
      const __m512i x0 = _mm512_set1_epi32(x16[4 * j + 0]), x1 = _mm512_set1_epi32(x16[4 * j + 1]);
      const __m512i x2 = _mm512_set1_epi32(x16[4 * j + 2]), x3 = _mm512_set1_epi32(x16[4 * j + 3]);
#pragma GCC unroll 16
      for (int k = 0; k < kChunks; ++k) {
        const __m512i w = _mm512_maskz_loadu_epi32(m[k], p + 64 * k);
        const __m512i q0 = _mm512_and_si512(w, two_bits);
        const __m512i q1 = _mm512_and_si512(_mm512_srli_epi32(w, 2), two_bits);
        const __m512i q2 = _mm512_and_si512(_mm512_srli_epi32(w, 4), two_bits);
        const __m512i q3 = _mm512_and_si512(_mm512_srli_epi32(w, 6), two_bits);
        if (XUnsigned) {
          a[k] = _mm512_dpbusd_epi32(a[k], x0, q0);
          a[k] = _mm512_dpbusd_epi32(a[k], x1, q1);
          a[k] = _mm512_dpbusd_epi32(a[k], x2, q2);
          a[k] = _mm512_dpbusd_epi32(a[k], x3, q3);
        } else {
          a[k] = _mm512_dpbusd_epi32(a[k], q0, x0);
          a[k] = _mm512_dpbusd_epi32(a[k], q1, x1);
          a[k] = _mm512_dpbusd_epi32(a[k], q2, x2);
          a[k] = _mm512_dpbusd_epi32(a[k], q3, x3);
        }
      }
    }
#pragma GCC unroll 16
    for (int k = 0; k < kChunks; ++k) _mm512_mask_storeu_epi32(acc + c + 16 * k, m[k], a[k]);
  }
}

void dot_quads(const std::uint8_t* quads, int cols, const std::vector<int>& live, const std::vector<std::int32_t>& x4,
               bool x_unsigned, int col0, int n, std::int32_t* acc) {
  if (x_unsigned) {
    dot_quads_t<true>(quads, cols, live, x4, col0, n, acc);
  } else {
    dot_quads_t<false>(quads, cols, live, x4, col0, n, acc);
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
  // A word of four inputs, rows r0..r0+3 (0 past the last).
  const auto word_at = [&](int r0) {
    std::uint32_t word = 0;
    for (int k = 0; k < 4; ++k) {
      const int r = r0 + k;
      const std::uint32_t b = r < n_inputs ? static_cast<std::uint32_t>(static_cast<std::uint8_t>(x[r])) : 0u;
      word |= b << (8 * k);
    }
    return word;
  };
  if (xb.quad_rows() == 16) {
    // Blocks of 16 rows: the four quads' input words, the block skipped when
    // all are 0.
    for (int g = 0; 16 * g < n_inputs; ++g) {
      std::uint32_t w[4];
      for (int k = 0; k < 4; ++k) w[k] = word_at(16 * g + 4 * k);
      if ((w[0] | w[1] | w[2] | w[3]) == 0) continue;
      live.push_back(g);
      for (int k = 0; k < 4; ++k) x4.push_back(static_cast<std::int32_t>(w[k]));
    }
    if (x_unsigned)
      dot_packed_t<true>(xb.target_quads(), xb.cols(), live, x4, col0, n, acc);
    else
      dot_packed_t<false>(xb.target_quads(), xb.cols(), live, x4, col0, n, acc);
    return true;
  }
  for (int q = 0; 4 * q < n_inputs; ++q) {
    const std::uint32_t word = word_at(4 * q);
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
