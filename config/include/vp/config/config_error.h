// The one exception type of vp::config. Every message names the parameter
// (and, for files, file:line) so a user can fix a configuration without
// reading the simulator's source.
#pragma once

#include <stdexcept>
#include <string>

namespace vp::config {

class ConfigError : public std::runtime_error {
 public:
  enum class Kind {
    kUnknownKey,     // not in the registry (message carries a "did you mean")
    kWrongType,      // value does not parse as the parameter's type
    kOutOfRange,     // numeric value outside [min, max]
    kBadEnum,        // enum value not in the allowed list (message lists it)
    kMalformed,      // --set without '=', empty key, null value, duplicate key
    kConstraint,     // parameters valid alone but inconsistent together
    kFile,           // file missing, unreadable or not YAML/JSON
    kUnknownPreset,  // preset name not found in the configs directory
  };

  // where: "file:line", "--set", "preset small", or empty.
  ConfigError(Kind kind, std::string key, std::string where, const std::string& detail);

  Kind kind() const { return kind_; }
  const std::string& key() const { return key_; }
  const std::string& where() const { return where_; }

 private:
  Kind kind_;
  std::string key_;
  std::string where_;
};

const char* kind_name(ConfigError::Kind kind);

}  // namespace vp::config
