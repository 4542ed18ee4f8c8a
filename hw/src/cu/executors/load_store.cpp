// Scalar loads and stores on the scratchpad (for the control processor: its
// data memory). Addresses wrap at 32 bits like the registers they come from.
#include "executors/issue.h"

namespace vp::hw {
namespace {

uint64_t address(Issue& is, uint8_t base, int32_t off) {
  return static_cast<uint32_t>(is.reg(base) + static_cast<uint32_t>(off));
}

}  // namespace

void exec_LD(Issue& is, const isa::ops::LD& o) {
  const uint64_t a = address(is, o.rs1, o.off);
  if (!is.reads(a, 4, "ld reads")) return;
  is.write(o.rd, static_cast<uint32_t>(is.spad().load32(a)));
}

void exec_LDB(Issue& is, const isa::ops::LDB& o) {
  const uint64_t a = address(is, o.rs1, o.off);
  if (!is.reads(a, 1, "ld reads")) return;
  is.write(o.rd, static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(*is.spad().at(a)))));
}

void exec_ST(Issue& is, const isa::ops::ST& o) {
  const uint64_t a = address(is, o.rs1, o.off);
  if (!is.writes(a, 4, "st writes")) return;
  is.spad().store32(a, is.sreg(o.rs2));
}

void exec_STB(Issue& is, const isa::ops::STB& o) {
  const uint64_t a = address(is, o.rs1, o.off);
  if (!is.writes(a, 1, "st writes")) return;
  *is.spad().at(a) = static_cast<uint8_t>(is.reg(o.rs2));
}

}  // namespace vp::hw
