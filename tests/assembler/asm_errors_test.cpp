// Bad input: every error is file:line:col: error: message, quoting the
// offending text and saying what was expected; several per run; no output.
#include "test_util.h"

namespace {

struct Case {
  const char* name;
  const char* source;
  uint32_t line, col;
  const char* message;  // substring of the message
};

const Case kCases[] = {
    {"outside_section", "  add r1, r2, r3\n", 1, 3, "instruction 'add' outside a code section"},
    {"unknown_mnemonic", ".core 0,0\n  ad r1, r2, r3\n", 2, 3, "unknown instruction 'ad'; did you mean 'add'?"},
    {"unknown_mnemonic_dot", ".core 0,0\n  dma.xx r1, r2, r3\n", 2, 3, "unknown instruction 'dma.xx'"},
    {"operand_count", ".core 0,0\n  add r1, r2\n", 2, 7, "'add' takes 3 operands (rd, rs1, rs2), got 2"},
    {"operand_count_none", ".core 0,0\n  halt r1\n", 2, 8, "'halt' takes 0 operands, got 1"},
    {"wrong_register", ".core 0,0\n  add r1, x5, r3\n", 2, 11,
     "expected register r0..r31 for operand 'rs1' of 'add', got 'x5'"},
    {"register_too_big", ".core 0,0\n  add r32, r1, r3\n", 2, 7, "expected register r0..r31 for operand 'rd'"},
    {"immediate_for_register", ".core 0,0\n  jr 5\n", 2, 6, "expected register r0..r31 for operand 'rs1' of 'jr', got '5'"},
    {"register_for_immediate", ".core 0,0\n  li r1, r2\n", 2, 10, "undefined name 'r2'"},
    {"range", ".core 0,0\n  send r1, r2, r3, 300\n", 2, 20,
     "immediate 300 out of range for operand 'tag' of 'send' (expected 0..255)"},
    {"range_signed", ".core 0,0\n  vclamp r1, r2, r3, -40000, 1, i8\n", 2, 22, "(expected -32768..32767)"},
    {"range_expr", ".equ N, 40\n.core 0,0\n  shli r1, r2, N\n", 3, 16, "immediate 40 ('N') out of range"},
    {"range_forward", ".core 0,0\n  shli r1, r2, N\n.equ N, 33\n", 2, 16, "immediate 33 ('N') out of range for operand 'sh'"},
    {"bad_enum", ".core 0,0\n  vadd r1, r2, r3, r4, i9\n", 2, 24, "expected one of i8, i16, i32 for operand 'dt' of 'vadd', got 'i9'"},
    {"undefined_label", ".core 0,0\n  jmp nowhere\n", 2, 7, "undefined name 'nowhere'"},
    {"other_core_label", ".core 0,0\nfar: nop\n.core 0,1\n  jmp far\n", 4, 7, "'far' is a label of core c0.0 (labels are per core)"},
    {"duplicate_label", ".core 0,0\nx: nop\nx: nop\n", 3, 1, "duplicate label 'x' in core c0.0"},
    {"duplicate_equ", ".equ A, 1\n.equ A, 2\n", 2, 6, ".equ 'A' is already defined"},
    {"equ_label_clash", ".core 0,0\nA: nop\nA = 3\n", 3, 1, "'A' is already defined as a label"},
    {"equ_cycle", ".equ A, B\n.equ B, A\n.core 0,0\n li r1, A\n", 2, 9, "defined in terms of itself"},
    {"missing_include", ".include \"nope.s\"\n", 1, 10, "cannot find include file 'nope.s'"},
    {"missing_incbin", ".data global, 0\n  .incbin \"nope.bin\"\n", 2, 11, "cannot find .incbin file 'nope.bin'"},
    {"incbin_outside", ".core 0,0\n  .incbin \"x\"\n", 2, 3, ".incbin outside a data section or cell program"},
    {"data_outside", ".core 0,0\n  .word 1\n", 2, 3, ".word outside a data section"},
    {"data_no_section", ".byte 1\n", 1, 1, ".byte outside a data section"},
    {"instr_in_data", ".core 0,0\n.data global, 0\n  nop\n", 3, 3, "instruction 'nop' inside a data section (write .text"},
    {"label_in_data", ".core 0,0\n.data global, 0\nbuf: .byte 1\n", 3, 1, "label 'buf' inside a data or cell section"},
    {"label_outside", "x: nop\n", 1, 1, "label 'x' outside a code section"},
    {"cells_size", ".xbar 0,0,0,0,0,2,2\n  .byte 1,2,3\n.cp\n", 1, 1,
     "has 3 level bytes, expected ROWS*COLS = 2*2 = 4"},
    {"cells_size_eof", ".xbar 0,0,0,0,0,2,2\n  .byte 1,2,3,4,5\n", 1, 1, "has 5 level bytes"},
    {"cells_word", ".xbar 0,0,0,0,0,1,4\n  .word 1\n", 2, 3, ".word inside a cell program"},
    {"cells_level_range", ".xbar 0,0,0,0,0,1,1\n  .byte 256\n", 2, 9, "cell level 256 out of range"},
    {"byte_range", ".data global, 0\n  .byte 300\n", 2, 9, "value 300 out of range for .byte (expected -128..255)"},
    {"local_without_core", ".data local, 0\n", 1, 1, ".data local with no core selected"},
    {"data_kind", ".data flash, 0\n", 1, 7, "expected global, sram or local for .data, got 'flash'"},
    {"text_without_core", ".text\n", 1, 1, ".text with no core selected"},
    {"entry_range", ".core 0,0\n  nop\n.entry 5\n", 3, 8, "entry 5 outside the text of core c0.0 (1 instructions)"},
    {"entry_twice", ".core 0,0\n.entry 0\n.entry 0\n", 3, 1, "second .entry"},
    {"unknown_directive", ".wrod 1\n", 1, 1, "unknown directive '.wrod'; did you mean '.word'?"},
    {"div_zero", ".core 0,0\n  li r1, 4 / (2 - 2)\n", 2, 12, "division by zero"},
    {"paren", ".core 0,0\n  li r1, (1 + 2\n", 2, 10, "missing ')'"},
    {"trailing", ".core 0,0\n  li r1, 1 2\n", 2, 12, "unexpected '2'"},
    {"bad_number", ".core 0,0\n  li r1, 0x\n", 2, 10, "malformed number '0x'"},
    {"bad_number2", ".core 0,0\n  li r1, 12ab\n", 2, 10, "malformed number '12ab'"},
    {"huge_number", ".core 0,0\n  li r1, 99999999999999999999\n", 2, 10, "does not fit in 64 bits"},
    {"shift", ".core 0,0\n  li r1, 1 << 64\n", 2, 12, "shift count 64 outside 0..63"},
    {"empty_operand", ".core 0,0\n  add r1, , r2\n", 2, 11, "empty operand"},
    {"core_forward", ".core N, 0\n.equ N, 1\n", 1, 7, "undefined name 'N' (this directive needs names defined before it)"},
    {"core_range", ".core -1, 0\n", 1, 7, "cluster -1 out of range"},
    {"xbar_range", ".xbar 0,0,256,0,0,1,1\n", 1, 11, "crossbar 256 out of range (expected 0..255)"},
    {"chip_key", ".chip lanes=4\n", 1, 7, "expected key=value with key clusters"},
    {"chip_conflict", ".chip clusters=2\n.core 3, 0\n", 1, 1, ".chip clusters=2 but the program uses 4"},
    {"layer_dup", ".layer 1, \"a\"\n.layer 1, \"b\"\n", 2, 11, "layer 1 already named 'a'"},
    {"layer_string", ".layer 1, conv\n", 1, 11, "expected a quoted layer name, got 'conv'"},
    {"garbage", "@@@\n", 1, 1, "expected an instruction, directive or label, got '@@@'"},
    {"align_pow2", ".data global, 0\n .align 3\n", 2, 9, ".align 3 is not a power of two"},
};

class AsmErrors : public testing::TestWithParam<Case> {};

TEST_P(AsmErrors, ReportsWhereAndWhat) {
  const Case& c = GetParam();
  vp::as::Result r = vp::as::assemble_string(c.source, "bad.s");
  ASSERT_FALSE(r.ok()) << c.source;
  const auto& d = r.errors[0];
  EXPECT_EQ(d.file, "bad.s");
  EXPECT_EQ(d.line, c.line) << r.error_text();
  EXPECT_EQ(d.col, c.col) << r.error_text();
  EXPECT_NE(d.message.find(c.message), std::string::npos) << "want: " << c.message << "\ngot:  " << r.error_text();
  const std::string head = "bad.s:" + std::to_string(c.line) + ":" + std::to_string(c.col) + ": error: ";
  EXPECT_EQ(d.headline().substr(0, head.size()), head);
  EXPECT_TRUE(r.object.texts.empty() && r.object.data.empty());
}

INSTANTIATE_TEST_SUITE_P(All, AsmErrors, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

TEST(AsmErrorsMany, SeveralErrorsInOneRunInOrder) {
  auto r = vp::as::assemble_string(".core 0,0\n add r1\n nop\n li r1, x\n foo\n sub r1, r2, r99\n", "m.s");
  ASSERT_EQ(r.errors.size(), 4u) << r.error_text();
  EXPECT_EQ(r.errors[0].line, 2u);
  EXPECT_EQ(r.errors[1].line, 5u);  // the undefined x is only known at the end
  EXPECT_EQ(r.errors[2].line, 6u);
  EXPECT_EQ(r.errors[3].line, 4u);
  // The caret display quotes the line.
  EXPECT_NE(r.errors[0].format().find("  add r1\n"), std::string::npos) << r.errors[0].format();
}

TEST(AsmErrorsMany, CappedAtMaxErrors) {
  std::string src = ".core 0,0\n";
  for (int i = 0; i < 500; ++i) src += " bogus r1\n";
  auto r = vp::as::assemble_string(src, "cap.s");
  EXPECT_EQ(r.errors.size(), 50u);
  EXPECT_TRUE(r.truncated);
  EXPECT_NE(r.error_text().find("too many errors"), std::string::npos);
}

TEST(AsmErrorsMany, UnreadableIncbin) {
  const std::string dir = vp_test::make_temp_dir();
  ASSERT_EQ(::mkdir((dir + "/adir").c_str(), 0755), 0);
  vp_test::write_file(dir + "/p.s", ".data global, 0\n .incbin \"adir\"\n .incbin \"p.s\", 1000\n");
  auto r = vp::as::assemble_file(dir + "/p.s");
  ASSERT_EQ(r.errors.size(), 2u) << r.error_text();
  EXPECT_NE(r.errors[0].message.find("cannot read .incbin file"), std::string::npos) << r.error_text();
  EXPECT_NE(r.errors[1].message.find("beyond the end"), std::string::npos) << r.error_text();
}

TEST(AsmErrorsMany, ThrowingWrapper) {
  const std::string dir = vp_test::make_temp_dir();
  vp_test::write_file(dir + "/p.s", ".core 0,0\n nop\n bad\n");
  try {
    vp::as::assemble_file_or_throw(dir + "/p.s");
    FAIL() << "no throw";
  } catch (const vp::as::AsmError& e) {
    EXPECT_EQ(e.diagnostics.size(), 1u);
    EXPECT_NE(std::string(e.what()).find("p.s:3:2: error: unknown instruction 'bad'"), std::string::npos) << e.what();
  }
  vp_test::write_file(dir + "/q.s", ".core 0,0\n nop\n");
  EXPECT_EQ(vp::as::assemble_file_or_throw(dir + "/q.s").texts.size(), 1u);
}

TEST(AsmErrorsCli, NonZeroExitAndNoOutputFile) {
  const std::string as = vp_test::bin_dir() + "/vp-as";
  if (!vp_test::file_exists(as)) GTEST_SKIP() << as << " not built";
  const std::string dir = vp_test::make_temp_dir();
  vp_test::write_file(dir + "/bad.s", ".core 0,0\n nop\n add r1, r2\n jmp nowhere\n");
  std::string out;
  EXPECT_EQ(vp_test::run(as + " " + dir + "/bad.s -o " + dir + "/bad.vpo", &out), 1);
  EXPECT_NE(out.find("bad.s:3:6: error: 'add' takes 3 operands"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.s:4:6: error: undefined name 'nowhere'"), std::string::npos) << out;
  EXPECT_FALSE(vp_test::file_exists(dir + "/bad.vpo"));
  std::string ls;
  vp_test::run("ls " + dir, &ls);
  EXPECT_EQ(ls, "bad.s\n");  // no temporary left either
}

}  // namespace
