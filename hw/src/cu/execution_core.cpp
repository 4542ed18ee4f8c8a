#include "vp/hw/cu/execution_core.h"

#include <algorithm>
#include <cstring>
#include <limits>


namespace vp::hw {

using isa::Opcode;
using isa::Unit;

const char* core_state_name(CoreState s) {
  switch (s) {
    case CoreState::Idle: return "idle";
    case CoreState::Running: return "running";
    case CoreState::Halted: return "halted";
    case CoreState::Faulted: return "faulted";
    case CoreState::Trapped: return "trapped";
  }
  return "?";
}

ExecutionCore::ExecutionCore(const CoreIdentity& id, const CoreTiming& timing, uint64_t spad_bytes,
                             uint64_t imem_words)
    : id_(id), timing_(timing), spad_(spad_bytes), imem_words_(imem_words) {}

bool ExecutionCore::load_program(const uint64_t* words, uint64_t count, uint64_t at, std::string* why) {
  if (at + count > imem_words_) {
    if (why)
      *why = "program of " + std::to_string(at + count) + " instructions exceeds the instruction memory of " +
             std::to_string(imem_words_);
    return false;
  }
  if (program_.size() < at + count) program_.resize(at + count);
  for (uint64_t i = 0; i < count; ++i) {
    std::string reason;
    auto inst = isa::decode(words[i], &reason);
    if (!inst) {
      if (why) *why = "instruction " + std::to_string(at + i) + ": " + reason;
      return false;
    }
    program_[at + i] = *inst;
  }
  return true;
}

void ExecutionCore::start(uint32_t pc, uint64_t cycle) {
  pc_ = pc;
  issue_ = std::max(issue_, cycle);
  state_ = CoreState::Running;
  if (stats_.instructions == 0) stats_.first_cycle = issue_;
}

void ExecutionCore::fault(const std::string& what) {
  std::string where = id_.is_control() ? std::string("control processor")
                                       : "core " + std::to_string(id_.core) + " (cluster " +
                                             std::to_string(id_.cluster) + ", cu " + std::to_string(id_.cu) + ")";
  fault_msg_ = where + " pc " + std::to_string(pc_) + " cycle " + std::to_string(issue_) + ": " + what;
  state_ = CoreState::Faulted;
  end_cycle_ = issue_;
}

bool ExecutionCore::check_range(uint64_t addr, uint64_t len, const char* what) {
  if (spad_.in_range(addr, len)) return true;
  fault(std::string(what) + " local[" + std::to_string(addr) + " .. +" + std::to_string(len) +
        "] is outside the scratchpad of " + std::to_string(spad_.size()) + " bytes");
  return false;
}

void ExecutionCore::step(CoreEnvironment& env, TraceSink* trace) {
  if (state_ != CoreState::Running) return;
  if (pc_ >= program_.size()) {
    fault("pc ran past the end of the program (" + std::to_string(program_.size()) + " instructions)");
    return;
  }
  const isa::Instruction& in = program_[pc_];
  const isa::InstrInfo& info = *isa::find(in.opcode);
  const auto& op = in.operand;
  auto R = [&](int i) -> uint32_t { return regs_[static_cast<size_t>(op[static_cast<size_t>(i)])]; };
  auto Rs = [&](int i) -> int32_t { return static_cast<int32_t>(R(i)); };

  // Operands ready: registers read and the unit.
  uint64_t start = issue_;
  for (size_t i = 0; i < info.fields.size(); ++i) {
    const auto k = info.fields[i].kind;
    if (k == isa::FieldKind::RegRead || k == isa::FieldKind::RegReadWrite)
      start = std::max(start, sb_.reg_ready(static_cast<int>(op[i])));
  }
  Unit unit = info.unit;
  start = std::max(start, sb_.unit_free(unit));

  MemRange rd[4], wr[2];
  int nrd = 0, nwr = 0;
  uint64_t latency = 0;
  uint32_t next_pc = pc_ + 1;
  bool wrote_reg = false;
  int dst_reg = 0;
  uint32_t dst_val = 0;
  bool branch = false;
  uint64_t explicit_end = 0;  // for units whose end the environment computes
  bool has_explicit_end = false;

  auto set_rd = [&](int field, uint32_t v) {
    wrote_reg = true;
    dst_reg = static_cast<int>(op[static_cast<size_t>(field)]);
    dst_val = v;
  };

  switch (in.opcode) {
    // ---- scalar -----------------------------------------------------------
    case Opcode::NOP: latency = timing_.alu_cycles; break;
    case Opcode::ADD: set_rd(0, R(1) + R(2)); latency = timing_.alu_cycles; break;
    case Opcode::SUB: set_rd(0, R(1) - R(2)); latency = timing_.alu_cycles; break;
    case Opcode::MUL: set_rd(0, R(1) * R(2)); latency = timing_.mul_cycles; break;
    case Opcode::AND: set_rd(0, R(1) & R(2)); latency = timing_.alu_cycles; break;
    case Opcode::OR: set_rd(0, R(1) | R(2)); latency = timing_.alu_cycles; break;
    case Opcode::XOR: set_rd(0, R(1) ^ R(2)); latency = timing_.alu_cycles; break;
    case Opcode::SHL: set_rd(0, R(1) << (R(2) & 31)); latency = timing_.alu_cycles; break;
    case Opcode::SHR: set_rd(0, R(1) >> (R(2) & 31)); latency = timing_.alu_cycles; break;
    case Opcode::SRA: set_rd(0, static_cast<uint32_t>(Rs(1) >> (R(2) & 31))); latency = timing_.alu_cycles; break;
    case Opcode::SLT: set_rd(0, Rs(1) < Rs(2) ? 1 : 0); latency = timing_.alu_cycles; break;
    case Opcode::MIN: set_rd(0, static_cast<uint32_t>(std::min(Rs(1), Rs(2)))); latency = timing_.alu_cycles; break;
    case Opcode::MAX: set_rd(0, static_cast<uint32_t>(std::max(Rs(1), Rs(2)))); latency = timing_.alu_cycles; break;
    case Opcode::LI: set_rd(0, static_cast<uint32_t>(op[1])); latency = timing_.alu_cycles; break;
    case Opcode::ADDI: set_rd(0, R(1) + static_cast<uint32_t>(op[2])); latency = timing_.alu_cycles; break;
    case Opcode::MULI: set_rd(0, R(1) * static_cast<uint32_t>(op[2])); latency = timing_.mul_cycles; break;
    case Opcode::ANDI: set_rd(0, R(1) & static_cast<uint32_t>(op[2])); latency = timing_.alu_cycles; break;
    case Opcode::SHLI: set_rd(0, R(1) << op[2]); latency = timing_.alu_cycles; break;
    case Opcode::SHRI: set_rd(0, R(1) >> op[2]); latency = timing_.alu_cycles; break;
    case Opcode::SRAI: set_rd(0, static_cast<uint32_t>(Rs(1) >> op[2])); latency = timing_.alu_cycles; break;
    case Opcode::SLTI: set_rd(0, Rs(1) < static_cast<int32_t>(op[2]) ? 1 : 0); latency = timing_.alu_cycles; break;
    case Opcode::RDSR: {
      uint32_t v = 0;
      switch (op[1]) {
        case 0: v = static_cast<uint32_t>(id_.cluster); break;
        case 1: v = static_cast<uint32_t>(id_.cu); break;
        case 2: v = id_.core; break;
        case 3: v = id_.ncores; break;
        case 4: v = static_cast<uint32_t>(start); break;
        case 5: v = static_cast<uint32_t>(start >> 32); break;
        case 6: v = id_.xbars; break;
        case 7: v = id_.rows; break;
        case 8: v = id_.cols; break;
        case 9: v = id_.lcols; break;
        case 10: v = id_.clusters; break;
        case 11: v = id_.cus; break;
        default: break;
      }
      set_rd(0, v);
      latency = timing_.alu_cycles;
      break;
    }
    case Opcode::LD:
    case Opcode::LDB: {
      const uint64_t a = static_cast<uint32_t>(R(1) + static_cast<uint32_t>(op[2]));
      const uint64_t n = in.opcode == Opcode::LD ? 4 : 1;
      if (!check_range(a, n, "ld reads")) return;
      set_rd(0, n == 4 ? static_cast<uint32_t>(spad_.load32(a))
                       : static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(*spad_.at(a)))));
      rd[nrd++] = {a, a + n};
      latency = timing_.spad_access_cycles;
      break;
    }
    case Opcode::ST:
    case Opcode::STB: {
      const uint64_t a = static_cast<uint32_t>(R(1) + static_cast<uint32_t>(op[2]));
      const uint64_t n = in.opcode == Opcode::ST ? 4 : 1;
      if (!check_range(a, n, "st writes")) return;
      if (n == 4) spad_.store32(a, Rs(0));
      else *spad_.at(a) = static_cast<uint8_t>(R(0));
      wr[nwr++] = {a, a + n};
      latency = timing_.spad_access_cycles;
      break;
    }
    // ---- branches -----------------------------------------------------------
    case Opcode::JMP: next_pc = static_cast<uint32_t>(op[0]); branch = true; break;
    case Opcode::BEQ: if (R(0) == R(1)) next_pc = static_cast<uint32_t>(op[2]); branch = true; break;
    case Opcode::BNE: if (R(0) != R(1)) next_pc = static_cast<uint32_t>(op[2]); branch = true; break;
    case Opcode::BLT: if (Rs(0) < Rs(1)) next_pc = static_cast<uint32_t>(op[2]); branch = true; break;
    case Opcode::BGE: if (Rs(0) >= Rs(1)) next_pc = static_cast<uint32_t>(op[2]); branch = true; break;
    case Opcode::DBNZ: {
      const uint32_t v = R(0) - 1;
      set_rd(0, v);
      if (v != 0) next_pc = static_cast<uint32_t>(op[1]);
      branch = true;
      break;
    }
    case Opcode::JAL: set_rd(0, pc_ + 1); next_pc = static_cast<uint32_t>(op[1]); branch = true; break;
    case Opcode::JR: next_pc = R(0); branch = true; break;
    // ---- DMA ----------------------------------------------------------------
    case Opcode::DMA_GL:
    case Opcode::DMA_LG:
    case Opcode::DMA_SL:
    case Opcode::DMA_LS:
    case Opcode::DMA_GS:
    case Opcode::DMA_SG: {
      static constexpr DmaDirection kDir[] = {DmaDirection::GlobalToLocal, DmaDirection::LocalToGlobal,
                                              DmaDirection::SramToLocal,   DmaDirection::LocalToSram,
                                              DmaDirection::GlobalToSram,  DmaDirection::SramToGlobal};
      const auto dir = kDir[static_cast<int>(in.opcode) - static_cast<int>(Opcode::DMA_GL)];
      const uint64_t dst = R(0), src = R(1), n = R(2);
      if (dir == DmaDirection::GlobalToLocal || dir == DmaDirection::SramToLocal) {
        if (!check_range(dst, n, "dma writes")) return;
        wr[nwr++] = {dst, dst + n};
      }
      if (dir == DmaDirection::LocalToGlobal || dir == DmaDirection::LocalToSram) {
        if (!check_range(src, n, "dma reads")) return;
        rd[nrd++] = {src, src + n};
      }
      start = std::max(start, sb_.memory_ready(rd, nrd, wr, nwr));
      CoreFault f;
      explicit_end = env.dma(dir, dst, src, n, start + timing_.dma_setup_cycles, f);
      if (f.set) return fault(f.message);
      has_explicit_end = true;
      stats_.dma_bytes += n;
      break;
    }
    // ---- crossbar -------------------------------------------------------------
    case Opcode::MVM: {
      if (id_.is_control()) return fault("mvm runs on a compute unit, not the control processor");
      const uint32_t xb = static_cast<uint32_t>(op[2]);
      const uint32_t mask = static_cast<uint32_t>(op[3]);
      const uint32_t ib = static_cast<uint32_t>(op[4]), ob = static_cast<uint32_t>(op[5]);
      const bool concat = op[6] == 1, acc = op[7] == 1;
      if (ib < 1 || ib > 16) return fault("mvm input bits must be 1..16, got " + std::to_string(ib));
      if (ob < 1 || ob > 32) return fault("mvm output bits must be 1..32, got " + std::to_string(ob));
      if (mask == 0) return fault("mvm crossbar mask is empty");
      const uint32_t nx = static_cast<uint32_t>(__builtin_popcount(mask));
      const uint32_t top = xb + 31 - static_cast<uint32_t>(__builtin_clz(mask));
      if (top >= id_.xbars)
        return fault("mvm uses crossbar " + std::to_string(top) + " but the CU has " + std::to_string(id_.xbars));
      const uint64_t esize = ib <= 8 ? 1 : 2;
      const uint64_t in_addr = R(1), out_addr = R(0);
      const uint64_t in_bytes = (concat ? 1 : nx) * id_.rows * esize;
      const uint64_t out_elems = (concat ? nx : 1) * id_.lcols;
      if (!check_range(in_addr, in_bytes, "mvm reads") || !check_range(out_addr, out_elems * 4, "mvm writes"))
        return;
      rd[nrd++] = {in_addr, in_addr + in_bytes};
      wr[nwr++] = {out_addr, out_addr + out_elems * 4};
      if (acc) rd[nrd++] = {out_addr, out_addr + out_elems * 4};
      mvm_acc_.assign(out_elems, 0);
      mvm_in_.resize(id_.rows);
      uint64_t xbar_latency = 0;
      uint32_t k = 0;
      for (uint32_t bit = 0; bit < 16; ++bit) {
        if (!(mask >> bit & 1)) continue;
        const uint8_t* src = spad_.at(in_addr + (concat ? 0 : k * id_.rows * esize));
        for (uint32_t r = 0; r < id_.rows; ++r) {
          if (esize == 1) {
            mvm_in_[r] = static_cast<int8_t>(src[r]);
          } else {
            int16_t v;
            std::memcpy(&v, src + 2 * r, 2);
            mvm_in_[r] = v;
          }
        }
        CoreFault f;
        // A crossbar writes its lcols results; in `sum` mode every crossbar
        // after the first writes to a scratch row that is then added.
        const bool add = !concat && k > 0;
        if (add) mvm_part_.assign(id_.lcols, 0);
        MvmRequest req{xb + bit, mvm_in_.data(), ib,
                       add ? mvm_part_.data() : mvm_acc_.data() + (concat ? k * id_.lcols : 0)};
        // Crossbars of a group fire in parallel: the group takes as long as one.
        xbar_latency = std::max(xbar_latency, env.mvm(req, f));
        if (f.set) return fault(f.message);
        if (add)
          for (uint32_t i = 0; i < id_.lcols; ++i) mvm_acc_[i] += mvm_part_[i];
        ++k;
      }
      const int64_t hi = ob == 32 ? std::numeric_limits<int32_t>::max() : (int64_t{1} << (ob - 1)) - 1;
      const int64_t lo = -hi - 1;
      for (uint64_t i = 0; i < out_elems; ++i) {
        int64_t v = mvm_acc_[i];
        if (acc) v += spad_.load32(out_addr + 4 * i);
        spad_.store32(out_addr + 4 * i, static_cast<int32_t>(std::clamp(v, lo, hi)));
      }
      // Summing the partial results of a row-split group costs one pass of
      // the vector lanes per extra crossbar.
      const uint64_t merge = (!concat && nx > 1) ? (nx - 1) * ((id_.lcols + timing_.vector_lanes - 1) / timing_.vector_lanes) : 0;
      latency = xbar_latency + merge;
      stats_.mvm_instructions++;
      stats_.xbar_activations += nx;
      stats_.mvm_macs += uint64_t{nx} * id_.rows * id_.lcols;
      break;
    }
    case Opcode::XPROG:
    case Opcode::XREAD: {
      const uint64_t addr = R(0);
      const bool prog = in.opcode == Opcode::XPROG;
      if (!check_range(addr, id_.cols, prog ? "xprog reads" : "xread writes")) return;
      (prog ? rd[nrd++] : wr[nwr++]) = {addr, addr + id_.cols};
      start = std::max(start, sb_.memory_ready(rd, nrd, wr, nwr));
      CoreFault f;
      latency = prog ? env.program_row(R(1), R(2), spad_.at(addr), start, f)
                     : env.read_row(R(1), R(2), spad_.at(addr), start, f);
      if (f.set) return fault(f.message);
      (prog ? stats_.rows_programmed : stats_.rows_read)++;
      break;
    }
    case Opcode::XSTAT: {
      const ProgramStatus st = env.last_program_status();
      const uint64_t v = op[1] == 0 ? st.pulses : op[1] == 1 ? st.failed : st.rounds;
      set_rd(0, static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX)));
      latency = timing_.alu_cycles;
      break;
    }
    // ---- vector ---------------------------------------------------------------
    case Opcode::VADD: case Opcode::VSUB: case Opcode::VMUL: case Opcode::VMAX: case Opcode::VMIN:
    case Opcode::VADDS: case Opcode::VMULS: case Opcode::VRELU: case Opcode::VCLAMP: case Opcode::VMOV:
    case Opcode::VWIDEN: case Opcode::VRQ: case Opcode::VRQS: case Opcode::VPMAX: case Opcode::VPSUM:
    case Opcode::VLUT: case Opcode::VFILL: case Opcode::VSRA:
      exec_vector(in, latency, rd, nrd, wr, nwr);
      if (state_ != CoreState::Running) return;
      break;
    // ---- NoC and sync -----------------------------------------------------------
    case Opcode::SEND:
    case Opcode::RECV: {
      const bool send = in.opcode == Opcode::SEND;
      const uint64_t addr = R(0), n = R(1);
      const uint32_t peer = R(2), tag = static_cast<uint32_t>(op[3]);
      if (!check_range(addr, n, send ? "send reads" : "recv writes")) return;
      (send ? rd[nrd++] : wr[nwr++]) = {addr, addr + n};
      start = std::max(start, sb_.memory_ready(rd, nrd, wr, nwr));
      CoreFault f;
      if (send) {
        explicit_end = env.send(peer, tag, spad_.at(addr), n, start, f);
        stats_.noc_bytes_sent += n;
      } else {
        waiting_for_ = "recv from core " + std::to_string(peer) + " tag " + std::to_string(tag);
        explicit_end = env.recv(peer, tag, spad_.at(addr), n, start, f);
        waiting_for_.clear();
      }
      if (f.set) return fault(f.message);
      has_explicit_end = true;
      break;
    }
    case Opcode::BAR: {
      CoreFault f;
      waiting_for_ = "barrier " + std::to_string(op[0]) + " (" + std::to_string(op[1]) + " cores)";
      explicit_end = env.barrier(static_cast<uint32_t>(op[0]), static_cast<uint32_t>(op[1]), start, f);
      waiting_for_.clear();
      if (f.set) return fault(f.message);
      has_explicit_end = true;
      break;
    }
    case Opcode::WAIT: {
      static constexpr Unit kUnits[] = {Unit::Crossbar, Unit::Vector, Unit::Dma, Unit::Noc};
      for (int b = 0; b < 4; ++b)
        if (op[0] >> b & 1) start = std::max(start, sb_.unit_free(kUnits[b]));
      break;
    }
    // ---- control --------------------------------------------------------------------
    case Opcode::LAYER: layer_ = static_cast<int32_t>(op[0]); break;
    case Opcode::HALT: start = std::max(start, sb_.all_units_idle()); break;
    case Opcode::TRAP: start = std::max(start, sb_.all_units_idle()); break;
    case Opcode::CLOAD:
    case Opcode::CSTART:
    case Opcode::CWAIT:
    case Opcode::CSTAT: {
      if (!id_.is_control())
        return fault(std::string(info.mnemonic) + " runs on the control processor, not on a compute unit");
      CoreFault f;
      if (in.opcode == Opcode::CLOAD) {
        explicit_end = env.load_core(R(0), R(1), R(2), start, f);
      } else if (in.opcode == Opcode::CSTART) {
        explicit_end = env.start_core(R(0), R(1), start, f);
      } else if (in.opcode == Opcode::CWAIT) {
        waiting_for_ = "core " + std::to_string(R(0)) + " to halt";
        explicit_end = env.wait_core(R(0), start, f);
        waiting_for_.clear();
      } else {
        set_rd(0, env.core_state(R(1), f));
        explicit_end = start + timing_.alu_cycles;
      }
      if (f.set) return fault(f.message);
      has_explicit_end = true;
      break;
    }
  }

  if (branch) latency = timing_.branch_cycles;
  if (nrd || nwr) {
    if (!has_explicit_end && in.opcode != Opcode::XPROG && in.opcode != Opcode::XREAD)
      start = std::max(start, sb_.memory_ready(rd, nrd, wr, nwr));
  }
  const uint64_t end = has_explicit_end ? std::max(explicit_end, start) : start + latency;

  sb_.occupy(unit, end);
  if (nrd || nwr) sb_.record(rd, nrd, wr, nwr, end);
  if (wrote_reg && dst_reg != 0) {
    regs_[static_cast<size_t>(dst_reg)] = dst_val;
    sb_.set_reg_ready(dst_reg, end);
  }
  stats_.instructions++;
  stats_.unit_busy[static_cast<size_t>(unit)] += end - start;
  stats_.unit_insts[static_cast<size_t>(unit)]++;
  if (unit == Unit::Scalar) stats_.scalar_ops++;
  stats_.last_cycle = std::max(stats_.last_cycle, end);

  if (trace) trace->retire(id_, RetireEvent{&in, &info, pc_, start, end, layer_});

  // In-order issue: the next instruction issues one slot later, or after a
  // branch resolves (no prediction).
  issue_ = branch ? end : start + timing_.issue_cycles;
  sb_.retire_before(issue_);
  pc_ = next_pc;
  if (in.opcode == Opcode::HALT) {
    state_ = CoreState::Halted;
    end_cycle_ = end;
  } else if (in.opcode == Opcode::TRAP) {
    state_ = CoreState::Trapped;
    trap_code_ = static_cast<uint32_t>(op[0]);
    end_cycle_ = end;
  }
}

}  // namespace vp::hw
