#include "expression.h"

#include <cstdint>
#include <string>
#include <vector>

#include "lexer.h"

namespace vp::as::detail {
namespace {

void skip_ws(const char*& p, const char* e) {
  while (p < e && is_space(*p)) ++p;
}

// The binding strength of the operator at p (and its length), -1 when p is
// not at a binary operator.
int precedence(const char* p, const char* e, int* len) {
  *len = 1;
  switch (*p) {
    case '|': return 1;
    case '^': return 2;
    case '&': return 3;
    case '<':
    case '>':
      if (p + 1 < e && p[1] == p[0]) {
        *len = 2;
        return 4;
      }
      return -1;
    case '+':
    case '-': return 5;
    case '*':
    case '/':
    case '%': return 6;
    default: return -1;
  }
}

std::string range_text() { return "-9223372036854775808..9223372036854775807"; }

}  // namespace

Ev Evaluator::eval(const Line& line, const char* p, const char* e, int scope, int64_t* out, bool immediate) {
  State s{p, e, line, scope, final_pass_, immediate};
  const Ev r = eval_in(s, out);
  if (r == Ev::Unresolved && immediate && !final_pass_) {
    diag_.error(line, p,
                "expression " + quote(trim(std::string_view(p, e - p))) +
                    " depends on names defined later; this directive needs its value here");
    return Ev::Error;
  }
  return r;
}

void Evaluator::define_equ(const Line& line, std::string_view name, const char* at, const char* b, const char* e,
                           int scope) {
  if (symbols_.is_label(name)) {
    diag_.error(line, at, quote(name) + " is already defined as a label");
    return;
  }
  if (symbols_.is_equ(name)) {
    diag_.error(line, at, ".equ " + quote(name) + " is already defined");
    return;
  }
  Equ q;
  q.expr_b = b;
  q.expr_e = e;
  q.line = line;
  q.scope = scope;
  int64_t v = 0;
  const Ev r = eval(line, b, e, scope, &v);
  if (r == Ev::Error) q.bad = true;
  if (r == Ev::Ok) {
    q.value = v;
    q.resolved = true;
  }
  symbols_.add_equ(name, q);
}

void Evaluator::expr_error(State& s, const char* at, std::string msg) {
  if (s.failed) return;
  s.failed = true;
  diag_.error(s.line, at, std::move(msg));
}

Ev Evaluator::eval_in(State& s, int64_t* out) {
  const char* start = s.p;
  skip_ws(s.p, s.e);
  if (s.p == s.e) {
    expr_error(s, s.p, "expected an expression");
    return Ev::Error;
  }
  const int64_t v = binary(s, 0);
  skip_ws(s.p, s.e);
  if (!s.failed && s.p < s.e)
    expr_error(s, s.p, "unexpected " + quote(std::string_view(s.p, s.e - s.p)) + " in expression " +
                           quote(trim(std::string_view(start, s.e - start))));
  if (s.failed) return Ev::Error;
  if (s.unresolved) return Ev::Unresolved;
  *out = v;
  return Ev::Ok;
}

int64_t Evaluator::binary(State& s, int min_prec) {
  int64_t lhs = unary(s);
  while (!s.failed) {
    skip_ws(s.p, s.e);
    if (s.p >= s.e) break;
    int len;
    const int prec = precedence(s.p, s.e, &len);
    if (prec < 0 || prec < min_prec) break;
    const char* op = s.p;
    s.p += len;
    const int64_t rhs = binary(s, prec + 1);
    if (s.failed) return 0;
    // A placeholder of an unresolved name is 0: only its fix-up pass value
    // may be checked against the other operand.
    if (s.unresolved) continue;
    lhs = arith(s, op, lhs, rhs);
    if (s.failed) return 0;
  }
  return lhs;
}

int64_t Evaluator::arith(State& s, const char* op, int64_t a, int64_t b) {
  const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  int64_t r = 0;
  bool over = false;
  const std::string sym = *op == '<' || *op == '>' ? std::string(op, 2) : std::string(1, *op);
  switch (*op) {
    case '|': return static_cast<int64_t>(ua | ub);
    case '^': return static_cast<int64_t>(ua ^ ub);
    case '&': return static_cast<int64_t>(ua & ub);
    case '+': over = __builtin_add_overflow(a, b, &r); break;
    case '-': over = __builtin_sub_overflow(a, b, &r); break;
    case '*': over = __builtin_mul_overflow(a, b, &r); break;
    case '/':
    case '%':
      if (b == 0) {
        expr_error(s, op, "division by zero");
        return 0;
      }
      if (b == -1) {  // INT64_MIN / -1 is 2^63, which has no 64-bit signed value
        over = *op == '/' && a == INT64_MIN;
        r = *op == '/' ? static_cast<int64_t>(0 - ua) : 0;
      } else {
        r = *op == '/' ? a / b : a % b;
      }
      break;
    case '<':
    case '>':
      if (b < 0 || b > 63) {
        expr_error(s, op, "shift count " + std::to_string(b) + " outside 0..63");
        return 0;
      }
      if (*op == '>') return a >> b;
      r = static_cast<int64_t>(ua << b);
      over = (r >> b) != a;  // a bit (or the sign) shifted out
      break;
    default: return a;
  }
  if (over)
    expr_error(s, op,
               std::to_string(a) + " " + sym + " " + std::to_string(b) +
                   " is outside the assembler's 64-bit signed arithmetic (" + range_text() +
                   "); expressions never wrap");
  return over ? 0 : r;
}

int64_t Evaluator::unary(State& s) {
  // Every level of parentheses and every unary operator passes here once.
  if (s.depth > kMaxNesting) {  // the outermost term is level 0
    skip_ws(s.p, s.e);
    expr_error(s, s.p,
               "expression nested more than " + std::to_string(kMaxNesting) +
                   " levels deep (parentheses and unary operators)");
    return 0;
  }
  ++s.depth;
  const int64_t v = unary_term(s);
  --s.depth;
  return v;
}

int64_t Evaluator::unary_term(State& s) {
  skip_ws(s.p, s.e);
  if (s.p >= s.e) {
    expr_error(s, s.p, "expected a number, name or '(' at the end of the expression");
    return 0;
  }
  const char c = *s.p;
  if (c == '-') {
    const char* minus = s.p;
    ++s.p;
    skip_ws(s.p, s.e);
    // -9223372036854775808 is a number, although its digits alone (2^63)
    // are one above the largest value: number() takes them only here.
    s.negated = s.p < s.e && is_digit(*s.p) ? minus : nullptr;
    s.min_literal = false;
    const int64_t v = unary(s);
    s.negated = nullptr;
    if (s.failed) return 0;
    if (v == INT64_MIN) {
      if (s.min_literal) {
        s.min_literal = false;
        return v;
      }
      expr_error(s, minus,
                 "-(" + std::to_string(v) + ") is outside the assembler's 64-bit signed arithmetic (" + range_text() +
                     "); expressions never wrap");
      return 0;
    }
    return -v;
  }
  if (c == '+') {
    ++s.p;
    return unary(s);
  }
  if (c == '~') {
    ++s.p;
    return static_cast<int64_t>(~static_cast<uint64_t>(unary(s)));
  }
  return primary(s);
}

int64_t Evaluator::primary(State& s) {
  const char c = *s.p;
  if (c == '(') {
    const char* open = s.p;
    ++s.p;
    const int64_t v = binary(s, 0);
    skip_ws(s.p, s.e);
    if (s.failed) return 0;
    if (s.p >= s.e || *s.p != ')') {
      expr_error(s, open, "missing ')' for this '('");
      return 0;
    }
    ++s.p;
    return v;
  }
  if (is_digit(c)) return number(s);
  if (c == '\'') {
    const char* at = s.p;
    ++s.p;
    int v = 0;
    if (s.p >= s.e || !unescape(s.p, s.e, &v) || s.p >= s.e || *s.p != '\'') {
      expr_error(s, at, "malformed character literal");
      return 0;
    }
    ++s.p;
    return v;
  }
  if (is_ident_start(c)) {
    const char* b = s.p;
    while (s.p < s.e && is_ident_char(*s.p)) ++s.p;
    return lookup(s, std::string_view(b, s.p - b), b);
  }
  expr_error(s, s.p, "expected a number, name or '(', got " + quote(std::string_view(s.p, s.e - s.p)));
  return 0;
}

int64_t Evaluator::number(State& s) {
  const char* negated = s.negated;
  s.negated = nullptr;
  const char* b = s.p;
  uint64_t v = 0;
  int base = 10;
  if (*s.p == '0' && s.p + 1 < s.e && (lower(s.p[1]) == 'x' || lower(s.p[1]) == 'b')) {
    base = lower(s.p[1]) == 'x' ? 16 : 2;
    s.p += 2;
  }
  const char* digits = s.p;
  bool overflow = false;
  while (s.p < s.e) {
    const char ch = lower(*s.p);
    int d;
    if (is_digit(ch)) d = ch - '0';
    else if (ch >= 'a' && ch <= 'f' && base == 16) d = ch - 'a' + 10;
    else if (ch == '_') {
      ++s.p;
      continue;
    } else break;
    if (d >= base) break;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) overflow = true;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    ++s.p;
  }
  if (s.p < s.e && is_ident_char(*s.p)) {
    while (s.p < s.e && is_ident_char(*s.p)) ++s.p;
    expr_error(s, b, "malformed number " + quote(std::string_view(b, s.p - b)));
    return 0;
  }
  if (s.p == digits) {
    expr_error(s, b, "malformed number " + quote(std::string_view(b, s.p - b)));
    return 0;
  }
  const uint64_t largest = negated ? uint64_t{1} << 63 : static_cast<uint64_t>(INT64_MAX);
  if (overflow || v > largest) {
    // Never the 64-bit pattern of a value above 2^63-1: 18446744073709551615
    // is not -1 (write -1 or ~0 for all ones).
    const std::string text(b, s.p);
    if (negated)
      expr_error(s, negated,
                 "-" + text + " does not fit in 64 bits (a negated number is at least -2^63 = -9223372036854775808)");
    else
      expr_error(s, b,
                 "number " + quote(text) + (overflow || text == std::to_string(v) ? "" : " = " + std::to_string(v)) +
                     " does not fit in 64 bits (the assembler's arithmetic is signed: " + range_text() + ")");
    return 0;
  }
  if (negated && v == uint64_t{1} << 63) s.min_literal = true;
  return static_cast<int64_t>(v);
}

int64_t Evaluator::lookup(State& s, std::string_view name, const char* at) {
  if (s.scope >= 0) {
    const auto& labels = symbols_.labels(s.scope);
    auto it = labels.find(name);
    if (it != labels.end()) return it->second;
  }
  if (Equ* found = symbols_.find_equ(name)) {
    Equ& q = *found;
    if (q.resolved) return q.value;
    if (q.bad) {
      s.failed = true;  // already reported where it was defined
      return 0;
    }
    if (q.busy) {
      expr_error(s, at, ".equ " + quote(name) + " is defined in terms of itself");
      return 0;
    }
    if (resolving_) {
      // Inside resolve(): name what is needed and let it be resolved first.
      if (q.tried != round_ && !s.need) s.need = &q;
      s.unresolved = true;
      return 0;
    }
    if (!s.final_pass && !s.immediate) {
      // Left to the fix-up pass, where each definition is resolved once:
      // resolving here would walk the same unfinished chain again on every
      // line that extends it (quadratic in the chain's length).
      s.unresolved = true;
      return 0;
    }
    resolve(q, s.final_pass);
    if (q.resolved) return q.value;
    if (q.bad) {
      s.failed = true;  // reported at the definition
      return 0;
    }
    s.unresolved = true;
    return 0;
  }
  if (s.final_pass || s.immediate) {
    std::string msg = "undefined name " + quote(name);
    if (s.immediate && !s.final_pass) msg += " (this directive needs names defined before it)";
    for (size_t c = 0; c < symbols_.scope_count(); ++c)
      if (static_cast<int>(c) != s.scope && symbols_.labels(static_cast<int>(c)).count(name)) {
        msg += "; " + quote(name) + " is a label of core " + core_name(symbols_.scope_core(static_cast<int>(c))) +
               " (labels are per core)";
        break;
      }
    expr_error(s, at, msg);
    return 0;
  }
  s.unresolved = true;
  return 0;
}

void Evaluator::resolve(Equ& target, bool final_pass) {
  // Each pending definition is evaluated where it was written. One that
  // names another pending .equ stops, that one is pushed and evaluated
  // first, then the first is evaluated again: a chain of 50,000 forward
  // references costs a stack of 50,000 pointers, not 50,000 frames. A
  // definition met again while it is on the stack is a cycle.
  resolving_ = true;
  ++round_;
  std::vector<Equ*> stack{&target};
  target.busy = true;
  while (!stack.empty()) {
    Equ& q = *stack.back();
    State inner{q.expr_b, q.expr_e, q.line, q.scope, final_pass, false};
    int64_t v = 0;
    const Ev r = eval_in(inner, &v);
    if (r == Ev::Unresolved && inner.need) {
      inner.need->busy = true;
      stack.push_back(inner.need);
      continue;
    }
    q.busy = false;
    stack.pop_back();
    if (r == Ev::Ok) {
      q.resolved = true;
      q.value = v;
    } else if (r == Ev::Error) {
      q.bad = true;
    } else {
      q.tried = round_;  // waits for a name defined later
    }
  }
  resolving_ = false;
}

}  // namespace vp::as::detail
