// Encoder and decoder: pure bit packing driven by the field table. The
// decoder is strict (unknown opcodes, out-of-set choices and stray reserved
// bits are rejected) so that every valid word has exactly one spelling and
// disassemble -> assemble reproduces the same bytes.
#include <stdexcept>

#include "vp/isa/isa.h"

namespace vp::isa {

uint64_t encode(const Instruction& inst) {
  const InstrInfo* info = find(inst.opcode);
  if (!info) throw std::invalid_argument("encode: unknown opcode");
  uint64_t word = uint64_t{static_cast<uint8_t>(inst.opcode)} << kOpcodeShift;
  for (size_t i = 0; i < info->fields.size(); ++i) {
    const Field& f = info->fields[i];
    const int64_t v = inst.operand[i];
    if (v < f.min_value() || v > f.max_value())
      throw std::invalid_argument(info->mnemonic + ": operand " + f.name + " out of range");
    if (f.kind == FieldKind::Enum && !f.enums->by_value(static_cast<uint64_t>(v)))
      throw std::invalid_argument(info->mnemonic + ": operand " + f.name + " not a known choice");
    const uint64_t mask = (uint64_t{1} << f.width) - 1;
    word |= (static_cast<uint64_t>(v) & mask) << f.shift;
  }
  return word;
}

std::optional<Instruction> decode(uint64_t word, std::string* why) {
  const auto code = static_cast<uint8_t>(word >> kOpcodeShift);
  const InstrInfo* info = find(code);
  auto fail = [&](const std::string& reason) -> std::optional<Instruction> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (!info) return fail("unknown opcode " + std::to_string(code));
  if (word & info->reserved_mask) return fail(info->mnemonic + ": reserved bits set");
  Instruction inst;
  inst.opcode = info->opcode;
  for (size_t i = 0; i < info->fields.size(); ++i) {
    const Field& f = info->fields[i];
    const uint64_t mask = (uint64_t{1} << f.width) - 1;
    uint64_t raw = (word >> f.shift) & mask;
    int64_t v = static_cast<int64_t>(raw);
    if (f.kind == FieldKind::SignedImm && (raw >> (f.width - 1)) & 1)
      v = static_cast<int64_t>(raw | ~mask);
    if (f.kind == FieldKind::Enum && !f.enums->by_value(raw))
      return fail(info->mnemonic + ": field " + f.name + " holds no " + f.enums->name + " value");
    inst.operand[i] = v;
  }
  return inst;
}

}  // namespace vp::isa
