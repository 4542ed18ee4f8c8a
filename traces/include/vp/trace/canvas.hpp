// The few drawing primitives the plots need, behind one interface so the
// same plot code produces SVG (vector, with hover titles) and PNG (raster).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace vp::trace {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};

enum class Anchor { Start, Middle, End };

class Canvas {
 public:
  virtual ~Canvas() = default;
  // `title`: hover text where the format supports it (SVG).
  virtual void rect(double x, double y, double w, double h, Rgb fill, double opacity = 1.0,
                    std::string_view title = {}) = 0;
  virtual void outline(double x, double y, double w, double h, Rgb stroke) = 0;
  virtual void line(double x1, double y1, double x2, double y2, Rgb stroke) = 0;
  // Text with its baseline at y; height ~ kTextHeight, width ~ kCharWidth per char.
  virtual void text(double x, double y, std::string_view s, Rgb color, Anchor anchor = Anchor::Start) = 0;
  // The encoded image (SVG text or PNG bytes).
  virtual std::string finish() = 0;

  static constexpr double kCharWidth = 7.0;
  static constexpr double kTextHeight = 10.0;
};

// Picks the format from the file name: ".png" -> PNG, anything else -> SVG.
std::unique_ptr<Canvas> make_canvas(const std::string& path, int width, int height);

// A distinct, stable colour for the n-th layer (golden-angle hue steps).
Rgb palette(std::uint32_t n);

}  // namespace vp::trace
