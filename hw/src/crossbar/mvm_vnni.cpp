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
// registers) per pass over the driven blocks of rows: the blocks are read in
// memory order, one after the next, so the crossbar streams from memory
// instead of being swept at a stride (a chip of thousands of crossbars
// keeps few of them in cache). A block is `Quads` quads of rows
// (Crossbar::target_quads): 1, a byte a cell; or 4, 2-bit cells packed so
// that the word shifted right by 2s and masked is quad s, a quarter of the
// bytes to stream. x4 holds `Quads` input words per live block, one per
// quad. `XUnsigned`: the inputs are the unsigned operand and the levels the
// signed one; otherwise the other way round.
template <bool XUnsigned, int Quads>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void dot_blocks_t(const std::uint8_t* blocks, int cols,
                                                                        const std::vector<int>& live,
                                                                        const std::vector<std::int32_t>& x4, int col0,
                                                                        int n, std::int32_t* acc) {
  const std::size_t block_bytes = static_cast<std::size_t>(cols) * 4;
  const __m512i two_bits = _mm512_set1_epi32(0x03030303);
  for (int c = 0; c < n; c += 16 * kChunks) {
    __mmask16 m[kChunks];
    __m512i a[kChunks];
    start_pass(n - c, m, a);
    const std::uint8_t* base = blocks + static_cast<std::size_t>(col0 + c) * 4;
    for (std::size_t j = 0; j < live.size(); ++j) {
      const std::uint8_t* p = base + static_cast<std::size_t>(live[j]) * block_bytes;
      __m512i xv[Quads];
#pragma GCC unroll 4
      for (int q = 0; q < Quads; ++q) xv[q] = _mm512_set1_epi32(x4[Quads * j + static_cast<std::size_t>(q)]);
#pragma GCC unroll 16
      for (int k = 0; k < kChunks; ++k) {
        const __m512i w = _mm512_maskz_loadu_epi32(m[k], p + 64 * k);
#pragma GCC unroll 4
        for (int q = 0; q < Quads; ++q) {
          __m512i t = w;
          if constexpr (Quads > 1) t = _mm512_and_si512(_mm512_srli_epi32(w, 2 * q), two_bits);
          a[k] = XUnsigned ? _mm512_dpbusd_epi32(a[k], xv[q], t) : _mm512_dpbusd_epi32(a[k], t, xv[q]);
        }
      }
    }
#pragma GCC unroll 16
    for (int k = 0; k < kChunks; ++k) _mm512_mask_storeu_epi32(acc + c + 16 * k, m[k], a[k]);
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
  // The driven blocks of rows and, per quad of a block, its four inputs as
  // one 32-bit word (0 past the last row); a block of no input is skipped.
  const int quads = xb.quad_rows() / 4;
  thread_local std::vector<int> live;
  thread_local std::vector<std::int32_t> x4;
  live.clear();
  x4.clear();
  for (int g = 0; 4 * quads * g < n_inputs; ++g) {
    std::uint32_t any = 0;
    for (int q = 0; q < quads; ++q) {
      std::uint32_t word = 0;
      for (int k = 0; k < 4; ++k) {
        const int r = 4 * (quads * g + q) + k;
        const std::uint32_t b = r < n_inputs ? static_cast<std::uint32_t>(static_cast<std::uint8_t>(x[r])) : 0u;
        word |= b << (8 * k);
      }
      x4.push_back(static_cast<std::int32_t>(word));
      any |= word;
    }
    if (any == 0) {
      x4.resize(x4.size() - static_cast<std::size_t>(quads));
      continue;
    }
    live.push_back(g);
  }
  const std::uint8_t* blocks = xb.target_quads();
  if (quads == 4)
    (x_unsigned ? dot_blocks_t<true, 4> : dot_blocks_t<false, 4>)(blocks, xb.cols(), live, x4, col0, n, acc);
  else
    (x_unsigned ? dot_blocks_t<true, 1> : dot_blocks_t<false, 1>)(blocks, xb.cols(), live, x4, col0, n, acc);
  return true;
}

#else

bool mvm_direct_vnni(const Crossbar&, const std::int64_t*, int, int, int, std::int32_t*) { return false; }

#endif

}  // namespace vp::hw
