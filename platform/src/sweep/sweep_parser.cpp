// Reads a sweep file into a SweepSpec. The order of checks follows the file:
// what runs (models, preset, inputs, outputs), what varies, what is kept.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_set>

#include "axis_parser.h"
#include "metric_parser.h"
#include "vp/common/parse_number.h"
#include "vp/config/config_error.h"
#include "vp/config/loader.h"
#include "vp/config/param_set.h"
#include "vp/config/registry.h"
#include "vp/sweep/sweep_spec.h"
#include "yaml_util.h"

namespace vp::sweep {
namespace {

using detail::Doc;

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string stem(const std::string& path) {
  std::string base = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
  const std::size_t dot = base.find('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

void parse_models(const Doc& doc, const YAML::Node& root, SweepSpec& spec) {
  if (root["model"] && root["models"]) doc.fail(root["models"], "give either 'model' or 'models', not both");
  const YAML::Node node = root["model"] ? root["model"] : root["models"];
  if (!node) doc.fail(root, "no model: add 'model: program.s' (assembly, .vpo object, .onnx or .system.json)");
  if (node.IsSequence() && node.size() == 0) doc.fail(node, "models: empty list");
  std::unordered_set<std::string> seen;
  for (const auto& item : doc.items(node, "model")) {
    const std::string m = doc.existing_file(item, item.Scalar(), "model");
    // A .system.json (vp-cc --chips) runs as vp-run's --system.
    if (!has_suffix(m, ".s") && !has_suffix(m, ".asm") && !has_suffix(m, ".vpo") && !has_suffix(m, ".onnx") &&
        !has_suffix(m, ".system.json"))
      doc.fail(item, "model " + item.Scalar() +
                         ": expected .s/.asm (assembly), .vpo (object), .onnx or .system.json (a system of chips)");
    if (!seen.insert(m).second) doc.fail(item, "model " + item.Scalar() + " listed twice");
    spec.models.push_back(m);
  }
}

// FILE@ADDR for inputs, FILE@ADDR:BYTES[:DTYPE] for outputs: every number
// is read here, strictly, so that a typo is a line of the sweep file and not
// a failure of every point's vp-run.
std::uint64_t io_number(const Doc& doc, const YAML::Node& item, const std::string& text, const std::string& what,
                        const std::string& expected) {
  try {
    return common::parse_uint(text, what);
  } catch (const common::NumberError& e) {
    doc.fail(item, std::string(e.what()) + "; expected " + expected);
  }
}

void parse_io(const Doc& doc, const YAML::Node& root, SweepSpec& spec) {
  if (root["inputs"]) {
    for (const auto& item : doc.items(root["inputs"], "inputs")) {
      const std::string s = item.Scalar();
      const std::size_t at = s.rfind('@');
      const std::string file = s.substr(0, at);
      if (at != std::string::npos)
        io_number(doc, item, s.substr(at + 1), "input '" + s + "' address", "FILE or FILE@ADDR");
      spec.inputs.push_back(doc.existing_file(item, file, "input") + (at == std::string::npos ? "" : s.substr(at)));
    }
  }
  if (root["outputs"]) {
    static const char* const kExpected = "FILE@ADDR:BYTES[:int8|uint8|int16|int32] or a bare FILE";
    std::unordered_set<std::string> seen_files;
    for (const auto& item : doc.items(root["outputs"], "outputs")) {
      const std::string s = item.Scalar();
      // FILE@ADDR:BYTES[:DTYPE]; a bare FILE is passed on as is (for
      // programs that declare their outputs).
      const std::size_t at = s.rfind('@');
      OutputSpec o{s.substr(0, at), at == std::string::npos ? std::string() : s.substr(at), "int8"};
      // A bare FILE:DTYPE (the binding's codes as that dtype): the file is
      // FILE, what a golden metric names and finds in the point's folder.
      if (at == std::string::npos)
        if (const std::size_t colon = s.rfind(':'); colon != std::string::npos)
          for (const char* d : {"int8", "uint8", "int16", "int32"})
            if (s.compare(colon + 1, std::string::npos, d) == 0) {
              o = OutputSpec{s.substr(0, colon), s.substr(colon), d};
              break;
            }
      if (o.file.empty()) doc.fail(item, "output '" + s + "': no file name; expected " + kExpected);
      if (o.file.find('/') != std::string::npos)
        doc.fail(item, "output '" + s + "': give a bare file name; it is written into each point's folder");
      if (at != std::string::npos) {
        const std::string rest = s.substr(at + 1);
        const std::size_t c1 = rest.find(':');
        if (c1 == std::string::npos) doc.fail(item, "output '" + s + "': no byte count; expected " + kExpected);
        const std::size_t c2 = rest.find(':', c1 + 1);
        io_number(doc, item, rest.substr(0, c1), "output '" + s + "' address", kExpected);
        const std::uint64_t bytes =
            io_number(doc, item, rest.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1),
                      "output '" + s + "' bytes", kExpected);
        if (c2 != std::string::npos) o.dtype = rest.substr(c2 + 1);
        if (o.dtype != "int8" && o.dtype != "uint8" && o.dtype != "int16" && o.dtype != "int32")
          doc.fail(item, "output '" + s + "': dtype must be int8, uint8, int16 or int32");
        const std::uint64_t width = o.dtype == "int16" ? 2 : o.dtype == "int32" ? 4 : 1;
        if (bytes == 0 || bytes % width != 0)
          doc.fail(item, "output '" + s + "': " + std::to_string(bytes) + " bytes; expected a positive multiple of " +
                             std::to_string(width) + " (the size of " + o.dtype + ")");
      }
      if (!seen_files.insert(o.file).second) doc.fail(item, "output file " + o.file + " listed twice");
      spec.outputs.push_back(o);
    }
  }
}

// Preset, configuration files and fixed settings; checked by loading them
// together, as vp-run will. Returns the base configuration.
config::ParamSet parse_base(const Doc& doc, const YAML::Node& root, SweepSpec& spec) {
  config::ParamSet base;
  if (root["preset"]) {
    const std::string p = doc.scalar(root["preset"], "preset");
    const bool path = p.find('/') != std::string::npos || p.find('.') != std::string::npos;
    spec.preset = path ? doc.resolve(p) : p;
    try {
      base.apply_preset(spec.preset);
    } catch (const config::ConfigError& e) {
      doc.fail(root["preset"], e.what());
    } catch (const std::filesystem::filesystem_error& e) {
      // e.g. a name longer than the file system allows
      doc.fail(root["preset"], "preset " + p + ": " + e.code().message());
    }
  } else {
    base.apply_preset(spec.preset);
  }
  if (root["config"]) {
    for (const auto& item : doc.items(root["config"], "config")) {
      spec.configs.push_back(doc.existing_file(item, item.Scalar(), "config"));
      try {
        base.apply_file(spec.configs.back());
      } catch (const config::ConfigError& e) {
        doc.fail(item, e.what());
      } catch (const std::filesystem::filesystem_error& e) {
        doc.fail(item, "config " + item.Scalar() + ": " + e.code().message());
      }
    }
  }
  if (const YAML::Node set = root["set"]) {
    if (!set.IsMap()) doc.fail(set, "set: expected a map of parameter: value");
    for (const auto& kv : set) {
      const config::ParamDef& def = detail::param_or_fail(doc, kv.first);
      if (def.name == "device.seed") doc.fail(kv.first, "device.seed: give it with 'seeds:'");
      try {
        const config::Value v =
            config::parse_value(def, doc.scalar(kv.second, def.name), doc.at(kv.second), doc.quoted(kv.second));
        spec.fixed.emplace_back(def.name, config::format_value(def, v));
        base.set_value(def.name, v, doc.at(kv.second));
      } catch (const config::ConfigError& e) {
        throw SweepError("", e.what());
      }
    }
  }
  try {
    base.validate();
  } catch (const config::ConfigError& e) {
    doc.fail(root["set"] ? root["set"] : root, e.what());
  }
  return base;
}

// Every point is planned in memory before any runs: a sweep is bounded.
constexpr std::uint64_t kMaxPoints = 1000000;

void parse_seeds(const Doc& doc, const YAML::Node& node, const config::ParamSet& base, SweepSpec& spec) {
  if (!node) {
    spec.seeds.push_back(static_cast<std::uint64_t>(base.get_int("device.seed")));
    return;
  }
  if (node.IsMap()) {
    static const char* const kKeys[] = {"from", "count", nullptr};
    doc.only_keys(node, kKeys, "seeds");
    if (!node["from"] || !node["count"]) doc.fail(node, "seeds: a range needs 'from' and 'count'");
    const std::uint64_t from = doc.u64(node["from"], "seeds from");
    const std::uint64_t count = doc.u64(node["count"], "seeds count");
    if (count == 0) doc.fail(node["count"], "seeds: empty range (count 0)");
    if (count > kMaxPoints) doc.fail(node["count"], "seeds: count " + std::to_string(count) + " is above " + std::to_string(kMaxPoints));
    if (from > UINT64_MAX - count) doc.fail(node["from"], "seeds: from + count is beyond 2^64 - 1");
    for (std::uint64_t s = from; s < from + count; ++s) spec.seeds.push_back(s);
    return;
  }
  if (node.IsSequence() && node.size() == 0) doc.fail(node, "seeds: empty list");
  std::unordered_set<std::uint64_t> seen;
  for (const auto& item : doc.items(node, "seeds")) {
    const std::uint64_t s = doc.u64(item, "seed");
    if (!seen.insert(s).second) doc.fail(item, "seed " + std::to_string(s) + " listed twice");
    spec.seeds.push_back(s);
  }
}

void parse_axes_and_mode(const Doc& doc, const YAML::Node& root, SweepSpec& spec) {
  if (root["parameters"]) spec.axes = detail::parse_axes(doc, root["parameters"]);
  for (const auto& a : spec.axes)
    for (const auto& f : spec.fixed)
      if (f.first == a.param)
        throw SweepError(a.where, a.param + ": also fixed under 'set:'; keep one");
  if (const YAML::Node mode = root["mode"]) {
    const std::string m = doc.scalar(mode, "mode");
    if (m == "grid") spec.combine = Combine::kGrid;
    else if (m == "zip") spec.combine = Combine::kZip;
    else doc.fail(mode, "mode must be grid (every combination) or zip (i-th value of each), got '" + m + "'");
  }
  if (spec.combine == Combine::kZip) {
    for (const auto& a : spec.axes)
      if (a.texts.size() != spec.axes.front().texts.size())
        throw SweepError(a.where, "mode zip: " + a.param + " has " + std::to_string(a.texts.size()) +
                                      " values but " + spec.axes.front().param + " has " +
                                      std::to_string(spec.axes.front().texts.size()));
  }
}

void parse_compiler(const Doc& doc, const YAML::Node& node, SweepSpec& spec) {
  spec.compiler_args = {"{model}", "-o", "{out}/model.asm", "--chip", "{preset}", "{sets}"};
  if (!node) return;
  static const char* const kKeys[] = {"args", "program", "adc_ranges", nullptr};
  doc.only_keys(node, kKeys, "compiler");
  if (node["args"]) {
    spec.compiler_args.clear();
    for (const auto& item : doc.items(node["args"], "compiler args")) spec.compiler_args.push_back(item.Scalar());
  }
  if (node["program"]) spec.compiler_program = doc.scalar(node["program"], "compiler program");
  if (const YAML::Node ranges = node["adc_ranges"]) {
    // The calibration loop of vp-eval --mitigate adc-range, per point.
    static const char* const kRangeKeys[] = {"inputs", "headroom", nullptr};
    if (!ranges.IsMap()) doc.fail(ranges, "compiler adc_ranges: expected {inputs: [FILE, ...], headroom: H}");
    doc.only_keys(ranges, kRangeKeys, "compiler adc_ranges");
    if (!ranges["inputs"]) doc.fail(ranges, "compiler adc_ranges: no inputs (the calibration inputs vp-run profiles)");
    for (const auto& item : doc.items(ranges["inputs"], "compiler adc_ranges inputs")) {
      const std::string s = item.Scalar();
      const std::size_t at = s.rfind('@');
      if (at != std::string::npos)
        io_number(doc, item, s.substr(at + 1), "calibration input '" + s + "' address", "FILE or FILE@ADDR");
      spec.adc_calib_inputs.push_back(doc.existing_file(item, s.substr(0, at), "calibration input") +
                                      (at == std::string::npos ? "" : s.substr(at)));
    }
    if (spec.adc_calib_inputs.empty()) doc.fail(ranges["inputs"], "compiler adc_ranges: inputs is empty");
    if (ranges["headroom"]) {
      spec.adc_headroom = doc.number(ranges["headroom"], "compiler adc_ranges headroom");
      if (!(spec.adc_headroom >= 1.0 && spec.adc_headroom <= 1e6))
        doc.fail(ranges["headroom"], "compiler adc_ranges headroom must be from 1 to 1e6 (vp-cc --adc-headroom)");
    }
    for (const auto& m : spec.models)
      if (!has_suffix(m, ".onnx"))
        doc.fail(ranges, "compiler adc_ranges: model " + m + " is not ONNX; only a model vp-cc compiles can be "
                         "compiled again with the measured ranges");
  }
}

}  // namespace

SweepSpec parse_sweep_text(const std::string& text, const std::string& path) {
  SweepSpec spec;
  spec.path = path;
  const std::size_t slash = path.rfind('/');
  Doc doc{path, slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash)};
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw SweepError(e.mark.line < 0 ? path : path + ":" + std::to_string(e.mark.line + 1), e.msg);
  }
  if (!root.IsMap()) throw SweepError(path, "expected a map at the top level (model:, parameters:, metrics: ...)");
  static const char* const kKeys[] = {"name",    "model",     "models",  "preset",  "config",  "set",
                                      "inputs",  "outputs",   "max_cycles", "timeout_s", "inferences_per_run",
                                      "mode",    "parameters", "seeds",  "metrics", "pareto",  "plots",
                                      "output",  "compiler",  "batch",   nullptr};
  doc.only_keys(root, kKeys, "sweep file");

  spec.name = root["name"] ? doc.scalar(root["name"], "name") : stem(path);
  if (spec.name.empty() || spec.name.find_first_of("/ \t") != std::string::npos)
    doc.fail(root["name"], "name must be a non-empty word without '/' or spaces");
  parse_models(doc, root, spec);
  parse_io(doc, root, spec);
  const config::ParamSet base = parse_base(doc, root, spec);
  if (root["max_cycles"]) spec.max_cycles = doc.u64(root["max_cycles"], "max_cycles");
  if (root["timeout_s"]) {
    spec.timeout_s = doc.number(root["timeout_s"], "timeout_s");
    if (spec.timeout_s < 0) doc.fail(root["timeout_s"], "timeout_s must be >= 0");
  }
  if (root["inferences_per_run"]) {
    spec.inferences_per_run = doc.number(root["inferences_per_run"], "inferences_per_run");
    if (!(spec.inferences_per_run > 0)) doc.fail(root["inferences_per_run"], "inferences_per_run must be above 0");
  }
  if (root["batch"]) {
    spec.batch = doc.u64(root["batch"], "batch");
    if (spec.batch < 1 || spec.batch > 1000000) doc.fail(root["batch"], "batch must be from 1 to 1000000");
  }
  if (root["output"]) spec.out_dir = doc.resolve(doc.scalar(root["output"], "output"));
  parse_axes_and_mode(doc, root, spec);
  parse_seeds(doc, root["seeds"], base, spec);
  detail::parse_metrics(doc, root["metrics"], spec);
  detail::parse_pareto(doc, root["pareto"], spec);
  detail::parse_plots(doc, root["plots"], spec);
  parse_compiler(doc, root["compiler"], spec);
  // Grid size (zip: one axis' length) times seeds times models, without overflow.
  std::uint64_t points = spec.seeds.size() * spec.models.size();
  for (const auto& a : spec.axes) {
    if (spec.combine == Combine::kZip) {
      points = spec.seeds.size() * spec.models.size() * a.texts.size();
      break;
    }
    points = a.texts.size() > kMaxPoints / std::max<std::uint64_t>(points, 1) ? kMaxPoints + 1 : points * a.texts.size();
  }
  if (points > kMaxPoints)
    doc.fail(root["parameters"] ? root["parameters"] : root, "the sweep expands to more than " +
                                                               std::to_string(kMaxPoints) +
                                                               " points (values x seeds x models); split it");
  return spec;
}

SweepSpec parse_sweep_file(const std::string& path) {
  // Read whole, so never more than a sweep file can be: a directory (which
  // reads as empty) and a device (/dev/zero, read until memory runs out)
  // are refused by name; a file or a pipe is read up to 256 MiB (a
  // 100,000-value axis is under 1 MB).
  constexpr std::size_t kMaxBytes = std::size_t{256} << 20;
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(st)) throw SweepError(path, "is a directory, expected a sweep file (YAML)");
  if (!ec && (std::filesystem::is_character_file(st) || std::filesystem::is_block_file(st) ||
              std::filesystem::is_socket(st)))
    throw SweepError(path, "is a device, expected a sweep file (YAML)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SweepError(path, "cannot open the sweep file");
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxBytes) throw SweepError(path, "larger than 256 MiB: not a sweep file");
  }
  if (in.bad()) throw SweepError(path, "read failed");
  char buf[4096];
  const std::string abs = path[0] == '/' ? path : (::getcwd(buf, sizeof buf) ? std::string(buf) + "/" + path : path);
  return parse_sweep_text(text, abs);
}

}  // namespace vp::sweep
