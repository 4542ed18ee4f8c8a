// The calibration loop of `vp-eval --mitigate adc-range` inside a sweep
// (compiler.adc_ranges, docs/vp-sweep.md): every point profiles its own
// device, since the column sums an ADC sees depend on every device
// parameter and the seed, and its program is compiled again with the
// ranges measured (private to src/sweep).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "vp/sweep/layout.h"
#include "vp/sweep/plan.h"
#include "vp/sweep/point_runner.h"

namespace vp::sweep::detail {

// The program a calibrated point runs: OUT/calibrated/<id>/<program>.
std::string calibrated_program(const SweepSpec& spec, const Layout& layout, const Point& point);

// For each point not calibrated yet whose program compiled: vp-run
// --adc-profile on the calibration inputs (adc.mode=ideal, every other
// parameter the point's), then vp-cc --adc-ranges, `options.parallel` at a
// time. A point that fails lands in *failures (point id -> why); its
// temporary folder is kept as OUT/calibrated/<id>.failed. False when
// interrupted by a signal (number in *signal).
bool calibrate_points(const SweepSpec& spec, const Plan& plan, const Layout& layout, const Tools& tools,
                      const std::vector<const Point*>& points, const std::map<std::string, std::string>& compile_failures,
                      const RunOptions& options, std::map<std::string, std::string>* failures, int* signal);

}  // namespace vp::sweep::detail
