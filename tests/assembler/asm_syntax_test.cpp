// What the assembler accepts: expressions, labels, sections, data, cell
// programs, includes, incbin, metadata.
#include <cstring>

#include "test_util.h"

namespace {

using vp::obj::CoreId;
using vp_test::ok;
using vp_test::operand;

const CoreId kC00{0, 0};

int64_t li_value(const std::string& expr, const std::string& prelude = "") {
  auto o = ok(prelude + "\n.core 0, 0\n    li r1, " + expr + "\n");
  return operand(o, kC00, 0, "imm");
}

TEST(AsmExpr, NumbersAndPrecedence) {
  EXPECT_EQ(li_value("42"), 42);
  EXPECT_EQ(li_value("0x2A"), 42);
  EXPECT_EQ(li_value("0b101010"), 42);
  EXPECT_EQ(li_value("'*'"), 42);
  EXPECT_EQ(li_value("'\\n'"), 10);
  EXPECT_EQ(li_value("1_000"), 1000);
  EXPECT_EQ(li_value("2 + 3 * 4"), 14);
  EXPECT_EQ(li_value("(2 + 3) * 4"), 20);
  EXPECT_EQ(li_value("1 << 4 | 3"), 19);
  EXPECT_EQ(li_value("1 + 2 << 3"), 24);  // + binds tighter than <<, as in C
  EXPECT_EQ(li_value("0xff & ~0x0f"), 0xf0);
  EXPECT_EQ(li_value("6 ^ 3"), 5);
  EXPECT_EQ(li_value("-7 / 2"), -3);
  EXPECT_EQ(li_value("-7 % 3"), -1);
  EXPECT_EQ(li_value("-(3 - 5)"), 2);
  EXPECT_EQ(li_value("256 >> 4"), 16);
  EXPECT_EQ(li_value("- -1"), 1);
  EXPECT_EQ(li_value("0xFFFFFFFF"), -1);  // 32-bit immediates accept unsigned spellings
  EXPECT_EQ(li_value("N * 2", ".equ N, 21"), 42);
  EXPECT_EQ(li_value("M", "M = 6 * 7"), 42);

}

TEST(AsmExpr, ForwardEquAndLabels) {
  auto o = ok(R"(
.core 0, 0
    li r1, LATER + 1
    jmp end
    li r2, end * 8
end: halt
.equ LATER, BASE + 10
.equ BASE, 100
)");
  EXPECT_EQ(operand(o, kC00, 0, "imm"), 111);
  EXPECT_EQ(operand(o, kC00, 1, "target"), 3);
  EXPECT_EQ(operand(o, kC00, 2, "imm"), 24);
}

TEST(AsmSyntax, CommentsCaseAndRegisters) {
  auto o = ok(R"(
# hash comment
// slash comment
.CORE 0, 0      ; directive in upper case
    ADD R1, r2, zero   # trailing
    Dma.Gl r3, r4, r31 // mnemonic with a dot, mixed case
    li r5, '#'         ; a quoted '#' is not a comment
    li r6, ';'
lbl:  loop2: nop       ; two labels on one line
)");
  EXPECT_EQ(operand(o, kC00, 0, "rd"), 1);
  EXPECT_EQ(operand(o, kC00, 0, "rs2"), 0);
  EXPECT_EQ(operand(o, kC00, 1, "rn"), 31);
  EXPECT_EQ(operand(o, kC00, 2, "imm"), '#');
  EXPECT_EQ(operand(o, kC00, 3, "imm"), ';');
  ASSERT_EQ(o.symbols.size(), 2u);
  EXPECT_EQ(o.symbols[0].value, 4u);
  EXPECT_EQ(o.symbols[1].value, 4u);
}

TEST(AsmSyntax, EnumsMasksAndTargetsFromTheTable) {
  auto o = ok(R"(
.core 0, 0
    mvm r1, r2, 3, 0xF0F0, 8, 32, concat, 1
    vclamp r1, r2, r3, -128, 127, i16
    rdsr r7, ncores
    wait 0b1010
top: dbnz r9, top
)");
  EXPECT_EQ(operand(o, kC00, 0, "xb"), 3);
  EXPECT_EQ(operand(o, kC00, 0, "mask"), 0xF0F0);
  EXPECT_EQ(operand(o, kC00, 0, "mode"), 1);
  EXPECT_EQ(operand(o, kC00, 0, "acc"), 1);
  EXPECT_EQ(operand(o, kC00, 1, "lo"), -128);
  EXPECT_EQ(operand(o, kC00, 1, "dt"), 1);
  EXPECT_EQ(operand(o, kC00, 2, "sr"), 3);
  EXPECT_EQ(operand(o, kC00, 3, "units"), 10);
  EXPECT_EQ(operand(o, kC00, 4, "target"), 4);
}

TEST(AsmSections, CoresLabelsPerCoreAndEntries) {
  auto o = ok(R"(
.core 1, 2
start: nop
loop: jmp loop
.cp
    nop
loop: halt       ; same name, other core: fine
.entry loop
.core 1, 2       ; back to core (1,2): appends
    jmp start
.entry loop
.core 0, 0
)");
  ASSERT_EQ(o.texts.size(), 3u);
  EXPECT_TRUE(o.texts[0].core.is_control());  // control processor first
  EXPECT_EQ(o.texts[0].entry, 1u);
  EXPECT_TRUE((o.texts[1].core == CoreId{0, 0}));
  EXPECT_TRUE(o.texts[1].words.empty());
  EXPECT_TRUE((o.texts[2].core == CoreId{1, 2}));
  EXPECT_EQ(o.texts[2].words.size(), 3u);
  EXPECT_EQ(o.texts[2].entry, 1u);
  EXPECT_EQ(operand(o, CoreId{1, 2}, 2, "target"), 0);
  EXPECT_EQ(o.symbols.size(), 3u);
  EXPECT_EQ(o.chip.clusters, 2u);
  EXPECT_EQ(o.chip.cus_per_cluster, 3u);
}

TEST(AsmData, SpacesAndValues) {
  auto o = ok(R"(
.core 0, 3
    nop
.data global, 0x1000
    .byte 1, -1, 255
    .half 0x1234
    .align 8
    .word 0xdeadbeef, -2
    .dword 0x0102030405060708
    .ascii "ab\"\x41"
    .asciz "z"
    .space 3, 7
.data sram, 2, 0x40
    .word 5
.data local, 16
    .byte 9
.text
    halt
)");
  ASSERT_EQ(o.data.size(), 3u);
  const auto& g = o.data[0];
  EXPECT_EQ(g.space, vp::obj::DataSegment::Space::Global);
  EXPECT_EQ(g.address, 0x1000u);
  const std::vector<uint8_t> want = {1,    0xff, 0xff, 0x34, 0x12, 0,    0,    0,    0xef, 0xbe, 0xad, 0xde,
                                     0xfe, 0xff, 0xff, 0xff, 8,    7,    6,    5,    4,    3,    2,    1,
                                     'a',  'b',  '"',  'A',  'z',  0,    7,    7,    7};
  ASSERT_EQ(g.bytes.size, want.size());
  EXPECT_EQ(std::memcmp(g.bytes.data, want.data(), want.size()), 0);
  EXPECT_EQ(o.data[1].space, vp::obj::DataSegment::Space::Sram);
  EXPECT_EQ(o.data[1].core.cluster, 2);
  EXPECT_EQ(o.data[1].address, 0x40u);
  EXPECT_EQ(o.data[2].space, vp::obj::DataSegment::Space::Local);
  EXPECT_TRUE((o.data[2].core == CoreId{0, 3}));
  EXPECT_EQ(o.text_of(CoreId{0, 3})->words.size(), 2u);
  EXPECT_EQ(o.chip.clusters, 3u);  // sram of cluster 2
}

TEST(AsmData, ForwardValuesInData) {
  auto o = ok(R"(
.core 0, 0
.data global, 0
    .word SIZE, here
.text
    nop
here: halt
.equ SIZE, 77
)");
  const auto& b = o.data[0].bytes;
  ASSERT_EQ(b.size, 8u);
  EXPECT_EQ(b.data[0], 77);
  EXPECT_EQ(b.data[4], 1);
}

TEST(AsmCells, ByteAndIncbinLevels) {
  const std::string dir = vp_test::make_temp_dir();
  std::string blob(64, '\0');
  for (int i = 0; i < 64; ++i) blob[static_cast<size_t>(i)] = static_cast<char>(i % 4);
  vp_test::write_file(dir + "/w.bin", blob);
  vp_test::write_file(dir + "/p.s", R"(
.chip cell_bits=2, xbars=16
.xbar 0, 1, 2, 0, 0, 2, 3
    .byte 0, 1, 2
    .byte 3, 0, 1
.xbar 0, 1, 3, 8, 16, 4, 4
    .incbin "w.bin", 0, 16
.xbar 0, 1, 4, 0, 0, 4, 4
    .incbin "w.bin", 32, 16
.xbar 1, 0, 0, 0, 0, 2, 2
    .byte 1, 1
    .incbin "w.bin", 2, 2
)");
  vp::as::Result r = vp::as::assemble_file(dir + "/p.s");
  ASSERT_TRUE(r.ok()) << r.error_text();
  const auto& o = r.object;
  ASSERT_EQ(o.cells.size(), 4u);
  EXPECT_EQ(o.cell_count(), 6u + 16 + 16 + 4);
  EXPECT_EQ(o.cells[0].levels.data[3], 3);
  // Both incbin programs are views into one mapping of w.bin: no copy.
  EXPECT_EQ(o.cells[2].levels.data, o.cells[1].levels.data + 32);
  EXPECT_EQ(o.cells[3].levels.data[2], 2);
  EXPECT_EQ(o.chip.xbars_per_cu, 16u);
  EXPECT_EQ(o.chip.rows, 12u);
  EXPECT_EQ(o.chip.cols, 20u);
  EXPECT_EQ(o.chip.cell_bits, 2u);
  EXPECT_EQ(o.chip.clusters, 2u);
}

TEST(AsmData, IncbinIsAViewAndSplitsSegments) {
  const std::string dir = vp_test::make_temp_dir();
  vp_test::write_file(dir + "/d.bin", std::string(100, 'x'));
  vp_test::write_file(dir + "/p.s", ".data global, 0x100\n .word 1\n .incbin \"d.bin\"\n .byte 2\n");
  auto r = vp::as::assemble_file(dir + "/p.s");
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.object.data.size(), 3u);
  EXPECT_EQ(r.object.data[1].address, 0x104u);
  EXPECT_EQ(r.object.data[1].bytes.size, 100u);
  EXPECT_EQ(r.object.data[2].address, 0x168u);
}

TEST(AsmInclude, RelativeToIncludingFileAndSearchPath) {
  const std::string dir = vp_test::make_temp_dir();
  ASSERT_EQ(::mkdir((dir + "/sub").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir + "/inc").c_str(), 0755), 0);
  vp_test::write_file(dir + "/main.s", ".include \"sub/a.s\"\n.core 0,0\n li r1, A + B\n");
  vp_test::write_file(dir + "/sub/a.s", ".equ A, 1\n.include \"b.s\"\n");   // beside sub/a.s
  vp_test::write_file(dir + "/sub/b.s", ".include \"c.s\"\n.equ B, C * 10\n");
  vp_test::write_file(dir + "/inc/c.s", ".equ C, 4\n");                      // found through -I
  vp::as::Options opt;
  opt.include_dirs.push_back(dir + "/inc");
  auto r = vp::as::assemble_file(dir + "/main.s", opt);
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(operand(r.object, kC00, 0, "imm"), 41);
  EXPECT_EQ(r.lines, 8u);
}

TEST(AsmInclude, CycleIsAnError) {
  const std::string dir = vp_test::make_temp_dir();
  vp_test::write_file(dir + "/a.s", ".include \"b.s\"\n");
  vp_test::write_file(dir + "/b.s", "\n.include \"a.s\"\n");
  auto r = vp::as::assemble_file(dir + "/a.s");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.errors[0].message.find("include cycle"), std::string::npos) << r.error_text();
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_NE(r.errors[0].file.find("b.s"), std::string::npos);
}

TEST(AsmMeta, DefinesLayersAndChip) {
  vp::as::Options opt;
  opt.defines = {{"TILE", 64}};
  auto o = ok(R"(
.chip clusters=4, cus=8, rows=256, cols=256
.layer 0, "conv1"
.layer 7, "fc \"head\""
.core 0, 0
    li r1, TILE
    layer 7
)", opt);
  EXPECT_EQ(operand(o, kC00, 0, "imm"), 64);
  EXPECT_EQ(o.layer_names.at(0), "conv1");
  EXPECT_EQ(o.layer_names.at(7), "fc \"head\"");
  EXPECT_EQ(o.chip.clusters, 4u);
  EXPECT_EQ(o.chip.cus_per_cluster, 8u);
  EXPECT_EQ(o.chip.rows, 256u);
}

TEST(AsmListing, OneLinePerInstruction) {
  vp::as::Options opt;
  opt.listing = true;
  auto r = vp::as::assemble_string(".core 0,0\n nop\nx: jmp x\n", "l.s", opt);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r.listing.find("c0.0"), std::string::npos);
  EXPECT_NE(r.listing.find("l.s:3: x: jmp x"), std::string::npos) << r.listing;
}

}  // namespace
