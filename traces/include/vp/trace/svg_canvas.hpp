// Canvas that writes SVG text directly (no display, no library).
#pragma once

#include <string>

#include "vp/trace/canvas.hpp"

namespace vp::trace {

class SvgCanvas : public Canvas {
 public:
  SvgCanvas(int width, int height);
  void rect(double x, double y, double w, double h, Rgb fill, double opacity, std::string_view title) override;
  void outline(double x, double y, double w, double h, Rgb stroke) override;
  void line(double x1, double y1, double x2, double y2, Rgb stroke) override;
  void text(double x, double y, std::string_view s, Rgb color, Anchor anchor) override;
  std::string finish() override;

 private:
  std::string body_;
};

}  // namespace vp::trace
