#include "metric_parser.h"

#include <algorithm>

#include "vp/sweep/stats_catalog.h"

namespace vp::sweep::detail {
namespace {

MetricDef stat_metric(const Doc& doc, const YAML::Node& node, const std::string& path) {
  MetricDef m;
  m.name = path;
  m.path = path;
  m.where = doc.at(node);
  if (path == "inferences_per_s") {
    m.kind = MetricDef::Kind::kInferencesPerS;
  } else if (path == "energy_per_inference_pj") {
    m.kind = MetricDef::Kind::kEnergyPerInference;
  } else if (const StatPath* s = find_stat(path)) {
    m.zero_when_absent = s->zero_when_absent;
  } else {
    const std::string hint = suggest_stat(path);
    doc.fail(node, "unknown metric '" + path + "'" + (hint.empty() ? "" : " (did you mean " + hint + "?)") +
                       "; docs/vp-sweep.md lists the statistics of vp-run");
  }
  return m;
}

// The `output:` a file metric reads: named, and one of `outputs:`.
std::string metric_output(const Doc& doc, const YAML::Node& node, const SweepSpec& spec, const std::string& missing) {
  if (!node["output"]) doc.fail(node, missing);
  const std::string output = doc.scalar(node["output"], "output");
  const bool known = std::any_of(spec.outputs.begin(), spec.outputs.end(),
                                 [&](const OutputSpec& o) { return o.file == output; });
  if (!known) doc.fail(node["output"], "output '" + output + "' is not among 'outputs:'");
  return output;
}

MetricDef golden_metric(const Doc& doc, const YAML::Node& node, const SweepSpec& spec) {
  MetricDef m;
  m.kind = MetricDef::Kind::kGolden;
  m.where = doc.at(node);
  m.golden = doc.existing_file(node["golden"], doc.scalar(node["golden"], "golden"), "golden file");
  m.output = metric_output(doc, node, spec, "a golden metric names the output it checks: output: FILE");
  const std::string measure = node["measure"] ? doc.scalar(node["measure"], "measure") : "exact_fraction";
  if (measure == "exact_fraction") m.measure = MetricDef::Measure::kExactFraction;
  else if (measure == "max_abs_error") m.measure = MetricDef::Measure::kMaxAbsError;
  else doc.fail(node["measure"], "measure must be exact_fraction or max_abs_error, got '" + measure + "'");
  m.name = m.output + "." + measure;
  return m;
}

// {labels: Y.npy, output: FILE}: the top-1 accuracy of the output's rows
// (one per label, the largest value's index) against the labels.
MetricDef accuracy_metric(const Doc& doc, const YAML::Node& node, const SweepSpec& spec) {
  MetricDef m;
  m.kind = MetricDef::Kind::kAccuracy;
  m.where = doc.at(node);
  m.labels = doc.existing_file(node["labels"], doc.scalar(node["labels"], "labels"), "labels file");
  m.output = metric_output(doc, node, spec, "an accuracy metric names the output it classifies: output: FILE");
  if (node["measure"]) doc.fail(node["measure"], "an accuracy metric has no 'measure'");
  m.name = m.output + ".accuracy";
  return m;
}

}  // namespace

void parse_metrics(const Doc& doc, const YAML::Node& node, SweepSpec& spec) {
  if (!node) {
    for (const char* p : {"run.cycles", "run.time_s", "energy_pj.total"}) {
      MetricDef m;
      m.name = m.path = p;
      m.where = spec.path;
      spec.metrics.push_back(m);
    }
    return;
  }
  if (!node.IsSequence() || node.size() == 0) doc.fail(node, "metrics: expected a non-empty list");
  for (const auto& item : node) {
    MetricDef m;
    if (item.IsScalar()) {
      m = stat_metric(doc, item, item.Scalar());
    } else if (item.IsMap()) {
      static const char* const kKeys[] = {"name", "path", "golden", "labels", "output", "measure", nullptr};
      doc.only_keys(item, kKeys, "metric");
      if ((item["golden"] ? 1 : 0) + (item["path"] ? 1 : 0) + (item["labels"] ? 1 : 0) > 1)
        doc.fail(item, "a metric has one of 'path', 'golden' or 'labels'");
      if (item["labels"]) {
        m = accuracy_metric(doc, item, spec);
      } else if (item["golden"]) {
        m = golden_metric(doc, item, spec);
      } else if (item["path"]) {
        m = stat_metric(doc, item["path"], doc.scalar(item["path"], "path"));
      } else {
        doc.fail(item, "a metric map needs 'path' (a statistic), 'golden' (a file to compare an output with) "
                       "or 'labels' (the classes an output should pick)");
      }
      if (item["name"]) m.name = doc.scalar(item["name"], "name");
    } else {
      doc.fail(item, "metrics: each entry is a statistic path or a map");
    }
    if (m.name.empty() || m.name.find_first_of(",\"\n") != std::string::npos)
      doc.fail(item, "metric name '" + m.name + "' must be non-empty without commas or quotes");
    if (spec.metric(m.name)) doc.fail(item, "metric '" + m.name + "' listed twice");
    spec.metrics.push_back(m);
  }
}

void parse_pareto(const Doc& doc, const YAML::Node& node, SweepSpec& spec) {
  if (!node) return;
  if (!node.IsMap() || node.size() != 2) doc.fail(node, "pareto: expected two entries, metric: min|max");
  int i = 0;
  for (const auto& kv : node) {
    const std::string name = doc.scalar(kv.first, "pareto metric");
    if (!spec.metric(name)) doc.fail(kv.first, "pareto: '" + name + "' is not among 'metrics:'");
    const std::string goal = doc.scalar(kv.second, "pareto goal");
    if (goal != "min" && goal != "max") doc.fail(kv.second, "pareto: goal must be min or max, got '" + goal + "'");
    spec.pareto.metric[i] = name;
    spec.pareto.goal[i] = goal == "min" ? Goal::kMin : Goal::kMax;
    ++i;
  }
  if (spec.pareto.metric[0] == spec.pareto.metric[1]) doc.fail(node, "pareto: two different metrics are needed");
  spec.pareto.enabled = true;
  spec.pareto.where = doc.at(node);
}

void parse_plots(const Doc& doc, const YAML::Node& node, SweepSpec& spec) {
  if (!node) {
    for (const auto& m : spec.metrics)
      for (const auto& a : spec.axes)
        if (a.texts.size() >= 2 && !a.numeric.empty()) spec.plots.push_back({m.name, a.param, spec.path});
    return;
  }
  if (!node.IsSequence()) doc.fail(node, "plots: expected a list of {metric, x}");
  for (const auto& item : node) {
    if (!item.IsMap()) doc.fail(item, "plots: each entry is {metric: NAME, x: PARAMETER}");
    static const char* const kKeys[] = {"metric", "x", nullptr};
    doc.only_keys(item, kKeys, "plot");
    if (!item["metric"] || !item["x"]) doc.fail(item, "a plot needs 'metric' and 'x'");
    PlotSpec p{doc.scalar(item["metric"], "metric"), doc.scalar(item["x"], "x"), doc.at(item)};
    if (!spec.metric(p.metric)) doc.fail(item["metric"], "plot: '" + p.metric + "' is not among 'metrics:'");
    const Axis* a = spec.axis(p.x);
    if (!a) doc.fail(item["x"], "plot: '" + p.x + "' is not a varied parameter");
    if (a->numeric.empty()) doc.fail(item["x"], "plot: '" + p.x + "' is not numeric");
    spec.plots.push_back(p);
  }
}

}  // namespace vp::sweep::detail
