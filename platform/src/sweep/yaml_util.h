// Small helpers for reading a sweep file with yaml-cpp: every error names
// file:line from the node's Mark (private to src/sweep).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

#include "vp/sweep/sweep_error.h"

namespace vp::sweep::detail {

struct Doc {
  std::string path;  // the sweep file, for "path:line"
  std::string dir;   // its folder, for relative paths

  std::string at(const YAML::Node& node) const {
    const YAML::Mark m = node.Mark();
    return m.line < 0 ? path : path + ":" + std::to_string(m.line + 1);
  }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& detail) const { throw SweepError(at(node), detail); }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + ": expected a single value");
    return node.Scalar();
  }
  bool quoted(const YAML::Node& node) const { return node.Tag() == "!"; }
  std::uint64_t u64(const YAML::Node& node, const std::string& what) const;
  double number(const YAML::Node& node, const std::string& what) const;
  bool boolean(const YAML::Node& node, const std::string& what) const;
  // A scalar or a list of scalars, as a list of nodes.
  std::vector<YAML::Node> items(const YAML::Node& node, const std::string& what) const;
  // Relative to the sweep file's folder; absolute paths stay.
  std::string resolve(const std::string& p) const;
  // Resolves and checks that the file exists.
  std::string existing_file(const YAML::Node& node, const std::string& p, const std::string& what) const;
  // Unknown keys of a map are errors; `known` ends with nullptr.
  void only_keys(const YAML::Node& map, const char* const* known, const std::string& what) const;
};

}  // namespace vp::sweep::detail
