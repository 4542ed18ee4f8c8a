// The statistics of `vp-run --stats` a sweep can collect, by dotted path.
// Listed here so a misspelt metric is an error when the sweep file is read,
// not an empty column after hours of runs; a test keeps the list equal to
// what vp-run writes.
#pragma once

#include <string>
#include <vector>

namespace vp::sweep {

struct StatPath {
  std::string path;
  bool zero_when_absent = false;  // per-unit figures: a unit that never ran is absent
  bool optional = false;          // only some runs have it (firmware.*: runs the firmware deploys)
};

// Every collectable path; "units.<unit>.<field>" expanded for each unit of
// the ISA table.
const std::vector<StatPath>& stat_catalog();

const StatPath* find_stat(const std::string& path);

// Closest catalog path to a misspelt one ("" when nothing is close).
std::string suggest_stat(const std::string& path);

// The derived metrics' names: inferences_per_s, energy_per_inference_pj.
const std::vector<std::string>& derived_metric_names();

}  // namespace vp::sweep
