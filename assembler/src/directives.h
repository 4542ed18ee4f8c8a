// Directives (docs/assembler.md, "Directives"), by family:
//   directives.cpp           dispatch, operand helpers, the program's
//                            structure: .equ .include .core .cp .text .entry
//   data_directives.cpp      data segments and cell programs: .data .byte
//                            .half .word .dword .space .align .ascii .asciz
//                            .incbin .xbar
//   metadata_directives.cpp  what the object says about itself: .chip
//                            .layer .input .output
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "assembly.h"

namespace vp::as::detail {

// The directive `word` (starting with '.') at `at`, operands in [p, e).
void assemble_directive(Assembly& a, std::string_view word, const char* at, const char* p, const char* e);

// ---- operand helpers ---------------------------------------------------------
bool no_operands(Assembly& a, std::string_view d, const char* p, const char* e);
// Checks that the statement has lo..hi operands (after Assembly::split).
bool expect_count(Assembly& a, std::string_view d, const char* at, size_t lo, size_t hi, const char* usage);
// Evaluates an operand that must be known now and lie in [lo, hi].
bool now(Assembly& a, const Operand& o, int64_t lo, int64_t hi, const char* what, int64_t* v);
// A quoted string operand, escapes applied.
bool string_operand(Assembly& a, const Operand& o, const char* what, std::string* out);

// ---- data segments and cell programs (data_directives.cpp) --------------------
void dir_data(Assembly& a, const char* at, const char* p, const char* e);
void data_values(Assembly& a, int size, const char* at, const char* p, const char* e);  // .byte .half .word .dword
void dir_space(Assembly& a, const char* at, const char* p, const char* e);
void dir_align(Assembly& a, const char* at, const char* p, const char* e);
void dir_ascii(Assembly& a, const char* at, const char* p, const char* e, bool nul);
void dir_incbin(Assembly& a, const char* at, const char* p, const char* e);
void dir_xbar(Assembly& a, const char* at, const char* p, const char* e);

// ---- metadata (metadata_directives.cpp) --------------------------------------
void dir_chip(Assembly& a, const char* at, const char* p, const char* e);
void dir_layer(Assembly& a, const char* at, const char* p, const char* e);
void dir_io(Assembly& a, const char* at, const char* p, const char* e, bool output);

}  // namespace vp::as::detail
