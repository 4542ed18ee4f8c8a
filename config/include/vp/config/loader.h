// Building a ParamSet the way vp-run does, and finding presets on disk.
#pragma once

#include <string>
#include <vector>

#include "vp/config/param_set.h"

namespace vp::config {

inline constexpr const char* kDefaultPreset = "sidra-y1";

struct LoadRequest {
  std::string preset = kDefaultPreset;    // name or path; "" = defaults only
  std::vector<std::string> config_files;  // applied in order
  std::vector<std::string> sets;          // "k=v", applied last, in order
};

// defaults -> preset -> files -> sets, then validate(). Throws ConfigError.
ParamSet load_config(const LoadRequest& request);

// Directories searched for presets: $VP_CONFIG_DIR if set, those
// add_config_dir() named, the installed presets (installed_data_dir()/configs),
// then the source tree's configs/ (compiled in).
std::vector<std::string> config_dirs();

// P/share/sidra-vp when this program is an installed one (P/bin/NAME, see
// `cmake --install`) and that directory exists; empty otherwise.
std::string installed_data_dir();

// One more directory of presets, searched before the source tree's (the
// Python module adds the presets installed beside it).
void add_config_dir(const std::string& dir);

// A preset name resolves to <dir>/<name>.yaml (or .yml/.json) in the first
// dir that has it; anything with a '/' or an extension is a path. Throws
// ConfigError(kUnknownPreset) listing the presets that do exist.
std::string find_preset(const std::string& name_or_path);

// A chip-to-chip link preset (pcie, d2d): <dir>/links/<name>.yaml in the
// first of config_dirs() that has it; the link.* rows over a chip preset.
std::string find_link_preset(const std::string& name);

// The source tree's configs/ directory, compiled in (VP_CONFIG_DIR); the
// presets docs/parameters.md describes.
std::string builtin_config_dir();

// Names of the presets in config_dirs(), sorted, without extension.
std::vector<std::string> preset_names();

}  // namespace vp::config
