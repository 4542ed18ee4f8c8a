// The points of a sweep: models x (grid or zip of the parameters) x seeds,
// each with a stable id (the name of its folder) and, for ONNX models, the
// key of the compiled program it runs. The same sweep file always expands to
// the same plan, which is how a Slurm task finds its point by index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vp/config/param_set.h"
#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

struct Point {
  std::size_t index = 0;
  std::string id;                   // hash of everything that decides the run
  std::size_t model = 0;            // into SweepSpec::models
  std::uint64_t seed = 0;
  std::vector<std::string> values;  // one per SweepSpec::axes, canonical text
  std::string program;              // key into Plan::programs; "" = model as is
  std::string invalid;              // non-empty: the parameters contradict each other
};

// An ONNX model compiled for one combination of program-affecting parameters.
struct Program {
  std::string key;
  std::size_t model = 0;
  std::vector<std::pair<std::string, std::string>> sets;  // program-affecting only
};

struct Plan {
  std::vector<Point> points;
  std::vector<Program> programs;
  const Program* program(const std::string& key) const {
    for (const auto& p : programs)
      if (p.key == key) return &p;
    return nullptr;
  }
};

// Throws SweepError when a file it hashes cannot be read.
Plan make_plan(const SweepSpec& spec);

// preset -> config files -> fixed sets (what every point starts from).
config::ParamSet base_config(const SweepSpec& spec);

bool is_onnx(const std::string& model);

// "xbar.read_ns=50 adc.bits=6" for logs and plot legends.
std::string describe(const SweepSpec& spec, const Point& point);

}  // namespace vp::sweep
