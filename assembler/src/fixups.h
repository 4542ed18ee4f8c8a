// Fix-ups: operands that named something defined later, kept during the
// line pass and patched into the program once every name is known. Every
// instruction is one word, so labels never move and a fix-up only ever
// fills in a value: an instruction field, data bytes, or a core's entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "expression.h"
#include "program.h"
#include "vp/isa/isa.h"

namespace vp::as::detail {

struct Fixup {
  enum Kind : uint8_t { Field, Data, Entry } kind = Field;
  uint8_t field = 0;  // Field: operand index in info->fields
  uint8_t size = 0;   // Data: bytes
  int core = -1;
  uint32_t index = 0;  // Field: instruction index in the core's text
  const vp::isa::InstrInfo* info = nullptr;
  size_t seg = 0;       // Data: segment
  uint64_t offset = 0;  // Data: offset in the segment's bytes
  int64_t lo = 0, hi = 0;  // Data: the accepted range
  const char* b = nullptr;  // the expression
  const char* e = nullptr;
  Line line;  // where it is written
};

// The message for value v of an instruction operand outside its field's
// range, or "" when it fits.
std::string field_range_error(const vp::isa::Field& f, const vp::isa::InstrInfo& info, int64_t v,
                              std::string_view text);

// Puts v into field f of an instruction word.
inline void put_field(uint64_t& word, const vp::isa::Field& f, int64_t v) {
  const uint64_t mask = (uint64_t{1} << f.width) - 1;
  word = (word & ~(mask << f.shift)) | ((static_cast<uint64_t>(v) & mask) << f.shift);
}

class Fixups {
 public:
  void add(const Fixup& f) { list_.push_back(f); }
  // Forgets the field fix-ups of an instruction that had an error (its
  // word is kept, so later labels keep their indices).
  void drop_fields_of(int core, uint32_t index);
  // The second pass: evaluates every fix-up with all names known and
  // patches the program, reporting values out of range.
  void resolve(Evaluator& expr, Program& program, Diagnostics& diag) const;

 private:
  std::vector<Fixup> list_;
};

}  // namespace vp::as::detail
