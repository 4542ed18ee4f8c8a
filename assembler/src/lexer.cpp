#include "lexer.h"

#include <algorithm>

#include "vp/common/suggest.h"

namespace vp::as::detail {

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string quote(std::string_view s) {
  if (s.size() > 60) return "'" + std::string(s.substr(0, 57)) + "...'";
  return "'" + std::string(s) + "'";
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  // Mnemonics and directives are short: half the word may be wrong.
  vp::common::Nearest nearest(word, std::max<size_t>(2, word.size() / 2), vp::common::Case::kInsensitive);
  for (auto c : candidates) nearest.offer(c);
  return nearest.best().empty() ? std::string() : "; did you mean '" + nearest.best() + "'?";
}

const char* code_end(const char* p, const char* e) {
  char q = 0;
  for (; p < e; ++p) {
    const char c = *p;
    if (q) {
      if (c == '\\' && p + 1 < e) ++p;
      else if (c == q) q = 0;
      continue;
    }
    if (c == ';' || c == '#') return p;
    if (c == '/' && p + 1 < e && p[1] == '/') return p;
    if (c == '"' || c == '\'') q = c;
  }
  return e;
}

const char* split_operands(const char* p, const char* e, std::vector<Operand>& out) {
  out.clear();
  while (p < e && is_space(*p)) ++p;
  if (p == e) return nullptr;
  const char* start = p;
  int depth = 0;
  char q = 0;
  auto push = [&](const char* b, const char* x) {
    while (b < x && is_space(*b)) ++b;
    while (x > b && is_space(x[-1])) --x;
    out.push_back(Operand{std::string_view(b, x - b), b});
  };
  for (; p < e; ++p) {
    const char c = *p;
    if (q) {
      if (c == '\\' && p + 1 < e) ++p;
      else if (c == q) q = 0;
      continue;
    }
    if (c == '"' || c == '\'') q = c;
    else if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (c == ',' && depth == 0) {
      push(start, p);
      start = p + 1;
    }
  }
  push(start, e);
  for (const auto& o : out)
    if (o.text.empty()) return o.at;
  return nullptr;
}

bool unescape(const char*& p, const char* e, int* out) {
  if (p >= e) return false;
  if (*p != '\\') {
    *out = static_cast<unsigned char>(*p++);
    return true;
  }
  ++p;
  if (p >= e) return false;
  const char c = *p++;
  switch (c) {
    case 'n': *out = '\n'; return true;
    case 't': *out = '\t'; return true;
    case 'r': *out = '\r'; return true;
    case '0': *out = 0; return true;
    case '\\': *out = '\\'; return true;
    case '\'': *out = '\''; return true;
    case '"': *out = '"'; return true;
    case 'x': {
      int v = 0, n = 0;
      while (p < e && n < 2) {
        const char h = lower(*p);
        if (is_digit(h)) v = v * 16 + (h - '0');
        else if (h >= 'a' && h <= 'f') v = v * 16 + (h - 'a' + 10);
        else break;
        ++p;
        ++n;
      }
      if (!n) return false;
      *out = v;
      return true;
    }
    default: return false;
  }
}

StringRead read_string(std::string_view t, std::string* out, const char** bad) {
  if (t.size() < 2 || t.front() != '"' || t.back() != '"') return StringRead::kNotQuoted;
  out->clear();
  const char* p = t.data() + 1;
  const char* e = t.data() + t.size() - 1;
  while (p < e) {
    int c = 0;
    const char* at = p;
    if (*p == '"' || !unescape(p, e, &c)) {
      *bad = at;
      return StringRead::kMalformed;
    }
    out->push_back(static_cast<char>(c));
  }
  return StringRead::kOk;
}

}  // namespace vp::as::detail
