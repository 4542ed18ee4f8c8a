#include "vp/trace/canvas.hpp"

#include <cmath>

#include "vp/trace/raster_canvas.hpp"
#include "vp/trace/svg_canvas.hpp"

namespace vp::trace {

std::unique_ptr<Canvas> make_canvas(const std::string& path, int width, int height) {
  const bool png = path.size() >= 4 && (path.compare(path.size() - 4, 4, ".png") == 0 ||
                                        path.compare(path.size() - 4, 4, ".PNG") == 0);
  if (png) return std::make_unique<RasterCanvas>(width, height);
  return std::make_unique<SvgCanvas>(width, height);
}

Rgb palette(std::uint32_t n) {
  // Golden-angle hue walk at fixed saturation/value: neighbours differ.
  const double h = std::fmod(n * 137.508, 360.0) / 60.0;
  const double s = 0.65, v = n % 2 ? 0.80 : 0.92;
  const double c = v * s;
  const double x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  if (h < 1) r = c, g = x;
  else if (h < 2) r = x, g = c;
  else if (h < 3) g = c, b = x;
  else if (h < 4) g = x, b = c;
  else if (h < 5) r = x, b = c;
  else r = c, b = x;
  const double m = v - c;
  const auto u8 = [m](double t) { return static_cast<std::uint8_t>(std::lround((t + m) * 255)); };
  return {u8(r), u8(g), u8(b)};
}

}  // namespace vp::trace
