// Expressions: 64-bit signed integer arithmetic with C precedence over numbers,
// character literals, .equ names and the labels of one core
// (docs/assembler.md). A name not yet defined leaves the expression
// unresolved during the line pass; the fix-up pass evaluates it again with
// every name known, when an undefined name is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "diagnostics.h"
#include "symbols.h"

namespace vp::as::detail {

enum class Ev { Ok, Unresolved, Error };

class Evaluator {
 public:
  Evaluator(Symbols& symbols, Diagnostics& diag) : symbols_(symbols), diag_(diag) {}

  // From now on every name must be defined (the fix-up pass).
  void start_final_pass() { final_pass_ = true; }

  // Evaluates the whole of [p, e), part of `line`, with the labels of core
  // `scope` (-1: none) visible. `immediate`: the value is needed now, so a
  // name defined later is an error.
  Ev eval(const Line& line, const char* p, const char* e, int scope, int64_t* out, bool immediate = false);

  // `name = [b, e)` or `.equ name, [b, e)`, written at `at` in `line`.
  void define_equ(const Line& line, std::string_view name, const char* at, const char* b, const char* e, int scope);

 private:
  // Parentheses and unary operators nest at most this deep in one
  // expression: deeper nesting is an error, not a stack overflow.
  static constexpr int kMaxNesting = 256;

  struct State {
    const char* p;
    const char* e;
    Line line;        // for columns
    int scope;        // core whose labels are visible (-1: none)
    bool final_pass;  // undefined names are errors
    bool immediate;   // undefined names are errors "defined before use"
    bool unresolved = false;
    bool failed = false;
    int depth = 0;          // nesting of parentheses and unary operators
    const char* negated = nullptr;  // the '-' whose operand is the next number (which may be 2^63)
    bool min_literal = false;       // number() read that 2^63
    Equ* need = nullptr;    // while resolving: a pending .equ to resolve first
  };

  void expr_error(State& s, const char* at, std::string msg);
  Ev eval_in(State& s, int64_t* out);
  int64_t binary(State& s, int min_prec);
  int64_t unary(State& s);
  int64_t unary_term(State& s);
  int64_t primary(State& s);
  int64_t number(State& s);
  // a OP b, or an error when the exact result is outside the 64-bit signed
  // range (the arithmetic never wraps).
  int64_t arith(State& s, const char* op, int64_t a, int64_t b);
  int64_t lookup(State& s, std::string_view name, const char* at);
  // Evaluates pending .equ `target` and every pending .equ it needs, with
  // an explicit stack instead of recursion.
  void resolve(Equ& target, bool final_pass);

  Symbols& symbols_;
  Diagnostics& diag_;
  bool final_pass_ = false;
  bool resolving_ = false;  // inside resolve(): lookups ask, never recurse
  uint32_t round_ = 0;      // resolve() calls so far
};

}  // namespace vp::as::detail
