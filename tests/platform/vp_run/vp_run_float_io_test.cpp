// vp-run's float tensors: a float32 .npy for an input binding with a scale
// is quantized (round half away from zero, clamped, NCHW -> channels-last),
// a .npy output of a binding with a scale is float32 in the model's shape
// (Softmax applied when the binding says the host does it), FILE:int8 gives
// the codes as the chip holds them, and bad float input gets named errors.
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "vp_run_fixture.h"

namespace {

using namespace vp_run_test;

// The output binding reads back the bytes the input binding placed: the
// program does nothing, so y's codes are x's codes.
const char* kEcho = R"(.input "x", 0x100, 24, "int8", 1, 2, 3, 4, scale=0.5, zero_point=0, layout=channels_last
.output "y", 0x100, 24, "int8", 1, 2, 3, 4, scale=0.5, zero_point=0, layout=channels_last
.core 0, 0
    halt
)";
// The same bytes seen as a [2, 12] matrix of class scores with host Softmax.
const char* kSoftmax = R"(.input "x", 0x100, 24, "int8", 1, 2, 3, 4, scale=0.5, layout=channels_last
.output "p", 0x100, 24, "int8", 2, 12, scale=0.25, host_softmax=1
.core 0, 0
    halt
)";
// No host view: an object as vp-as wrote them before scales travelled.
const char* kPlain = R"(.input "x", 0x100, 24, "int8", 1, 2, 3, 4
.output "y", 0x100, 24, "int8", 1, 2, 3, 4
.core 0, 0
    halt
)";

std::string npy(const std::string& descr, const std::string& shape, const void* data, size_t bytes) {
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  out += h;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

std::string float_npy(const std::vector<float>& v, const std::string& shape) {
  return npy("<f4", shape, v.data(), v.size() * 4);
}

// The data bytes of a .npy vp-run wrote, and its header.
std::string npy_data(const std::string& file, std::string* header = nullptr) {
  const size_t hlen = static_cast<unsigned char>(file.at(8)) | (static_cast<unsigned char>(file.at(9)) << 8);
  if (header) *header = file.substr(10, hlen);
  return file.substr(10 + hlen);
}

std::vector<float> floats(const std::string& bytes) {
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

// Model order [1, C=2, S=12] -> stored [1, S, C].
size_t stored(size_t i) { return (i % 12) * 2 + i / 12; }

// Halves (round half away from zero), values beyond the range, infinities.
std::vector<float> image() {
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (static_cast<float>(i) - 10.f) * 0.25f;
  x[3] = 1000.f;
  x[4] = -1000.f;
  x[5] = std::numeric_limits<float>::infinity();
  x[6] = -std::numeric_limits<float>::infinity();
  x[7] = 63.74f;
  return x;
}

int8_t code(float x) {  // by hand: x / 0.5 rounded half away from zero, clamped
  const double q = static_cast<double>(x) * 2.0;
  if (q >= 127) return 127;
  if (q <= -128) return -128;
  return static_cast<int8_t>(q < 0 ? -std::floor(-q + 0.5) : std::floor(q + 0.5));
}

class VpRunFloat : public VpRun {
 protected:
  Result go(const char* program, const std::string& args) {
    return run("-q --chip small " + write("m.s", program) + " " + args);
  }
};

TEST_F(VpRunFloat, AFloatInputIsQuantizedIntoChannelsLastCodes) {
  const auto x = image();
  write("x.npy", float_npy(x, "(1, 2, 3, 4)"));
  Result r = go(kEcho, "--input " + path("x.npy") + " --output " + path("y.npy:int8"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string header;
  const std::string codes = npy_data(slurp(path("y.npy")), &header);
  EXPECT_NE(header.find("'descr': '<i1'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (1, 3, 4, 2)"), std::string::npos) << header;  // as the chip holds them
  ASSERT_EQ(codes.size(), 24u);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(static_cast<int8_t>(codes[stored(i)]), code(x[i])) << "element " << i;
  EXPECT_EQ(static_cast<int8_t>(codes[stored(3)]), 127);
  EXPECT_EQ(static_cast<int8_t>(codes[stored(6)]), -128);
  EXPECT_EQ(static_cast<int8_t>(codes[stored(0)]), -5);  // -2.5 / 0.5
  EXPECT_EQ(static_cast<int8_t>(codes[stored(1)]), -5);  // -2.25 / 0.5 = -4.5: half away from zero

  // The same codes given as bytes, or as an int8 .npy as numpy ("|i1") or
  // vp-run ("<i1") writes it: the same output.
  write("x.bin", codes);
  r = go(kEcho, "--input " + path("x.bin") + " --output " + path("y2.bin"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("y2.bin")), codes);
  for (const char* descr : {"|i1", "<i1"}) {
    write("c.npy", npy(descr, "(1, 3, 4, 2)", codes.data(), 24));
    r = go(kEcho, "--input " + path("c.npy") + " --output " + path("y3.bin"));
    ASSERT_EQ(r.code, 0) << descr << ": " << r.err;
    EXPECT_EQ(slurp(path("y3.bin")), codes) << descr;
  }
  write("u.npy", npy("|u1", "(1, 3, 4, 2)", codes.data(), 24));
  r = go(kEcho, "--input " + path("u.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("u.npy: dtype |u1 for input 'x'"), std::string::npos) << r.err;
}

TEST_F(VpRunFloat, ANpyOutputIsTheDequantizedTensorInTheModelsShape) {
  const auto x = image();
  write("x.npy", float_npy(x, "(1, 2, 3, 4)"));
  Result r = go(kEcho, "--input " + path("x.npy") + " --output " + path("y.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string header;
  const auto y = floats(npy_data(slurp(path("y.npy")), &header));
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (1, 2, 3, 4)"), std::string::npos) << header;
  ASSERT_EQ(y.size(), 24u);
  for (size_t i = 0; i < 24; ++i) EXPECT_EQ(y[i], static_cast<float>(code(x[i]) * 0.5)) << "element " << i;
  // FILE:float32 asks for the values in a raw file too.
  r = go(kEcho, "--input " + path("x.npy") + " --output " + path("y.bin:float32"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(floats(slurp(path("y.bin"))), y);
}

TEST_F(VpRunFloat, HostSoftmaxIsAppliedOverTheLastAxis) {
  const auto x = image();
  write("x.npy", float_npy(x, "(1, 2, 3, 4)"));
  Result r = go(kSoftmax, "--input " + path("x.npy") + " --output " + path("p.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string header;
  const auto p = floats(npy_data(slurp(path("p.npy")), &header));
  EXPECT_NE(header.find("'shape': (2, 12)"), std::string::npos) << header;
  ASSERT_EQ(p.size(), 24u);
  std::vector<double> z(24);
  for (size_t i = 0; i < 24; ++i) z[stored(i)] = code(x[i]) * 0.25;  // the codes as stored, read row-major
  for (size_t row = 0; row < 2; ++row) {
    double mx = -1e300, sum = 0, got = 0;
    for (size_t k = 0; k < 12; ++k) mx = std::max(mx, z[row * 12 + k]);
    for (size_t k = 0; k < 12; ++k) sum += std::exp(z[row * 12 + k] - mx);
    for (size_t k = 0; k < 12; ++k) {
      EXPECT_NEAR(p[row * 12 + k], std::exp(z[row * 12 + k] - mx) / sum, 1e-7) << row << "," << k;
      got += p[row * 12 + k];
    }
    EXPECT_NEAR(got, 1.0, 1e-6);
  }
}

TEST_F(VpRunFloat, AStackedBatchOfFloatInputs) {
  auto x = image(), x2 = image();
  for (auto& v : x2) v = -v;
  std::vector<float> both = x;
  both.insert(both.end(), x2.begin(), x2.end());
  write("xs.npy", float_npy(both, "(2, 1, 2, 3, 4)"));
  write("x1.npy", float_npy(x2, "(1, 2, 3, 4)"));
  Result r = go(kEcho, "--batch 2 --input " + path("xs.npy") + " --output " + path("ys.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string header;
  const auto ys = floats(npy_data(slurp(path("ys.npy")), &header));
  EXPECT_NE(header.find("'shape': (2, 1, 2, 3, 4)"), std::string::npos) << header;
  ASSERT_EQ(ys.size(), 48u);
  r = go(kEcho, "--input " + path("x1.npy") + " --output " + path("y1.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto y1 = floats(npy_data(slurp(path("y1.npy"))));
  EXPECT_EQ(std::vector<float>(ys.begin() + 24, ys.end()), y1);
  // [2, 2, 3, 4]: the first dimension twice as large is the same batch.
  write("xt.npy", float_npy(both, "(2, 2, 3, 4)"));
  r = go(kEcho, "--batch 2 --input " + path("xt.npy") + " --output " + path("yt.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(floats(npy_data(slurp(path("yt.npy")))), ys);
}

TEST_F(VpRunFloat, BindingsWithoutAScaleKeepTheCodesAndRefuseFloats) {
  const auto x = image();
  write("x.npy", float_npy(x, "(1, 2, 3, 4)"));
  Result r = go(kPlain, "--input " + path("x.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("x.npy: <f4 values for input 'x' (24 bytes, int8 1x2x3x4), which has no scale to quantize "
                       "them with"),
            std::string::npos)
      << r.err;
  // int8 codes as before; the .npy output holds the codes in the binding's shape.
  std::vector<int8_t> c(24);
  for (size_t i = 0; i < 24; ++i) c[i] = static_cast<int8_t>(i * 5 - 60);
  write("c.npy", npy("|i1", "(1, 2, 3, 4)", c.data(), 24));
  r = go(kPlain, "--input " + path("c.npy") + " --output " + path("y.npy"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::string header;
  EXPECT_EQ(npy_data(slurp(path("y.npy")), &header), std::string(c.begin(), c.end()));
  EXPECT_NE(header.find("'descr': '<i1'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (1, 2, 3, 4)"), std::string::npos) << header;
  r = go(kPlain, "--input " + path("c.npy") + " --output " + path("y.npy:float32"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--output " + path("y.npy:float32") + ": output 'y' (24 bytes, int8 1x2x3x4) has no scale"),
            std::string::npos)
      << r.err;
}

TEST_F(VpRunFloat, BadFloatInputsAreNamed) {
  auto x = image();
  write("x64.npy", npy("<f8", "(1, 2, 3, 4)", std::vector<double>(24, 0.5).data(), 24 * 8));
  Result r = go(kEcho, "--input " + path("x64.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("x64.npy: dtype <f8 for input 'x' (24 bytes, int8 1x2x3x4); expected float32 (<f4) values or "
                       "int8 (<i1) codes"),
            std::string::npos)
      << r.err;
  write("xi.npy", npy("<i4", "(6,)", std::vector<int32_t>(6, 1).data(), 24));
  r = go(kEcho, "--input " + path("xi.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("xi.npy: dtype <i4 for input 'x'"), std::string::npos) << r.err;
  write("xs.npy", float_npy(x, "(1, 24)"));
  r = go(kEcho, "--input " + path("xs.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("xs.npy: float32 shape (1, 24), but input 'x' (24 bytes, int8 1x2x3x4) needs (1, 2, 3, 4)"),
            std::string::npos)
      << r.err;
  x[17] = std::numeric_limits<float>::quiet_NaN();
  write("xn.npy", float_npy(x, "(1, 2, 3, 4)"));
  r = go(kEcho, "--input " + path("xn.npy") + " --output " + path("y.npy"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("xn.npy: element 17 is NaN"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("y.npy")));
  write("x.npy", float_npy(image(), "(1, 2, 3, 4)"));
  r = go(kEcho, "--input " + path("x.npy") + " --output " + path("y.npy:int16"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("output 'y' (24 bytes, int8 1x2x3x4) holds int8 codes; give FILE:int8 for them or "
                       "FILE:float32 for the values"),
            std::string::npos)
      << r.err;
}

}  // namespace
