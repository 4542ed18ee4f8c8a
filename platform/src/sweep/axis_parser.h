// `parameters:` of a sweep file: each entry a list of values or a range
// (linear by step or by count, logarithmic by count or by factor), checked
// against the parameter registry (private to src/sweep).
#pragma once

#include <vector>

#include "vp/config/registry.h"
#include "vp/sweep/sweep_spec.h"
#include "yaml_util.h"

namespace vp::sweep::detail {

std::vector<Axis> parse_axes(const Doc& doc, const YAML::Node& parameters);

// A registry parameter named by a sweep file, or an error naming the line
// with the registry's suggestion.
const config::ParamDef& param_or_fail(const Doc& doc, const YAML::Node& key);

}  // namespace vp::sweep::detail
