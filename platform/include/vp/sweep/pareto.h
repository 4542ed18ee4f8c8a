// The Pareto front of points under two objectives, each minimised or
// maximised: a point is on the front when no other point is at least as good
// in both and better in one. Equal points are all on the front.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

// One flag per input; points without both values are never on the front.
std::vector<bool> pareto_front(const std::vector<std::optional<std::pair<double, double>>>& points, Goal x_goal,
                               Goal y_goal);

}  // namespace vp::sweep
