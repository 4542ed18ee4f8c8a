// The CU's vector unit: element-wise integer operations on scratchpad
// vectors, used for everything between crossbar MVMs (bias, requantization,
// activations, pooling, residual adds). Saturating arithmetic, as INT8
// inference hardware does; latency = startup + ceil(elements / lanes).
#include <algorithm>
#include <cstring>
#include <limits>

#include "vp/hw/cu/execution_core.h"

namespace vp::hw {
namespace {

using isa::Opcode;

int elem_size(int64_t dt) { return dt == 0 ? 1 : dt == 1 ? 2 : 4; }

int64_t load(const uint8_t* p, int64_t dt) {
  switch (dt) {
    case 0: return static_cast<int8_t>(*p);
    case 1: { int16_t v; std::memcpy(&v, p, 2); return v; }
    default: { int32_t v; std::memcpy(&v, p, 4); return v; }
  }
}

int64_t saturate(int64_t v, int64_t dt) {
  switch (dt) {
    case 0: return std::clamp<int64_t>(v, -128, 127);
    case 1: return std::clamp<int64_t>(v, -32768, 32767);
    default: return std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  }
}

void store(uint8_t* p, int64_t v, int64_t dt) {
  switch (dt) {
    case 0: *p = static_cast<uint8_t>(static_cast<int8_t>(v)); break;
    case 1: { const auto x = static_cast<int16_t>(v); std::memcpy(p, &x, 2); break; }
    default: { const auto x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
  }
}

// Rounding arithmetic right shift, the requantizer's and vsra's rounding.
int64_t round_shift(int64_t v, int64_t sh) { return sh == 0 ? v : (v + (int64_t{1} << (sh - 1))) >> sh; }

}  // namespace

void ExecutionCore::exec_vector(const isa::Instruction& in, uint64_t& latency, MemRange* rd, int& nrd, MemRange* wr,
                                int& nwr) {
  const auto& op = in.operand;
  auto R = [&](int i) -> uint32_t { return regs_[static_cast<size_t>(op[static_cast<size_t>(i)])]; };
  const uint64_t d = R(0);
  uint64_t elements = 0;
  auto range = [&](uint64_t a, uint64_t n, bool write, const char* what) {
    if (!check_range(a, n, what)) return false;
    (write ? wr[nwr++] : rd[nrd++]) = MemRange{a, a + n};
    return true;
  };

  switch (in.opcode) {
    case Opcode::VADD: case Opcode::VSUB: case Opcode::VMUL: case Opcode::VMAX: case Opcode::VMIN:
    case Opcode::VADDS: case Opcode::VMULS: {
      const uint64_t a = R(1), n = R(3);
      const int64_t dt = op[4];
      const uint64_t es = static_cast<uint64_t>(elem_size(dt));
      const bool scalar = in.opcode == Opcode::VADDS || in.opcode == Opcode::VMULS;
      const uint64_t b = R(2);
      if (!range(a, n * es, false, "vector reads")) return;
      if (!scalar && !range(b, n * es, false, "vector reads")) return;
      if (!range(d, n * es, true, "vector writes")) return;
      const int64_t s = static_cast<int32_t>(R(2));
      for (uint64_t i = 0; i < n; ++i) {
        const int64_t x = load(spad_.at(a + i * es), dt);
        const int64_t y = scalar ? s : load(spad_.at(b + i * es), dt);
        int64_t r = 0;
        switch (in.opcode) {
          case Opcode::VADD: case Opcode::VADDS: r = x + y; break;
          case Opcode::VSUB: r = x - y; break;
          case Opcode::VMUL: case Opcode::VMULS: r = x * y; break;
          case Opcode::VMAX: r = std::max(x, y); break;
          default: r = std::min(x, y); break;
        }
        store(spad_.at(d + i * es), saturate(r, dt), dt);
      }
      elements = n;
      break;
    }
    case Opcode::VRELU: case Opcode::VMOV: case Opcode::VCLAMP: case Opcode::VSRA: {
      const uint64_t a = R(1), n = R(2);
      const int64_t dt = in.opcode == Opcode::VCLAMP ? op[5] : in.opcode == Opcode::VSRA ? op[4] : op[3];
      const uint64_t es = static_cast<uint64_t>(elem_size(dt));
      if (!range(a, n * es, false, "vector reads") || !range(d, n * es, true, "vector writes")) return;
      for (uint64_t i = 0; i < n; ++i) {
        int64_t x = load(spad_.at(a + i * es), dt);
        if (in.opcode == Opcode::VRELU) x = std::max<int64_t>(x, 0);
        else if (in.opcode == Opcode::VCLAMP) x = std::clamp<int64_t>(x, op[3], std::max(op[3], op[4]));
        else if (in.opcode == Opcode::VSRA) x = round_shift(x, op[3]);
        store(spad_.at(d + i * es), saturate(x, dt), dt);
      }
      elements = n;
      break;
    }
    case Opcode::VWIDEN: {
      const uint64_t a = R(1), n = R(2);
      if (!range(a, n, false, "vwiden reads") || !range(d, n * 4, true, "vwiden writes")) return;
      // Backwards so an in-place widen (d == a) reads each byte before it is overwritten.
      for (uint64_t i = n; i-- > 0;) store(spad_.at(d + 4 * i), static_cast<int8_t>(*spad_.at(a + i)), 2);
      elements = n;
      break;
    }
    case Opcode::VRQ: case Opcode::VRQS: {
      const uint64_t a = R(1), n = R(2);
      const bool per_elem = in.opcode == Opcode::VRQ;
      const int64_t zp = per_elem ? op[4] : op[5];
      const uint64_t p = per_elem ? R(3) : 0;
      if (!range(a, n * 4, false, "requantize reads") || !range(d, n, true, "requantize writes")) return;
      if (per_elem && !range(p, n * 8, false, "requantize parameters")) return;
      for (uint64_t i = 0; i < n; ++i) {
        const int64_t x = load(spad_.at(a + 4 * i), 2);
        int64_t m, sh;
        if (per_elem) {
          m = load(spad_.at(p + 8 * i), 2);
          sh = load(spad_.at(p + 8 * i + 4), 2);
        } else {
          m = static_cast<int32_t>(R(3));
          sh = op[4];
        }
        if (sh < 0 || sh > 62) {
          fault("requantize shift " + std::to_string(sh) + " of element " + std::to_string(i) + " is outside 0..62");
          return;
        }
        const int64_t r = zp + round_shift(x * m, sh);
        store(spad_.at(d + i), saturate(r, 0), 0);
      }
      elements = n;
      break;
    }
    case Opcode::VPMAX: case Opcode::VPSUM: {
      const uint64_t a = R(1), n = R(2), k = R(3), st = R(4);
      const int64_t dt = op[5];
      const uint64_t es = static_cast<uint64_t>(elem_size(dt));
      const bool sum = in.opcode == Opcode::VPSUM;
      if (k == 0) { fault("pooling window count is zero"); return; }
      const uint64_t span = ((k - 1) * st + n) * es;
      if (!range(a, span, false, "pooling reads") || !range(d, n * (sum ? 4 : es), true, "pooling writes")) return;
      for (uint64_t i = 0; i < n; ++i) {
        int64_t r = load(spad_.at(a + i * es), dt);
        for (uint64_t j = 1; j < k; ++j) {
          const int64_t x = load(spad_.at(a + (i + j * st) * es), dt);
          r = sum ? r + x : std::max(r, x);
        }
        if (sum) store(spad_.at(d + 4 * i), saturate(r, 2), 2);
        else store(spad_.at(d + i * es), r, dt);
      }
      elements = n * k;
      break;
    }
    case Opcode::VLUT: {
      const uint64_t a = R(1), n = R(2), t = R(3);
      if (!range(a, n, false, "vlut reads") || !range(t, 256, false, "vlut table") || !range(d, n, true, "vlut writes"))
        return;
      for (uint64_t i = 0; i < n; ++i) *spad_.at(d + i) = *spad_.at(t + static_cast<uint64_t>(static_cast<int8_t>(*spad_.at(a + i)) + 128));
      elements = n;
      break;
    }
    case Opcode::VFILL: {
      const uint64_t n = R(2);
      const int64_t dt = op[3];
      const uint64_t es = static_cast<uint64_t>(elem_size(dt));
      if (!range(d, n * es, true, "vfill writes")) return;
      const int64_t v = saturate(static_cast<int32_t>(R(1)), dt);
      for (uint64_t i = 0; i < n; ++i) store(spad_.at(d + i * es), v, dt);
      elements = n;
      break;
    }
    default: break;
  }
  stats_.vector_elements += elements;
  latency = timing_.vector_startup_cycles + (elements + timing_.vector_lanes - 1) / timing_.vector_lanes;
}

}  // namespace vp::hw
