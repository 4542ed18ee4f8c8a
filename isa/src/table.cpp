// Builds the typed instruction table from instructions.def. The field strings
// are parsed once at first use; any inconsistency in the table (overlapping
// opcodes, too many bits, unknown enum set) aborts loudly at start-up rather
// than encoding silently wrong words.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>

#include "vp/isa/isa.h"

namespace vp::isa {
namespace {

struct RawInst {
  Opcode op;
  const char* name;
  const char* mnemonic;
  Unit unit;
  const char* fields;
  const char* timing;
  const char* semantics;
};

struct RawEnum {
  const char* set;
  uint32_t value;
  const char* name;
  const char* meaning;
};

constexpr RawInst kRaw[] = {
#define VP_INST(NAME, CODE, MNEM, UNIT, FIELDS, TIMING, SEM) \
  {Opcode::NAME, #NAME, MNEM, Unit::UNIT, FIELDS, TIMING, SEM},
#include "vp/isa/instructions.def"
};

constexpr RawEnum kRawEnums[] = {
#define VP_ENUM(SET, VALUE, NAME, MEANING) {#SET, VALUE, NAME, MEANING},
#include "vp/isa/instructions.def"
};

[[noreturn]] void table_error(const std::string& what) {
  std::fprintf(stderr, "vp isa table: %s\n", what.c_str());
  std::abort();
}

struct Tables {
  std::vector<EnumSet> enums;
  std::vector<InstrInfo> insts;
  std::array<int, 256> by_code;
  std::map<std::string, int, std::less<>> by_mnemonic;

  Tables() {
    by_code.fill(-1);
    for (const RawEnum& e : kRawEnums) {
      EnumSet* set = nullptr;
      for (auto& s : enums)
        if (s.name == e.set) set = &s;
      if (!set) {
        enums.push_back(EnumSet{e.set, {}});
        set = &enums.back();
      }
      if (set->by_value(e.value) || set->by_name(e.name))
        table_error(std::string("duplicate enum value in set ") + e.set);
      set->values.push_back(EnumValue{e.value, e.name, e.meaning});
    }
    insts.reserve(std::size(kRaw));
    for (const RawInst& r : kRaw) insts.push_back(parse(r));
    for (size_t i = 0; i < insts.size(); ++i) {
      const auto code = static_cast<uint8_t>(insts[i].opcode);
      if (by_code[code] != -1) table_error("opcode used twice: " + insts[i].mnemonic);
      by_code[code] = static_cast<int>(i);
      if (!by_mnemonic.emplace(insts[i].mnemonic, static_cast<int>(i)).second)
        table_error("mnemonic used twice: " + insts[i].mnemonic);
    }
  }

  const EnumSet* enum_set(std::string_view name) const {
    for (const auto& s : enums)
      if (s.name == name) return &s;
    return nullptr;
  }

  InstrInfo parse(const RawInst& r) {
    InstrInfo info{r.op, r.mnemonic, r.unit, {}, r.timing, r.semantics, 0, r.name};
    std::string_view spec = r.fields;
    int next_bit = kOpcodeShift;  // fields fill downwards from bit 55
    while (!spec.empty()) {
      while (!spec.empty() && spec.front() == ' ') spec.remove_prefix(1);
      if (spec.empty()) break;
      size_t end = spec.find(' ');
      std::string_view tok = spec.substr(0, end);
      spec = end == std::string_view::npos ? std::string_view{} : spec.substr(end);
      const size_t colon = tok.find(':');
      if (colon == std::string_view::npos || colon + 2 > tok.size())
        table_error(info.mnemonic + ": bad field spec " + std::string(tok));
      Field f{};
      f.name = std::string(tok.substr(0, colon));
      const char kind = tok[colon + 1];
      std::string_view rest = tok.substr(colon + 2);
      std::string_view set_name;
      if (const size_t eq = rest.find('='); eq != std::string_view::npos) {
        set_name = rest.substr(eq + 1);
        rest = rest.substr(0, eq);
      }
      int width = 0;
      for (char c : rest) {
        if (c < '0' || c > '9') table_error(info.mnemonic + ": bad width in " + std::string(tok));
        width = width * 10 + (c - '0');
      }
      switch (kind) {
        case 'W': f.kind = FieldKind::RegWrite; break;
        case 'R': f.kind = FieldKind::RegRead; break;
        case 'X': f.kind = FieldKind::RegReadWrite; break;
        case 'i': f.kind = FieldKind::SignedImm; break;
        case 'u': f.kind = FieldKind::UnsignedImm; break;
        case 't': f.kind = FieldKind::Target; break;
        case 'x': f.kind = FieldKind::Xbar; break;
        case 'm': f.kind = FieldKind::Mask; break;
        case 'e': f.kind = FieldKind::Enum; break;
        default: table_error(info.mnemonic + ": unknown field kind in " + std::string(tok));
      }
      if (is_register(f.kind) && width != 5) table_error(info.mnemonic + ": registers are 5 bits");
      if (f.kind == FieldKind::Enum) {
        f.enums = enum_set(set_name);
        if (!f.enums) table_error(info.mnemonic + ": unknown enum set " + std::string(set_name));
        for (const auto& v : f.enums->values)
          if (v.value >> width) table_error(info.mnemonic + ": enum value too wide");
      } else if (!set_name.empty()) {
        table_error(info.mnemonic + ": only e fields name an enum set");
      }
      if (width <= 0 || width > 32) table_error(info.mnemonic + ": field width out of 1..32");
      next_bit -= width;
      if (next_bit < 0) table_error(info.mnemonic + ": fields exceed 56 bits");
      f.width = static_cast<uint8_t>(width);
      f.shift = static_cast<uint8_t>(next_bit);
      for (const auto& other : info.fields)
        if (other.name == f.name) table_error(info.mnemonic + ": field named twice: " + f.name);
      info.fields.push_back(f);
      if (info.fields.size() > kMaxFields) table_error(info.mnemonic + ": too many fields");
    }
    info.reserved_mask = next_bit == 0 ? 0 : ((uint64_t{1} << next_bit) - 1);
    return info;
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

std::string_view field_kind_name(FieldKind k) {
  switch (k) {
    case FieldKind::RegWrite: return "register (written)";
    case FieldKind::RegRead: return "register";
    case FieldKind::RegReadWrite: return "register (read, written)";
    case FieldKind::SignedImm: return "signed immediate";
    case FieldKind::UnsignedImm: return "unsigned immediate";
    case FieldKind::Target: return "branch target";
    case FieldKind::Xbar: return "crossbar index";
    case FieldKind::Mask: return "mask";
    case FieldKind::Enum: return "choice";
  }
  return "?";
}

const EnumValue* EnumSet::by_name(std::string_view n) const {
  for (const auto& v : values)
    if (v.name == n) return &v;
  return nullptr;
}

const EnumValue* EnumSet::by_value(uint64_t v) const {
  for (const auto& e : values)
    if (e.value == v) return &e;
  return nullptr;
}

int64_t Field::min_value() const {
  if (kind == FieldKind::SignedImm) return -(int64_t{1} << (width - 1));
  if (kind == FieldKind::Enum) {
    int64_t lo = INT64_MAX;
    for (const auto& v : enums->values) lo = std::min<int64_t>(lo, v.value);
    return lo;
  }
  return 0;
}

int64_t Field::max_value() const {
  if (kind == FieldKind::SignedImm)
    return width == 32 ? (int64_t{1} << 32) - 1 : (int64_t{1} << (width - 1)) - 1;
  if (is_register(kind)) return kRegisterCount - 1;
  if (kind == FieldKind::Enum) {
    int64_t hi = 0;
    for (const auto& v : enums->values) hi = std::max<int64_t>(hi, v.value);
    return hi;
  }
  return (int64_t{1} << width) - 1;
}

const std::vector<InstrInfo>& instructions() { return tables().insts; }
const std::vector<EnumSet>& enum_sets() { return tables().enums; }

const InstrInfo* find(uint8_t code) {
  const int i = tables().by_code[code];
  return i < 0 ? nullptr : &tables().insts[static_cast<size_t>(i)];
}

const InstrInfo* find(Opcode op) { return find(static_cast<uint8_t>(op)); }

const InstrInfo* find(std::string_view mnemonic) {
  const auto& m = tables().by_mnemonic;
  auto it = m.find(mnemonic);
  return it == m.end() ? nullptr : &tables().insts[static_cast<size_t>(it->second)];
}

const InstrInfo& Instruction::info() const {
  const InstrInfo* i = find(opcode);
  if (!i) throw std::invalid_argument("unknown opcode");
  return *i;
}

int64_t Instruction::field(std::string_view name) const {
  const InstrInfo& in = info();
  for (size_t i = 0; i < in.fields.size(); ++i)
    if (in.fields[i].name == name) return operand[i];
  throw std::out_of_range(in.mnemonic + " has no field " + std::string(name));
}

}  // namespace vp::isa
