#include "vp/sweep/plan.h"

#include <map>

#include "vp/config/config_error.h"
#include "vp/config/loader.h"
#include "vp/config/registry.h"
#include "vp/sweep/hash.h"
#include "vp/sweep/sweep_error.h"

namespace vp::sweep {
namespace {

std::string base_name(const std::string& p) {
  const std::size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string checked_hash(const std::string& path) {
  try {
    return hash_file(path);
  } catch (const std::exception& e) {
    throw SweepError(path, e.what());
  }
}

// What every point shares: preset and config contents, fixed settings,
// inputs, outputs, limits. Contents rather than paths, so an edited preset
// or input reruns and a moved tree does not.
struct Shared {
  std::string preset_hash;
  std::vector<std::string> config_hashes;
  std::vector<std::string> input_ids;
  std::vector<std::string> model_hashes;
};

Shared shared_of(const SweepSpec& spec) {
  Shared s;
  std::string preset_file;
  try {
    preset_file = config::find_preset(spec.preset);
  } catch (const config::ConfigError& e) {
    throw SweepError(spec.path, e.what());
  }
  s.preset_hash = checked_hash(preset_file);
  for (const auto& c : spec.configs) s.config_hashes.push_back(checked_hash(c));
  for (const auto& in : spec.inputs) {
    const std::size_t at = in.rfind('@');
    const std::string file = in.substr(0, at);
    s.input_ids.push_back(base_name(file) + "#" + checked_hash(file) + (at == std::string::npos ? "" : in.substr(at)));
  }
  for (const auto& m : spec.models) s.model_hashes.push_back(base_name(m) + "#" + checked_hash(m));
  return s;
}

void add_base(Hasher& h, const SweepSpec& spec, const Shared& s) {
  h.field(spec.preset.find('/') == std::string::npos ? spec.preset : base_name(spec.preset));
  h.field(s.preset_hash);
  for (const auto& c : s.config_hashes) h.field("config " + c);
  for (const auto& [k, v] : spec.fixed)
    h.field("set " + k + "=" + v);
}

std::vector<std::vector<std::size_t>> combinations(const SweepSpec& spec) {
  std::vector<std::vector<std::size_t>> out;
  if (spec.axes.empty()) return {{}};
  if (spec.combine == Combine::kZip) {
    for (std::size_t i = 0; i < spec.axes.front().texts.size(); ++i)
      out.push_back(std::vector<std::size_t>(spec.axes.size(), i));
    return out;
  }
  // Grid: the last axis varies fastest, like nested loops in file order.
  std::vector<std::size_t> idx(spec.axes.size(), 0);
  for (;;) {
    out.push_back(idx);
    std::size_t a = spec.axes.size();
    while (a > 0) {
      --a;
      if (++idx[a] < spec.axes[a].texts.size()) break;
      idx[a] = 0;
      if (a == 0) return out;
    }
  }
}

}  // namespace

bool is_onnx(const std::string& model) {
  return model.size() >= 5 && model.compare(model.size() - 5, 5, ".onnx") == 0;
}

config::ParamSet base_config(const SweepSpec& spec) {
  config::ParamSet p;
  p.apply_preset(spec.preset);
  for (const auto& c : spec.configs) p.apply_file(c);
  for (const auto& [k, v] : spec.fixed) p.set(k, v, "sweep set");
  return p;
}

Plan make_plan(const SweepSpec& spec) {
  const Shared shared = shared_of(spec);
  const config::ParamSet base = base_config(spec);
  config::ParamSet preset;
  preset.apply_preset(spec.preset);
  const auto combos = combinations(spec);
  Plan plan;
  std::map<std::string, std::size_t> programs;
  for (std::size_t m = 0; m < spec.models.size(); ++m) {
    for (const auto& combo : combos) {
      // Validity and the program key do not depend on the seed.
      config::ParamSet params = base;
      std::string invalid;
      try {
        for (std::size_t a = 0; a < spec.axes.size(); ++a)
          params.set(spec.axes[a].param, spec.axes[a].texts[combo[a]], "sweep");
        params.validate();
      } catch (const config::ConfigError& e) {
        invalid = e.what();
      }
      // The compiler sees the preset plus every program-affecting value that
      // differs from it, whether a config file, `set:` or an axis chose it.
      Program prog;
      prog.model = m;
      for (std::size_t i = 0; i < config::registry().size(); ++i) {
        const config::ParamDef& def = config::registry()[i];
        if (def.affects_program && params.value_at(i) != preset.value_at(i))
          prog.sets.emplace_back(def.name, config::format_value(def, params.value_at(i)));
      }
      std::string program_key;
      if (is_onnx(spec.models[m]) && invalid.empty()) {
        Hasher h;
        h.field("vp-sweep program 1");
        h.field(shared.model_hashes[m]);
        h.field(spec.preset);
        h.field(shared.preset_hash);
        for (const auto& [k, v] : prog.sets) h.field(k + "=" + v);
        for (const auto& arg : spec.compiler_args) h.field("arg " + arg);
        h.field("program " + spec.compiler_program);
        program_key = h.hex().substr(0, 20);
        prog.key = program_key;
        if (programs.emplace(program_key, plan.programs.size()).second) plan.programs.push_back(prog);
      }
      for (const std::uint64_t seed : spec.seeds) {
        Point p;
        p.index = plan.points.size();
        p.model = m;
        p.seed = seed;
        p.program = program_key;
        p.invalid = invalid;
        Hasher h;
        h.field("vp-sweep point 1");
        h.field(shared.model_hashes[m]);
        add_base(h, spec, shared);
        for (std::size_t a = 0; a < spec.axes.size(); ++a) {
          p.values.push_back(spec.axes[a].texts[combo[a]]);
          h.field(spec.axes[a].param + "=" + p.values.back());
        }
        h.field("seed " + std::to_string(seed));
        for (const auto& in : shared.input_ids) h.field("input " + in);
        for (const auto& o : spec.outputs) h.field("output " + o.file + o.spec);
        h.field("max_cycles " + std::to_string(spec.max_cycles));
        if (!program_key.empty()) h.field("program " + program_key);
        p.id = h.hex().substr(0, 20);
        plan.points.push_back(std::move(p));
      }
    }
  }
  return plan;
}

std::string describe(const SweepSpec& spec, const Point& point) {
  std::string s;
  if (spec.models.size() > 1) s += base_name(spec.models[point.model]) + " ";
  for (std::size_t a = 0; a < spec.axes.size(); ++a) s += spec.axes[a].param + "=" + point.values[a] + " ";
  return s + "seed=" + std::to_string(point.seed);
}

}  // namespace vp::sweep
