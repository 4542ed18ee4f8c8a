// JSON configuration files. nlohmann keeps JSON's own types, so a quoted
// "128" for an int parameter is a type error, as in YAML.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "leaf.h"

namespace vp::config {
namespace {

using detail::Leaf;
using json = nlohmann::json;

void flatten(const json& object, const std::string& prefix, const std::string& source,
             std::vector<Leaf>& out) {
  for (const auto& [name, value] : object.items()) {
    const std::string key = detail::join_key(prefix, name);
    switch (value.type()) {
      case json::value_t::object:
        if (find_param(key) != nullptr) detail::not_a_scalar(key, source, "an object");
        flatten(value, key, source, out);
        break;
      case json::value_t::array: detail::not_a_scalar(key, source, "an array");
      case json::value_t::null:
        param_index(key, source);
        throw ConfigError(ConfigError::Kind::kMalformed, key, source, "has no value (null)");
      case json::value_t::string: out.push_back({key, value.get<std::string>(), true, source}); break;
      default: out.push_back({key, value.dump(), false, source}); break;
    }
  }
}

}  // namespace

void ParamSet::apply_json(const std::string& text, const std::string& source_name) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto upto = text.begin() + static_cast<std::ptrdiff_t>(std::min(e.byte, text.size()));
    const auto line = 1 + std::count(text.begin(), upto, '\n');
    throw ConfigError(ConfigError::Kind::kFile, "", fmt::format("{}:{}", source_name, line),
                      e.what());
  } catch (const json::exception& e) {
    // Not a syntax error but a value JSON cannot hold (a number beyond a
    // double, 1e999): nlohmann throws out_of_range without a position.
    throw ConfigError(ConfigError::Kind::kFile, "", source_name, e.what());
  }
  if (!root.is_object()) {
    throw ConfigError(ConfigError::Kind::kFile, "", source_name,
                      "expected an object of parameters at the top level");
  }
  std::vector<Leaf> leaves;
  flatten(root, "", source_name, leaves);
  detail::apply_leaves(*this, leaves);
}

}  // namespace vp::config
