// FP32 convolution of the reference interpreter, in the summation order
// conv_kernels.h fixes. Compiled with -ffp-contract=off (CMakeLists.txt):
// a fused multiply-add would round once where the order says twice.
#include <algorithm>
#include <cstring>

#include "vp/cc/conv_kernels.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

using I = std::int64_t;

inline float act(const ConvFp32Args& a, float v) {
  if (a.act == Act::relu) return std::max(v, 0.f);
  if (a.act == Act::clip) return std::min(std::max(v, a.clip_lo), a.clip_hi);
  return v;
}

// 16 output channels of one pixel: one AVX-512 register, two AVX2, four SSE.
constexpr int kLanes = 16;
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

struct Layout {
  I H, W, OH, OW, cg, ng, kh, kw, sh, sw, dh, dw, pt, pl;
};

// One kernel tap's blocks for NP pixels and one tile of kLanes output
// channels, in the fixed order: acc[j] += ((w0*x0 + w1*x1) + w2*x2) + w3*x3
// per block. `ws` is the tap's weights [cp][kLanes] (cp: the channels
// rounded up to a block), x[j] pixel j's input in the group's first channel
// (NCHW). A tap outside the image for pixel j adds nothing to acc[j]: the
// pixels it reaches are the bits of `valid`.
template <int NP, bool kAll>
__attribute__((always_inline)) inline void tap_blocks(const Layout& L, const float* const* x, const float* ws,
                                                      unsigned valid, Lanes* acc) {
  const I HW = L.H * L.W, full = L.cg / 4 * 4;
  // The partial block's absent channels weigh 0 and repeat the last one.
  const I tail = L.cg - full;
  const I t1 = std::min<I>(1, tail - 1) * HW, t2 = std::min<I>(2, tail - 1) * HW;
  for (I ic = 0; ic < L.cg; ic += 4) {
    Lanes w0, w1, w2, w3;
    std::memcpy(&w0, ws + (ic + 0) * kLanes, sizeof(Lanes));
    std::memcpy(&w1, ws + (ic + 1) * kLanes, sizeof(Lanes));
    std::memcpy(&w2, ws + (ic + 2) * kLanes, sizeof(Lanes));
    std::memcpy(&w3, ws + (ic + 3) * kLanes, sizeof(Lanes));
    const I o0 = ic * HW, o1 = o0 + (ic < full ? HW : t1), o2 = o0 + (ic < full ? 2 * HW : t2),
            o3 = o0 + (ic < full ? 3 * HW : t2);
    for (int j = 0; j < NP; ++j) {
      if (!kAll && !(valid >> j & 1u)) continue;
      acc[j] += w0 * x[j][o0] + w1 * x[j][o1] + w2 * x[j][o2] + w3 * x[j][o3];
    }
  }
}

// NP consecutive output pixels (row-major, rows may change inside) from
// pixel p0, one tile: the bias, every tap in order, the activation.
template <int NP>
__attribute__((always_inline)) inline void run_pixels(const ConvFp32Args& a, const Layout& L, const float* xg,
                                                      const float* wt, const float* bias, int lanes, I p0,
                                                      float* yt) {
  Lanes acc[NP];
  Lanes b{};
  for (int k = 0; k < lanes; ++k) b[k] = bias[k];
  I ih0[NP], iw0[NP];
  for (int j = 0; j < NP; ++j) {
    acc[j] = b;
    ih0[j] = (p0 + j) / L.OW * L.sh - L.pt;
    iw0[j] = (p0 + j) % L.OW * L.sw - L.pl;
  }
  const I cp = (L.cg + 3) / 4 * 4;
  for (I r = 0; r < L.kh; ++r)
    for (I s = 0; s < L.kw; ++s) {
      const float* x[NP];
      unsigned valid = 0;
      for (int j = 0; j < NP; ++j) {
        const I ih = ih0[j] + r * L.dh, iw = iw0[j] + s * L.dw;
        const bool in = ih >= 0 && ih < L.H && iw >= 0 && iw < L.W;
        valid |= unsigned{in} << j;
        x[j] = xg + (in ? ih * L.W + iw : 0);
      }
      if (valid == 0) continue;
      const float* ws = wt + (r * L.kw + s) * cp * kLanes;
      if (valid == (1u << NP) - 1) tap_blocks<NP, true>(L, x, ws, valid, acc);
      else tap_blocks<NP, false>(L, x, ws, valid, acc);
    }
  const I OHW = L.OH * L.OW;
  for (int j = 0; j < NP; ++j)
    for (int k = 0; k < lanes; ++k) yt[k * OHW + p0 + j] = act(a, acc[j][k]);
}

// The pixels from p on, NP at a time, then the rest by halves.
template <int NP>
__attribute__((always_inline)) inline void run_span(const ConvFp32Args& a, const Layout& L, const float* xg,
                                                    const float* wt, const float* bias, int lanes, I p, I end,
                                                    float* yt) {
  for (; p + NP <= end; p += NP) run_pixels<NP>(a, L, xg, wt, bias, lanes, p, yt);
  if constexpr (NP > 1) run_span<NP / 2>(a, L, xg, wt, bias, lanes, p, end, yt);
}

// One group: every tile of output channels over every pixel. NP pixels at a
// time, as many as the instruction set's registers hold accumulators for.
template <int NP>
__attribute__((always_inline)) inline void conv_group(const ConvFp32Args& a, const Layout& L, I grp,
                                                      const float* packed, float* out) {
  const I cp = (L.cg + 3) / 4 * 4, OHW = L.OH * L.OW, tile = L.kh * L.kw * cp * kLanes;
  const float* xg = a.in + grp * L.cg * L.H * L.W;
  const float* wt = packed + grp * ((L.ng + kLanes - 1) / kLanes) * tile;
  for (I oc0 = grp * L.ng; oc0 < (grp + 1) * L.ng; oc0 += kLanes, wt += tile) {
    const int lanes = static_cast<int>(std::min<I>(kLanes, (grp + 1) * L.ng - oc0));
    run_span<NP>(a, L, xg, wt, a.bias + oc0, lanes, 0, OHW, out + oc0 * OHW);
  }
}

// 32 vector registers of 16 lanes: 16 accumulators, 4 weights, temporaries.
__attribute__((target("avx512f"))) void conv_group_avx512(const ConvFp32Args& a, const Layout& L, I grp,
                                                          const float* packed, float* out) {
  conv_group<16>(a, L, grp, packed, out);
}
// 16 registers of 8 lanes: a 16-lane accumulator takes two.
__attribute__((target("avx2"))) void conv_group_avx2(const ConvFp32Args& a, const Layout& L, I grp,
                                                     const float* packed, float* out) {
  conv_group<4>(a, L, grp, packed, out);
}
void conv_group_sse(const ConvFp32Args& a, const Layout& L, I grp, const float* packed, float* out) {
  conv_group<2>(a, L, grp, packed, out);
}

Layout layout(const ConvGeom& c, const Shape& x, const Shape& y) {
  Layout L{};
  L.H = x.h, L.W = x.w, L.OH = y.h, L.OW = y.w;
  L.cg = x.c / c.group, L.ng = y.c / c.group;
  L.kh = c.kh, L.kw = c.kw, L.sh = c.sh, L.sw = c.sw, L.dh = c.dh, L.dw = c.dw, L.pt = c.pt, L.pl = c.pl;
  return L;
}

// A tile of 16 output channels pays for 16 whatever the group holds:
// depthwise and narrow groups keep the plain loops.
bool tiled(const Layout& L) { return L.ng >= kLanes / 2; }

}  // namespace

std::vector<float> pack_conv_fp32(const ConvGeom& c, const Shape& x, const Shape& y, const float* w) {
  const Layout L = layout(c, x, y);
  if (!tiled(L)) return {};
  // Per group, per tile of kLanes output channels: [r][s][cp][kLanes], the
  // absent channels (past the group's last, past the block's last) 0.
  const I cp = (L.cg + 3) / 4 * 4, tiles = (L.ng + kLanes - 1) / kLanes;
  std::vector<float> packed(static_cast<std::size_t>(c.group * tiles * L.kh * L.kw * cp * kLanes), 0.f);
  for (I oc = 0; oc < y.c; ++oc) {
    const I grp = oc / L.ng, t = oc % L.ng / kLanes, k = oc % L.ng % kLanes;
    float* wt = packed.data() + ((grp * tiles + t) * L.kh * L.kw * cp) * kLanes + k;
    const float* src = w + oc * L.cg * L.kh * L.kw;
    for (I ic = 0; ic < L.cg; ++ic)
      for (I rs = 0; rs < L.kh * L.kw; ++rs) wt[(rs * cp + ic) * kLanes] = src[ic * L.kh * L.kw + rs];
  }
  return packed;
}

bool conv_fp32_isa_supported(ConvIsa isa) {
  if (isa == ConvIsa::avx512) return __builtin_cpu_supports("avx512f");
  if (isa == ConvIsa::avx2) return __builtin_cpu_supports("avx2");
  return true;
}

void conv_fp32_isa(const ConvFp32Args& a, float* out, ConvIsa isa) {
  const Layout L = layout(*a.geom, a.x, a.y);
  if (!tiled(L)) {
    conv_fp32_reference(a, out);
    return;
  }
  if (!conv_fp32_isa_supported(isa)) throw CompileError("conv_fp32: the host lacks the instruction set asked for");
  std::vector<float> own;
  const float* packed = a.packed;
  if (packed == nullptr) {
    own = pack_conv_fp32(*a.geom, a.x, a.y, a.w);
    packed = own.data();
  }
  // Every variant sums in the same order (no contraction in this file).
  const auto group = isa == ConvIsa::avx512 ? conv_group_avx512 : isa == ConvIsa::avx2 ? conv_group_avx2 : conv_group_sse;
  for (I grp = 0; grp < a.geom->group; ++grp) group(a, L, grp, packed, out);
}

void conv_fp32(const ConvFp32Args& a, float* out) {
  static const ConvIsa best = conv_fp32_isa_supported(ConvIsa::avx512) ? ConvIsa::avx512
                              : conv_fp32_isa_supported(ConvIsa::avx2) ? ConvIsa::avx2
                                                                       : ConvIsa::sse;
  conv_fp32_isa(a, out, best);
}

void conv_fp32_reference(const ConvFp32Args& a, float* out) {
  const ConvGeom& c = *a.geom;
  const Shape& xs = a.x;
  const I OH = a.y.h, OW = a.y.w, H = xs.h, W = xs.w;
  const I cg = xs.c / c.group, ng = a.y.c / c.group;
  auto wat = [&](I oc, I ic, int r, int s) { return a.w[((oc * cg + ic) * c.kh + r) * c.kw + s]; };
  // Blocks of up to 4 output channels x 4 input channels per kernel tap, the
  // output row innermost: each input row loaded once feeds 4 output rows.
  for (I grp = 0; grp < c.group; ++grp) {
    for (I oc0 = grp * ng; oc0 < (grp + 1) * ng; oc0 += 4) {
      const I nb = std::min<I>(4, (grp + 1) * ng - oc0);
      float* yo[4] = {};
      for (I j = 0; j < nb; ++j) {
        yo[j] = out + (oc0 + j) * OH * OW;
        std::fill(yo[j], yo[j] + OH * OW, a.bias[oc0 + j]);
      }
      for (int r = 0; r < c.kh; ++r)
        for (int s = 0; s < c.kw; ++s) {
          const I off = I{s} * c.dw - c.pl;
          const I ow0 = off >= 0 ? 0 : (-off + c.sw - 1) / c.sw;
          const I ow1 = std::min<I>(OW, W - 1 - off < 0 ? 0 : (W - 1 - off) / c.sw + 1);
          if (ow0 >= ow1) continue;
          for (I oh = 0; oh < OH; ++oh) {
            const I ih = oh * c.sh - c.pt + I{r} * c.dh;
            if (ih < 0 || ih >= H) continue;
            for (I ic0 = 0; ic0 < cg; ic0 += 4) {
              const I ib = std::min<I>(4, cg - ic0);
              const float* xr[4];
              float wv[4][4] = {};
              for (I i = 0; i < 4; ++i) {
                const I ic = ic0 + std::min(i, ib - 1);
                xr[i] = a.in + (grp * cg + ic) * H * W + ih * W + off;
                for (I j = 0; j < nb && i < ib; ++j) wv[j][i] = wat(oc0 + j, ic, r, s);
              }
              // Missing channels of a partial block have weight 0 and read a
              // valid row, so one expression serves every block.
              for (I j = 0; j < nb; ++j) {
                float* yr = yo[j] + oh * OW;
                for (I ow = ow0; ow < ow1; ++ow)
                  yr[ow] += wv[j][0] * xr[0][ow * c.sw] + wv[j][1] * xr[1][ow * c.sw] + wv[j][2] * xr[2][ow * c.sw] +
                            wv[j][3] * xr[3][ow * c.sw];
              }
            }
          }
        }
      for (I j = 0; j < nb; ++j)
        for (I i = 0; i < OH * OW; ++i) yo[j][i] = act(a, yo[j][i]);
    }
  }
}

}  // namespace vp::cc
