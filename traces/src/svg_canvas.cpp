#include "vp/trace/svg_canvas.hpp"

#include <fmt/format.h>
#include <iterator>

namespace vp::trace {
namespace {

void put_escaped(std::string& out, std::string_view s) {
  for (const char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out.push_back(c);
    }
  }
}

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

}  // namespace

SvgCanvas::SvgCanvas(int width, int height) {
  fmt::format_to(std::back_inserter(body_),
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                 "font-family=\"monospace\" font-size=\"11\">\n<rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
                 width, height);
}

void SvgCanvas::rect(double x, double y, double w, double h, Rgb fill, double opacity, std::string_view title) {
  auto it = std::back_inserter(body_);
  fmt::format_to(it, "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"", x, y, w, h,
                 hex(fill));
  if (opacity < 1.0) fmt::format_to(it, " fill-opacity=\"{:.2f}\"", opacity);
  if (title.empty()) {
    body_ += "/>\n";
  } else {
    body_ += "><title>";
    put_escaped(body_, title);
    body_ += "</title></rect>\n";
  }
}

void SvgCanvas::outline(double x, double y, double w, double h, Rgb stroke) {
  fmt::format_to(std::back_inserter(body_),
                 "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"none\" stroke=\"{}\"/>\n", x,
                 y, w, h, hex(stroke));
}

void SvgCanvas::line(double x1, double y1, double x2, double y2, Rgb stroke) {
  fmt::format_to(std::back_inserter(body_),
                 "<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\"/>\n", x1, y1, x2, y2,
                 hex(stroke));
}

void SvgCanvas::text(double x, double y, std::string_view s, Rgb color, Anchor anchor) {
  const char* a = anchor == Anchor::Start ? "start" : anchor == Anchor::Middle ? "middle" : "end";
  fmt::format_to(std::back_inserter(body_), "<text x=\"{:.2f}\" y=\"{:.2f}\" fill=\"{}\" text-anchor=\"{}\">", x, y,
                 hex(color), a);
  put_escaped(body_, s);
  body_ += "</text>\n";
}

std::string SvgCanvas::finish() {
  body_ += "</svg>\n";
  return std::move(body_);
}

}  // namespace vp::trace
