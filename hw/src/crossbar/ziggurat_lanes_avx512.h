// Internal to vp_hw_crossbar: what the AVX-512 cell kernels share with the
// ziggurat's rare path in lanes (ziggurat_lanes_avx512.cpp). Compiled for
// the baseline ISA; the functions carry a target attribute and are entered
// only after host_has_avx512().
#pragma once

#include <cstdint>

#include "vp/hw/crossbar/rng.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define VP_HAVE_AVX512_KERNELS 1
#define VP_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl")))
#endif

// GCC 12's AVX-512 headers build their "undefined" vectors by
// self-initialisation, which -Wmaybe-uninitialized reports once inlined
// (in both files that include this one).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#if VP_HAVE_AVX512_KERNELS

namespace vp::hw::detail {

// mix64 in each lane.
VP_AVX512 inline __m512i mix64_lanes(__m512i z) {
  z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 30));
  z = _mm512_mullo_epi64(z, _mm512_set1_epi64(static_cast<long long>(0xBF58476D1CE4E5B9ULL)));
  z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 27));
  z = _mm512_mullo_epi64(z, _mm512_set1_epi64(static_cast<long long>(0x94D049BB133111EBULL)));
  return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

// Relative half-width of the band around the lanes' exp inside which the
// wedge test asks glibc's exp instead: far wider than the two exps can
// differ (see the .cpp), and so narrow that about one wedge test in 10^10
// falls inside it.
constexpr double kWedgeBand = 0x1.0p-40;

// The rare path of the ziggurat on the lanes in `rare`, whose first word
// (layer, hz: the high half as a signed value) missed its rectangle, whose
// x holds hz * w[layer] and whose counters `ctr` are past that word: each
// such lane's x becomes splitmix_normal_slow(ctr, hz, layer) and its ctr
// the counter that leaves, bit for bit. Other lanes keep their x and ctr.
// `band` is kWedgeBand; the tests widen it to send many wedge tests to
// glibc's exp.
VP_AVX512 void ziggurat_rare_lanes(__m512i& ctr, __m512d& x, const __m512i& hz, const __m512i& layer, __mmask8 rare,
                                   const Ziggurat& t, double band);

}  // namespace vp::hw::detail

#endif
