// The instruction set as data: the table in instructions.def parsed once into
// typed descriptors, plus the encoder, decoder and disassembler built on them.
#pragma once

#include <array>
#include <cstdint>
#include <cstddef>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vp::isa {

// The unit of a compute unit (or the control processor) that executes an
// instruction; the CU's scoreboard tracks one busy-until time per unit.
enum class Unit : uint8_t {
#define VP_UNIT(NAME, TRACE_NAME, WAIT_BIT) NAME,
#include "vp/isa/units.def"
};
inline constexpr int kUnitCount = 0
#define VP_UNIT(NAME, TRACE_NAME, WAIT_BIT) +1
#include "vp/isa/units.def"
    ;
// The unit's name in traces and listings ("xbar", "dma", ...).
constexpr std::string_view unit_name(Unit u) {
  constexpr std::string_view kNames[] = {
#define VP_UNIT(NAME, TRACE_NAME, WAIT_BIT) TRACE_NAME,
#include "vp/isa/units.def"
  };
  const auto k = static_cast<size_t>(u);
  return k < std::size(kNames) ? kNames[k] : std::string_view("?");
}
// The unit's bit in the `wait` instruction's mask; 0 when it has none.
constexpr uint32_t wait_bit(Unit u) {
  constexpr uint32_t kBits[] = {
#define VP_UNIT(NAME, TRACE_NAME, WAIT_BIT) WAIT_BIT,
#include "vp/isa/units.def"
  };
  const auto k = static_cast<size_t>(u);
  return k < std::size(kBits) ? kBits[k] : 0;
}

enum class Opcode : uint8_t {
#define VP_INST(NAME, CODE, MNEM, UNIT, FIELDS, TIMING, SEM) NAME = CODE,
#include "vp/isa/instructions.def"
};

enum class FieldKind : uint8_t {
  RegWrite,    // W
  RegRead,     // R
  RegReadWrite,// X
  SignedImm,   // i
  UnsignedImm, // u
  Target,      // t
  Xbar,        // x
  Mask,        // m
  Enum,        // e
};
std::string_view field_kind_name(FieldKind k);
inline bool is_register(FieldKind k) {
  return k == FieldKind::RegWrite || k == FieldKind::RegRead || k == FieldKind::RegReadWrite;
}

struct EnumValue {
  uint32_t value;
  std::string name;
  std::string meaning;
};

struct EnumSet {
  std::string name;
  std::vector<EnumValue> values;
  const EnumValue* by_name(std::string_view n) const;
  const EnumValue* by_value(uint64_t v) const;
};

struct Field {
  std::string name;
  FieldKind kind;
  uint8_t width;         // bits in the encoding
  uint8_t shift;         // position of the field's least significant bit
  const EnumSet* enums;  // for FieldKind::Enum
  // Range the assembler accepts. Signed 32-bit immediates also accept
  // [2^31, 2^32) so addresses and masks can be written as unsigned numbers;
  // they are stored as the same 32 bits.
  int64_t min_value() const;
  int64_t max_value() const;
};

inline constexpr int kMaxFields = 8;
inline constexpr int kOpcodeShift = 56;
inline constexpr int kRegisterCount = 32;

struct InstrInfo {
  Opcode opcode;
  std::string mnemonic;
  Unit unit;
  std::vector<Field> fields;
  std::string timing_param;  // name of the parameter that prices it
  std::string semantics;     // one line, as in docs/isa.md
  uint64_t reserved_mask;    // bits that must be zero
  std::string name;          // its Opcode enumerator ("DMA_GL")
};

// Every instruction in opcode order; built once from instructions.def.
const std::vector<InstrInfo>& instructions();
const std::vector<EnumSet>& enum_sets();
const InstrInfo* find(Opcode op);
const InstrInfo* find(uint8_t code);
const InstrInfo* find(std::string_view mnemonic);

// A decoded instruction: the opcode and the raw value of each field, in the
// table's field order (signed fields sign-extended).
struct Instruction {
  Opcode opcode = Opcode::NOP;
  std::array<int64_t, kMaxFields> operand{};
  const InstrInfo& info() const;
  int64_t field(std::string_view name) const;  // throws std::out_of_range if absent
};

// Packs the operands; values must be within each field's range (the assembler
// checks and reports first; here a violation throws std::invalid_argument).
uint64_t encode(const Instruction& inst);

// Unpacks a word; std::nullopt for an unknown opcode, an out-of-set enum or
// nonzero reserved bits, with the reason in *why when given.
std::optional<Instruction> decode(uint64_t word, std::string* why = nullptr);

// Disassembles into the syntax vp-as reads back. `label_for` may name branch
// targets; when it returns an empty string the numeric index is printed.
using LabelLookup = std::function<std::string(uint32_t target)>;
std::string disassemble(const Instruction& inst, const LabelLookup& label_for = {});

// Markdown reference of the whole set (docs/isa.md is this text).
std::string reference_markdown();

// C++ header of named operand accessors, one struct per instruction and one
// enum per set of named choices (`vp-isa --operands-header`; the simulator's
// executors are compiled against it).
std::string operands_header();

}  // namespace vp::isa
