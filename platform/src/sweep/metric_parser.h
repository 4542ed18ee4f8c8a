// `metrics:`, `pareto:` and `plots:` of a sweep file (private to src/sweep).
#pragma once

#include "vp/sweep/sweep_spec.h"
#include "yaml_util.h"

namespace vp::sweep::detail {

// Needs spec.outputs already parsed (golden metrics name one of them).
void parse_metrics(const Doc& doc, const YAML::Node& node, SweepSpec& spec);
// Needs spec.metrics and spec.axes.
void parse_pareto(const Doc& doc, const YAML::Node& node, SweepSpec& spec);
void parse_plots(const Doc& doc, const YAML::Node& node, SweepSpec& spec);

}  // namespace vp::sweep::detail
