#include "yaml_util.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace vp::sweep::detail {

std::uint64_t Doc::u64(const YAML::Node& node, const std::string& what) const {
  const std::string s = scalar(node, what);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (s.empty() || s[0] == '-' || *end != '\0' || errno != 0 || quoted(node))
    fail(node, what + ": expected a whole number >= 0, got '" + s + "'");
  return v;
}

double Doc::number(const YAML::Node& node, const std::string& what) const {
  const std::string s = scalar(node, what);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v) || quoted(node))
    fail(node, what + ": expected a number, got '" + s + "'");
  return v;
}

bool Doc::boolean(const YAML::Node& node, const std::string& what) const {
  const std::string s = scalar(node, what);
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail(node, what + ": expected true or false, got '" + s + "'");
}

std::vector<YAML::Node> Doc::items(const YAML::Node& node, const std::string& what) const {
  std::vector<YAML::Node> out;
  if (node.IsScalar()) {
    out.push_back(node);
  } else if (node.IsSequence()) {
    for (const auto& item : node) {
      if (!item.IsScalar()) fail(item, what + ": expected a list of single values");
      out.push_back(item);
    }
  } else {
    fail(node, what + ": expected a value or a list of values");
  }
  return out;
}

std::string Doc::resolve(const std::string& p) const {
  if (p.empty()) return p;
  return std::filesystem::path(p[0] == '/' ? p : dir + "/" + p).lexically_normal().string();
}

std::string Doc::existing_file(const YAML::Node& node, const std::string& p, const std::string& what) const {
  const std::string full = resolve(p);
  struct stat st {};
  if (::stat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    fail(node, what + " " + p + ": no such file (relative paths start at " + dir + ")");
  return full;
}

void Doc::only_keys(const YAML::Node& map, const char* const* known, const std::string& what) const {
  // Callers index the map next: a scalar or a list here would throw
  // yaml-cpp's BadSubscript instead of naming the line.
  if (!map.IsMap()) fail(map, what + ": expected a map of key: value");
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    bool ok = false;
    std::string list;
    for (const char* const* k = known; *k; ++k) {
      ok = ok || key == *k;
      list += std::string(list.empty() ? "" : ", ") + *k;
    }
    if (!ok) fail(kv.first, what + ": unknown key '" + key + "' (expected one of " + list + ")");
  }
}

}  // namespace vp::sweep::detail
