// Pictures of a sweep: each metric against a varied parameter, one line per
// combination of the other varied parameters (seeds averaged), and the
// Pareto front of the two chosen metrics. SVG and PNG of each.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vp/common/atomic_file.h"

#include "vp/sweep/results.h"
#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

// Finished temporaries, not yet in place: the caller publishes them with
// common::commit_together, so the plots of one collection appear with its
// tables or not at all (dropped, they leave nothing behind).
using StagedFiles = std::vector<std::unique_ptr<common::AtomicFile>>;

// Draws every plot (SVG then PNG of each) into temporaries in `dir`.
StagedFiles stage_plots(const SweepSpec& spec, const std::vector<Row>& rows, const std::string& dir);

}  // namespace vp::sweep
