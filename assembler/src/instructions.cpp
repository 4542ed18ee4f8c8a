#include "instructions.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "vp/isa/isa.h"

namespace vp::as::detail {
namespace {

using vp::isa::Field;
using vp::isa::FieldKind;
using vp::isa::InstrInfo;

const std::unordered_map<std::string_view, const InstrInfo*>& mnemonic_table() {
  static const auto table = [] {
    std::unordered_map<std::string_view, const InstrInfo*> m;
    for (const auto& in : vp::isa::instructions()) m.emplace(in.mnemonic, &in);
    return m;
  }();
  return table;
}

// Mnemonics are case-insensitive; the table holds them in lower case.
const InstrInfo* find_mnemonic(std::string_view word) {
  char low[32];
  if (word.size() >= sizeof low) return nullptr;
  for (size_t i = 0; i < word.size(); ++i) low[i] = lower(word[i]);
  const auto& t = mnemonic_table();
  auto it = t.find(std::string_view(low, word.size()));
  return it == t.end() ? nullptr : it->second;
}

std::string operand_names(const InstrInfo& in) {
  std::string s;
  for (size_t i = 0; i < in.fields.size(); ++i) s += (i ? ", " : "") + in.fields[i].name;
  return s;
}

// r0..r31 in any case (no leading zeros), or zero for r0.
bool parse_register(std::string_view t, int64_t* v) {
  if (t.size() == 4 && iequals(t, "zero")) {
    *v = 0;
    return true;
  }
  if (t.size() < 2 || t.size() > 3 || lower(t[0]) != 'r') return false;
  int n = 0;
  for (size_t i = 1; i < t.size(); ++i) {
    if (!is_digit(t[i])) return false;
    n = n * 10 + (t[i] - '0');
  }
  if (t.size() == 3 && t[1] == '0') return false;  // no r05
  if (n >= vp::isa::kRegisterCount) return false;
  *v = n;
  return true;
}

// One of the names of the field's set, in any case.
const vp::isa::EnumValue* parse_choice(const Field& f, std::string_view t) {
  char buf[32];
  if (t.size() >= sizeof buf) return nullptr;
  for (size_t k = 0; k < t.size(); ++k) buf[k] = lower(t[k]);
  return f.enums->by_name(std::string_view(buf, t.size()));
}

bool in_text(Assembly& a, std::string_view word, const char* at) {
  if (a.program.current_core() < 0) {
    a.error_at(at, "instruction " + quote(word) + " outside a code section (start one with .core CLUSTER, CU or .cp)");
    return false;
  }
  if (a.program.mode() != Mode::Text) {
    a.error_at(at, "instruction " + quote(word) + " inside a " +
                       (a.program.mode() == Mode::Xbar ? "cell program" : "data") +
                       " section (write .text to return to the code of core " +
                       core_name(a.program.core(a.program.current_core()).id) + ")");
    return false;
  }
  return true;
}

}  // namespace

void assemble_instruction(Assembly& a, std::string_view word, const char* at, const char* p, const char* e) {
  const InstrInfo* info = find_mnemonic(word);
  if (!info) {
    std::vector<std::string_view> names;
    for (const auto& in : vp::isa::instructions()) names.push_back(in.mnemonic);
    a.error_at(at, "unknown instruction " + quote(word) + did_you_mean(word, names));
    return;
  }
  if (!in_text(a, word, at) || !a.split(p, e)) return;
  const auto& fields = info->fields;
  const std::vector<Operand>& ops = a.ops;
  if (ops.size() != fields.size()) {
    a.error_at(ops.empty() ? at : ops[0].at,
               quote(info->mnemonic) + " takes " + std::to_string(fields.size()) + " operand" +
                   (fields.size() == 1 ? "" : "s") + (fields.empty() ? "" : " (" + operand_names(*info) + ")") +
                   ", got " + std::to_string(ops.size()));
    return;
  }
  const int cur = a.program.current_core();
  CoreBuild& core = a.program.core(cur);
  uint64_t w = uint64_t{static_cast<uint8_t>(info->opcode)} << vp::isa::kOpcodeShift;
  const uint32_t index = static_cast<uint32_t>(core.words.size());
  bool ok = true;
  for (size_t i = 0; i < fields.size(); ++i) {
    const Field& f = fields[i];
    const Operand& o = ops[i];
    int64_t v = 0;
    if (vp::isa::is_register(f.kind)) {
      if (!parse_register(o.text, &v)) {
        a.error_at(o.at, "expected register r0..r31 for operand '" + f.name + "' of '" + info->mnemonic + "', got " +
                             quote(o.text));
        ok = false;
        continue;
      }
    } else if (f.kind == FieldKind::Enum) {
      const vp::isa::EnumValue* ev = parse_choice(f, o.text);
      if (!ev) {
        std::string choices;
        for (const auto& x : f.enums->values) choices += (choices.empty() ? "" : ", ") + x.name;
        a.error_at(o.at, "expected one of " + choices + " for operand '" + f.name + "' of '" + info->mnemonic +
                             "', got " + quote(o.text));
        ok = false;
        continue;
      }
      v = ev->value;
    } else {
      const Ev r = a.eval(o.at, o.at + o.text.size(), &v);
      if (r == Ev::Error) {
        ok = false;
        continue;
      }
      if (r == Ev::Unresolved) {
        Fixup fx;
        fx.kind = Fixup::Field;
        fx.core = cur;
        fx.index = index;
        fx.info = info;
        fx.field = static_cast<uint8_t>(i);
        fx.b = o.at;
        fx.e = o.at + o.text.size();
        fx.line = a.line;
        a.fixups.add(fx);
        continue;
      }
      const std::string bad = field_range_error(f, *info, v, o.text);
      if (!bad.empty()) {
        a.error_at(o.at, bad);
        ok = false;
        continue;
      }
    }
    w |= (static_cast<uint64_t>(v) & ((uint64_t{1} << f.width) - 1)) << f.shift;
  }
  // Keep indices stable for later labels; drop fix-ups of this word.
  if (!ok) a.fixups.drop_fields_of(cur, index);
  core.words.push_back(w);
  if (a.opt.listing) a.listing.record(cur, index, a.line.loc);
}

}  // namespace vp::as::detail
