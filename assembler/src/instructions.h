// Instructions: operands parsed as the mnemonic's row of the ISA table says
// (vp::isa::InstrInfo::fields: the kind of each field decides whether a
// register, an expression, a branch target or a named choice is expected,
// its min/max give the range) and encoded into one word. There is no
// per-mnemonic code.
#pragma once

#include <string_view>

#include "assembly.h"

namespace vp::as::detail {

// The statement `word` (not a directive) at `at`, operands in [p, e):
// appends its word to the current core's text, with fix-ups for operands
// that name something defined later.
void assemble_instruction(Assembly& a, std::string_view word, const char* at, const char* p, const char* e);

}  // namespace vp::as::detail
