// Convolution kernels of the two interpreters (fp32_interpreter.cpp,
// golden_model.cpp), batch 1, NCHW, ONNX semantics, the border reading 0.
//
// FP32: every output is summed in one fixed order, the order the
// calibration ranges were first computed with: the bias, then for each
// kernel tap (r, s) whose input lies inside the image, for each block of 4
// input channels, y += ((w0*x0 + w1*x1) + w2*x2) + w3*x3 (a block past the
// last channel has weight 0 and repeats that channel's input). conv_fp32 and
// conv_fp32_reference give the same bits; conv_fp32 reaches them vectorized
// over output channels with register accumulators. The file is compiled
// without floating-point contraction, so no product is fused into an add.
//
// INT8: int8 codes times weights of up to 12 bits; int32 sums are exact in
// any order, as no sum reaches 2^31 (quantize.cpp refuses a layer whose
// K x max|w| x 128 would); conv_int8 sums an im2col matrix by packed dot
// products, conv_int8_reference tap by tap.
// Both return the raw accumulator of every output (no bias, no requant).
#pragma once

#include <cstdint>
#include <vector>

#include "vp/cc/graph.h"

namespace vp::cc {

struct ConvFp32Args {
  const ConvGeom* geom = nullptr;
  Shape x, y;                         // input and output shapes (channels, rows, columns)
  const float* in = nullptr;          // x.numel() values
  const float* w = nullptr;           // [y.c][x.c / group][kh][kw]
  const float* bias = nullptr;        // y.c values
  Act act{};                          // applied to each finished sum
  float clip_lo = 0, clip_hi = 0;     // Act::clip bounds
  const float* packed = nullptr;      // pack_conv_fp32's layout of w, or null: packed per call
};

// Both write y.numel() values to `out`.
void conv_fp32(const ConvFp32Args& a, float* out);
// conv_fp32 with a chosen instruction set (conv_fp32 takes the widest the
// host has): the variants hold 16, 4 and 2 pixels' accumulators in
// registers, and all give the same bits.
enum class ConvIsa { sse, avx2, avx512 };
bool conv_fp32_isa_supported(ConvIsa isa);
void conv_fp32_isa(const ConvFp32Args& a, float* out, ConvIsa isa);
// The weights as conv_fp32 reads them (tiles of output channels, channels
// innermost), empty for the layers it leaves to the plain loops. Packing
// costs about a quarter of a convolution, so runs of many inputs pack once.
std::vector<float> pack_conv_fp32(const ConvGeom& c, const Shape& x, const Shape& y, const float* w);
void conv_fp32_reference(const ConvFp32Args& a, float* out);

struct ConvInt8Args {
  const ConvGeom* geom = nullptr;
  Shape x, y;
  const std::int8_t* in = nullptr;    // x.numel() codes
  const std::int16_t* w = nullptr;    // [y.c][x.c / group][kh][kw], up to 12 bits (--weight-bits)
  unsigned threads = 1;               // conv_int8: host threads over output channels
};

// Both return y.numel() accumulators, output channel major.
std::vector<std::int32_t> conv_int8(const ConvInt8Args& a);
std::vector<std::int32_t> conv_int8_reference(const ConvInt8Args& a);

}  // namespace vp::cc
