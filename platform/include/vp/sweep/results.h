// One row per point (parameters, seed, status, metrics, Pareto flag), read
// back from the point folders, and written as CSV and JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vp/sweep/layout.h"
#include "vp/sweep/plan.h"
#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

struct Row {
  const Point* point = nullptr;
  std::string status;  // completed, deadlock, ..., pending (not run yet), invalid
  int exit_code = -1;
  double wall_s = 0;
  std::vector<nlohmann::json> metrics;  // one per SweepSpec::metrics, number or null
  bool pareto = false;
  std::string message;  // why a point is invalid or did not compile
};

std::vector<Row> collect_rows(const SweepSpec& spec, const Plan& plan, const Layout& layout);

// Marks Row::pareto over the completed rows (no-op without `pareto:`).
void mark_pareto(const SweepSpec& spec, std::vector<Row>& rows);

std::string results_csv(const SweepSpec& spec, const std::vector<Row>& rows);
nlohmann::json results_json(const SweepSpec& spec, const std::vector<Row>& rows);

// A CSV field, quoted when it has a comma, quote or line break.
std::string csv_field(const std::string& s);

}  // namespace vp::sweep
