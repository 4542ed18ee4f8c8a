// Random but valid programs: several cores, labels, forward and backward
// branches, every instruction with random operands (edge values included),
// data segments in every space, cell programs, metadata.
#pragma once

#include <random>
#include <set>
#include <string>

#include "vp/isa/isa.h"

namespace vp_test {

inline int64_t random_operand(const vp::isa::Field& f, std::mt19937_64& rng) {
  const int64_t lo = f.min_value(), hi = f.max_value();
  switch (rng() % 4) {
    case 0: return lo;
    case 1: return hi;
    default: return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  }
}

// One instruction as text, operands spelled in the assembler's syntax (not
// necessarily as the disassembler would: hex, expressions, labels).
inline std::string random_instruction(const vp::isa::InstrInfo& in, std::mt19937_64& rng, int labels,
                                      const std::string& prefix = "L") {
  using vp::isa::FieldKind;
  std::string s = in.mnemonic;
  for (size_t i = 0; i < in.fields.size(); ++i) {
    const auto& f = in.fields[i];
    s += i ? ", " : " ";
    if (vp::isa::is_register(f.kind)) {
      const int64_t r = static_cast<int64_t>(rng() % 32);
      s += r == 0 && rng() % 2 ? "zero" : "r" + std::to_string(r);
    } else if (f.kind == FieldKind::Enum) {
      s += f.enums->values[rng() % f.enums->values.size()].name;
    } else if (f.kind == FieldKind::Target && labels > 0 && rng() % 3) {
      s += prefix + std::to_string(rng() % static_cast<uint64_t>(labels));
    } else {
      const int64_t v = random_operand(f, rng);
      switch (rng() % 4) {
        case 0: {
          char buf[32];
          std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v < 0 ? static_cast<uint64_t>(v) & ((uint64_t{1} << f.width) - 1) : static_cast<uint64_t>(v)));
          // a negative value spelled in hex is only valid for 32-bit fields (unsigned spelling)
          s += v < 0 && f.width != 32 ? std::to_string(v) : buf;
          break;
        }
        case 1: s += "(" + std::to_string(v) + " + 1) - 1"; break;
        default: s += std::to_string(v); break;
      }
    }
  }
  return s;
}

inline std::string random_program(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto& all = vp::isa::instructions();
  std::string src = "; random program " + std::to_string(seed) + "\n.equ BASE, 0x100\n";
  if (rng() % 2) src += ".chip cell_bits=2, rows=" + std::to_string(64 + rng() % 200) + "\n";
  if (rng() % 2) src += ".layer " + std::to_string(rng() % 100) + ", \"layer \\\"x\\\"\"\n";
  const int ncores = 1 + static_cast<int>(rng() % 4);
  std::set<std::string> entered;
  for (int c = 0; c < ncores; ++c) {
    const std::string core =
        c == 0 && rng() % 2 ? ".cp\n" : ".core " + std::to_string(rng() % 3) + ", " + std::to_string(rng() % 4) + "\n";
    src += core;
    const std::string prefix = "L" + std::to_string(c) + "_";
    const int n = 1 + static_cast<int>(rng() % 40);
    const int labels = 1 + static_cast<int>(rng() % 5);
    // Labels L0..L(labels-1) land at random instruction indices (a core may
    // be reopened; labels are only defined the first time).
    std::string body;
    std::vector<int> at(static_cast<size_t>(labels));
    for (auto& a : at) a = static_cast<int>(rng() % static_cast<uint64_t>(n));
    for (int i = 0; i < n; ++i) {
      for (int l = 0; l < labels; ++l)
        if (at[static_cast<size_t>(l)] == i) body += prefix + std::to_string(l) + ":\n";
      body += "    " + random_instruction(all[rng() % all.size()], rng, labels, prefix) + "\n";
    }
    src += "C" + std::to_string(c) + "_start:\n" + body;
    if (rng() % 2 && entered.insert(core).second) src += ".entry " + prefix + "0\n";
    src += "C" + std::to_string(c) + "_end:\n";
    if (rng() % 2) {
      src += ".data local, BASE + " + std::to_string(rng() % 64) + "\n    .word " + std::to_string(rng() % 1000) + ", -1\n";
      src += ".text\n    halt\n";
    }
  }
  const int nseg = static_cast<int>(rng() % 3);
  for (int d = 0; d < nseg; ++d) {
    src += rng() % 2 ? ".data global, " + std::to_string(rng() % 100000) + "\n" : ".data sram, 1, 0x40\n";
    src += "    .byte 1, 2, 255\n    .half -2\n    .align 8\n    .dword " + std::to_string(static_cast<int64_t>(rng())) + "\n";
    src += "    .ascii \"text\"\n    .space " + std::to_string(rng() % 20) + ", 0xAA\n";
  }
  const int ncells = static_cast<int>(rng() % 3);
  for (int x = 0; x < ncells; ++x) {
    const int rows = 1 + static_cast<int>(rng() % 5), cols = 1 + static_cast<int>(rng() % 7);
    src += ".xbar 0, " + std::to_string(rng() % 4) + ", " + std::to_string(rng() % 16) + ", " +
           std::to_string(rng() % 64) + ", " + std::to_string(rng() % 64) + ", " + std::to_string(rows) + ", " +
           std::to_string(cols) + "\n";
    for (int r = 0; r < rows; ++r) {
      src += "    .byte ";
      for (int k = 0; k < cols; ++k) src += (k ? ", " : "") + std::to_string(rng() % 4);
      src += "\n";
    }
  }
  return src;
}

}  // namespace vp_test
