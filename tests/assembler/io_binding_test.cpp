// .input/.output bindings: syntax, errors with file:line:col, the .vp.io
// section (round trip, optional, strictly validated) and vp-objdump.
#include <cstring>

#include "test_util.h"

namespace {

using vp::obj::IoBinding;

const char* kModel = R"(.equ X, 0x100
.input "x", X, 64, "int8", 1, 64
.output "logits", 0x1000, 40, "int32", 10
.input "mask", 0x2000, 7, "uint8"
.output "y.f", 0x3000, 24, "float32", 2, 3
.core 0, 0
    halt
)";

TEST(IoBinding, DirectivesFillTheObjectInDeclarationOrder) {
  const vp::obj::Object o = vp_test::ok(kModel);
  ASSERT_EQ(o.io.size(), 4u);
  EXPECT_EQ(o.io[0].name, "x");
  EXPECT_FALSE(o.io[0].output);
  EXPECT_EQ(o.io[0].address, 0x100u);
  EXPECT_EQ(o.io[0].bytes, 64u);
  EXPECT_EQ(o.io[0].dtype, "int8");
  EXPECT_EQ(o.io[0].shape, (std::vector<uint64_t>{1, 64}));
  EXPECT_EQ(o.io[1].name, "logits");
  EXPECT_TRUE(o.io[1].output);
  EXPECT_EQ(o.io[1].shape, (std::vector<uint64_t>{10}));
  EXPECT_EQ(o.io[2].name, "mask");
  EXPECT_TRUE(o.io[2].shape.empty());
  EXPECT_EQ(o.io[2].bytes, 7u);
  EXPECT_EQ(o.io[3].dtype, "float32");
  EXPECT_EQ(o.io[3].shape, (std::vector<uint64_t>{2, 3}));
}

TEST(IoBinding, SectionRoundTripsThroughBytes) {
  const vp::obj::Object o = vp_test::ok(kModel);
  const auto bytes = vp::obj::serialize_object(o);
  const vp::obj::Object back = vp::obj::parse_object(bytes.data(), bytes.size(), "m.vpo");
  ASSERT_EQ(back.io.size(), o.io.size());
  for (size_t i = 0; i < o.io.size(); ++i) {
    EXPECT_EQ(back.io[i].name, o.io[i].name);
    EXPECT_EQ(back.io[i].output, o.io[i].output);
    EXPECT_EQ(back.io[i].address, o.io[i].address);
    EXPECT_EQ(back.io[i].bytes, o.io[i].bytes);
    EXPECT_EQ(back.io[i].dtype, o.io[i].dtype);
    EXPECT_EQ(back.io[i].shape, o.io[i].shape);
  }
  EXPECT_EQ(vp::obj::serialize_object(back), bytes);
}

TEST(IoBinding, ToSourceIsByteIdentical) {
  const vp::obj::Object o = vp_test::ok(kModel);
  const std::string src = vp::as::to_source(o);
  EXPECT_NE(src.find(".input \"x\", 0x100, 64, \"int8\", 1, 64\n"), std::string::npos) << src;
  EXPECT_NE(src.find(".output \"logits\", 0x1000, 40, \"int32\", 10\n"), std::string::npos) << src;
  const vp::obj::Object again = vp_test::ok(src);
  EXPECT_EQ(vp::obj::serialize_object(again), vp::obj::serialize_object(o));
}

TEST(IoBinding, ObjectsWithoutBindingsHaveNoSection) {
  const vp::obj::Object o = vp_test::ok(".core 0, 0\n halt\n");
  EXPECT_TRUE(o.io.empty());
  const auto bytes = vp::obj::serialize_object(o);
  for (const auto& s : vp::obj::section_table(bytes.data(), bytes.size(), "m.vpo")) EXPECT_NE(s.name, ".vp.io");
  EXPECT_TRUE(vp::obj::parse_object(bytes.data(), bytes.size(), "m.vpo").io.empty());
}

struct BadCase {
  const char* name;
  const char* source;
  uint32_t line, col;
  const char* message;
};

const BadCase kBad[] = {
    {"size_mismatch", ".input \"x\", 0, 63, \"int8\", 1, 64\n", 1, 16,
     ".input 'x': 63 bytes, but shape 1x64 of int8 is 64 bytes"},
    {"size_mismatch_int32", "\n.output \"y\", 0x10, 10, \"int32\", 10\n", 2, 20, "shape 10 of int32 is 40 bytes"},
    {"dtype", ".input \"x\", 0, 4, \"int64\"\n", 1, 19, "unknown dtype 'int64' (expected int8, uint8, int16, int32 or float32)"},
    {"name_unquoted", ".input x, 0, 4, \"int8\"\n", 1, 8, "expected a quoted tensor name, got 'x'"},
    {"too_few", ".output \"y\", 0, 4\n", 1, 9, ".output expects \"NAME\", ADDR, BYTES, \"DTYPE\"[, DIMS...][, KEY=VALUE...], got 3 operands"},
    {"zero_dim", ".input \"x\", 0, 4, \"int8\", 0\n", 1, 27, "dimension 0 out of range"},
    {"zero_bytes", ".input \"x\", 0, 0, \"int8\"\n", 1, 16, "byte count 0 out of range"},
    {"negative_addr", ".input \"x\", -4, 4, \"int8\"\n", 1, 13, "address -4 out of range"},
    {"duplicate", ".input \"x\", 0, 4, \"int8\"\n.output \"x\", 8, 4, \"int8\"\n", 2, 9,
     "tensor 'x' already bound (by an .input)"},
    {"empty_name", ".input \"\", 0, 4, \"int8\"\n", 1, 8, ".input name must be non-empty"},
    {"forward_addr", ".input \"x\", A, 4, \"int8\"\n.equ A, 4\n", 1, 13, "this directive needs names defined before it"},
};

class IoBindingErrors : public testing::TestWithParam<BadCase> {};

TEST_P(IoBindingErrors, ReportsWhereAndWhat) {
  const BadCase& c = GetParam();
  vp::as::Result r = vp::as::assemble_string(c.source, "bad.s");
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.errors.empty());
  EXPECT_EQ(r.errors[0].line, c.line) << r.error_text();
  EXPECT_EQ(r.errors[0].col, c.col) << r.error_text();
  EXPECT_NE(r.errors[0].message.find(c.message), std::string::npos) << r.error_text();
  EXPECT_NE(r.error_text().find("bad.s:" + std::to_string(c.line) + ":" + std::to_string(c.col) + ": error:"),
            std::string::npos)
      << r.error_text();
}

INSTANTIATE_TEST_SUITE_P(Cases, IoBindingErrors, testing::ValuesIn(kBad),
                         [](const testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

// Offset of the .vp.io section's contents in serialized bytes.
uint64_t io_offset(const std::vector<uint8_t>& bytes) {
  for (const auto& s : vp::obj::section_table(bytes.data(), bytes.size(), "m.vpo"))
    if (s.name == ".vp.io") return s.offset;
  ADD_FAILURE() << "no .vp.io section";
  return 0;
}

void expect_rejected(std::vector<uint8_t> bytes, uint64_t at, uint32_t value, const std::string& message) {
  std::memcpy(bytes.data() + at, &value, 4);
  try {
    vp::obj::parse_object(bytes.data(), bytes.size(), "m.vpo");
    ADD_FAILURE() << "accepted; expected " << message;
  } catch (const vp::obj::ObjectError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("m.vpo: section .vp.io"), std::string::npos) << e.what();
  }
}

TEST(IoBindingLoader, RejectsCorruptSections) {
  const auto bytes = vp::obj::serialize_object(vp_test::ok(kModel));
  const uint64_t io = io_offset(bytes);
  const uint64_t rec0 = io + vp::obj::kIoHeaderSize;
  expect_rejected(bytes, io, 5, "sizes do not match the section");               // record count
  expect_rejected(bytes, io + 12, 1, "record size 1 is not 0 (40-byte records) or 56");
  expect_rejected(bytes, io + 12, 56, "sizes do not match the section");  // 40-byte records announced as 56
  expect_rejected(bytes, rec0, 16, "record 0: unknown flags 16");
  expect_rejected(bytes, rec0, 9, "record 0: ('x') an output cannot be indirect");
  expect_rejected(bytes, rec0 + vp::obj::kIoRecordSize + 36, 2, "record 1: indirect word is not zero without its flag");
  expect_rejected(bytes, rec0, 2, "record 0: ('x') layout channels_last needs a shape of rank 3 or more");
  expect_rejected(bytes, rec0, 4, "record 0: ('x') host_softmax needs a scale");
  expect_rejected(bytes, rec0 + 4, 999, "record 0: name offset outside the names");
  expect_rejected(bytes, rec0 + 16, 65, "record 0: ('x') 65 bytes do not match its shape");
  expect_rejected(bytes, rec0 + 24, 9, "record 0: ('x') unknown dtype code 9");
  expect_rejected(bytes, rec0 + 28, 50, "record 0: ('x') dimensions outside the dimension table");
  expect_rejected(bytes, rec0 + 36, 1, "record 0: indirect word is not zero without its flag");
  expect_rejected(bytes, rec0 + vp::obj::kIoRecordSize + 4, 0, "record 1: name 'x' bound twice");
}

// indirect=ADDR: the input is read through the 32-bit word at ADDR, which
// the firmware points at the element's bytes. The word's address round
// trips through the object (flag bit 3, the record's word at 36) and the
// regenerated source; outputs and unaligned or 64-bit words are refused.
TEST(IoBinding, AnIndirectInputRoundTrips) {
  const char* src = ".input \"x\", 0x100, 64, \"int8\", 4, 16, indirect=0x40\n.input \"m\", 0x200, 4, \"int8\"\n"
                    ".core 0, 0\n    halt\n";
  const vp::obj::Object o = vp_test::ok(src);
  ASSERT_EQ(o.io.size(), 2u);
  EXPECT_EQ(o.io[0].indirect, 0x40);
  EXPECT_EQ(o.io[1].indirect, -1);
  const auto bytes = vp::obj::serialize_object(o);
  const vp::obj::Object back = vp::obj::parse_object(bytes.data(), bytes.size(), "m.vpo");
  EXPECT_EQ(back.io[0].indirect, 0x40);
  EXPECT_EQ(back.io[1].indirect, -1);
  const std::string again = vp::as::to_source(o);
  EXPECT_NE(again.find(".input \"x\", 0x100, 64, \"int8\", 4, 16, indirect=64\n"), std::string::npos) << again;
  EXPECT_EQ(vp::obj::serialize_object(vp_test::ok(again)), bytes);
  uint32_t rec[10] = {};
  std::memcpy(rec, bytes.data() + io_offset(bytes) + vp::obj::kIoHeaderSize, sizeof rec);
  EXPECT_EQ(rec[0], 8u);     // the flag
  EXPECT_EQ(rec[9], 0x40u);  // the word
  for (const char* bad : {".output \"y\", 0, 8, \"int8\", 8, indirect=0x40\n", ".input \"x\", 0, 8, \"int8\", indirect=6\n",
                          ".input \"x\", 0, 8, \"int8\", indirect=0x100000000\n"}) {
    const vp::as::Result r = vp::as::assemble_string(bad, "bad.s");
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error_text().find("indirect"), std::string::npos) << r.error_text();
  }
}

TEST(IoBindingLoader, EveryByteFlipIsHandled) {
  const auto good = vp::obj::serialize_object(vp_test::ok(kModel));
  const uint64_t io = io_offset(good);
  const auto table = vp::obj::section_table(good.data(), good.size(), "m.vpo");
  uint64_t size = 0;
  for (const auto& s : table)
    if (s.name == ".vp.io") size = s.size;
  for (uint64_t i = io; i < io + size; ++i) {
    auto b = good;
    b[i] ^= 0xA5;
    try {
      vp::obj::parse_object(b.data(), b.size(), "m.vpo");
    } catch (const vp::obj::ObjectError&) {
    }
  }
}

TEST(IoBindingCli, ObjdumpShowsBindingsAndAsmRoundTrips) {
  const std::string dir = vp_test::make_temp_dir();
  vp_test::write_file(dir + "/m.s", kModel);
  const std::string bin = vp_test::bin_dir();
  ASSERT_EQ(vp_test::run(bin + "/vp-as " + dir + "/m.s -o " + dir + "/m.vpo"), 0);
  std::string meta;
  ASSERT_EQ(vp_test::run(bin + "/vp-objdump --meta " + dir + "/m.vpo", &meta), 0);
  EXPECT_NE(meta.find("IO bindings: 4"), std::string::npos) << meta;
  EXPECT_NE(meta.find("input  x"), std::string::npos) << meta;
  EXPECT_NE(meta.find("0x1000, 40 bytes, int32 10"), std::string::npos) << meta;
  ASSERT_EQ(vp_test::run(bin + "/vp-objdump --asm " + dir + "/m.vpo > " + dir + "/back.s"), 0);
  ASSERT_EQ(vp_test::run(bin + "/vp-as " + dir + "/back.s -o " + dir + "/back.vpo"), 0);
  EXPECT_EQ(vp_test::read_file(dir + "/back.vpo"), vp_test::read_file(dir + "/m.vpo"));
}

}  // namespace
