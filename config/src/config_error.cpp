#include "vp/config/config_error.h"

namespace vp::config {
namespace {

std::string compose(const std::string& key, const std::string& where, const std::string& detail) {
  std::string msg;
  if (!where.empty()) msg += where + ": ";
  if (!key.empty()) msg += key + ": ";
  return msg + detail;
}

}  // namespace

ConfigError::ConfigError(Kind kind, std::string key, std::string where, const std::string& detail)
    : std::runtime_error(compose(key, where, detail)),
      kind_(kind),
      key_(std::move(key)),
      where_(std::move(where)) {}

const char* kind_name(ConfigError::Kind kind) {
  switch (kind) {
    case ConfigError::Kind::kUnknownKey: return "unknown key";
    case ConfigError::Kind::kWrongType: return "wrong type";
    case ConfigError::Kind::kOutOfRange: return "out of range";
    case ConfigError::Kind::kBadEnum: return "bad enum value";
    case ConfigError::Kind::kMalformed: return "malformed";
    case ConfigError::Kind::kConstraint: return "inconsistent";
    case ConfigError::Kind::kFile: return "file error";
    case ConfigError::Kind::kUnknownPreset: return "unknown preset";
  }
  return "error";
}

}  // namespace vp::config
