// The folder a sweep writes, the same for local runs, Slurm tasks and
// --collect:
//
//   OUT/plan.json                the points (index, id, model, seed, values)
//   OUT/points/<id>/             one per point: point.json, stdout.txt,
//                                stderr.txt, stats.json, outputs, result.json,
//                                and `done`, written last
//   OUT/compiled/<key>/          one compiled ONNX model per program key
//   OUT/calibrated/<id>/         a point's ADC profile and the program
//                                compiled again with its ranges
//                                (compiler.adc_ranges)
//   OUT/results.csv, results.json, plots/, slurm/
#pragma once

#include <string>

namespace vp::sweep {

struct Layout {
  std::string root;  // absolute

  std::string plan() const { return root + "/plan.json"; }
  std::string points() const { return root + "/points"; }
  std::string point(const std::string& id) const { return points() + "/" + id; }
  std::string point_lock(const std::string& id) const { return points() + "/" + id + ".lock"; }
  std::string done(const std::string& id) const { return point(id) + "/done"; }
  std::string result(const std::string& id) const { return point(id) + "/result.json"; }
  std::string stats(const std::string& id) const { return point(id) + "/stats.json"; }
  std::string compiled(const std::string& key) const { return root + "/compiled/" + key; }
  std::string calibrated(const std::string& id) const { return root + "/calibrated/" + id; }
  std::string plots() const { return root + "/plots"; }
  std::string slurm() const { return root + "/slurm"; }
};

}  // namespace vp::sweep
