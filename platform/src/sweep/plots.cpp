#include "vp/sweep/plots.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "chart.h"
#include "vp/sweep/files.h"

namespace vp::sweep {
namespace {

using detail::Chart;
using detail::Series;

std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out;
}

std::string model_stem(const std::string& p) {
  std::string b = p.substr(p.rfind('/') == std::string::npos ? 0 : p.rfind('/') + 1);
  return b.substr(0, b.find('.'));
}

void both_formats(const Chart& chart, const std::string& base, StagedFiles& written) {
  for (const char* ext : {".svg", ".png"}) {
    auto f = std::make_unique<common::AtomicFile>(base + ext);
    f->write(detail::render_chart(chart, base + ext));
    f->finish();
    written.push_back(std::move(f));
  }
}

// Positive values spanning more than two decades read better on a log axis.
bool wants_log(const std::vector<double>& v) {
  if (v.empty()) return false;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return *lo > 0 && *hi / *lo > 100;
}

void metric_plot(const SweepSpec& spec, const std::vector<Row>& rows, const PlotSpec& plot, std::size_t model,
                 const std::string& dir, StagedFiles& written) {
  std::size_t xa = 0, mi = 0;
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    if (spec.axes[a].param == plot.x) xa = a;
  for (std::size_t i = 0; i < spec.metrics.size(); ++i)
    if (spec.metrics[i].name == plot.metric) mi = i;
  const Axis& x_axis = spec.axes[xa];
  // line label -> x index -> (sum, count) over seeds
  std::map<std::string, std::map<std::size_t, std::pair<double, int>>> lines;
  std::vector<std::string> order;
  for (const auto& r : rows) {
    if (r.point->model != model) continue;
    std::string label;
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      if (a != xa) label += (label.empty() ? "" : ", ") + spec.axes[a].param + "=" + r.point->values[a];
    if (!lines.count(label)) order.push_back(label);
    auto& line = lines[label];
    const auto xi = static_cast<std::size_t>(
        std::find(x_axis.texts.begin(), x_axis.texts.end(), r.point->values[xa]) - x_axis.texts.begin());
    if (r.status != "completed" || !r.metrics[mi].is_number()) continue;
    auto& acc = line[xi];
    acc.first += r.metrics[mi].get<double>();
    acc.second += 1;
  }
  Chart chart;
  chart.title = fmt::format("{} vs {}{}{}", plot.metric, plot.x,
                            spec.models.size() > 1 ? " - " + model_stem(spec.models[model]) : "",
                            spec.seeds.size() > 1 ? fmt::format(" (mean of {} seeds)", spec.seeds.size()) : "");
  chart.x_label = plot.x;
  chart.y_label = plot.metric;
  chart.log_x = x_axis.log_scale;
  if (x_axis.numeric.size() <= 12) chart.x_ticks = x_axis.numeric;  // label the swept values themselves
  std::vector<double> all_y;
  for (std::size_t i = 0; i < order.size(); ++i) {
    Series s;
    s.label = order[i].empty() ? plot.metric : order[i];
    s.color = trace::palette(static_cast<std::uint32_t>(i));
    for (const auto& [xi, acc] : lines[order[i]]) {
      const double y = acc.first / acc.second;
      s.points.emplace_back(x_axis.numeric[xi], y);
      all_y.push_back(y);
    }
    std::sort(s.points.begin(), s.points.end());
    chart.series.push_back(std::move(s));
  }
  chart.log_y = wants_log(all_y);
  std::string base = dir + "/" + safe(plot.metric) + "-vs-" + safe(plot.x);
  if (spec.models.size() > 1) base += "-" + safe(model_stem(spec.models[model]));
  both_formats(chart, base, written);
}

void pareto_plot(const SweepSpec& spec, const std::vector<Row>& rows, const std::string& dir,
                 StagedFiles& written) {
  std::size_t mi[2] = {0, 0};
  for (int k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < spec.metrics.size(); ++i)
      if (spec.metrics[i].name == spec.pareto.metric[k]) mi[k] = i;
  Series all, front;
  all.label = "design points";
  all.color = trace::Rgb{150, 150, 150};
  all.lines = false;
  front.label = "Pareto front";
  front.color = trace::Rgb{214, 39, 40};
  front.marker = 7;
  std::vector<double> xs, ys;
  for (const auto& r : rows) {
    const auto& x = r.metrics[mi[0]];
    const auto& y = r.metrics[mi[1]];
    if (r.status != "completed" || !x.is_number() || !y.is_number()) continue;
    std::string tip = "point " + std::to_string(r.point->index) + ":";
    for (std::size_t a = 0; a < spec.axes.size(); ++a) tip += " " + spec.axes[a].param + "=" + r.point->values[a];
    tip += " seed=" + std::to_string(r.point->seed);
    Series& s = r.pareto ? front : all;
    s.points.emplace_back(x.get<double>(), y.get<double>());
    s.tips.push_back(tip);
    xs.push_back(x.get<double>());
    ys.push_back(y.get<double>());
  }
  // The front as a line from one end to the other.
  std::vector<std::size_t> idx(front.points.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return front.points[a] < front.points[b]; });
  Series sorted = front;
  for (std::size_t i = 0; i < idx.size(); ++i) {
    sorted.points[i] = front.points[idx[i]];
    sorted.tips[i] = front.tips[idx[i]];
  }
  Chart chart;
  const auto goal = [](Goal g) { return g == Goal::kMin ? "lower is better" : "higher is better"; };
  chart.title = fmt::format("Pareto front: {} ({}) vs {} ({})", spec.pareto.metric[0], goal(spec.pareto.goal[0]),
                            spec.pareto.metric[1], goal(spec.pareto.goal[1]));
  chart.x_label = spec.pareto.metric[0];
  chart.y_label = spec.pareto.metric[1];
  chart.log_x = wants_log(xs);
  chart.log_y = wants_log(ys);
  chart.series = {all, sorted};
  both_formats(chart, dir + "/pareto", written);
}

}  // namespace

StagedFiles stage_plots(const SweepSpec& spec, const std::vector<Row>& rows, const std::string& dir) {
  StagedFiles written;
  make_dirs(dir);
  for (const auto& plot : spec.plots)
    for (std::size_t m = 0; m < spec.models.size(); ++m) metric_plot(spec, rows, plot, m, dir, written);
  if (spec.pareto.enabled) pareto_plot(spec, rows, dir, written);
  return written;
}

}  // namespace vp::sweep
