// Text views of the registry and of a configuration: the effective
// configuration as YAML that loads back, a listing for --list-params, and
// the Markdown reference checked in as docs/parameters.md.
#pragma once

#include <string>

#include "vp/config/param_set.h"

namespace vp::config {

// Nested YAML of every parameter, each preceded by a comment with its
// description, unit and range (and where it was set when not the default).
// ParamSet().apply_yaml(dump_yaml(p), ...) == p.
std::string dump_yaml(const ParamSet& params);

// The same values as a nested JSON object (for statistics files and sweeps).
std::string dump_json(const ParamSet& params);

// Aligned table: name, type, unit, value, range, description. With a
// ParamSet the value column shows its values, otherwise the defaults.
std::string list_params(const ParamSet* current = nullptr);

// docs/parameters.md: one table per group plus the presets that ship in
// `presets_dir` and how each differs from the defaults.
std::string markdown_reference(const std::string& presets_dir);

}  // namespace vp::config
