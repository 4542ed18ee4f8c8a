// The ziggurat's rare path (rng.cpp's ziggurat_slow) in AVX-512 lanes, for
// the cell kernels. A lane whose first word misses its layer's rectangle
// (2.7 % of the draws, a 128th of them in the top layer, whose rectangle is
// empty; so one vector of eight in five) used to leave the vector for a
// scalar call per lane with glibc's exp: a tenth of a ResNet-50
// deployment's host time. Here the lanes take the same words from their
// streams and do the same double operations in the same order. The wedge
// test compares against an exp in lanes whose error is bounded and asks
// glibc's exp (the one the scalar code calls) only when the comparison
// falls within that bound, so every decision is the scalar code's. A lane
// that reaches the base strip (the log-based tail, one rare draw in fifty)
// finishes in the scalar code from the state the scalar loop is in there.
#include "ziggurat_lanes_avx512.h"

#include <cmath>

#include "vp/hw/crossbar/cell_kernels.h"

namespace vp::hw {

#if VP_HAVE_AVX512_KERNELS

namespace {

// exp(a) for a in [-6, 0] (the wedge test's -x*x/2, |x| < 3.443), in lanes:
// a = k ln 2 + r with k an integer and |r| <= 0.347, e^r by its Taylor
// polynomial of degree 13, times 2^k. The polynomial is evaluated by
// Estrin's scheme (pairs, then powers r^2, r^4, r^8) rather than Horner's
// rule: four multiply-add levels instead of thirteen, and the exp's latency
// is what a lane waiting for its wedge test waits for.
//
// Its error, u = 2^-53 being the unit round-off:
//  - k ln2_hi is exact (ln2_hi has 32 significant bits, |k| <= 9 has 4) and
//    so is a - k ln2_hi (Sterbenz: for k != 0 the two are within a factor
//    two of each other); subtracting k ln2_lo rounds once, by at most
//    u |r| < 0.35u, and ln2_hi + ln2_lo is ln 2 within 2^-85: e^r is off
//    by at most 0.36u relative;
//  - the Taylor remainder is at most e^0.347 0.347^14 / 14! < 2^-57 of e^r;
//  - the coefficients rounded to double: at most u sum |r|^j / j! / e^r,
//    which is u e^(2|r|) < 2.01u;
//  - the evaluation without fused multiply-adds: each term c_j r^j meets at
//    most 16 roundings on its way to the sum (c_13 r^13 the most: r^8 alone
//    carries 7), so it errs by at most gamma_16 sum |c_j| |r|^j / e^r
//    <= 16u / (1 - 16u) e^(2|r|) < 32.1u;
//  - scaling by 2^k is exact (no underflow: k >= -9).
// In all under 35u < 2^-47 of exp(a). glibc's exp is within one ulp (it
// documents under 0.52), at most 2u relative, so the two differ by less
// than 2^-46 of glibc's value, and kWedgeBand = 2^-40 holds that 64 times
// over (also after the roundings of e (1 -+ band)). The kernel test checks
// both bounds over [-6, 0].
constexpr double kLog2e = 0x1.71547652b82fep0;
constexpr double kLn2Hi = 0x1.62e42feep-1;        // ln 2's leading 32 bits
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;  // ln 2 - kLn2Hi, rounded
// 1/j!, each one rounding of an exact quotient.
constexpr double kInvFactorial[14] = {1.0,         1.0,          1.0 / 2,         1.0 / 6,
                                      1.0 / 24,    1.0 / 120,    1.0 / 720,       1.0 / 5040,
                                      1.0 / 40320, 1.0 / 362880, 1.0 / 3628800,   1.0 / 39916800,
                                      1.0 / 479001600, 1.0 / 6227020800.0};

// c_j + c_(j+1) r.
VP_AVX512 inline __m512d pair_lanes(int j, __m512d r) {
  return _mm512_add_pd(_mm512_set1_pd(kInvFactorial[j]), _mm512_mul_pd(_mm512_set1_pd(kInvFactorial[j + 1]), r));
}

VP_AVX512 inline __m512d exp_lanes(__m512d a) {
  const __m512d k =
      _mm512_roundscale_pd(_mm512_mul_pd(a, _mm512_set1_pd(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512d r = _mm512_sub_pd(_mm512_sub_pd(a, _mm512_mul_pd(k, _mm512_set1_pd(kLn2Hi))),
                                  _mm512_mul_pd(k, _mm512_set1_pd(kLn2Lo)));
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d r4 = _mm512_mul_pd(r2, r2);
  const __m512d r8 = _mm512_mul_pd(r4, r4);
  const __m512d s0 = _mm512_add_pd(pair_lanes(0, r), _mm512_mul_pd(pair_lanes(2, r), r2));
  const __m512d s1 = _mm512_add_pd(pair_lanes(4, r), _mm512_mul_pd(pair_lanes(6, r), r2));
  const __m512d s2 = _mm512_add_pd(pair_lanes(8, r), _mm512_mul_pd(pair_lanes(10, r), r2));
  const __m512d t0 = _mm512_add_pd(s0, _mm512_mul_pd(s1, r4));
  const __m512d t1 = _mm512_add_pd(s2, _mm512_mul_pd(pair_lanes(12, r), r4));
  return _mm512_scalef_pd(_mm512_add_pd(t0, _mm512_mul_pd(t1, r8)), k);
}

// The wedge test y < exp(a) of the lanes in `near` with glibc's exp, as the
// scalar code makes it: the lanes' exp cannot tell on which side y is.
VP_AVX512 __mmask8 glibc_accepts(const __m512d& y, const __m512d& a, __mmask8 near) {
  alignas(64) double ys[8];
  alignas(64) double as[8];
  _mm512_store_pd(ys, y);
  _mm512_store_pd(as, a);
  unsigned accept = 0;
  for (unsigned j = 0; j < 8; ++j) {
    if (((near >> j) & 1u) != 0 && ys[j] < std::exp(as[j])) accept |= 1u << j;
  }
  return static_cast<__mmask8>(accept);
}

// The lanes of `tail`, in the base strip: the scalar code from the top of
// its loop, where it is with this counter, hz and layer 0.
VP_AVX512 void tail_lanes(__m512i& ctr, __m512d& x, const __m512i& hz, __mmask8 tail) {
  alignas(64) std::uint64_t c[8];
  alignas(64) std::int64_t h[8];
  alignas(64) double xs[8];
  _mm512_store_si512(c, ctr);
  _mm512_store_si512(h, hz);
  _mm512_store_pd(xs, x);
  for (unsigned j = 0; j < 8; ++j) {
    if ((tail >> j) & 1u) xs[j] = detail::splitmix_normal_slow(c[j], static_cast<std::int32_t>(h[j]), 0);
  }
  ctr = _mm512_load_si512(c);
  x = _mm512_load_pd(xs);
}

}  // namespace

// Each pass is one turn of ziggurat_slow's loop in every lane still
// drawing: the wedge test on the next word and, as if it failed, the word
// after it against its rectangle, side by side, so that one pass nearly
// always ends every lane. The test's outcome is a coin toss (45 % fail),
// which a branch would mispredict half the time: masks pick each lane's
// counter and normal instead, and the loop goes round again only for a
// lane whose word after also misses its rectangle, or reaches the tail.
VP_AVX512 void detail::ziggurat_rare_lanes(__m512i& ctr, __m512d& x, const __m512i& hz_first,
                                           const __m512i& layer_first, __mmask8 rare, const Ziggurat& t,
                                           double band) {
  const __m512i golden = _mm512_set1_epi64(static_cast<long long>(0x9E3779B97F4A7C15ULL));
  const __m512i zero = _mm512_setzero_si512();
  const __m512d zero_pd = _mm512_setzero_pd();
  const __m512d below = _mm512_set1_pd(1.0 - band);
  const __m512d above = _mm512_set1_pd(1.0 + band);
  __m512i hz = hz_first;
  __m512i layer = layer_first;
  __mmask8 todo = rare;
  for (;;) {
    const __mmask8 tail = _mm512_mask_cmpeq_epi64_mask(todo, layer, zero);
    if (tail != 0) {
      tail_lanes(ctr, x, hz, tail);
      todo = static_cast<__mmask8>(todo & ~tail);
      if (todo == 0) return;
    }
    // The wedge: x (hz * w[layer] in these lanes) is taken when a uniform
    // height between the layer's bottom f[layer] and top f[layer - 1]
    // falls under the density.
    const __m512i ctr_u = _mm512_add_epi64(ctr, golden);
    const __m512i ctr_w = _mm512_add_epi64(ctr_u, golden);
    const __m512d u =
        _mm512_mul_pd(_mm512_cvtepu64_pd(_mm512_srli_epi64(mix64_lanes(ctr_u), 11)), _mm512_set1_pd(0x1.0p-53));
    const __m512d f = _mm512_mask_i64gather_pd(zero_pd, todo, layer, t.f, 8);
    const __m512d f_up =
        _mm512_mask_i64gather_pd(zero_pd, todo, _mm512_sub_epi64(layer, _mm512_set1_epi64(1)), t.f, 8);
    const __m512d y = _mm512_add_pd(f, _mm512_mul_pd(u, _mm512_sub_pd(f_up, f)));
    // -0.5 * x * x, as (-0.5 * x) * x like the scalar expression.
    const __m512d a = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(-0.5), x), x);
    const __m512d e = exp_lanes(a);
    // The word after, as if the test failed: its layer, hz and rectangle.
    const __m512i w = mix64_lanes(ctr_w);
    const __m512i layer_w = _mm512_and_si512(w, _mm512_set1_epi64(127));
    const __m512i hz_w = _mm512_srai_epi64(w, 32);
    const __m512i k_w = _mm512_mask_i64gather_epi64(zero, todo, layer_w, t.k, 8);
    const __mmask8 inside = _mm512_mask_cmplt_epi64_mask(todo, _mm512_abs_epi64(hz_w), k_w);
    const __m512d w_w = _mm512_mask_i64gather_pd(zero_pd, todo, layer_w, t.w, 8);
    const __m512d x_w = _mm512_mul_pd(_mm512_cvtepi64_pd(hz_w), w_w);
    auto accept = _mm512_mask_cmp_pd_mask(todo, y, _mm512_mul_pd(e, below), _CMP_LT_OQ);
    const __mmask8 reject = _mm512_mask_cmp_pd_mask(todo, y, _mm512_mul_pd(e, above), _CMP_GE_OQ);
    const auto near = static_cast<__mmask8>(todo & ~accept & ~reject);
    if (near != 0) accept = static_cast<__mmask8>(accept | glibc_accepts(y, a, near));
    // Lanes apart: the accepted ones end on the uniform's word, the others
    // take the word after, and end there if it is inside its rectangle.
    const auto failed = static_cast<__mmask8>(todo & ~accept);
    ctr = _mm512_mask_mov_epi64(_mm512_mask_mov_epi64(ctr, accept, ctr_u), failed, ctr_w);
    layer = _mm512_mask_mov_epi64(layer, failed, layer_w);
    hz = _mm512_mask_mov_epi64(hz, failed, hz_w);
    x = _mm512_mask_mov_pd(x, failed, x_w);
    todo = static_cast<__mmask8>(failed & ~inside);
    if (todo == 0) return;
  }
}


VP_AVX512 static void wedge_exp_lanes(const double* a, double* out, int n) {
  for (int i = 0; i < n; i += 8) {
    const int left = n - i;
    const __mmask8 m = static_cast<__mmask8>(left >= 8 ? 0xFFu : (1u << left) - 1u);
    _mm512_mask_storeu_pd(out + i, m, exp_lanes(_mm512_maskz_loadu_pd(m, a + i)));
  }
}

bool detail::wedge_exp_avx512(const double* a, double* out, int n) {
  if (!host_has_avx512()) return false;
  wedge_exp_lanes(a, out, n);
  return true;
}

#else

bool detail::wedge_exp_avx512(const double*, double*, int) { return false; }

#endif

}  // namespace vp::hw
