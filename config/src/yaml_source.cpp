// YAML configuration files: nested maps (`xbar: {rows: 128}`), flat dotted
// keys (`xbar.rows: 128`) or both. yaml-cpp's marks give every error a line.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "leaf.h"

namespace vp::config {
namespace {

using detail::Leaf;

std::string where_of(const std::string& source, const YAML::Mark& mark) {
  if (mark.line < 0) return source;
  return fmt::format("{}:{}", source, mark.line + 1);
}

void flatten(const YAML::Node& map, const std::string& prefix, const std::string& source,
             std::vector<Leaf>& out) {
  for (const auto& entry : map) {
    const std::string where = where_of(source, entry.first.Mark());
    if (!entry.first.IsScalar()) {
      throw ConfigError(ConfigError::Kind::kMalformed, prefix, where, "keys must be plain names");
    }
    const std::string key = detail::join_key(prefix, entry.first.Scalar());
    const YAML::Node& value = entry.second;
    switch (value.Type()) {
      case YAML::NodeType::Map:
        if (find_param(key) != nullptr) detail::not_a_scalar(key, where, "a map");
        flatten(value, key, source, out);
        break;
      case YAML::NodeType::Sequence: detail::not_a_scalar(key, where, "a list");
      case YAML::NodeType::Scalar:
        // yaml-cpp tags plain scalars "?" and quoted ones "!".
        out.push_back({key, value.Scalar(), value.Tag() == "!", where_of(source, value.Mark())});
        break;
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        param_index(key, where);  // an unknown key is the better message
        throw ConfigError(ConfigError::Kind::kMalformed, key, where, "has no value");
    }
  }
}

}  // namespace

void ParamSet::apply_yaml(const std::string& text, const std::string& source_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(ConfigError::Kind::kFile, "", where_of(source_name, e.mark), e.msg);
  }
  if (root.IsNull()) return;  // empty file or only comments: nothing to change
  if (!root.IsMap()) {
    throw ConfigError(ConfigError::Kind::kFile, "", where_of(source_name, root.Mark()),
                      "expected a map of parameters at the top level");
  }
  std::vector<Leaf> leaves;
  flatten(root, "", source_name, leaves);
  detail::apply_leaves(*this, leaves);
}

void ParamSet::apply_file(const std::string& path) {
  // A directory opens as a stream on Linux and reads as nothing: refuse it
  // by name rather than apply an empty configuration.
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(st))
    throw ConfigError(ConfigError::Kind::kFile, "", path, "is a directory, expected a YAML or JSON file");
  // Read whole, so never more than a configuration can be: a device
  // (/dev/zero) is refused by name, and a pipe (--config <(...)) or a file
  // is read up to 64 MiB (a configuration is a few KB) instead of until
  // memory runs out.
  constexpr std::size_t kMaxBytes = std::size_t{64} << 20;
  if (!ec && (std::filesystem::is_character_file(st) || std::filesystem::is_block_file(st) ||
              std::filesystem::is_socket(st)))
    throw ConfigError(ConfigError::Kind::kFile, "", path, "is a device, expected a YAML or JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(ConfigError::Kind::kFile, "", path, std::string("cannot open file: ") + std::strerror(errno));
  std::string bytes;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    bytes.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > kMaxBytes)
      throw ConfigError(ConfigError::Kind::kFile, "", path, "larger than 64 MiB, expected a YAML or JSON configuration");
  }
  if (in.bad()) throw ConfigError(ConfigError::Kind::kFile, "", path, "read failed");
  std::ostringstream text;
  text << bytes;
  // A file named on purpose that holds nothing at all is a mistake (a
  // truncated copy, the wrong name); one with only comments is deliberate.
  if (text.str().find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(ConfigError::Kind::kFile, "", path, "is empty, expected a map of parameters");
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  if (json) {
    apply_json(text.str(), path);
  } else {
    apply_yaml(text.str(), path);
  }
}

}  // namespace vp::config
