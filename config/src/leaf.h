// Private: a configuration file flattened to dotted keys, the common form
// of YAML and JSON input, so both formats share one set of rules.
#pragma once

#include <string>
#include <vector>

#include "vp/config/param_set.h"

namespace vp::config::detail {

struct Leaf {
  std::string key;    // "xbar.rows", however the file nested it
  std::string text;   // scalar as written
  bool quoted;        // was a quoted string: never a number or bool
  std::string where;  // "file:line" (or "file" when no line is known)
};

// Applies leaves in file order. A key given twice in one file is an error
// naming both places: with nested and flat keys mixed, last-wins inside a
// file would hide typos.
void apply_leaves(ParamSet& params, const std::vector<Leaf>& leaves);

// "a" + "b" -> "a.b"; "" + "b" -> "b".
std::string join_key(const std::string& prefix, const std::string& key);

// Error for a map or list found where a parameter needs a scalar.
[[noreturn]] void not_a_scalar(const std::string& key, const std::string& where, const char* what);

}  // namespace vp::config::detail
