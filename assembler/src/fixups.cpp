#include "fixups.h"

#include "lexer.h"

namespace vp::as::detail {

std::string field_range_error(const vp::isa::Field& f, const vp::isa::InstrInfo& info, int64_t v,
                              std::string_view text) {
  if (v >= f.min_value() && v <= f.max_value()) return {};
  const char* what = f.kind == vp::isa::FieldKind::Target ? "branch target " : "immediate ";
  std::string msg = what + std::to_string(v);
  if (trim(text) != std::to_string(v)) msg += " (" + quote(trim(text)) + ")";
  msg += " out of range for operand '" + f.name + "' of '" + info.mnemonic + "' (expected " +
         std::to_string(f.min_value()) + ".." + std::to_string(f.max_value()) + ")";
  return msg;
}

void Fixups::drop_fields_of(int core, uint32_t index) {
  while (!list_.empty() && list_.back().kind == Fixup::Field && list_.back().core == core &&
         list_.back().index == index)
    list_.pop_back();
}

void Fixups::resolve(Evaluator& expr, Program& program, Diagnostics& diag) const {
  for (const Fixup& fx : list_) {
    int64_t v = 0;
    if (expr.eval(fx.line, fx.b, fx.e, fx.core, &v) != Ev::Ok) continue;
    switch (fx.kind) {
      case Fixup::Field: {
        const vp::isa::Field& f = fx.info->fields[fx.field];
        const std::string bad = field_range_error(f, *fx.info, v, std::string_view(fx.b, fx.e - fx.b));
        if (!bad.empty()) {
          diag.error(fx.line, fx.b, bad);
          break;
        }
        put_field(program.core(fx.core).words[fx.index], f, v);
        break;
      }
      case Fixup::Data: {
        if (v < fx.lo || v > fx.hi) {
          diag.error(fx.line, fx.b,
                     "value " + std::to_string(v) + " out of range (expected " + std::to_string(fx.lo) + ".." +
                         std::to_string(fx.hi) + ")");
          break;
        }
        auto& bytes = program.segments()[fx.seg].piece.owned;
        for (int i = 0; i < fx.size; ++i)
          bytes[fx.offset + static_cast<size_t>(i)] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
        break;
      }
      case Fixup::Entry: {
        CoreBuild& c = program.core(fx.core);
        const uint64_t n = c.words.size();
        if (v < 0 || (n ? static_cast<uint64_t>(v) >= n : v != 0)) {
          diag.error(fx.line, fx.b,
                     "entry " + std::to_string(v) + " outside the text of core " + core_name(c.id) + " (" +
                         std::to_string(n) + " instructions)");
          break;
        }
        c.entry = static_cast<uint32_t>(v);
        break;
      }
    }
  }
}

}  // namespace vp::as::detail
