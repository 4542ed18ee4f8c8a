// Pictures of a sweep: each metric against a varied parameter, one line per
// combination of the other varied parameters (seeds averaged), and the
// Pareto front of the two chosen metrics. SVG and PNG of each.
#pragma once

#include <string>
#include <vector>

#include "vp/sweep/results.h"
#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

// Writes into `dir`; returns the files written (SVG then PNG per plot).
std::vector<std::string> write_plots(const SweepSpec& spec, const std::vector<Row>& rows, const std::string& dir);

}  // namespace vp::sweep
