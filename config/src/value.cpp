// Text <-> typed values. One parser serves defaults, YAML, JSON and --set,
// so "128" means the same thing wherever it is written.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "vp/config/config_error.h"
#include "vp/config/registry.h"

namespace vp::config {
namespace {

using Kind = ConfigError::Kind;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string number_text(double v, ParamType type) {
  if (type == ParamType::kInt) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{}", v);
}

[[noreturn]] void wrong_type(const ParamDef& def, std::string_view text, const std::string& where,
                             const char* why = nullptr) {
  std::string detail = fmt::format("expected {} ({}), got '{}'", type_name(def.type), def.unit, text);
  if (why != nullptr) detail += fmt::format(" ({})", why);
  throw ConfigError(Kind::kWrongType, def.name, where, detail);
}

bool parse_int(std::string_view s, std::int64_t* out) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  std::uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (ec != std::errc() || end != s.data() + s.size()) return false;
  constexpr auto kMax = static_cast<std::uint64_t>(INT64_MAX);
  if (magnitude > kMax + (negative ? 1 : 0)) return false;
  *out = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return true;
}

bool parse_double(std::string_view s, double* out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(*out);
}

}  // namespace

bool ParamDef::has_min() const { return std::isfinite(min); }
bool ParamDef::has_max() const { return std::isfinite(max); }

const char* type_name(ParamType type) {
  switch (type) {
    case ParamType::kInt: return "int";
    case ParamType::kFloat: return "float";
    case ParamType::kBool: return "bool";
    case ParamType::kString: return "string";
    case ParamType::kEnum: return "enum";
  }
  return "?";
}

std::string type_label(const ParamDef& def) { return type_name(def.type); }

std::string range_text(const ParamDef& def) {
  if (def.type == ParamType::kEnum) {
    std::string out;
    for (const auto& v : def.allowed) out += (out.empty() ? "" : "|") + v;
    return out;
  }
  if (!def.numeric()) return "-";
  if (def.has_min() && def.has_max()) {
    return number_text(def.min, def.type) + ".." + number_text(def.max, def.type);
  }
  if (def.has_min()) return ">= " + number_text(def.min, def.type);
  if (def.has_max()) return "<= " + number_text(def.max, def.type);
  return "any";
}

std::string format_value(const ParamDef& def, const Value& value) {
  switch (def.type) {
    case ParamType::kInt: return fmt::format("{}", std::get<std::int64_t>(value));
    // fmt's default is the shortest text that parses back to the same double.
    case ParamType::kFloat: return fmt::format("{}", std::get<double>(value));
    case ParamType::kBool: return std::get<bool>(value) ? "true" : "false";
    case ParamType::kString:
    case ParamType::kEnum: return std::get<std::string>(value);
  }
  return {};
}

namespace {

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
// past U+10FFFF). Returns the offset of the first bad byte, or npos.
std::size_t bad_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) n = 0;
    else if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) n = 2;
    else if (c == 0xED) n = 2, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF) n = 2;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) n = 3, hi = 0x8F;
    else return i;
    for (std::size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const unsigned char t = b(i + k);
      if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

}  // namespace

void check_value(const ParamDef& def, const Value& value, const std::string& where) {
  if (def.type == ParamType::kString) {
    // Strings go into YAML, JSON and the statistics: they must be text.
    const auto& s = std::get<std::string>(value);
    const std::size_t at = bad_utf8_at(s);
    if (at != std::string_view::npos) {
      throw ConfigError(Kind::kWrongType, def.name, where,
                        fmt::format("expected UTF-8 text, byte {} (0x{:02x}) is not", at,
                                    static_cast<unsigned>(static_cast<unsigned char>(s[at]))));
    }
    return;
  }
  if (def.type == ParamType::kEnum) {
    const auto& s = std::get<std::string>(value);
    if (std::find(def.allowed.begin(), def.allowed.end(), s) == def.allowed.end()) {
      throw ConfigError(Kind::kBadEnum, def.name, where,
                        fmt::format("'{}' is not one of: {}", s, fmt::join(def.allowed, ", ")));
    }
    return;
  }
  if (!def.numeric()) return;
  const double v = def.type == ParamType::kInt ? static_cast<double>(std::get<std::int64_t>(value))
                                               : std::get<double>(value);
  if (v < def.min || v > def.max) {
    throw ConfigError(Kind::kOutOfRange, def.name, where,
                      fmt::format("{} is out of range {} ({})", format_value(def, value),
                                  range_text(def), def.unit));
  }
}

Value parse_value(const ParamDef& def, std::string_view raw, const std::string& where,
                  bool quoted) {
  const std::string_view text = def.type == ParamType::kString ? raw : trim(raw);
  if (quoted && (def.numeric() || def.type == ParamType::kBool)) {
    wrong_type(def, text, where, "a quoted string");
  }
  Value value;
  switch (def.type) {
    case ParamType::kInt: {
      std::int64_t v = 0;
      if (!parse_int(text, &v)) {
        double d = 0;
        wrong_type(def, text, where, parse_double(text, &d) ? "not a whole number" : nullptr);
      }
      value = v;
      break;
    }
    case ParamType::kFloat: {
      double v = 0;
      if (!parse_double(text, &v)) wrong_type(def, text, where);
      value = v;
      break;
    }
    case ParamType::kBool: {
      const std::string t = lower(text);
      if (t == "true" || t == "yes" || t == "on") {
        value = true;
      } else if (t == "false" || t == "no" || t == "off") {
        value = false;
      } else {
        wrong_type(def, text, where, "use true or false");
      }
      break;
    }
    case ParamType::kString:
    case ParamType::kEnum: value = std::string(text); break;
  }
  check_value(def, value, where);
  return value;
}

}  // namespace vp::config
