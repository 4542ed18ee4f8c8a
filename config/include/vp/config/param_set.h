// The effective configuration of one chip: a typed value for every registry
// parameter, built in layers where the last setting wins:
//   registry defaults (= sidra-y1) -> preset -> config file(s) -> --set k=v
// Each value remembers where it was set, which --dump-config prints.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "vp/config/config_error.h"
#include "vp/config/cycles.h"
#include "vp/config/registry.h"

namespace vp::config {

class ParamSet {
 public:
  // Every parameter at its registry default.
  ParamSet();

  // ---- layers -----------------------------------------------------------
  // Load a preset by name ("small", searched in config_dirs()) or by path.
  void apply_preset(const std::string& name_or_path);
  // YAML (.yaml/.yml/other) or JSON (.json) file of nested maps and/or
  // flat dotted keys. Errors carry "path:line".
  void apply_file(const std::string& path);
  void apply_yaml(const std::string& text, const std::string& source_name);
  void apply_json(const std::string& text, const std::string& source_name);
  // "xbar.rows=128"; the value is parsed as the parameter's type.
  void apply_set(std::string_view assignment);
  void apply_sets(const std::vector<std::string>& assignments);

  // Set one parameter from text or from a typed value.
  void set(std::string_view key, std::string_view text, const std::string& origin = "api");
  void set_value(std::string_view key, const Value& value, const std::string& origin = "api");

  // Cross-parameter rules (mesh shape, levels within cell range, ...).
  // Throws ConfigError(kConstraint) naming the key to change.
  void validate() const;

  // ---- typed access (throws ConfigError on unknown key or wrong type) ----
  std::int64_t get_int(std::string_view key) const;
  double get_double(std::string_view key) const;  // int parameters widen
  bool get_bool(std::string_view key) const;
  const std::string& get_string(std::string_view key) const;  // string or enum

  template <typename T>
  T get(std::string_view key) const;

  const Value& value(std::string_view key) const;
  const Value& value_at(std::size_t index) const { return values_[index]; }
  const std::string& origin(std::string_view key) const;
  const std::string& origin_at(std::size_t index) const { return origins_[index]; }
  std::string text(std::string_view key) const;  // formatted as in YAML

  // Name of the last preset applied ("" if none): the dump's header cites it.
  const std::string& preset() const { return preset_; }

  // Names of parameters whose values differ between two sets.
  std::vector<std::string> differences(const ParamSet& other) const;
  bool operator==(const ParamSet& other) const { return values_ == other.values_; }
  bool operator!=(const ParamSet& other) const { return !(*this == other); }

  // ---- derived ----------------------------------------------------------
  // Cycles of the chip clock (chip.clock_mhz) covering `ns`, rounded up.
  std::int64_t ns_to_cycles(double ns) const;
  // Same on the NoC clock (noc.clock_mhz).
  std::int64_t noc_ns_to_cycles(double ns) const;
  double cycle_ns() const;

 private:
  const ParamDef& def_checked(std::string_view key, ParamType want, std::size_t* index) const;

  std::vector<Value> values_;
  std::vector<std::string> origins_;
  std::string preset_;
};

template <typename T>
T ParamSet::get(std::string_view key) const {
  if constexpr (std::is_same_v<T, bool>) {
    return get_bool(key);
  } else if constexpr (std::is_integral_v<T>) {
    const std::int64_t v = get_int(key);
    if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
      throw ConfigError(ConfigError::Kind::kOutOfRange, std::string(key), {},
                        "value " + std::to_string(v) + " does not fit the requested integer type");
    }
    return static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(get_double(key));
  } else {
    static_assert(std::is_same_v<T, std::string>, "get<T>: int, float, bool or std::string");
    return get_string(key);
  }
}

// Integer ceiling division for positive operands.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace vp::config
