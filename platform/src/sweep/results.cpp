#include "vp/sweep/results.h"

#include <optional>

#include "vp/sweep/files.h"
#include "vp/sweep/metrics.h"
#include "vp/sweep/pareto.h"
#include "vp/sweep/point_runner.h"

namespace vp::sweep {

using nlohmann::json;

namespace {

json read_json(const std::string& path) {
  if (!file_exists(path)) return nullptr;
  try {
    return json::parse(read_file(path));
  } catch (const std::exception&) {
    return nullptr;
  }
}

std::string model_name(const std::string& p) {
  const std::size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string number_text(const json& v) { return v.is_null() ? std::string() : v.dump(); }

}  // namespace

std::vector<Row> collect_rows(const SweepSpec& spec, const Plan& plan, const Layout& layout) {
  std::vector<Row> rows;
  for (const auto& p : plan.points) {
    Row r;
    r.point = &p;
    if (!p.invalid.empty()) {
      r.status = "invalid";
      r.message = p.invalid;
    } else {
      r.status = done_status(layout, p);
      if (r.status.empty()) r.status = "pending";
    }
    json stats = nullptr;
    if (r.status != "pending" && r.status != "invalid") {
      const json result = read_json(layout.result(p.id));
      if (result.is_object()) {
        // Explicit lookups: json::value() trips gcc's -Wnull-dereference.
        if (const auto it = result.find("exit_code"); it != result.end() && it->is_number_integer())
          r.exit_code = it->get<int>();
        if (const auto it = result.find("wall_s"); it != result.end() && it->is_number()) r.wall_s = it->get<double>();
        if (const auto it = result.find("message"); it != result.end() && it->is_string())
          r.message = it->get<std::string>();
      }
      stats = read_json(layout.stats(p.id));
    }
    for (const auto& m : spec.metrics) r.metrics.push_back(evaluate_metric(spec, m, stats, layout.point(p.id)));
    rows.push_back(std::move(r));
  }
  return rows;
}

void mark_pareto(const SweepSpec& spec, std::vector<Row>& rows) {
  if (!spec.pareto.enabled) return;
  std::size_t mi[2] = {0, 0};
  for (int k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < spec.metrics.size(); ++i)
      if (spec.metrics[i].name == spec.pareto.metric[k]) mi[k] = i;
  std::vector<std::optional<std::pair<double, double>>> pts;
  for (const auto& r : rows) {
    const json& x = r.metrics[mi[0]];
    const json& y = r.metrics[mi[1]];
    if (r.status == "completed" && x.is_number() && y.is_number())
      pts.emplace_back(std::make_pair(x.get<double>(), y.get<double>()));
    else
      pts.emplace_back(std::nullopt);
  }
  const std::vector<bool> front = pareto_front(pts, spec.pareto.goal[0], spec.pareto.goal[1]);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].pareto = front[i];
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string results_csv(const SweepSpec& spec, const std::vector<Row>& rows) {
  std::string out = "index,id,model,seed";
  for (const auto& a : spec.axes) out += "," + csv_field(a.param);
  out += ",status,exit_code,wall_s";
  for (const auto& m : spec.metrics) out += "," + csv_field(m.name);
  if (spec.pareto.enabled) out += ",pareto";
  out += "\n";
  for (const auto& r : rows) {
    const Point& p = *r.point;
    out += std::to_string(p.index) + "," + p.id + "," + csv_field(model_name(spec.models[p.model])) + "," +
           std::to_string(p.seed);
    for (const auto& v : p.values) out += "," + csv_field(v);
    out += "," + r.status + "," + (r.exit_code >= 0 ? std::to_string(r.exit_code) : std::string()) + "," +
           (r.status == "pending" || r.status == "invalid" ? std::string() : json(r.wall_s).dump());
    for (const auto& v : r.metrics) out += "," + number_text(v);
    if (spec.pareto.enabled) out += r.pareto ? ",1" : ",0";
    out += "\n";
  }
  return out;
}

json results_json(const SweepSpec& spec, const std::vector<Row>& rows) {
  json axes = json::array();
  for (const auto& a : spec.axes) axes.push_back({{"name", a.param}, {"values", a.texts}, {"log", a.log_scale}});
  json metrics = json::array();
  for (const auto& m : spec.metrics) metrics.push_back(m.name);
  json points = json::array();
  for (const auto& r : rows) {
    const Point& p = *r.point;
    json params = json::object();
    for (std::size_t a = 0; a < spec.axes.size(); ++a) params[spec.axes[a].param] = p.values[a];
    json ms = json::object();
    for (std::size_t i = 0; i < spec.metrics.size(); ++i) ms[spec.metrics[i].name] = r.metrics[i];
    json row = {{"index", p.index}, {"id", p.id}, {"dir", "points/" + p.id}, {"model", spec.models[p.model]},
                {"seed", p.seed},   {"parameters", params}, {"status", r.status}, {"metrics", ms}};
    if (r.exit_code >= 0) row["exit_code"] = r.exit_code;
    if (r.status != "pending" && r.status != "invalid") row["wall_s"] = r.wall_s;
    if (!r.message.empty()) row["message"] = r.message;
    if (spec.pareto.enabled) row["pareto"] = r.pareto;
    points.push_back(row);
  }
  json j = {{"sweep", spec.path}, {"name", spec.name}, {"parameters", axes}, {"metrics", metrics}, {"points", points}};
  if (spec.pareto.enabled)
    j["pareto"] = {{spec.pareto.metric[0], spec.pareto.goal[0] == Goal::kMin ? "min" : "max"},
                   {spec.pareto.metric[1], spec.pareto.goal[1] == Goal::kMin ? "min" : "max"}};
  return j;
}

}  // namespace vp::sweep
