// Presets on disk and the layered load vp-run performs.
#include "vp/config/loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace vp::config {
namespace {

namespace fs = std::filesystem;

const char* const kExtensions[] = {".yaml", ".yml", ".json"};

bool looks_like_path(const std::string& s) {
  if (s.find('/') != std::string::npos) return true;
  const std::string ext = fs::path(s).extension().string();
  return std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions);
}

}  // namespace

std::string builtin_config_dir() { return VP_CONFIG_DIR; }

std::string installed_data_dir() {
  // An installed tool is P/bin/NAME and its data P/share/sidra-vp.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path share = exe.parent_path().parent_path() / "share" / "sidra-vp";
  return fs::is_directory(share, ec) ? share.string() : std::string();
}

namespace {
std::vector<std::string>& added_dirs() {
  static std::vector<std::string> dirs;
  return dirs;
}
}  // namespace

void add_config_dir(const std::string& dir) {
  if (std::find(added_dirs().begin(), added_dirs().end(), dir) == added_dirs().end()) added_dirs().push_back(dir);
}

std::vector<std::string> config_dirs() {
  std::vector<std::string> dirs;
  // VP_CONFIG_DIR may list several directories, ':'-separated like PATH.
  if (const char* env = std::getenv("VP_CONFIG_DIR"); env != nullptr && *env != '\0') {
    std::string_view rest = env;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) dirs.emplace_back(dir);
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    }
  }
  dirs.insert(dirs.end(), added_dirs().begin(), added_dirs().end());
  if (const std::string data = installed_data_dir(); !data.empty()) dirs.push_back(data + "/configs");
  dirs.push_back(builtin_config_dir());
  // Each folder once, where it first comes (an added folder may be the
  // source tree's own).
  std::vector<std::string> unique;
  for (const auto& d : dirs)
    if (std::find(unique.begin(), unique.end(), d) == unique.end()) unique.push_back(d);
  return unique;
}

std::vector<std::string> preset_names() {
  std::set<std::string> names;
  for (const auto& dir : config_dirs()) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() &&
          std::find(std::begin(kExtensions), std::end(kExtensions), ext) != std::end(kExtensions)) {
        names.insert(entry.path().stem().string());
      }
    }
  }
  return {names.begin(), names.end()};
}

std::string find_preset(const std::string& name_or_path) {
  if (looks_like_path(name_or_path)) {
    if (fs::is_regular_file(name_or_path)) return name_or_path;
    std::error_code ec;
    throw ConfigError(ConfigError::Kind::kUnknownPreset, "", name_or_path,
                      fs::is_directory(name_or_path, ec) ? "is a directory, expected a preset file"
                      : fs::exists(name_or_path, ec)      ? "not a regular file (a device or pipe), expected a preset file"
                                                          : "no such file");
  }
  for (const auto& dir : config_dirs()) {
    for (const char* ext : kExtensions) {
      const fs::path candidate = fs::path(dir) / (name_or_path + ext);
      if (fs::is_regular_file(candidate)) return candidate.string();
    }
  }
  throw ConfigError(ConfigError::Kind::kUnknownPreset, "", name_or_path,
                    fmt::format("no such preset in {} (presets: {})",
                                fmt::join(config_dirs(), ":"), fmt::join(preset_names(), ", ")));
}

std::string find_link_preset(const std::string& name) {
  for (const auto& dir : config_dirs())
    for (const char* ext : kExtensions) {
      const fs::path candidate = fs::path(dir) / "links" / (name + ext);
      if (fs::is_regular_file(candidate)) return candidate.string();
    }
  throw ConfigError(ConfigError::Kind::kUnknownPreset, "", name,
                    fmt::format("no such link preset in the links/ folder of {} (links: pcie, d2d)",
                                fmt::join(config_dirs(), ":")));
}

void ParamSet::apply_preset(const std::string& name_or_path) {
  const std::string path = find_preset(name_or_path);
  apply_file(path);
  preset_ = fs::path(path).stem().string();
}

ParamSet load_config(const LoadRequest& request) {
  ParamSet params;
  if (!request.preset.empty()) params.apply_preset(request.preset);
  for (const auto& file : request.config_files) params.apply_file(file);
  params.apply_sets(request.sets);
  params.validate();
  return params;
}

}  // namespace vp::config
