#include "vp/trace/literal_parser.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>

namespace vp::trace {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_letter(char c) { return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_word_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_word_char(char c) { return is_word_start(c) || is_digit(c) || c == '.'; }

std::string describe(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return "end of line";
  const char c = text[pos];
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
    return fmt::format("byte 0x{:02x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
  return fmt::format("'{}'", c);
}

}  // namespace

bool LiteralParser::parse(std::string_view text, LiteralError& error) {
  text_ = text;
  pos_ = 0;
  nodes_.clear();
  frames_.clear();
  scratch_.clear();
  // Unescaped strings are never longer than their source, so this capacity
  // keeps every view into scratch_ stable for the whole line.
  if (scratch_.capacity() < text.size()) scratch_.reserve(text.size());
  error = LiteralError{};
  error_ = &error;
  skip_ws();
  if (!parse_value(0)) return false;
  skip_ws();
  if (pos_ != text_.size()) return fail("end of line after the closing bracket");
  return true;
}

inline void LiteralParser::skip_ws() {
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
}

std::string LiteralParser::path() const {
  std::string out;
  for (std::size_t k = 0; k < frames_.size(); ++k) {
    const Frame& f = frames_[k];
    if (!out.empty()) out += " > ";
    if (k == 0 && f.kind == NodeKind::List && f.position < top_names_.size()) {
      out += top_names_[f.position];
    } else if (f.kind == NodeKind::Dict) {
      if (f.last_key.empty()) out += "dict";
      else out += fmt::format("key '{}'", f.last_key);
    } else {
      out += fmt::format("item {}", f.position);
    }
  }
  return out;
}

bool LiteralParser::fail(std::string_view expected) {
  if (!error_->message.empty()) return false;  // keep the innermost message
  error_->column = static_cast<std::uint32_t>(pos_ + 1);
  error_->at_end = pos_ >= text_.size();
  const std::string where = path();
  error_->message = fmt::format("expected {} but found {}{}{}", expected, describe(text_, pos_),
                                where.empty() ? "" : " in ", where);
  return false;
}

bool LiteralParser::parse_value(int depth) {
  if (depth > kMaxDepth) return fail(fmt::format("at most {} levels of nesting", kMaxDepth));
  if (pos_ >= text_.size()) return fail("a value");
  const char c = text_[pos_];
  if (c == '[') return parse_list(']', depth);
  if (c == '(') return parse_list(')', depth);
  if (c == '{') return parse_dict(depth);
  if (c == '\'' || c == '"') return parse_string();
  if (c == '<') return parse_enum(depth);
  if (is_digit(c) || c == '-' || c == '+' || c == '.') return parse_number();
  if (is_word_start(c)) return parse_word();
  return fail("a value (number, string, list, dict, name or <enum>)");
}

bool LiteralParser::parse_number() {
  const std::size_t begin = pos_;
  {
    // Fast path: a plain decimal integer of up to 18 digits (cannot
    // overflow), which is nearly every number in a trace line.
    std::size_t q = pos_;
    const bool neg = text_[q] == '-';
    if (neg) ++q;
    const std::size_t d0 = q;
    std::uint64_t mag = 0;
    while (q < text_.size() && q - d0 < 18 && is_digit(text_[q])) mag = mag * 10 + static_cast<unsigned>(text_[q++] - '0');
    const bool ends = q == text_.size() || !(is_word_char(text_[q]));
    if (q > d0 && ends) {
      Node& n = nodes_.emplace_back();
      n.kind = NodeKind::Int;
      n.i = neg ? -static_cast<std::int64_t>(mag) : static_cast<std::int64_t>(mag);
      n.raw = text_.substr(begin, q - begin);
      n.next = static_cast<std::uint32_t>(nodes_.size());
      pos_ = q;
      return true;
    }
  }
  std::size_t p = pos_;
  if (text_[p] == '-' || text_[p] == '+') ++p;
  // Python's float reprs inf/nan appear as bare words after a sign.
  if (p < text_.size() && is_word_start(text_[p])) {
    std::size_t q = p;
    while (q < text_.size() && is_word_char(text_[q])) ++q;
    const std::string_view word = text_.substr(p, q - p);
    if (word == "inf" || word == "nan") {
      Node n;
      n.kind = NodeKind::Float;
      n.f = word == "inf" ? HUGE_VAL : NAN;
      if (text_[begin] == '-') n.f = -n.f;
      n.raw = text_.substr(begin, q - begin);
      n.next = static_cast<std::uint32_t>(nodes_.size() + 1);
      nodes_.push_back(n);
      pos_ = q;
      return true;
    }
    pos_ = p;
    return fail("digits after the sign");
  }
  const std::size_t digits = p;
  int base = 10;
  if (p + 1 < text_.size() && text_[p] == '0' && (text_[p + 1] == 'x' || text_[p + 1] == 'X')) {
    base = 16;
    p += 2;
  }
  const std::size_t first_digit = p;
  bool is_float = false;
  while (p < text_.size()) {
    const char c = text_[p];
    if (is_digit(c) || (base == 16 && is_hex_letter(c))) {
      ++p;
    } else if (base == 10 && (c == '.' || c == 'e' || c == 'E')) {
      is_float = true;
      ++p;
      if ((c == 'e' || c == 'E') && p < text_.size() && (text_[p] == '-' || text_[p] == '+')) ++p;
    } else {
      break;
    }
  }
  if (p == first_digit) {
    pos_ = p;
    return fail("digits");
  }
  Node n;
  n.raw = text_.substr(begin, p - begin);
  n.next = static_cast<std::uint32_t>(nodes_.size() + 1);
  const char* s = text_.data() + first_digit;
  const char* e = text_.data() + p;
  if (is_float) {
    n.kind = NodeKind::Float;
    // from_chars does not take a leading '+'; the sign is applied by hand.
    const auto r = std::from_chars(text_.data() + digits, e, n.f);
    if (r.ec != std::errc() || r.ptr != e) {
      pos_ = begin;
      return fail("a number");
    }
    if (text_[begin] == '-') n.f = -n.f;
  } else {
    n.kind = NodeKind::Int;
    std::uint64_t mag = 0;
    const auto r = std::from_chars(s, e, mag, base);
    const bool neg = text_[begin] == '-';
    const std::uint64_t limit = neg ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
    if (r.ec != std::errc() || r.ptr != e || mag > limit) {
      pos_ = begin;
      return fail("an integer within 64 bits");
    }
    n.i = neg ? static_cast<std::int64_t>(0 - mag) : static_cast<std::int64_t>(mag);
  }
  nodes_.push_back(n);
  pos_ = p;
  return true;
}

bool LiteralParser::parse_string() {
  const std::size_t begin = pos_;
  const char quote = text_[pos_++];
  const std::size_t content = pos_;
  // Fast path: the closing quote with no backslash before it (memchr runs
  // word-at-a-time); strings with escapes take the careful loop.
  const char* base = text_.data();
  const void* q = std::memchr(base + pos_, quote, text_.size() - pos_);
  bool escaped = q == nullptr || std::memchr(base + pos_, '\\', static_cast<const char*>(q) - (base + pos_)) != nullptr;
  if (!escaped) {
    pos_ = static_cast<std::size_t>(static_cast<const char*>(q) - base);
  } else {
    escaped = false;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') {
        escaped = true;
        ++pos_;
      }
      ++pos_;
    }
  }
  if (pos_ >= text_.size()) {
    pos_ = text_.size();
    return fail(fmt::format("closing {} of the string", quote));
  }
  Node& n = nodes_.emplace_back();
  n.kind = NodeKind::String;
  n.next = static_cast<std::uint32_t>(nodes_.size());
  const std::string_view body = text_.substr(content, pos_ - content);
  ++pos_;
  n.raw = text_.substr(begin, pos_ - begin);
  if (!escaped) {
    n.text = body;
  } else {
    const std::size_t start = scratch_.size();
    for (std::size_t k = 0; k < body.size(); ++k) {
      char c = body[k];
      if (c == '\\' && k + 1 < body.size()) {
        const char e = body[++k];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case '0': c = '\0'; break;
          case '\\': case '\'': case '"': c = e; break;
          case 'x': {
            unsigned v = 0;
            if (k + 2 < body.size() &&
                std::from_chars(body.data() + k + 1, body.data() + k + 3, v, 16).ptr == body.data() + k + 3) {
              c = static_cast<char>(v);
              k += 2;
            } else {
              scratch_.push_back('\\');
              c = e;
            }
            break;
          }
          default:  // Python keeps unknown escapes verbatim
            scratch_.push_back('\\');
            c = e;
        }
      }
      scratch_.push_back(c);
    }
    n.text = std::string_view(scratch_.data() + start, scratch_.size() - start);
  }
  return true;
}

bool LiteralParser::parse_word() {
  const std::size_t begin = pos_;
  while (pos_ < text_.size() && is_word_char(text_[pos_])) ++pos_;
  Node& n = nodes_.emplace_back();
  n.text = n.raw = text_.substr(begin, pos_ - begin);
  n.next = static_cast<std::uint32_t>(nodes_.size());
  if (n.text == "True" || n.text == "False") {
    n.kind = NodeKind::Bool;
    n.i = n.text == "True";
  } else if (n.text == "None") {
    n.kind = NodeKind::None;
  } else {
    n.kind = NodeKind::Ident;
  }
  return true;
}

bool LiteralParser::parse_enum(int depth) {
  // <Class.MEMBER: value> as printed by Python's enum repr; value optional.
  const std::size_t begin = pos_++;
  const std::size_t name_begin = pos_;
  while (pos_ < text_.size() && text_[pos_] != ':' && text_[pos_] != '>') ++pos_;
  if (pos_ >= text_.size()) return fail("':' or '>' closing the <enum>");
  const std::uint32_t self = static_cast<std::uint32_t>(nodes_.size());
  Node n;
  n.kind = NodeKind::Enum;
  n.text = text_.substr(name_begin, pos_ - name_begin);
  while (!n.text.empty() && is_space(n.text.back())) n.text.remove_suffix(1);
  if (n.text.empty()) return fail("an enum name after '<'");
  nodes_.push_back(n);
  if (text_[pos_] == ':') {
    ++pos_;
    skip_ws();
    frames_.push_back({NodeKind::List, 0, {}});
    if (!parse_value(depth + 1)) return false;
    frames_.pop_back();
    // The value is folded into the enum node (one node per enum keeps
    // element counting simple for the containers around it).
    const Node& value = nodes_[self + 1];
    if (value.kind == NodeKind::Int || value.kind == NodeKind::Bool) nodes_[self].i = value.i;
    nodes_.resize(self + 1);
    skip_ws();
  }
  if (pos_ >= text_.size() || text_[pos_] != '>') return fail("'>' closing the <enum>");
  ++pos_;
  nodes_[self].raw = text_.substr(begin, pos_ - begin);
  nodes_[self].next = self + 1;
  return true;
}

bool LiteralParser::parse_list(char close, int depth) {
  const std::size_t begin = pos_++;
  const std::uint32_t self = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back(Node{});
  nodes_[self].kind = NodeKind::List;
  frames_.push_back({NodeKind::List, 0, {}});
  std::uint32_t count = 0;
  skip_ws();
  while (true) {
    if (pos_ < text_.size() && text_[pos_] == close) break;
    frames_.back().position = count;
    if (!parse_value(depth + 1)) return false;
    ++count;
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      skip_ws();
      continue;
    }
    if (pos_ < text_.size() && text_[pos_] == close) break;
    return fail(fmt::format("',' or '{}'", close));
  }
  ++pos_;
  frames_.pop_back();
  Node& n = nodes_[self];
  n.size = count;
  n.next = static_cast<std::uint32_t>(nodes_.size());
  n.raw = text_.substr(begin, pos_ - begin);
  return true;
}

bool LiteralParser::parse_dict(int depth) {
  const std::size_t begin = pos_++;
  const std::uint32_t self = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back(Node{});
  nodes_[self].kind = NodeKind::Dict;
  frames_.push_back({NodeKind::Dict, 0, {}});
  std::uint32_t count = 0;
  skip_ws();
  while (true) {
    if (pos_ < text_.size() && text_[pos_] == '}') break;
    frames_.back().position = count;
    const std::uint32_t key_index = static_cast<std::uint32_t>(nodes_.size());
    if (!parse_value(depth + 1)) return false;
    const Node& key = nodes_[key_index];
    if (key.kind == NodeKind::List || key.kind == NodeKind::Dict) {
      pos_ = static_cast<std::size_t>(key.raw.data() - text_.data());
      return fail("a scalar dict key");
    }
    frames_.back().last_key = key.kind == NodeKind::String ? key.text : key.raw;
    skip_ws();
    if (pos_ >= text_.size() || text_[pos_] != ':') return fail("':' after the dict key");
    ++pos_;
    skip_ws();
    if (!parse_value(depth + 1)) return false;
    ++count;
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      skip_ws();
      continue;
    }
    if (pos_ < text_.size() && text_[pos_] == '}') break;
    return fail("',' or '}'");
  }
  ++pos_;
  frames_.pop_back();
  Node& n = nodes_[self];
  n.size = count;
  n.next = static_cast<std::uint32_t>(nodes_.size());
  n.raw = text_.substr(begin, pos_ - begin);
  return true;
}

}  // namespace vp::trace
