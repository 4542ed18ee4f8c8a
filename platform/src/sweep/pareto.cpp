#include "vp/sweep/pareto.h"

#include <algorithm>
#include <limits>

namespace vp::sweep {

std::vector<bool> pareto_front(const std::vector<std::optional<std::pair<double, double>>>& points, Goal x_goal,
                               Goal y_goal) {
  // Turned into "minimise both", sorted by x: walking groups of equal x in
  // order, a group's lowest-y points are on the front iff that y is below
  // every y seen at smaller x. O(n log n).
  struct P {
    double x, y;
    std::size_t i;
  };
  std::vector<P> ps;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i]) continue;
    const double x = x_goal == Goal::kMin ? points[i]->first : -points[i]->first;
    const double y = y_goal == Goal::kMin ? points[i]->second : -points[i]->second;
    ps.push_back({x, y, i});
  }
  std::sort(ps.begin(), ps.end(), [](const P& a, const P& b) { return a.x != b.x ? a.x < b.x : a.y < b.y; });
  std::vector<bool> front(points.size(), false);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t g = 0; g < ps.size();) {
    std::size_t end = g;
    while (end < ps.size() && ps[end].x == ps[g].x) ++end;
    const double ymin = ps[g].y;  // sorted by y within the group
    if (ymin < best) {
      for (std::size_t k = g; k < end && ps[k].y == ymin; ++k) front[ps[k].i] = true;
      best = ymin;
    }
    g = end;
  }
  return front;
}

}  // namespace vp::sweep
