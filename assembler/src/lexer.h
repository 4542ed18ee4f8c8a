// Scanning source text by hand (no regex, no streams): character classes,
// comments, operand lists, quoted strings and character escapes. Everything
// returned is a view into the file text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vp::as::detail {

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}
inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view trim(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
// 's' in quotes for a message, shortened when long.
std::string quote(std::string_view s);
// "; did you mean 'x'?" for the candidate nearest to a misspelt mnemonic
// or directive (case-insensitive), or "" when none is near.
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);

// Where the line's code ends: at ';', '#' or '//' outside quotes.
const char* code_end(const char* p, const char* e);

// One operand of a statement.
struct Operand {
  std::string_view text;  // trimmed
  const char* at;         // start in the line (for columns)
};

// Splits [p, e) at top-level commas (not inside parentheses or quotes) into
// `out`. Returns nullptr, or where the first empty operand is.
const char* split_operands(const char* p, const char* e, std::vector<Operand>& out);

// Reads one (possibly escaped) character of a string or char literal.
bool unescape(const char*& p, const char* e, int* out);

enum class StringRead { kOk, kNotQuoted, kMalformed };
// The contents of a quoted string operand, escapes applied; on kMalformed
// *bad is where the offending character is.
StringRead read_string(std::string_view t, std::string* out, const char** bad);

}  // namespace vp::as::detail
