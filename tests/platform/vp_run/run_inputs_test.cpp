// The parts of vp-run below the command line: the chip size check and the
// .npy / raw input reader, on inputs a fuzzer or a careless user produces.
#include <gtest/gtest.h>

#include <string>

#include "vp/platform/chip_size.h"
#include "vp/platform/tensor_file.h"

namespace {

using vp::platform::TensorFileError;

std::string npy_header(const std::string& dict) {
  std::string h = dict;
  h.append((64 - (10 + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(h.size() & 0xff));
  out.push_back(static_cast<char>(h.size() >> 8));
  return out + h;
}

vp::platform::TensorData parse(const std::string& name, const std::string& bytes) {
  return vp::platform::parse_tensor_bytes(name, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

std::string error_of(const std::string& name, const std::string& bytes) {
  try {
    parse(name, bytes);
  } catch (const TensorFileError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(TensorFile, WrittenNpyReadsBackWithShapeAndType) {
  const std::vector<uint8_t> data = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0};
  const auto file = vp::platform::encode_tensor_file("a.npy", data, "<i4", {2, 3});
  const auto t = vp::platform::parse_tensor_bytes("a.npy", file.data(), file.size());
  EXPECT_EQ(t.bytes, data);
  EXPECT_EQ(t.dtype, "<i4");
  EXPECT_EQ(t.shape, (std::vector<uint64_t>{2, 3}));
  // A 0-d array is one element.
  const auto s = parse("s.npy", npy_header("{'descr': '<i2', 'fortran_order': False, 'shape': (), }") + "ab");
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.bytes.size(), 2u);
}

TEST(TensorFile, MalformedNpyHeadersAreNamed) {
  const auto hdr = [](const std::string& descr, const std::string& order, const std::string& shape) {
    return npy_header("{'descr': " + descr + ", 'fortran_order': " + order + ", 'shape': " + shape + ", }");
  };
  EXPECT_NE(error_of("x.npy", "\x93NUMP").find("not a .npy file"), std::string::npos);
  EXPECT_NE(error_of("x.npy", std::string("\x93NUMPY\x09\x00\x10\x00", 10)).find("unsupported .npy version 9"),
            std::string::npos);
  EXPECT_NE(error_of("x.npy", std::string("\x93NUMPY\x01\x00\xff\xff{", 11)).find("truncated .npy header"),
            std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i4'", "False", "(-1,)")).find("not a size"), std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i4'", "False", "(2, 3")).find("shape"), std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i4'", "False", "(99999999999999999999,)")).find("too large"), std::string::npos);
  // 2^62 x 4 elements wrap to 0 in 64 bits, and 2^62 x 2 elements of 8
  // bytes wrap to 0 bytes: refused, not taken as an empty array.
  EXPECT_NE(error_of("x.npy", hdr("'|i1'", "False", "(4611686018427387904, 4)")).find("more elements than fit"),
            std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i8'", "False", "(4611686018427387904, 2)")).find("more than 2^64"),
            std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'>i4'", "False", "(1,)") + "abcd").find("not little-endian"), std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<U4'", "False", "(1,)")).find("unsupported dtype"), std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i44'", "False", "(1,)")).find("unsupported dtype"), std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("<i4", "False", "(1,)")).find("not a quoted dtype"), std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i4'", "True", "(1,)") + "abcd").find("fortran_order"), std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i4'", "maybe", "(1,)") + "abcd").find("expected True or False"),
            std::string::npos);
  EXPECT_NE(error_of("x.npy", hdr("'<i4'", "False", "(2,)") + "abcd").find("holds 4 bytes"), std::string::npos);
  // Raw files take any bytes.
  EXPECT_EQ(parse("x.bin", "\x93NUMP").bytes.size(), 5u);
}

TEST(TensorFile, DirectoriesAndMissingFilesAreNamed) {
  try {
    vp::platform::read_tensor_file("/");
    ADD_FAILURE() << "a directory was read";
  } catch (const TensorFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/: is a directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(vp::platform::read_tensor_file("/nonexistent/x.npy"), TensorFileError);
  // A device that never ends is refused up front, not read until memory runs out.
  try {
    vp::platform::read_tensor_file("/dev/zero");
    ADD_FAILURE() << "/dev/zero was read";
  } catch (const TensorFileError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero: is a device"), std::string::npos) << e.what();
  }
}

TEST(ChipSize, LimitsNameTheParameterAndPassOrdinaryChips) {
  vp::hw::ChipConfig c;  // sidra-y1's defaults
  vp::platform::MachineLimits m;
  m.ram_bytes = 8ull << 30;
  EXPECT_NO_THROW(vp::platform::check_chip_size(c, m));
  c.clusters = 4096;
  c.cus_per_cluster = 1024;
  try {
    vp::platform::check_chip_size(c, m);
    ADD_FAILURE() << "4M cores fit in 8 GiB";
  } catch (const vp::platform::ChipSizeError& e) {
    EXPECT_NE(std::string(e.what()).find("reduce chip.clusters or chip.cus_per_cluster"), std::string::npos) << e.what();
  }
  c.clusters = 16;
  c.cus_per_cluster = 25;
  c.memory.gmem_bytes = 1ull << 50;
  try {
    vp::platform::check_chip_size(c, m);
    ADD_FAILURE() << "a 1 PiB global memory was accepted";
  } catch (const vp::platform::ChipSizeError& e) {
    EXPECT_NE(std::string(e.what()).find("gmem.size_mib"), std::string::npos) << e.what();
  }
}

}  // namespace
