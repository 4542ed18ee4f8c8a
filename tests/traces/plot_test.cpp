#include <gtest/gtest.h>

#include <sstream>
#include <zlib.h>

#include "trace_test_util.hpp"
#include "vp/trace/convert.hpp"
#include "vp/trace/raster_canvas.hpp"

using namespace vp::trace;

namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

// Independent PNG check: signature, chunk CRCs, IHDR, and the inflated
// IDAT size for 8-bit RGB. Returns the decoded (still filtered) scanlines.
std::string check_png(const std::string& png, std::uint32_t& w, std::uint32_t& h) {
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  std::size_t at = 8;
  std::string idat;
  bool end = false;
  while (at + 12 <= png.size()) {
    const std::uint32_t len = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    const std::string data = png.substr(at + 8, len);
    const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(png.data() + at + 4), len + 4);
    EXPECT_EQ(crc, be32(png, at + 8 + len)) << type;
    if (type == "IHDR") {
      w = be32(data, 0);
      h = be32(data, 4);
      EXPECT_EQ(data[8], 8);  // bit depth
      EXPECT_EQ(data[9], 2);  // RGB
    } else if (type == "IDAT") {
      idat += data;
    } else if (type == "IEND") {
      end = true;
    }
    at += 12 + len;
  }
  EXPECT_TRUE(end);
  EXPECT_EQ(at, png.size());
  std::string raw(static_cast<std::size_t>(h) * (w * 3 + 1), '\0');
  uLongf n = raw.size();
  EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(raw.data()), &n, reinterpret_cast<const Bytef*>(idat.data()), idat.size()), Z_OK);
  EXPECT_EQ(n, raw.size());
  return raw;
}

}  // namespace

TEST(Png, RasterCanvasDrawsAndEncodes) {
  RasterCanvas c(40, 20);
  c.rect(10, 5, 10, 5, Rgb{200, 0, 0}, 1.0, {});
  c.rect(0, 0, 2, 2, Rgb{0, 0, 0}, 0.5, {});
  c.text(20, 18, "Ab1", Rgb{0, 0, 255}, Anchor::Start);
  EXPECT_EQ(c.pixel(12, 7).r, 200);
  EXPECT_EQ(c.pixel(12, 7).g, 0);
  EXPECT_EQ(c.pixel(25, 2).r, 255);                 // untouched: white
  EXPECT_NEAR(c.pixel(0, 0).r, 128, 1);             // half-transparent black on white
  int blue = 0;
  for (int y = 0; y < 20; ++y)
    for (int x = 20; x < 40; ++x) blue += c.pixel(x, y).b == 255 && c.pixel(x, y).r == 0;
  EXPECT_GT(blue, 10);  // the glyphs left ink
  std::uint32_t w = 0, h = 0;
  const std::string raw = check_png(c.finish(), w, h);
  EXPECT_EQ(w, 40u);
  EXPECT_EQ(h, 20u);
  // Undo the Sub filter on row 7 and read pixel (12, 7) back.
  const std::size_t row = 7 * (40 * 3 + 1);
  ASSERT_EQ(raw[row], 1);
  std::vector<std::uint8_t> line(40 * 3);
  for (std::size_t k = 0; k < line.size(); ++k)
    line[k] = static_cast<std::uint8_t>(static_cast<unsigned char>(raw[row + 1 + k]) + (k >= 3 ? line[k - 3] : 0));
  EXPECT_EQ(line[12 * 3], 200);
  EXPECT_EQ(line[12 * 3 + 1], 0);
}

TEST(Plots, SvgAndPngFromAZebuTrace) {
  test::ScratchDir dir("plots");
  ConvertOptions o;
  o.input = (test::zebu_dir() / "int8_resnet50.sim_quantized_b1_c1_bw16_sim.txt").string();
  o.plot_timeline = dir.file("t.svg");
  o.plot_layers = dir.file("l.png");
  std::ostringstream out, err;
  convert(o, out, err);
  const std::string svg = test::slurp(o.plot_timeline);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  for (const char* unit : {">CT<", ">LD<", ">PE<", ">VP<"}) EXPECT_NE(svg.find(unit), std::string::npos) << unit;
  std::uint32_t w = 0, h = 0;
  check_png(test::slurp(o.plot_layers), w, h);
  EXPECT_GT(w, 800u);
  EXPECT_GT(h, 73u * 8u);  // a row per layer

  o.plot_timeline = dir.file("t.png");
  o.plot_layers = dir.file("l.svg");
  convert(o, out, err);
  check_png(test::slurp(o.plot_timeline), w, h);
  const std::string layers = test::slurp(o.plot_layers);
  EXPECT_NE(layers.find(">L72<"), std::string::npos);
  EXPECT_NE(layers.find("stroke=\"#c81e1e\""), std::string::npos);  // critical layers outlined
}
