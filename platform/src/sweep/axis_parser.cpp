#include "axis_parser.h"

#include <cmath>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "vp/config/config_error.h"
#include "vp/config/registry.h"

namespace vp::sweep::detail {
namespace {

using config::ParamDef;
using config::ParamType;
using config::Value;

// Texts parse_value accepts, converted to SweepError at the node's line.
Value parse_at(const Doc& doc, const ParamDef& def, const YAML::Node& node) {
  try {
    return config::parse_value(def, doc.scalar(node, def.name), doc.at(node), doc.quoted(node));
  } catch (const config::ConfigError& e) {
    throw SweepError("", e.what());
  }
}

double as_double(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}

// Float range values keep 12 significant digits, so 0.1 steps give 0.3 and
// not 0.30000000000000004 (which would name a different point).
double tidy(double v) { return std::stod(fmt::format("{:.12g}", v)); }

std::vector<double> range_values(const Doc& doc, const ParamDef& def, const YAML::Node& r, bool* log_scale) {
  static const char* const kKeys[] = {"from", "to", "step", "steps", "factor", "scale", nullptr};
  doc.only_keys(r, kKeys, def.name + " range");
  if (!def.numeric()) doc.fail(r, def.name + ": a range needs a numeric parameter; list the values instead");
  if (!r["from"] || !r["to"]) doc.fail(r, def.name + ": a range needs 'from' and 'to'");
  const double from = as_double(parse_at(doc, def, r["from"]));
  const double to = as_double(parse_at(doc, def, r["to"]));
  const int ways = (r["step"] ? 1 : 0) + (r["steps"] ? 1 : 0) + (r["factor"] ? 1 : 0);
  if (ways != 1) doc.fail(r, def.name + ": a range needs exactly one of 'step', 'steps' (count) or 'factor'");
  std::string scale = r["scale"] ? doc.scalar(r["scale"], "scale") : (r["factor"] ? "log" : "linear");
  if (scale != "linear" && scale != "log") doc.fail(r["scale"], def.name + ": scale must be linear or log");
  *log_scale = scale == "log";
  if (from > to) doc.fail(r, fmt::format("{}: empty range: from {} is above to {}", def.name, from, to));

  std::vector<double> v;
  if (r["step"]) {
    if (*log_scale) doc.fail(r["step"], def.name + ": a log range takes 'steps' or 'factor', not 'step'");
    const double step = doc.number(r["step"], def.name + " step");
    if (!(step > 0)) doc.fail(r["step"], def.name + ": empty range: step must be above 0");
    for (long k = 0;; ++k) {
      const double x = from + static_cast<double>(k) * step;
      if (x > to + 1e-9 * step) break;
      if (k >= 100000) doc.fail(r, def.name + ": range has more than 100000 values");
      v.push_back(x);
    }
  } else if (r["steps"]) {
    const std::uint64_t n = doc.u64(r["steps"], def.name + " steps");
    if (n == 0) doc.fail(r["steps"], def.name + ": empty range: steps is 0");
    if (n > 100000) doc.fail(r["steps"], def.name + ": range has more than 100000 values");
    if (n == 1 && from != to) doc.fail(r["steps"], def.name + ": one step from " + fmt::format("{} to {}", from, to) + " is ambiguous; use steps >= 2");
    if (*log_scale && !(from > 0)) doc.fail(r["from"], def.name + ": a log range starts above 0");
    for (std::uint64_t k = 0; k < n; ++k) {
      const double t = n == 1 ? 0.0 : static_cast<double>(k) / static_cast<double>(n - 1);
      v.push_back(*log_scale ? from * std::pow(to / from, t) : from + t * (to - from));
    }
  } else {
    if (!*log_scale) doc.fail(r["factor"], def.name + ": 'factor' makes a log range");
    const double f = doc.number(r["factor"], def.name + " factor");
    if (!(f > 1)) doc.fail(r["factor"], def.name + ": factor must be above 1");
    if (!(from > 0)) doc.fail(r["from"], def.name + ": a log range starts above 0");
    for (double x = from; x <= to * (1 + 1e-9); x *= f) {
      if (v.size() >= 100000) doc.fail(r, def.name + ": range has more than 100000 values");
      v.push_back(x);
    }
  }
  for (double& x : v) x = def.type == ParamType::kInt ? std::round(x) : tidy(x);
  return v;
}

}  // namespace

const ParamDef& param_or_fail(const Doc& doc, const YAML::Node& key) {
  const std::string name = doc.scalar(key, "parameter name");
  try {
    return config::registry()[config::param_index(name, doc.at(key))];
  } catch (const config::ConfigError& e) {
    throw SweepError("", e.what());
  }
}

std::vector<Axis> parse_axes(const Doc& doc, const YAML::Node& parameters) {
  if (!parameters.IsMap()) doc.fail(parameters, "parameters: expected a map of parameter: values");
  std::vector<Axis> axes;
  for (const auto& kv : parameters) {
    const ParamDef& def = param_or_fail(doc, kv.first);
    if (def.name == "device.seed") doc.fail(kv.first, "device.seed: vary it with 'seeds:', not 'parameters:'");
    for (const auto& a : axes)
      if (a.param == def.name) doc.fail(kv.first, def.name + ": listed twice");
    Axis axis;
    axis.param = def.name;
    axis.affects_program = def.affects_program;
    axis.where = doc.at(kv.first);
    std::vector<Value> values;
    const YAML::Node& spec = kv.second;
    if (spec.IsMap()) {
      for (double x : range_values(doc, def, spec, &axis.log_scale)) {
        Value val = def.type == ParamType::kInt ? Value(static_cast<std::int64_t>(x)) : Value(x);
        try {
          config::check_value(def, val, doc.at(spec));
        } catch (const config::ConfigError& e) {
          throw SweepError("", e.what());
        }
        values.push_back(val);
      }
    } else if (spec.IsSequence() || spec.IsScalar()) {
      if (spec.IsSequence() && spec.size() == 0) doc.fail(spec, def.name + ": empty list of values");
      for (const auto& item : doc.items(spec, def.name)) values.push_back(parse_at(doc, def, item));
    } else {
      doc.fail(kv.first, def.name + ": expected a list of values or a range {from, to, step|steps|factor}");
    }
    // A set, not a scan of the texts so far: an axis may hold 100,000 values.
    std::unordered_set<std::string> seen;
    seen.reserve(values.size());
    for (const auto& val : values) {
      std::string text = config::format_value(def, val);
      if (!seen.insert(text).second)
        doc.fail(spec, def.name + ": value " + text + " appears twice" +
                           (spec.IsMap() ? " after rounding to whole numbers; use fewer steps" : ""));
      axis.texts.push_back(std::move(text));
      if (def.numeric()) axis.numeric.push_back(as_double(val));
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

}  // namespace vp::sweep::detail
