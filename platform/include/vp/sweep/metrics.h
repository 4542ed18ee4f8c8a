// The value of one metric at one point: a statistic out of the point's
// stats.json, a figure derived from them, or an output compared with a
// golden file. null when the point has no such value (failed run, missing
// output), which results show as an empty cell.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vp/sweep/sweep_spec.h"

namespace vp::sweep {

// `stats` may be null (no statistics); `point_dir` holds the outputs.
nlohmann::json evaluate_metric(const SweepSpec& spec, const MetricDef& metric, const nlohmann::json& stats,
                               const std::string& point_dir);

// A tensor file as numbers: .npy (its header gives the type) or raw bytes of
// `raw_dtype` (int8, uint8, int16, int32). Throws std::runtime_error.
std::vector<double> read_numbers(const std::string& path, const std::string& raw_dtype);

// Fraction of equal elements, or the largest |a - b|; null when the sizes differ.
nlohmann::json compare_tensors(const std::vector<double>& got, const std::vector<double>& golden,
                               MetricDef::Measure measure);

// Top-1 accuracy: `scores` holds one row per label (its size a multiple of
// the labels'), the row's largest value (the first of equals, as numpy's
// argmax) its class. Null when the sizes do not fit.
nlohmann::json top1_accuracy(const std::vector<double>& scores, const std::vector<double>& labels);

}  // namespace vp::sweep
