// Disassembly in exactly the syntax the assembler reads: registers as rN,
// choices by name, numbers in decimal (masks in hex, which is how people
// read them), branch targets by label when the caller knows one.
#include <cstdio>

#include "vp/isa/isa.h"

namespace vp::isa {

std::string disassemble(const Instruction& inst, const LabelLookup& label_for) {
  const InstrInfo& info = inst.info();
  std::string out = info.mnemonic;
  for (size_t i = 0; i < info.fields.size(); ++i) {
    const Field& f = info.fields[i];
    const int64_t v = inst.operand[i];
    out += i == 0 ? " " : ", ";
    char buf[32];
    switch (f.kind) {
      case FieldKind::RegWrite:
      case FieldKind::RegRead:
      case FieldKind::RegReadWrite:
        std::snprintf(buf, sizeof buf, "r%lld", static_cast<long long>(v));
        out += buf;
        break;
      case FieldKind::Enum: out += f.enums->by_value(static_cast<uint64_t>(v))->name; break;
      case FieldKind::Mask:
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
        out += buf;
        break;
      case FieldKind::Target: {
        std::string label = label_for ? label_for(static_cast<uint32_t>(v)) : std::string();
        out += label.empty() ? std::to_string(v) : label;
        break;
      }
      default: out += std::to_string(v); break;
    }
  }
  return out;
}

}  // namespace vp::isa
