// Quantizing float inputs and dequantizing outputs by a binding's host view
// (float_io.h).
#include "vp/platform/float_io.h"

#include <cmath>
#include <cstring>

#include "vp/common/quantize.h"
#include "vp/platform/host_io.h"

namespace vp::platform {
namespace {

// Stored position of the element at model-order index i of one tensor:
// [N, C, S] (S = the product of the spatial dims) -> [N, S, C].
struct Order {
  uint64_t n = 1, c = 1, s = 1;
  bool permute = false;
  uint64_t stored(uint64_t i) const {
    if (!permute) return i;
    const uint64_t si = i % s, ci = (i / s) % c, ni = i / (s * c);
    return (ni * s + si) * c + ci;
  }
};

Order order_of(const obj::IoBinding& b) {
  Order o;
  if (!b.channels_last || b.shape.size() < 3) return o;
  o.n = b.shape[0];
  o.c = b.shape[1];
  for (size_t k = 2; k < b.shape.size(); ++k) o.s *= b.shape[k];
  o.permute = o.c > 1 && o.s > 1;
  return o;
}

struct CodeRange {
  int64_t lo, hi;
};

CodeRange range_of(const std::string& dtype) {
  if (dtype == "int8") return {-128, 127};
  if (dtype == "uint8") return {0, 255};
  if (dtype == "int16") return {-32768, 32767};
  return {INT32_MIN, INT32_MAX};
}

void put_code(uint8_t* p, uint64_t esize, int64_t code) {
  const auto u = static_cast<uint32_t>(static_cast<int32_t>(code));
  for (uint64_t k = 0; k < esize; ++k) p[k] = static_cast<uint8_t>(u >> (8 * k));
}

int64_t get_code(const uint8_t* p, const std::string& dtype) {
  if (dtype == "int8") return static_cast<int8_t>(p[0]);
  if (dtype == "uint8") return p[0];
  if (dtype == "int16") return static_cast<int16_t>(static_cast<uint16_t>(p[0] | (p[1] << 8)));
  return static_cast<int32_t>(uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
                              (uint32_t{p[3]} << 24));
}

}  // namespace

uint64_t element_count(const obj::IoBinding& b) {
  const uint64_t es = obj::io_dtype_size(b.dtype);
  return es ? b.bytes / es : 0;
}

std::vector<uint64_t> stored_shape(const obj::IoBinding& b) {
  std::vector<uint64_t> s = b.shape;
  if (b.channels_last && s.size() >= 3) {
    const uint64_t c = s[1];
    s.erase(s.begin() + 1);
    s.push_back(c);
  }
  return s;
}

std::vector<uint8_t> quantize_binding(const obj::IoBinding& b, const float* values, uint64_t count,
                                      const std::string& what) {
  const uint64_t es = obj::io_dtype_size(b.dtype), per = element_count(b);
  const Order ord = order_of(b);
  const CodeRange r = range_of(b.dtype);
  std::vector<uint8_t> out(count * es);
  for (uint64_t i = 0; i < count; ++i) {
    const float x = values[i];
    if (std::isnan(x))
      throw HostIoError(what + ": element " + std::to_string(i) + " is NaN; expected real values to quantize with " +
                        describe(b) + "'s scale");
    const uint64_t t = i / per, j = i % per;
    put_code(out.data() + (t * per + ord.stored(j)) * es, es,
             common::quantize_code(x, b.scale, b.zero_point, r.lo, r.hi));
  }
  return out;
}

std::vector<float> dequantize_binding(const obj::IoBinding& b, const std::vector<uint8_t>& codes) {
  const uint64_t es = obj::io_dtype_size(b.dtype), per = element_count(b);
  const uint64_t count = codes.size() / es;
  const Order ord = order_of(b);
  std::vector<double> y(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t t = i / per, j = i % per;
    y[i] = common::dequantize_code(get_code(codes.data() + (t * per + ord.stored(j)) * es, b.dtype), b.scale,
                                   b.zero_point);
  }
  if (b.host_softmax && per > 0) {
    // Over the last axis of the model's order, in double, shifted by the
    // row's maximum so exp never overflows.
    const uint64_t k = b.shape.empty() || b.shape.back() == 0 ? per : b.shape.back();
    for (uint64_t row = 0; row + k <= count; row += k) {
      double mx = y[row], sum = 0;
      for (uint64_t i = 1; i < k; ++i) mx = std::max(mx, y[row + i]);
      for (uint64_t i = 0; i < k; ++i) sum += (y[row + i] = std::exp(y[row + i] - mx));
      for (uint64_t i = 0; i < k; ++i) y[row + i] /= sum;
    }
  }
  std::vector<float> out(count);
  for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<float>(y[i]);
  return out;
}

}  // namespace vp::platform
