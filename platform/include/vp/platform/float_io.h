// Float tensors at vp-run's edge: a float32 .npy for an input binding that
// carries a scale is quantized into the codes the chip reads, and an output
// binding's codes are dequantized into float32 in the model's own shape and
// order (Softmax applied when the binding says the host does it). The host
// view travels in the object (vp/obj/object.h, IoBinding); the rounding is
// vp/common/quantize.h, the same as vp-cc --quantize-input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/obj/object.h"

namespace vp::platform {

// The shape of a binding's bytes as stored: its shape, with the channel axis
// moved last for a channels-last binding ([N, C, D...] -> [N, D..., C]).
std::vector<uint64_t> stored_shape(const obj::IoBinding& b);

// Elements of one tensor of the binding (bytes / element size).
uint64_t element_count(const obj::IoBinding& b);

// `count` float values, `elements` tensors of the binding back to back in
// the model's order -> the codes in the chip's order. Throws HostIoError
// naming `what` and the element for a NaN (infinities saturate).
std::vector<uint8_t> quantize_binding(const obj::IoBinding& b, const float* values, uint64_t count,
                                      const std::string& what);

// The codes of whole tensors of the binding, back to back -> float32 values
// in the model's order, Softmax over the last axis when the host applies it.
std::vector<float> dequantize_binding(const obj::IoBinding& b, const std::vector<uint8_t>& codes);

}  // namespace vp::platform
