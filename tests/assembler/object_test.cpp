// The .vpo format: write/load round trip, determinism, readelf, atomic
// writes, and a loader that rejects every kind of damage with a message
// naming the file and section instead of crashing.
#include <cstring>
#include <random>

#include "program_gen.h"
#include "test_util.h"

namespace {

using vp::obj::CoreId;
using vp::obj::Object;
using vp::obj::ObjectError;

const char* kSample = R"(
.chip cell_bits=2
.layer 3, "conv3"
.cp
boot: li r1, 7
    cstart r1, r2
    halt
.core 0, 1
.entry go
    nop
go: li r2, 0x1234
    dbnz r2, go
    halt
.data global, 0x8000
    .word 1, 2, 3
.data local, 0x10
    .byte 9, 8
.xbar 0, 1, 5, 0, 0, 3, 3
    .byte 0,1,2, 3,0,1, 2,3,0
.xbar 0, 1, 6, 4, 0, 1, 5
    .byte 1,1,1,1,1
)";

std::vector<uint8_t> sample_bytes() {
  auto o = vp_test::ok(kSample);
  return vp::obj::serialize_object(o);
}

void expect_same(const Object& a, const Object& b) {
  ASSERT_EQ(a.texts.size(), b.texts.size());
  for (size_t i = 0; i < a.texts.size(); ++i) {
    EXPECT_TRUE(a.texts[i].core == b.texts[i].core);
    EXPECT_EQ(a.texts[i].words, b.texts[i].words);
    EXPECT_EQ(a.texts[i].entry, b.texts[i].entry);
  }
  ASSERT_EQ(a.data.size(), b.data.size());
  for (size_t i = 0; i < a.data.size(); ++i) {
    EXPECT_EQ(a.data[i].space, b.data[i].space);
    EXPECT_TRUE(a.data[i].core == b.data[i].core);
    EXPECT_EQ(a.data[i].address, b.data[i].address);
    ASSERT_EQ(a.data[i].bytes.size, b.data[i].bytes.size);
    EXPECT_EQ(std::memcmp(a.data[i].bytes.data, b.data[i].bytes.data, a.data[i].bytes.size), 0);
  }
  ASSERT_EQ(a.cells.size(), b.cells.size());
  for (size_t i = 0; i < a.cells.size(); ++i) {
    const auto &x = a.cells[i], &y = b.cells[i];
    EXPECT_EQ(std::tie(x.cluster, x.cu, x.xbar, x.row0, x.col0, x.rows, x.cols),
              std::tie(y.cluster, y.cu, y.xbar, y.row0, y.col0, y.rows, y.cols));
    EXPECT_EQ(std::memcmp(x.levels.data, y.levels.data, x.levels.size), 0);
  }
  ASSERT_EQ(a.symbols.size(), b.symbols.size());
  for (size_t i = 0; i < a.symbols.size(); ++i) {
    EXPECT_EQ(a.symbols[i].name, b.symbols[i].name);
    EXPECT_TRUE(a.symbols[i].core == b.symbols[i].core);
    EXPECT_EQ(a.symbols[i].value, b.symbols[i].value);
  }
  EXPECT_EQ(a.layer_names, b.layer_names);
  EXPECT_EQ(a.chip.clusters, b.chip.clusters);
  EXPECT_EQ(a.chip.cell_bits, b.chip.cell_bits);
  EXPECT_EQ(a.chip.rows, b.chip.rows);
}

TEST(ObjectFormat, WriteLoadRoundTrip) {
  auto o = vp_test::ok(kSample);
  const std::string dir = vp_test::make_temp_dir();
  vp::obj::write_object(o, dir + "/s.vpo");
  Object l = vp::obj::load_object(dir + "/s.vpo");
  expect_same(o, l);
  EXPECT_EQ(l.text_of(CoreId{0, 1})->entry, 1u);
  EXPECT_EQ(l.text_of(CoreId{5, 5}), nullptr);
  EXPECT_EQ(l.cell_count(), 14u);
  EXPECT_TRUE(l.texts[0].core.is_control());
  // Writing what was loaded gives the same bytes.
  EXPECT_EQ(vp::obj::serialize_object(l), vp::obj::serialize_object(o));
  const std::string disk = vp_test::read_file(dir + "/s.vpo");
  const auto mem = vp::obj::serialize_object(o);
  EXPECT_EQ(std::vector<uint8_t>(disk.begin(), disk.end()), mem);
}

TEST(ObjectFormat, Deterministic) {
  for (uint64_t seed = 1; seed < 20; ++seed) {
    const std::string src = vp_test::random_program(seed);
    auto a = vp::as::assemble_string(src, "a.s");
    auto b = vp::as::assemble_string(src, "b.s");
    ASSERT_TRUE(a.ok()) << a.error_text();
    EXPECT_EQ(vp::obj::serialize_object(a.object), vp::obj::serialize_object(b.object));
  }
}

TEST(ObjectFormat, HeaderFields) {
  const auto b = sample_bytes();
  ASSERT_GE(b.size(), 64u);
  EXPECT_EQ(std::memcmp(b.data(), "\x7f" "ELF\x02\x01\x01", 7), 0);
  EXPECT_EQ(b[16], 2);  // ET_EXEC
  EXPECT_EQ(b[18] | (b[19] << 8), vp::obj::kMachine);
  const auto table = vp::obj::section_table(b.data(), b.size(), "s");
  std::vector<std::string> names;
  for (const auto& s : table) names.push_back(s.name);
  for (const char* want : {".text.cp", ".text.c0.1", ".data.global", ".data.c0.1", ".vp.cells", ".vp.levels",
                           ".vp.cores", ".vp.meta", ".symtab", ".strtab", ".shstrtab"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  for (const auto& s : table)
    if (s.name == ".data.global") {
      EXPECT_EQ(s.addr, 0x8000u);
    }
}

TEST(ObjectFormat, ReadelfListsSectionsAndSymbolsWithoutWarnings) {
  std::string version;
  if (vp_test::run("readelf --version", &version) != 0) GTEST_SKIP() << "readelf not installed";
  const std::string dir = vp_test::make_temp_dir();
  vp::obj::write_object(vp_test::ok(kSample), dir + "/s.vpo");
  std::string out;
  ASSERT_EQ(vp_test::run("readelf -S -W " + dir + "/s.vpo", &out), 0) << out;
  for (const char* want : {".text.cp", ".text.c0.1", ".data.global", ".vp.cells", ".vp.levels", ".vp.meta", ".symtab"})
    EXPECT_NE(out.find(want), std::string::npos) << want << "\n" << out;
  EXPECT_EQ(out.find("Warning"), std::string::npos) << out;
  ASSERT_EQ(vp_test::run("readelf -s -W " + dir + "/s.vpo", &out), 0) << out;
  EXPECT_NE(out.find("boot"), std::string::npos) << out;
  EXPECT_NE(out.find("FUNC"), std::string::npos) << out;
  EXPECT_EQ(out.find("Warning"), std::string::npos) << out;
  ASSERT_EQ(vp_test::run("readelf -h " + dir + "/s.vpo", &out), 0) << out;
  EXPECT_NE(out.find("EXEC"), std::string::npos) << out;
  EXPECT_EQ(out.find("Warning"), std::string::npos) << out;
}

TEST(ObjectFormat, AtomicWriteLeavesNothingOnFailure) {
  const std::string dir = vp_test::make_temp_dir();
  EXPECT_THROW(vp::obj::write_object(vp_test::ok(kSample), dir + "/no/such/dir/x.vpo"), ObjectError);
  // An invalid object is rejected before anything is renamed into place.
  Object bad = vp_test::ok(kSample);
  bad.cells[0].rows = 99;
  EXPECT_THROW(vp::obj::write_object(bad, dir + "/bad.vpo"), ObjectError);
  std::string ls;
  vp_test::run("ls -A " + dir, &ls);
  EXPECT_EQ(ls, "");
}

TEST(ObjectLoader, MissingFile) {
  try {
    vp::obj::load_object("/nonexistent/x.vpo");
    FAIL();
  } catch (const ObjectError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.vpo"), std::string::npos);
  }
}

std::string load_error(const std::vector<uint8_t>& b) {
  try {
    vp::obj::parse_object(b.data(), b.size(), "bad.vpo");
  } catch (const ObjectError& e) {
    return e.what();
  }
  return "";
}

TEST(ObjectLoader, EveryTruncationIsRejected) {
  const auto b = sample_bytes();
  for (size_t n = 0; n < b.size(); ++n) {
    std::vector<uint8_t> t(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
    const std::string e = load_error(t);
    EXPECT_FALSE(e.empty()) << "truncated to " << n << " loaded";
    EXPECT_EQ(e.rfind("bad.vpo", 0), 0u) << e;
  }
}

TEST(ObjectLoader, ByteFlipsNeverCrash) {
  const auto b = sample_bytes();
  std::mt19937_64 rng(5);
  int rejected = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      auto c = b;
      c[i] = static_cast<uint8_t>(k == 0 ? c[i] ^ 0xff : rng());
      try {
        Object o = vp::obj::parse_object(c.data(), c.size(), "flip.vpo");
        // Whatever loads must be consistent enough to write again.
        (void)vp::obj::serialize_object(o);
      } catch (const ObjectError&) {
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, 0);
}

// Locates a section's header and contents for surgery.
struct Sec {
  size_t hdr, off, size;
};
Sec find_section(const std::vector<uint8_t>& b, const std::string& name) {
  const auto table = vp::obj::section_table(b.data(), b.size(), "x");
  uint64_t shoff = 0;
  std::memcpy(&shoff, &b[40], 8);
  for (const auto& s : table)
    if (s.name == name) return Sec{static_cast<size_t>(shoff + s.index * 64), static_cast<size_t>(s.offset), static_cast<size_t>(s.size)};
  ADD_FAILURE() << "no section " << name;
  return Sec{0, 0, 0};
}

TEST(ObjectLoader, BadInstructionWordNamesSectionAndIndex) {
  auto b = sample_bytes();
  const Sec t = find_section(b, ".text.c0.1");
  b[t.off + 2 * 8 + 7] = 0xEE;  // opcode byte of word 2: not an instruction
  const std::string e = load_error(b);
  EXPECT_NE(e.find(".text.c0.1"), std::string::npos) << e;
  EXPECT_NE(e.find("word 2"), std::string::npos) << e;
}

TEST(ObjectLoader, CellProgramOutsideLevels) {
  auto b = sample_bytes();
  const Sec c = find_section(b, ".vp.cells");
  b[c.off + 40 + 32] = 0xF8;  // offset of record 1: far beyond .vp.levels
  const std::string e = load_error(b);
  EXPECT_NE(e.find(".vp.cells record 1"), std::string::npos) << e;
  EXPECT_NE(e.find("outside .vp.levels"), std::string::npos) << e;
  auto b2 = sample_bytes();
  b2[c.off + 20] = 0;  // rows of record 0 -> 0
  EXPECT_NE(load_error(b2).find("empty rectangle"), std::string::npos);
  auto b3 = sample_bytes();
  b3[c.off + 20] = 0xff;  // rows*cols far larger than the levels
  EXPECT_NE(load_error(b3).find("outside .vp.levels"), std::string::npos);
}

TEST(ObjectLoader, SectionOutsideFileAndBadStrings) {
  auto b = sample_bytes();
  const Sec m = find_section(b, ".vp.meta");
  auto b1 = b;
  b1[m.hdr + 32 + 7] = 0x7f;  // size huge
  EXPECT_NE(load_error(b1).find("contents outside the file"), std::string::npos) << load_error(b1);
  auto b2 = b;
  b2[m.hdr + 24 + 7] = 0xff;  // offset huge: offset + size must not wrap
  EXPECT_NE(load_error(b2).find("outside the file"), std::string::npos);
  auto b3 = b;
  const Sec s = find_section(b, ".shstrtab");
  b3[s.off + s.size - 1] = 'x';  // no terminating NUL
  EXPECT_NE(load_error(b3).find("NUL"), std::string::npos) << load_error(b3);
  auto b4 = b;
  b4[m.off] = 9;  // format version
  EXPECT_NE(load_error(b4).find("format version 9"), std::string::npos) << load_error(b4);
  auto b5 = b;
  const Sec cores = find_section(b, ".vp.cores");
  b5[cores.off + 16 + 12] = 50;  // entry of core c0.1 beyond its text
  EXPECT_NE(load_error(b5).find("entry 50 outside"), std::string::npos) << load_error(b5);
  auto b6 = b;
  b6[18] = 0x3e;  // e_machine x86-64
  EXPECT_NE(load_error(b6).find("e_machine"), std::string::npos);
}

}  // namespace
