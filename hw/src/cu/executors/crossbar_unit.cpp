// The crossbar unit: matrix-vector products on the CU's programmed
// crossbars, and row programming and read-back of any crossbar on the chip
// (the control processor's deployment path). The environment runs the
// analog models and prices them.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "executors/issue.h"

namespace vp::hw {

void exec_MVM(Issue& is, const isa::ops::MVM& o) {
  const CoreIdentity& id = is.id();
  if (id.is_control()) return is.fault("mvm runs on a compute unit, not the control processor");
  const uint32_t xb = o.xb, mask = o.mask, ib = o.ib, ob = o.ob;
  const bool concat = o.mode == isa::Mvmmode::concat, acc = o.acc == 1;
  if (ib < 1 || ib > 16) return is.fault("mvm input bits must be 1..16, got " + std::to_string(ib));
  if (ob < 1 || ob > 32) return is.fault("mvm output bits must be 1..32, got " + std::to_string(ob));
  if (mask == 0) return is.fault("mvm crossbar mask is empty");
  const uint32_t nx = static_cast<uint32_t>(__builtin_popcount(mask));
  const uint32_t top = xb + 31 - static_cast<uint32_t>(__builtin_clz(mask));
  if (top >= id.xbars)
    return is.fault("mvm uses crossbar " + std::to_string(top) + " but the CU has " + std::to_string(id.xbars));
  const uint64_t esize = ib <= 8 ? 1 : 2;
  const uint64_t in_addr = is.reg(o.rs1), out_addr = is.reg(o.rd);
  const uint64_t in_bytes = (concat ? 1 : nx) * id.rows * esize;
  // Each crossbar writes its own format's logical columns (xfmt): side by
  // side in `concat`; in `sum` every crossbar must have the same number.
  uint32_t lcols[16] = {};
  uint64_t out_elems = 0;
  for (uint32_t bit = 0; bit < 16; ++bit) {
    if (!(mask >> bit & 1)) continue;
    const uint32_t own = is.env().xbar_logical_cols(xb + bit);
    lcols[bit] = own != 0 ? own : id.lcols;
    if (concat) {
      out_elems += lcols[bit];
    } else if (out_elems == 0) {
      out_elems = lcols[bit];
    } else if (lcols[bit] != out_elems) {
      return is.fault("mvm sum of crossbars with " + std::to_string(out_elems) + " and " +
                      std::to_string(lcols[bit]) + " logical columns (their xfmt formats differ)");
    }
  }
  if (!is.reads(in_addr, in_bytes, "mvm reads") || !is.writes(out_addr, out_elems * 4, "mvm writes")) return;
  // With acc the old results are read too (in range: just checked as written).
  if (acc && !is.reads(out_addr, out_elems * 4, "mvm writes")) return;

  Scratchpad& spad = is.spad();
  std::vector<int32_t>& x = is.mvm_in();
  std::vector<int64_t>& sum = is.mvm_acc();
  std::vector<int64_t>& part = is.mvm_part();
  sum.assign(out_elems, 0);
  x.resize(id.rows);
  uint64_t xbar_latency = 0;
  uint32_t k = 0;
  uint64_t placed = 0;  // concat: results written so far
  for (uint32_t bit = 0; bit < 16; ++bit) {
    if (!(mask >> bit & 1)) continue;
    const uint8_t* src = spad.at(in_addr + (concat ? 0 : k * id.rows * esize));
    for (uint32_t r = 0; r < id.rows; ++r) {
      if (esize == 1) {
        x[r] = static_cast<int8_t>(src[r]);
      } else {
        int16_t v;
        std::memcpy(&v, src + 2 * r, 2);
        x[r] = v;
      }
    }
    CoreFault f;
    // A crossbar writes its lcols results; in `sum` mode every crossbar
    // after the first writes to a scratch row that is then added.
    const bool add = !concat && k > 0;
    if (add) part.assign(lcols[bit], 0);
    MvmRequest req{xb + bit, x.data(), ib, add ? part.data() : sum.data() + (concat ? placed : 0)};
    // Crossbars of a group fire in parallel: the group takes as long as one.
    xbar_latency = std::max(xbar_latency, is.env().mvm(req, f));
    if (!is.ok(f)) return;
    if (add)
      for (uint32_t i = 0; i < lcols[bit]; ++i) sum[i] += part[i];
    placed += lcols[bit];
    ++k;
  }
  const int64_t hi = ob == 32 ? std::numeric_limits<int32_t>::max() : (int64_t{1} << (ob - 1)) - 1;
  const int64_t lo = -hi - 1;
  for (uint64_t i = 0; i < out_elems; ++i) {
    int64_t v = sum[i];
    if (acc) v += spad.load32(out_addr + 4 * i);
    spad.store32(out_addr + 4 * i, static_cast<int32_t>(std::clamp(v, lo, hi)));
  }
  // Summing the partial results of a row-split group costs one pass of
  // the vector lanes per extra crossbar.
  const uint32_t lanes = is.timing().vector_lanes;
  const uint64_t merge = (!concat && nx > 1) ? (nx - 1) * ((out_elems + lanes - 1) / lanes) : 0;
  is.set_latency(xbar_latency + merge);
  CoreStats& st = is.stats();
  st.mvm_instructions++;
  st.xbar_activations += nx;
  st.mvm_macs += uint64_t{id.rows} * placed;
}

void exec_XPROG(Issue& is, const isa::ops::XPROG& o) {
  const uint64_t addr = is.reg(o.rs1);
  if (!is.reads(addr, is.id().cols, "xprog reads")) return;
  is.wait_for_memory();
  CoreFault f;
  const uint64_t cycles = is.env().program_row(is.reg(o.rx), is.reg(o.rr), is.spad().at(addr), is.start(), f);
  if (!is.ok(f)) return;
  is.set_latency(cycles);
  is.stats().rows_programmed++;
}

void exec_XPROGN(Issue& is, const isa::ops::XPROGN& o) {
  const uint64_t addr = is.reg(o.rs1), rows = is.reg(o.rn), retries = is.reg(o.rt);
  const uint32_t xbar = is.reg(o.rx), row0 = is.reg(o.rr), cols = is.id().cols, bits = is.id().cell_bits;
  if (rows == 0) return is.fault("xprogn of 0 rows");
  // Levels come packed, xbar.cell_bits each (a 2-bit cell's row of 256 in
  // 64 bytes), as a deployment image stores them: a row is whole bytes.
  if (uint64_t{cols} * bits % 8 != 0)
    return is.fault("xprogn takes rows of whole bytes, but " + std::to_string(cols) + " levels of " +
                    std::to_string(bits) + " bits are not");
  const uint64_t row_bytes = uint64_t{cols} * bits / 8;
  if (!is.reads(addr, rows * row_bytes, "xprogn reads")) return;
  is.wait_for_memory();
  thread_local std::vector<uint8_t> levels;
  levels.resize(cols);
  const uint32_t mask = (1u << bits) - 1u;
  // Row by row, as the deployment kernel's xprog and xstat did: a row with
  // failed cells is written again while retries are left; each pass is one
  // program_row, whose status the block sums.
  ProgramStatus block;
  uint64_t cycles = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    // Level c of the row from bit (c x bits) mod 8 of byte (c x bits) / 8
    // up, into the next byte when it straddles two (3-bit levels).
    // Widths that divide 8 never straddle: a byte's levels at once (every
    // cell of a deployment goes through here, 340 M for ResNet-50).
    const uint8_t* packed = is.spad().at(addr + r * row_bytes);
    if (8 % bits == 0) {
      const uint32_t per = 8 / bits;
      for (uint64_t k = 0; k < row_bytes; ++k)
        for (uint32_t j = 0; j < per; ++j) levels[k * per + j] = static_cast<uint8_t>((packed[k] >> (j * bits)) & mask);
    } else {
      for (uint32_t c = 0; c < cols; ++c) {
        const uint64_t bit = uint64_t{c} * bits, off = bit % 8;
        unsigned v = packed[bit / 8];
        if (off + bits > 8) v |= static_cast<unsigned>(packed[bit / 8 + 1]) << 8;
        levels[c] = static_cast<uint8_t>((v >> off) & mask);
      }
    }
    for (uint64_t pass = 0;; ++pass) {
      CoreFault f;
      cycles += is.env().program_row(xbar, row0 + static_cast<uint32_t>(r), levels.data(), is.start() + cycles, f);
      if (!is.ok(f)) return;
      is.stats().rows_programmed++;
      const ProgramStatus st = is.env().last_program_status();
      block.pulses += st.pulses;
      block.rounds += st.rounds;
      if (st.failed == 0 || pass == retries) {
        block.failed += st.failed;
        break;
      }
      block.retries++;
    }
  }
  is.env().set_last_program_status(block);
  is.set_latency(cycles);
}

void exec_XREAD(Issue& is, const isa::ops::XREAD& o) {
  const uint64_t addr = is.reg(o.rd);
  if (!is.writes(addr, is.id().cols, "xread writes")) return;
  is.wait_for_memory();
  CoreFault f;
  const uint64_t cycles = is.env().read_row(is.reg(o.rx), is.reg(o.rr), is.spad().at(addr), is.start(), f);
  if (!is.ok(f)) return;
  is.set_latency(cycles);
  is.stats().rows_read++;
}

namespace {

// A setting of this CU's crossbars xb + i for each set bit i of mask (xadc,
// xfmt): set(crossbar, fault) on each, after the checks both share.
template <class Set>
void set_masked_crossbars(Issue& is, const char* mnemonic, uint32_t xb, uint32_t mask, Set set) {
  const CoreIdentity& id = is.id();
  if (id.is_control()) return is.fault(std::string(mnemonic) + " runs on a compute unit, not the control processor");
  if (mask == 0) return is.fault(std::string(mnemonic) + " crossbar mask is empty");
  const uint32_t top = xb + 31 - static_cast<uint32_t>(__builtin_clz(mask));
  if (top >= id.xbars)
    return is.fault(std::string(mnemonic) + " sets crossbar " + std::to_string(top) + " but the CU has " +
                    std::to_string(id.xbars));
  for (uint32_t bit = 0; bit < 16; ++bit) {
    if (!(mask >> bit & 1)) continue;
    CoreFault f;
    set(xb + bit, f);
    if (!is.ok(f)) return;
  }
}

}  // namespace

void exec_XADC(Issue& is, const isa::ops::XADC& o) {
  set_masked_crossbars(is, "xadc", o.xb, o.mask,
                       [&](uint32_t x, CoreFault& f) { is.env().set_adc_range(x, o.range, f); });
}

void exec_XFMT(Issue& is, const isa::ops::XFMT& o) {
  set_masked_crossbars(is, "xfmt", o.xb, o.mask, [&](uint32_t x, CoreFault& f) {
    is.env().set_xbar_format(x, o.wbits, o.enc == isa::Xenc::diff, f);
  });
}

void exec_XSTAT(Issue& is, const isa::ops::XSTAT& o) {
  const ProgramStatus st = is.env().last_program_status();
  uint64_t v = 0;
  switch (o.sel) {
    case isa::Xstat::pulses: v = st.pulses; break;
    case isa::Xstat::failed: v = st.failed; break;
    case isa::Xstat::rounds: v = st.rounds; break;
    case isa::Xstat::retries: v = st.retries; break;
  }
  is.write(o.rd, static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX)));
}

}  // namespace vp::hw
