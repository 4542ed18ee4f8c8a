// The CU's vector unit: element-wise integer operations on scratchpad
// vectors, used for everything between crossbar MVMs (bias, requantization,
// activations, pooling, residual adds). Saturating arithmetic, as INT8
// inference hardware does; latency = startup + ceil(elements / lanes).
#include <algorithm>
#include <cstring>
#include <limits>

#include "executors/issue.h"

namespace vp::hw {
namespace {

using isa::Dtype;

uint64_t elem_size(Dtype dt) { return dt == Dtype::i8 ? 1 : dt == Dtype::i16 ? 2 : 4; }

int64_t load(const uint8_t* p, Dtype dt) {
  switch (dt) {
    case Dtype::i8: return static_cast<int8_t>(*p);
    case Dtype::i16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    default: { int32_t v; std::memcpy(&v, p, 4); return v; }
  }
}

int64_t saturate(int64_t v, Dtype dt) {
  switch (dt) {
    case Dtype::i8: return std::clamp<int64_t>(v, -128, 127);
    case Dtype::i16: return std::clamp<int64_t>(v, -32768, 32767);
    default: return std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  }
}

void store(uint8_t* p, int64_t v, Dtype dt) {
  switch (dt) {
    case Dtype::i8: *p = static_cast<uint8_t>(static_cast<int8_t>(v)); break;
    case Dtype::i16: { const auto x = static_cast<int16_t>(v); std::memcpy(p, &x, 2); break; }
    default: { const auto x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
  }
}

// Rounding arithmetic right shift, the requantizer's and vsra's rounding.
int64_t round_shift(int64_t v, int64_t sh) { return sh == 0 ? v : (v + (int64_t{1} << (sh - 1))) >> sh; }

// The unit's time for `elements` element operations, and its statistics.
void processed(Issue& is, uint64_t elements) {
  is.stats().vector_elements += elements;
  const CoreTiming& t = is.timing();
  is.set_latency(t.vector_startup_cycles + (elements + t.vector_lanes - 1) / t.vector_lanes);
}

enum class Binary { Add, Sub, Mul, Max, Min };

// d[i] = a[i] op b[i], or a[i] op the scalar register b.
template <class Ops>
void binary(Issue& is, const Ops& o, Binary op, bool scalar) {
  const uint64_t d = is.reg(o.rd), a = is.reg(o.rs1), n = is.reg(o.rn);
  const uint64_t es = elem_size(o.dt);
  const uint64_t b = is.reg(o.rs2);
  if (!is.reads(a, n * es, "vector reads")) return;
  if (!scalar && !is.reads(b, n * es, "vector reads")) return;
  if (!is.writes(d, n * es, "vector writes")) return;
  const int64_t s = is.sreg(o.rs2);
  Scratchpad& m = is.spad();
  for (uint64_t i = 0; i < n; ++i) {
    const int64_t x = load(m.at(a + i * es), o.dt);
    const int64_t y = scalar ? s : load(m.at(b + i * es), o.dt);
    int64_t r = 0;
    switch (op) {
      case Binary::Add: r = x + y; break;
      case Binary::Sub: r = x - y; break;
      case Binary::Mul: r = x * y; break;
      case Binary::Max: r = std::max(x, y); break;
      case Binary::Min: r = std::min(x, y); break;
    }
    store(m.at(d + i * es), saturate(r, o.dt), o.dt);
  }
  processed(is, n);
}

// d[i] = f(a[i]), same element type in and out.
template <class Ops, class F>
void unary(Issue& is, const Ops& o, F f) {
  const uint64_t d = is.reg(o.rd), a = is.reg(o.rs1), n = is.reg(o.rn);
  const uint64_t es = elem_size(o.dt);
  if (!is.reads(a, n * es, "vector reads") || !is.writes(d, n * es, "vector writes")) return;
  Scratchpad& m = is.spad();
  for (uint64_t i = 0; i < n; ++i) store(m.at(d + i * es), saturate(f(load(m.at(a + i * es), o.dt)), o.dt), o.dt);
  processed(is, n);
}

// int32 -> int8: zp + rounding shift of a[i] * multiplier, saturated.
// `per_elem`: (multiplier, shift) int32 pairs at local[p]; else m and sh for all.
void requantize(Issue& is, uint8_t rd, uint8_t rs1, uint8_t rn, int64_t zp, bool per_elem, uint64_t p, int64_t m_all,
                int64_t sh_all) {
  const uint64_t d = is.reg(rd), a = is.reg(rs1), n = is.reg(rn);
  if (!is.reads(a, n * 4, "requantize reads") || !is.writes(d, n, "requantize writes")) return;
  if (per_elem && !is.reads(p, n * 8, "requantize parameters")) return;
  Scratchpad& mem = is.spad();
  for (uint64_t i = 0; i < n; ++i) {
    const int64_t x = load(mem.at(a + 4 * i), Dtype::i32);
    const int64_t m = per_elem ? load(mem.at(p + 8 * i), Dtype::i32) : m_all;
    const int64_t sh = per_elem ? load(mem.at(p + 8 * i + 4), Dtype::i32) : sh_all;
    if (sh < 0 || sh > 62)
      return is.fault("requantize shift " + std::to_string(sh) + " of element " + std::to_string(i) +
                      " is outside 0..62");
    store(mem.at(d + i), saturate(zp + round_shift(x * m, sh), Dtype::i8), Dtype::i8);
  }
  processed(is, n);
}

// Pooling: d[i] = max or sum over j < k of a[i + j*stride].
template <class Ops>
void pool(Issue& is, const Ops& o, bool sum) {
  const uint64_t d = is.reg(o.rd), a = is.reg(o.rs1), n = is.reg(o.rn), k = is.reg(o.rk), st = is.reg(o.rst);
  const uint64_t es = elem_size(o.dt);
  if (k == 0) return is.fault("pooling window count is zero");
  const uint64_t span = ((k - 1) * st + n) * es;
  if (!is.reads(a, span, "pooling reads") || !is.writes(d, n * (sum ? 4 : es), "pooling writes")) return;
  Scratchpad& m = is.spad();
  for (uint64_t i = 0; i < n; ++i) {
    int64_t r = load(m.at(a + i * es), o.dt);
    for (uint64_t j = 1; j < k; ++j) {
      const int64_t x = load(m.at(a + (i + j * st) * es), o.dt);
      r = sum ? r + x : std::max(r, x);
    }
    if (sum) store(m.at(d + 4 * i), saturate(r, Dtype::i32), Dtype::i32);
    else store(m.at(d + i * es), r, o.dt);
  }
  processed(is, n * k);
}

}  // namespace

void exec_VADD(Issue& is, const isa::ops::VADD& o) { binary(is, o, Binary::Add, false); }
void exec_VSUB(Issue& is, const isa::ops::VSUB& o) { binary(is, o, Binary::Sub, false); }
void exec_VMUL(Issue& is, const isa::ops::VMUL& o) { binary(is, o, Binary::Mul, false); }
void exec_VMAX(Issue& is, const isa::ops::VMAX& o) { binary(is, o, Binary::Max, false); }
void exec_VMIN(Issue& is, const isa::ops::VMIN& o) { binary(is, o, Binary::Min, false); }
void exec_VADDS(Issue& is, const isa::ops::VADDS& o) { binary(is, o, Binary::Add, true); }
void exec_VMULS(Issue& is, const isa::ops::VMULS& o) { binary(is, o, Binary::Mul, true); }

void exec_VRELU(Issue& is, const isa::ops::VRELU& o) {
  unary(is, o, [](int64_t x) { return std::max<int64_t>(x, 0); });
}
void exec_VCLAMP(Issue& is, const isa::ops::VCLAMP& o) {
  const int64_t lo = o.lo, hi = std::max(o.lo, o.hi);
  unary(is, o, [lo, hi](int64_t x) { return std::clamp<int64_t>(x, lo, hi); });
}
void exec_VMOV(Issue& is, const isa::ops::VMOV& o) {
  unary(is, o, [](int64_t x) { return x; });
}
void exec_VSRA(Issue& is, const isa::ops::VSRA& o) {
  const int64_t sh = o.sh;
  unary(is, o, [sh](int64_t x) { return round_shift(x, sh); });
}

void exec_VWIDEN(Issue& is, const isa::ops::VWIDEN& o) {
  const uint64_t d = is.reg(o.rd), a = is.reg(o.rs1), n = is.reg(o.rn);
  if (!is.reads(a, n, "vwiden reads") || !is.writes(d, n * 4, "vwiden writes")) return;
  Scratchpad& m = is.spad();
  // Backwards so an in-place widen (d == a) reads each byte before it is overwritten.
  for (uint64_t i = n; i-- > 0;) store(m.at(d + 4 * i), static_cast<int8_t>(*m.at(a + i)), Dtype::i32);
  processed(is, n);
}

void exec_VRQ(Issue& is, const isa::ops::VRQ& o) {
  requantize(is, o.rd, o.rs1, o.rn, o.zp, true, is.reg(o.rp), 0, 0);
}
void exec_VRQS(Issue& is, const isa::ops::VRQS& o) {
  requantize(is, o.rd, o.rs1, o.rn, o.zp, false, 0, is.sreg(o.rm), o.sh);
}

void exec_VPMAX(Issue& is, const isa::ops::VPMAX& o) { pool(is, o, false); }
void exec_VPSUM(Issue& is, const isa::ops::VPSUM& o) { pool(is, o, true); }

void exec_VLUT(Issue& is, const isa::ops::VLUT& o) {
  const uint64_t d = is.reg(o.rd), a = is.reg(o.rs1), n = is.reg(o.rn), t = is.reg(o.rt);
  if (!is.reads(a, n, "vlut reads") || !is.reads(t, 256, "vlut table") || !is.writes(d, n, "vlut writes")) return;
  Scratchpad& m = is.spad();
  for (uint64_t i = 0; i < n; ++i)
    *m.at(d + i) = *m.at(t + static_cast<uint64_t>(static_cast<int8_t>(*m.at(a + i)) + 128));
  processed(is, n);
}

void exec_VFILL(Issue& is, const isa::ops::VFILL& o) {
  const uint64_t d = is.reg(o.rd), n = is.reg(o.rn);
  const uint64_t es = elem_size(o.dt);
  if (!is.writes(d, n * es, "vfill writes")) return;
  const int64_t v = saturate(is.sreg(o.rs2), o.dt);
  Scratchpad& m = is.spad();
  for (uint64_t i = 0; i < n; ++i) store(m.at(d + i * es), v, o.dt);
  processed(is, n);
}

}  // namespace vp::hw
