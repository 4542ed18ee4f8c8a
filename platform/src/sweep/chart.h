// An x-y chart (lines with markers, or a scatter) drawn on the trace
// library's Canvas, so one code path gives SVG and PNG (private to src/sweep).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vp/trace/canvas.hpp"

namespace vp::sweep::detail {

struct Series {
  std::string label;  // legend entry; "" = not in the legend
  trace::Rgb color;
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> tips;  // hover text per point (SVG), optional
  bool lines = true;              // connect the points in the given order
  double marker = 5;              // marker size in pixels
};

struct Chart {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<double> x_ticks;  // where to label the x axis; empty = 1-2-5 steps
  std::vector<Series> series;
};

// The chart as the bytes of an SVG or PNG file, the format chosen by the
// extension of `path` (which names the file only for the canvas).
std::string render_chart(const Chart& chart, const std::string& path);

}  // namespace vp::sweep::detail
