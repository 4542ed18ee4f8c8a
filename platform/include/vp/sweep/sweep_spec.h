// A sweep file, parsed and checked: what to run (models, preset, inputs),
// which parameters vary and how, which seeds, and what to collect. Every
// relative path is already resolved against the sweep file's folder.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vp::sweep {

// One varied parameter and the values it takes, in order. `texts` are the
// values as vp-run's --set takes them (canonical: format_value round-trips).
struct Axis {
  std::string param;
  std::vector<std::string> texts;
  std::vector<double> numeric;  // same values as numbers; empty for bool/enum/string
  bool log_scale = false;       // from a log range: plots use a log axis
  bool affects_program = false; // ParamDef::affects_program
  std::string where;            // file:line of its entry
};

enum class Combine { kGrid, kZip };

// A statistic of vp-run (`path` into its stats JSON), a derived figure, or a
// comparison of an output against a golden file.
struct MetricDef {
  enum class Kind { kStat, kInferencesPerS, kEnergyPerInference, kGolden, kAccuracy };
  enum class Measure { kExactFraction, kMaxAbsError };
  std::string name;      // column name
  Kind kind = Kind::kStat;
  std::string path;      // kStat: dotted path, e.g. units.xbar.utilization
  bool zero_when_absent = false;  // units.* of a unit that never ran
  std::string golden;    // kGolden: golden file (absolute)
  std::string output;    // kGolden, kAccuracy: which `outputs` entry (its file name)
  std::string labels;    // kAccuracy: integer labels, one per element of the output (absolute)
  Measure measure = Measure::kExactFraction;
  std::string where;
};

enum class Goal { kMin, kMax };

struct ParetoSpec {
  bool enabled = false;
  std::string metric[2];
  Goal goal[2] = {Goal::kMin, Goal::kMin};
  std::string where;
};

struct PlotSpec {
  std::string metric;
  std::string x;  // a varied parameter
  std::string where;
};

// vp-run --output FILE@ADDR:BYTES[:DTYPE], FILE being a bare file name that
// lands in each point's folder.
struct OutputSpec {
  std::string file;
  std::string spec;   // "@ADDR:BYTES[:DTYPE]" as given, or ":DTYPE" after a bare file
  std::string dtype;  // int8 (default), uint8, int16, int32
};

struct SweepSpec {
  std::string path;        // the sweep file (absolute)
  std::string name;        // default: file stem
  std::vector<std::string> models;  // absolute paths (.s, .asm, .vpo, .onnx)
  std::string preset = "sidra-y1";  // name or absolute path
  std::vector<std::string> configs; // absolute paths
  std::vector<std::pair<std::string, std::string>> fixed;  // param, canonical text
  std::vector<std::string> inputs;  // "ABS_FILE@ADDR"
  std::vector<OutputSpec> outputs;
  std::vector<Axis> axes;
  Combine combine = Combine::kGrid;
  std::vector<std::uint64_t> seeds;  // never empty after parsing
  std::vector<MetricDef> metrics;
  ParetoSpec pareto;
  std::vector<PlotSpec> plots;       // empty: every metric vs every axis
  std::uint64_t max_cycles = 0;
  double timeout_s = 0;              // 0: none
  double inferences_per_run = 1;
  std::uint64_t batch = 0;           // vp-run --batch (0: not given)
  std::string out_dir;               // from `output:`, "" if not given
  std::vector<std::string> compiler_args;  // template, see docs/vp-sweep.md
  std::string compiler_program = "model.asm";
  // compiler.adc_ranges (docs/vp-sweep.md, adc_calibration.cpp): each
  // point's ADC ranges measured on its own device (vp-run --adc-profile on
  // these inputs), then its program compiled again with them (vp-cc
  // --adc-ranges, the measured sums x adc_headroom). Empty: no calibration.
  std::vector<std::string> adc_calib_inputs;
  double adc_headroom = 1.0;

  const Axis* axis(const std::string& param) const {
    for (const auto& a : axes)
      if (a.param == param) return &a;
    return nullptr;
  }
  const MetricDef* metric(const std::string& name) const {
    for (const auto& m : metrics)
      if (m.name == name) return &m;
    return nullptr;
  }
};

// Reads and checks a sweep file. Throws SweepError naming file:line.
SweepSpec parse_sweep_file(const std::string& path);
// Same from text; `path` names it in errors and anchors relative paths.
SweepSpec parse_sweep_text(const std::string& text, const std::string& path);

}  // namespace vp::sweep
