#include "vp/trace/raster_canvas.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <zlib.h>

#include "font5x7.hpp"

namespace vp::trace {
namespace {

void put_u32(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v >> 24));
  out.push_back(static_cast<char>(v >> 16));
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v));
}

void put_chunk(std::string& out, const char type[4], const std::string& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t crc_from = out.size();
  out.append(type, 4);
  out += data;
  const auto crc = ::crc32(0L, reinterpret_cast<const Bytef*>(out.data() + crc_from),
                           static_cast<uInt>(out.size() - crc_from));
  put_u32(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

std::string encode_png(int width, int height, const std::vector<std::uint8_t>& rgb) {
  // Each scanline is prefixed with filter type 1 (Sub): plots are mostly
  // flat colour runs, which Sub turns into zeros that deflate well.
  const std::size_t stride = static_cast<std::size_t>(width) * 3;
  std::vector<std::uint8_t> raw((stride + 1) * static_cast<std::size_t>(height));
  for (int y = 0; y < height; ++y) {
    std::uint8_t* dst = raw.data() + static_cast<std::size_t>(y) * (stride + 1);
    const std::uint8_t* src = rgb.data() + static_cast<std::size_t>(y) * stride;
    dst[0] = 1;
    for (std::size_t k = 0; k < stride; ++k) dst[1 + k] = static_cast<std::uint8_t>(src[k] - (k >= 3 ? src[k - 3] : 0));
  }
  uLongf zlen = ::compressBound(static_cast<uLong>(raw.size()));
  std::string z(zlen, '\0');
  if (::compress2(reinterpret_cast<Bytef*>(z.data()), &zlen, raw.data(), static_cast<uLong>(raw.size()), 6) != Z_OK)
    throw std::runtime_error("PNG: zlib compression failed");
  z.resize(zlen);

  std::string png("\x89PNG\r\n\x1a\n", 8);
  std::string ihdr;
  put_u32(ihdr, static_cast<std::uint32_t>(width));
  put_u32(ihdr, static_cast<std::uint32_t>(height));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit, RGB, deflate, filter set 0, no interlace
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "IDAT", z);
  put_chunk(png, "IEND", {});
  return png;
}

RasterCanvas::RasterCanvas(int width, int height)
    : width_(width), height_(height), rgb_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3, 255) {
  if (width <= 0 || height <= 0 || width > 20000 || height > 20000)
    throw std::runtime_error("PNG: image size out of range");
}

Rgb RasterCanvas::pixel(int x, int y) const {
  const std::size_t at = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 3;
  return {rgb_[at], rgb_[at + 1], rgb_[at + 2]};
}

void RasterCanvas::blend(int x, int y, Rgb c, double alpha) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  std::uint8_t* p = &rgb_[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 3];
  const auto mix = [alpha](std::uint8_t dst, std::uint8_t src) {
    return static_cast<std::uint8_t>(std::lround(dst + (src - dst) * alpha));
  };
  p[0] = mix(p[0], c.r);
  p[1] = mix(p[1], c.g);
  p[2] = mix(p[2], c.b);
}

void RasterCanvas::rect(double x, double y, double w, double h, Rgb fill, double opacity, std::string_view) {
  // Pixel-snapped; anything with positive size covers at least one pixel.
  const int x0 = static_cast<int>(std::floor(x));
  const int y0 = static_cast<int>(std::floor(y));
  const int x1 = std::max(x0 + (w > 0 ? 1 : 0), static_cast<int>(std::lround(x + w)));
  const int y1 = std::max(y0 + (h > 0 ? 1 : 0), static_cast<int>(std::lround(y + h)));
  const double a = std::clamp(opacity, 0.0, 1.0);
  for (int yy = std::max(0, y0); yy < std::min(height_, y1); ++yy)
    for (int xx = std::max(0, x0); xx < std::min(width_, x1); ++xx) blend(xx, yy, fill, a);
}

void RasterCanvas::outline(double x, double y, double w, double h, Rgb stroke) {
  line(x, y, x + w, y, stroke);
  line(x, y + h, x + w, y + h, stroke);
  line(x, y, x, y + h, stroke);
  line(x + w, y, x + w, y + h, stroke);
}

void RasterCanvas::line(double x1, double y1, double x2, double y2, Rgb stroke) {
  // Bresenham over pixel centres.
  int ax = static_cast<int>(std::lround(x1)), ay = static_cast<int>(std::lround(y1));
  const int bx = static_cast<int>(std::lround(x2)), by = static_cast<int>(std::lround(y2));
  const int dx = std::abs(bx - ax), sx = ax < bx ? 1 : -1;
  const int dy = -std::abs(by - ay), sy = ay < by ? 1 : -1;
  int err = dx + dy;
  while (true) {
    blend(ax, ay, stroke, 1.0);
    if (ax == bx && ay == by) break;
    const int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      ax += sx;
    }
    if (e2 <= dx) {
      err += dx;
      ay += sy;
    }
  }
}

void RasterCanvas::text(double x, double y, std::string_view s, Rgb color, Anchor anchor) {
  const double advance = kCharWidth;
  const double width = advance * static_cast<double>(s.size());
  double left = x;
  if (anchor == Anchor::Middle) left -= width / 2;
  if (anchor == Anchor::End) left -= width;
  const int top = static_cast<int>(std::lround(y)) - 8;  // 7 rows ending one above the baseline
  for (std::size_t k = 0; k < s.size(); ++k) {
    const auto c = static_cast<unsigned char>(s[k]);
    const std::uint8_t* glyph = detail::kFont5x7[(c >= 0x20 && c < 0x7f ? c : '?') - 0x20];
    const int gx = static_cast<int>(std::lround(left + advance * static_cast<double>(k))) + 1;
    for (int row = 0; row < 7; ++row)
      for (int col = 0; col < 5; ++col)
        if (glyph[row] & (0x10 >> col)) blend(gx + col, top + row, color, 1.0);
  }
}

std::string RasterCanvas::finish() { return encode_png(width_, height_, rgb_); }

}  // namespace vp::trace
