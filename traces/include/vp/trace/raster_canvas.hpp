// Canvas that rasterises into an RGB pixel buffer and encodes it as PNG
// (our own encoder over zlib: no image library, no display). Text uses a
// built-in 5x7 pixel font.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/trace/canvas.hpp"

namespace vp::trace {

class RasterCanvas : public Canvas {
 public:
  RasterCanvas(int width, int height);
  void rect(double x, double y, double w, double h, Rgb fill, double opacity, std::string_view title) override;
  void outline(double x, double y, double w, double h, Rgb stroke) override;
  void line(double x1, double y1, double x2, double y2, Rgb stroke) override;
  void text(double x, double y, std::string_view s, Rgb color, Anchor anchor) override;
  std::string finish() override;  // PNG bytes

  Rgb pixel(int x, int y) const;

 private:
  void blend(int x, int y, Rgb c, double alpha);

  int width_, height_;
  std::vector<std::uint8_t> rgb_;
};

// PNG (8-bit RGB, no interlace) of a row-major RGB buffer.
std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgb);

}  // namespace vp::trace
