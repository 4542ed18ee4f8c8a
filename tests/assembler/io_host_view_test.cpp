// The host view of .input/.output bindings (scale, zero_point, layout,
// host_softmax): syntax and errors, the longer .vp.io records that carry it,
// objects without it keeping their 40-byte records, and the round trip
// through vp-objdump --asm.
#include <cmath>
#include <cstring>

#include "test_util.h"

namespace {

const char* kModel = R"(.input "image", 0x100, 24, "int8", 1, 3, 2, 4, scale=0.018733, zero_point=-3, layout=channels_last
.output "probs", 0x200, 10, "int8", 1, 10, scale=0.0625, host_softmax=1
.output "raw", 0x300, 8, "int32", 2
.core 0, 0
    halt
)";

uint64_t io_offset(const std::vector<uint8_t>& bytes, uint64_t* size = nullptr) {
  for (const auto& s : vp::obj::section_table(bytes.data(), bytes.size(), "m.vpo"))
    if (s.name == ".vp.io") {
      if (size) *size = s.size;
      return s.offset;
    }
  ADD_FAILURE() << "no .vp.io section";
  return 0;
}

TEST(IoHostView, DirectivesFillTheBinding) {
  const vp::obj::Object o = vp_test::ok(kModel);
  ASSERT_EQ(o.io.size(), 3u);
  EXPECT_DOUBLE_EQ(o.io[0].scale, 0.018733);
  EXPECT_EQ(o.io[0].zero_point, -3);
  EXPECT_TRUE(o.io[0].channels_last);
  EXPECT_FALSE(o.io[0].host_softmax);
  EXPECT_EQ(o.io[0].shape, (std::vector<uint64_t>{1, 3, 2, 4}));
  EXPECT_DOUBLE_EQ(o.io[1].scale, 0.0625);
  EXPECT_EQ(o.io[1].zero_point, 0);
  EXPECT_FALSE(o.io[1].channels_last);
  EXPECT_TRUE(o.io[1].host_softmax);
  EXPECT_FALSE(o.io[2].quantized());
  EXPECT_FALSE(o.io[2].has_host_view());
}

TEST(IoHostView, LongRecordsRoundTripExactly) {
  // A scale with all 17 digits must come back as the same double.
  const std::string src = std::string(".input \"x\", 0, 4, \"int8\", 4, scale=0.032988424376239923\n") + kModel;
  const vp::obj::Object o = vp_test::ok(src);
  const auto bytes = vp::obj::serialize_object(o);
  uint64_t size = 0;
  const uint64_t io = io_offset(bytes, &size);
  uint32_t rsize = 0;
  std::memcpy(&rsize, bytes.data() + io + 12, 4);
  EXPECT_EQ(rsize, vp::obj::kIoRecordSizeHostView);
  EXPECT_EQ(size, vp::obj::kIoHeaderSize + 4 * vp::obj::kIoRecordSizeHostView + (1 + 4 + 2 + 1) * 8 + 18);
  const vp::obj::Object back = vp::obj::parse_object(bytes.data(), bytes.size(), "m.vpo");
  ASSERT_EQ(back.io.size(), 4u);
  EXPECT_EQ(back.io[0].scale, 0.032988424376239923);
  for (size_t i = 0; i < o.io.size(); ++i) {
    EXPECT_EQ(back.io[i].scale, o.io[i].scale) << i;
    EXPECT_EQ(back.io[i].zero_point, o.io[i].zero_point) << i;
    EXPECT_EQ(back.io[i].channels_last, o.io[i].channels_last) << i;
    EXPECT_EQ(back.io[i].host_softmax, o.io[i].host_softmax) << i;
    EXPECT_EQ(back.io[i].shape, o.io[i].shape) << i;
  }
  EXPECT_EQ(vp::obj::serialize_object(back), bytes);
  // And through the regenerated source.
  const vp::obj::Object again = vp_test::ok(vp::as::to_source(o));
  EXPECT_EQ(vp::obj::serialize_object(again), bytes);
}

TEST(IoHostView, BindingsWithoutItKeepFortyByteRecords) {
  const auto bytes = vp::obj::serialize_object(vp_test::ok(".input \"x\", 0, 4, \"int8\", 1, 4\n.core 0, 0\n halt\n"));
  uint64_t size = 0;
  const uint64_t io = io_offset(bytes, &size);
  uint32_t rsize = 1;
  std::memcpy(&rsize, bytes.data() + io + 12, 4);
  EXPECT_EQ(rsize, 0u);  // what objects written before the host view hold
  EXPECT_EQ(size, vp::obj::kIoHeaderSize + vp::obj::kIoRecordSize + 2 * 8 + 2);
}

TEST(IoHostView, CorruptLongRecordsAreRefused) {
  const auto good = vp::obj::serialize_object(vp_test::ok(kModel));
  const uint64_t rec0 = io_offset(good) + vp::obj::kIoHeaderSize;
  auto expect = [&](uint64_t at, const void* v, size_t n, const std::string& msg) {
    auto b = good;
    std::memcpy(b.data() + at, v, n);
    try {
      vp::obj::parse_object(b.data(), b.size(), "m.vpo");
      ADD_FAILURE() << "accepted; expected " << msg;
    } catch (const vp::obj::ObjectError& e) {
      EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
    }
  };
  const double nan = std::nan(""), neg = -1.0;
  const int32_t zp = 300, one = 1;
  expect(rec0 + 40, &nan, 8, "record 0: ('image') scale nan is not a finite number >= 0");
  expect(rec0 + 40, &neg, 8, "scale -1.000000 is not a finite number >= 0");
  expect(rec0 + 48, &zp, 4, "record 0: ('image') zero_point 300 is outside int8's range -128..127");
  expect(rec0 + 52, &one, 4, "record 0: reserved field at 52 is not zero");
  // Every byte flipped: refused or loaded, never a crash.
  for (uint64_t i = rec0; i < rec0 + 3 * vp::obj::kIoRecordSizeHostView; ++i) {
    auto b = good;
    b[i] ^= 0x5A;
    try {
      vp::obj::parse_object(b.data(), b.size(), "m.vpo");
    } catch (const vp::obj::ObjectError&) {
    }
  }
}

struct BadCase {
  const char* name;
  const char* source;
  const char* at;  // where the error points: the first occurrence of this text
  const char* message;
};

const BadCase kBad[] = {
    {"unknown_key", ".input \"x\", 0, 4, \"int8\", 4, gain=2\n", "gain", "unknown key 'gain' (expected scale, zero_point"},
    {"scale_zero", ".input \"x\", 0, 4, \"int8\", 4, scale=0\n", "0\n", "scale 0 must be > 0"},
    {"scale_text", ".input \"x\", 0, 4, \"int8\", 4, scale=big\n", "big", "scale"},
    {"scale_nan", ".input \"x\", 0, 4, \"int8\", 4, scale=nan\n", "nan", "scale"},
    {"layout_word", ".input \"x\", 0, 4, \"int8\", 4, layout=nchw\n", "nchw",
     "layout 'nchw': expected channels_last or row_major"},
    {"layout_rank", ".input \"x\", 0, 4, \"int8\", 1, 4, layout=channels_last\n", ".input",
     ".input 'x': layout channels_last needs a shape of rank 3 or more"},
    {"zero_point_range", ".input \"x\", 0, 4, \"int8\", 4, scale=1, zero_point=128\n", ".input",
     "zero_point 128 is outside int8's range -128..127"},
    {"softmax_without_scale", ".output \"y\", 0, 4, \"int8\", 4, host_softmax=1\n", ".output", "host_softmax needs a scale"},
    {"softmax_two", ".output \"y\", 0, 4, \"int8\", 4, scale=1, host_softmax=2\n", "2\n", "host_softmax 2 out of range"},
    {"float_scaled", ".output \"y\", 0, 16, \"float32\", 4, scale=1\n", ".output", "a float32 tensor takes no scale"},
    {"key_twice", ".input \"x\", 0, 4, \"int8\", 4, scale=1, scale=2\n", "scale=2", "scale given twice"},
    {"dim_after_key", ".input \"x\", 0, 4, \"int8\", scale=1, 4\n", "4\n", "dimensions come before KEY=VALUE operands"},
};

class IoHostViewErrors : public testing::TestWithParam<BadCase> {};

TEST_P(IoHostViewErrors, ReportsWhereAndWhat) {
  const BadCase& c = GetParam();
  vp::as::Result r = vp::as::assemble_string(c.source, "bad.s");
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0].line, 1u) << r.error_text();
  EXPECT_EQ(r.errors[0].col, std::string(c.source).find(c.at) + 1) << r.error_text();
  EXPECT_NE(r.errors[0].message.find(c.message), std::string::npos) << r.error_text();
}

INSTANTIATE_TEST_SUITE_P(Cases, IoHostViewErrors, testing::ValuesIn(kBad),
                         [](const testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

TEST(IoHostViewCli, ObjdumpShowsTheHostView) {
  const std::string dir = vp_test::make_temp_dir();
  vp_test::write_file(dir + "/m.s", kModel);
  const std::string bin = vp_test::bin_dir();
  ASSERT_EQ(vp_test::run(bin + "/vp-as " + dir + "/m.s -o " + dir + "/m.vpo"), 0);
  std::string meta;
  ASSERT_EQ(vp_test::run(bin + "/vp-objdump --meta " + dir + "/m.vpo", &meta), 0);
  EXPECT_NE(meta.find("scale 0.018733, zero point -3, channels-last bytes"), std::string::npos) << meta;
  EXPECT_NE(meta.find("scale 0.0625, zero point 0, host applies Softmax"), std::string::npos) << meta;
  ASSERT_EQ(vp_test::run(bin + "/vp-objdump --asm " + dir + "/m.vpo > " + dir + "/back.s"), 0);
  EXPECT_NE(vp_test::read_file(dir + "/back.s").find("layout=channels_last"), std::string::npos);
  ASSERT_EQ(vp_test::run(bin + "/vp-as " + dir + "/back.s -o " + dir + "/back.vpo"), 0);
  EXPECT_EQ(vp_test::read_file(dir + "/back.vpo"), vp_test::read_file(dir + "/m.vpo"));
}

}  // namespace
