// INT8 convolution of the golden model: exact int32 sums, so any order
// gives the same accumulators (conv_kernels.h). conv_int8 lays each group's
// input windows out as an im2col matrix and sums packed dot products that
// the compiler turns into multiply-add instructions on 16-bit lanes.
#include <algorithm>
#include <thread>

#include "vp/cc/conv_kernels.h"

namespace vp::cc {
namespace {

using I = std::int64_t;

// Dot products are taken over K rounded up to this, the padding 0 on both
// sides, so the inner loop has no remainder.
constexpr I kAlign = 64;
// Pixels whose windows are summed against one weight row while it is in L1.
constexpr I kPixelBlock = 16;
// Products a thread must have to be worth starting (about a millisecond).
constexpr I kMinThreadMacs = I{1} << 24;

// acc[oc][p] for the group's ng rows of `w` (each kp codes) against the
// npix rows of `col` (each kp codes), 2 output channels x 2 pixels at a
// time so each row loaded feeds two dot products.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void dot_rows(const std::int16_t* w, I ng,
                                                                           const std::int16_t* col, I npix, I kp,
                                                                           std::int32_t* acc, I acc_stride) {
  for (I p0 = 0; p0 < npix; p0 += kPixelBlock) {
    const I p1 = std::min(npix, p0 + kPixelBlock);
    I oc = 0;
    for (; oc + 2 <= ng; oc += 2) {
      const std::int16_t* wa = w + oc * kp;
      const std::int16_t* wb = wa + kp;
      I p = p0;
      for (; p + 2 <= p1; p += 2) {
        const std::int16_t* xa = col + p * kp;
        const std::int16_t* xb = xa + kp;
        std::int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
        for (I k = 0; k < kp; ++k) {
          s00 += std::int32_t{wa[k]} * xa[k];
          s01 += std::int32_t{wa[k]} * xb[k];
          s10 += std::int32_t{wb[k]} * xa[k];
          s11 += std::int32_t{wb[k]} * xb[k];
        }
        acc[oc * acc_stride + p] = s00;
        acc[oc * acc_stride + p + 1] = s01;
        acc[(oc + 1) * acc_stride + p] = s10;
        acc[(oc + 1) * acc_stride + p + 1] = s11;
      }
      for (; p < p1; ++p) {
        const std::int16_t* xa = col + p * kp;
        std::int32_t s0 = 0, s1 = 0;
        for (I k = 0; k < kp; ++k) {
          s0 += std::int32_t{wa[k]} * xa[k];
          s1 += std::int32_t{wb[k]} * xa[k];
        }
        acc[oc * acc_stride + p] = s0;
        acc[(oc + 1) * acc_stride + p] = s1;
      }
    }
    for (; oc < ng; ++oc) {
      const std::int16_t* wa = w + oc * kp;
      for (I p = p0; p < p1; ++p) {
        const std::int16_t* xa = col + p * kp;
        std::int32_t s = 0;
        for (I k = 0; k < kp; ++k) s += std::int32_t{wa[k]} * xa[k];
        acc[oc * acc_stride + p] = s;
      }
    }
  }
}

}  // namespace

std::vector<std::int32_t> conv_int8(const ConvInt8Args& a) {
  const ConvGeom& c = *a.geom;
  const I OH = a.y.h, OW = a.y.w, H = a.x.h, W = a.x.w, npix = OH * OW;
  const I cg = a.x.c / c.group, ng = a.y.c / c.group;
  const I K = cg * c.kh * c.kw, kp = (K + kAlign - 1) / kAlign * kAlign;
  std::vector<std::int32_t> acc(static_cast<std::size_t>(a.y.c * npix));
  // col[p][k], k = (ic, r, s) as the weights are laid out; the border is 0.
  // Codes widened to 16 bits: the products then map onto multiply-add
  // instructions of 16-bit pairs into 32-bit sums.
  std::vector<std::int16_t> col(static_cast<std::size_t>(npix * kp));
  std::vector<std::int16_t> w(static_cast<std::size_t>(ng * kp));
  for (I grp = 0; grp < c.group; ++grp) {
    std::fill(col.begin(), col.end(), std::int16_t{0});
    for (I ic = 0; ic < cg; ++ic) {
      const std::int8_t* xc = a.in + (grp * cg + ic) * H * W;
      for (I r = 0; r < c.kh; ++r)
        for (I s = 0; s < c.kw; ++s) {
          const I k = (ic * c.kh + r) * c.kw + s;
          for (I oh = 0; oh < OH; ++oh) {
            const I ih = oh * c.sh - c.pt + r * c.dh;
            if (ih < 0 || ih >= H) continue;
            std::int16_t* cr = col.data() + oh * OW * kp + k;
            for (I ow = 0; ow < OW; ++ow) {
              const I iw = ow * c.sw - c.pl + s * c.dw;
              if (iw >= 0 && iw < W) cr[ow * kp] = xc[ih * W + iw];
            }
          }
        }
    }
    std::fill(w.begin(), w.end(), std::int16_t{0});
    for (I oc = 0; oc < ng; ++oc) std::copy_n(a.w + (grp * ng + oc) * K, K, w.begin() + oc * kp);
    // Output channels in pairs over the threads; small layers on one.
    std::int32_t* ag = acc.data() + grp * ng * npix;
    const I parts = std::min<I>({I{a.threads}, (ng + 1) / 2, ng * npix * kp / kMinThreadMacs + 1});
    std::vector<std::thread> pool;
    for (I t = 1; t < parts; ++t) {
      const I lo = (ng / 2 * t / parts) * 2, hi = t + 1 == parts ? ng : (ng / 2 * (t + 1) / parts) * 2;
      pool.emplace_back([&, lo, hi] { dot_rows(w.data() + lo * kp, hi - lo, col.data(), npix, kp, ag + lo * npix, npix); });
    }
    const I hi0 = parts > 1 ? (ng / 2 / parts) * 2 : ng;
    dot_rows(w.data(), hi0, col.data(), npix, kp, ag, npix);
    for (std::thread& t : pool) t.join();
  }
  return acc;
}

std::vector<std::int32_t> conv_int8_reference(const ConvInt8Args& a) {
  const ConvGeom& c = *a.geom;
  const I OH = a.y.h, OW = a.y.w, H = a.x.h, W = a.x.w;
  const I cg = a.x.c / c.group, ng = a.y.c / c.group;
  std::vector<std::int32_t> acc(static_cast<std::size_t>(a.y.c * OH * OW), 0);
  for (I oc = 0; oc < a.y.c; ++oc) {
    const I grp = oc / ng;
    for (I ic = 0; ic < cg; ++ic)
      for (I r = 0; r < c.kh; ++r)
        for (I s = 0; s < c.kw; ++s) {
          const std::int32_t wv = a.w[((oc * cg + ic) * c.kh + r) * c.kw + s];
          for (I oh = 0; oh < OH; ++oh)
            for (I ow = 0; ow < OW; ++ow) {
              const I ih = oh * c.sh - c.pt + r * c.dh, iw = ow * c.sw - c.pl + s * c.dw;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              acc[static_cast<std::size_t>((oc * OH + oh) * OW + ow)] += wv * a.in[(grp * cg + ic) * H * W + ih * W + iw];
            }
        }
  }
  return acc;
}

}  // namespace vp::cc
