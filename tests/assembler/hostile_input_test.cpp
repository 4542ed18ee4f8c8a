// Hostile input to vp-as, vp-objdump and the object loader: deep nesting,
// long .equ chains, literals that would wrap, outputs that cannot be
// written, empty and truncated objects. Each gets a named error and a
// non-zero exit, never a crash, and no output in place of a good one.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

#include "test_util.h"

namespace {

using vp::obj::CoreId;

std::string nest(const std::string& open, int depth, const std::string& inner, const std::string& close) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  s += inner;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

// The one error of a failed assembly.
const vp::as::Diagnostic& only_error(const vp::as::Result& r) {
  EXPECT_EQ(r.errors.size(), 1u) << r.error_text();
  return r.errors.at(0);
}

TEST(AsmHostile, DeepParenthesesAreANamedErrorNotACrash) {
  const auto r = vp_test::assemble(".core 0,0\nli r1, " + nest("(", 30000, "1", ")") + "\n");
  ASSERT_FALSE(r.ok());
  const auto& d = only_error(r);
  EXPECT_EQ(d.line, 2u);
  EXPECT_EQ(d.col, 8u + 256u + 1u);  // at the 257th '('
  EXPECT_NE(d.message.find("expression nested more than 256 levels deep"), std::string::npos) << d.message;
}

TEST(AsmHostile, NestingUpToTheLimitAssembles) {
  const auto o = vp_test::ok(".core 0,0\nli r1, " + nest("(", 256, "7", ")") + "\nli r2, " + nest("-", 256, "5", "") +
                 "\nli r3, " + nest("~", 255, "0", "") + "\n");
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 0, "imm"), 7);
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 1, "imm"), 5);   // an even number of minus signs
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 2, "imm"), -1);  // an odd number of '~'
  const auto r = vp_test::assemble(".core 0,0\nli r1, " + nest("(", 257, "7", ")") + "\n");
  EXPECT_FALSE(r.ok());
}

TEST(AsmHostile, DeepUnaryChainsAreANamedError) {
  for (const char* op : {"-", "~", "+"}) {
    const auto r = vp_test::assemble(".core 0,0\nli r1, " + nest(op, 30000, "1", "") + "\n");
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_NE(only_error(r).message.find("nested more than 256 levels"), std::string::npos) << op;
  }
}

TEST(AsmHostile, LongForwardEquChainResolves) {
  // a0 = a1 + 1, a1 = a2 + 1, ..., a50000 = 7: 50,000 forward references.
  const int n = 50000;
  std::string src = ".core 0,0\nli r1, a0\n";
  for (int i = 0; i < n; ++i) src += ".equ a" + std::to_string(i) + ", a" + std::to_string(i + 1) + " + 1\n";
  src += ".equ a" + std::to_string(n) + ", 7\n";
  const auto o = vp_test::ok(src);
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 0, "imm"), n + 7);
}

TEST(AsmHostile, LongChainInShuffledOrderResolves) {
  const int n = 20000;
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(17);
  std::shuffle(order.begin(), order.end(), rng);
  std::string src = ".core 0,0\nli r1, a0 - 20000\n";
  for (int i : order)
    src += i + 1 < n ? ".equ a" + std::to_string(i) + ", 1 + a" + std::to_string(i + 1) + "\n"
                     : ".equ a" + std::to_string(i) + ", 3\n";
  const auto o = vp_test::ok(src);
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 0, "imm"), n - 1 + 3 - 20000);
}

TEST(AsmHostile, ChainDefinedBeforeItsRootIsLinear) {
  // a1 = a0 + 1, a2 = a1 + 1, ..., then a0 last: every line extends a chain
  // that cannot be resolved yet. Resolving it on each line was quadratic
  // (over a minute for 50,000 lines); the fix-up pass resolves each once.
  const int n = 50000;
  std::string src = ".core 0,0\n";
  for (int i = 1; i < n; ++i) src += ".equ a" + std::to_string(i) + ", a" + std::to_string(i - 1) + " + 1\n";
  src += ".equ a0, 5\nli r1, a" + std::to_string(n - 1) + " - 49000\n";
  const auto t0 = std::chrono::steady_clock::now();
  const auto o = vp_test::ok(src);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 0, "imm"), 5 + (n - 1) - 49000);
  EXPECT_LT(s, 10.0) << "resolving the chain took " << s << " s";
}

TEST(AsmHostile, LongEquCycleIsReportedOnce) {
  const int n = 30000;
  std::string src;
  for (int i = 0; i < n; ++i) src += ".equ a" + std::to_string(i) + ", a" + std::to_string((i + 1) % n) + "\n";
  src += ".core 0,0\nli r1, a0\n";
  const auto r = vp_test::assemble(src);
  ASSERT_FALSE(r.ok());
  const auto& d = only_error(r);
  EXPECT_EQ(d.line, static_cast<uint32_t>(n));  // the definition that closes the cycle
  EXPECT_NE(d.message.find(".equ 'a0' is defined in terms of itself"), std::string::npos) << d.message;
}

TEST(AsmHostile, BrokenLinkInALongChainIsNamedWhereItIsWritten) {
  const int n = 10000;
  std::string src = ".core 0,0\nli r1, a0\n";
  for (int i = 0; i < n; ++i) src += ".equ a" + std::to_string(i) + ", a" + std::to_string(i + 1) + "\n";
  src += ".equ a" + std::to_string(n) + ", 1 / (nowhere - nowhere)\n";
  const auto r = vp_test::assemble(src);
  ASSERT_FALSE(r.ok());
  const auto& d = only_error(r);
  EXPECT_EQ(d.line, static_cast<uint32_t>(n + 3));
  EXPECT_NE(d.message.find("undefined name 'nowhere'"), std::string::npos) << d.message;
}

TEST(AsmHostile, NegatedLiteralBeyond64BitsIsAnError) {
  // -(2^64 - 1) used to wrap to 1 silently.
  const auto r = vp_test::assemble(".core 0,0\nli r1, -18446744073709551615\n");
  ASSERT_FALSE(r.ok());
  const auto& d = only_error(r);
  EXPECT_EQ(d.line, 2u);
  EXPECT_EQ(d.col, 8u);
  EXPECT_NE(d.message.find("-18446744073709551615 does not fit in 64 bits"), std::string::npos) << d.message;
  EXPECT_FALSE(vp_test::assemble(".core 0,0\nli r1, - 9223372036854775809\n").ok());
  EXPECT_FALSE(vp_test::assemble(".data global, 0\n.dword -0xFFFFFFFFFFFFFFFF\n").ok());
  EXPECT_FALSE(vp_test::assemble(".core 0,0\nli r1, 18446744073709551616\n").ok());  // 2^64
  // The most negative 64-bit value is a number; as an li immediate it is out of range.
  const auto o = vp_test::ok(".data global, 0\n.dword -9223372036854775808\n");
  const auto big = vp_test::assemble(".core 0,0\nli r1, -9223372036854775808\n");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(only_error(big).message.find("out of range"), std::string::npos) << big.error_text();
  EXPECT_EQ(vp_test::operand(vp_test::ok(".core 0,0\nli r1, -0x7fffffff - 1\n"), CoreId{0, 0}, 0, "imm"),
            -2147483648LL);
  (void)o;
}

TEST(AsmHostile, LiteralAboveTheSignedRangeIsAnErrorNotItsBitPattern) {
  // 2^64 - 1 used to become -1, which fits li's i32 and every data size.
  const auto r = vp_test::assemble(".core 0,0\nli r1, 18446744073709551615\n");
  ASSERT_FALSE(r.ok());
  const auto& d = only_error(r);
  EXPECT_EQ(d.line, 2u);
  EXPECT_EQ(d.col, 8u);
  EXPECT_NE(d.message.find("number '18446744073709551615' does not fit in 64 bits"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("-9223372036854775808..9223372036854775807"), std::string::npos) << d.message;
  const auto hex = vp_test::assemble(".core 0,0\nli r1, 0xFFFF_FFFF_FFFF_FFFF\n");
  ASSERT_FALSE(hex.ok());
  EXPECT_NE(only_error(hex).message.find("= 18446744073709551615 does not fit"), std::string::npos)
      << hex.error_text();
  for (const char* src : {".data global, 0\n.word 18446744073709551615\n", ".data global, 0\n.byte 0xFFFFFFFFFFFFFFFF\n",
                          ".data global, 0\n.dword 0x8000000000000000\n", ".equ big, 9223372036854775808\n",
                          ".core 0,0\nli r1, big\n.equ big, 18446744073709551615\n"}) {
    const auto e = vp_test::assemble(src);
    ASSERT_FALSE(e.ok()) << src;
    EXPECT_NE(only_error(e).message.find("does not fit in 64 bits"), std::string::npos) << e.error_text();
  }
  // The ends of the range are numbers.
  const auto o = vp_test::ok(".core 0,0\nhalt\n.data global, 0\n.dword 9223372036854775807, 0x7FFF_FFFF_FFFF_FFFF, -9223372036854775808\n");
  EXPECT_EQ(o.data.at(0).bytes.size, 24u);
}

TEST(AsmHostile, ArithmeticBeyondTheSignedRangeIsAnErrorNotAWrap) {
  // Each used to wrap modulo 2^64 to a value the field or directive accepts.
  const struct {
    const char* src;
    const char* op;  // the operator the error points at
  } cases[] = {
      {".core 0,0\nli r1, 0x4000000000000000 * 4 + 5\n", "*"},
      {".core 0,0\nli r1, 9223372036854775807 + 2\n", "+"},
      {".core 0,0\nli r1, -9223372036854775807 - 3 + 10\n", "-"},
      {".core 0,0\nli r1, (1 << 63) >> 63\n", "<<"},
      {".core 0,0\nli r1, (3 << 62) >> 62\n", "<<"},
      {".data global, 0\n.dword -9223372036854775808 / -1\n", "/"},
      {".core 0,0\nli r1, later * 4\n.equ later, 0x4000000000000001\n", "*"},  // in the fix-up pass
  };
  for (const auto& c : cases) {
    const auto r = vp_test::assemble(c.src);
    ASSERT_FALSE(r.ok()) << c.src;
    const auto& d = only_error(r);
    EXPECT_NE(d.message.find("outside the assembler's 64-bit signed arithmetic"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find(" " + std::string(c.op) + " "), std::string::npos) << d.message;
  }
  const auto neg = vp_test::assemble(".data global, 0\n.dword -(-9223372036854775807 - 1)\n");
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(only_error(neg).message.find("-(-9223372036854775808) is outside"), std::string::npos) << neg.error_text();
  // Results inside the range are exact, including its ends.
  const auto o = vp_test::ok(
      ".core 0,0\nli r1, 0x3FFFFFFFFFFFFFFF * 2 + 1 - 0x7FFFFFFFFFFFFFF0\nli r2, -1 << 31\n"
      "li r3, -9223372036854775808 % -1\nli r4, (-9223372036854775807 - 1) / 0x100000000\n");
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 0, "imm"), 15);
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 1, "imm"), -2147483648LL);
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 2, "imm"), 0);
  EXPECT_EQ(vp_test::operand(o, CoreId{0, 0}, 3, "imm"), -2147483648LL);
  vp_test::ok(".core 0,0\nhalt\n.data global, 0\n.dword -1 << 63, 9223372036854775807 * 1, -9223372036854775807 - 1\n");
}

TEST(AsmHostile, IncbinOfADirectoryOrDeviceIsNamed) {
  const std::string dir = vp_test::make_temp_dir();
  auto r = vp_test::assemble(".core 0,0\nhalt\n.data global, 0\n.incbin \"" + dir + "\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(only_error(r).message.find(dir + ": is a directory, expected a file"), std::string::npos) << r.error_text();
  EXPECT_EQ(only_error(r).message.find(".vpo"), std::string::npos) << r.error_text();  // not an object
  r = vp_test::assemble(".core 0,0\nhalt\n.data global, 0\n.incbin \"/dev/zero\"\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(only_error(r).message.find("/dev/zero: not a regular file"), std::string::npos) << r.error_text();
}

TEST(AsmHostile, MoreSectionsThanAnElfFileCanNumberIsNamed) {
  std::string src;
  for (int c = 0; c < 66000; ++c) src += ".core " + std::to_string(c) + ", 0\nhalt\n";
  const auto o = vp_test::ok(src);
  try {
    vp::obj::serialize_object(o);
    ADD_FAILURE() << "an object of 66,000 texts was written";
  } catch (const vp::obj::ObjectError& e) {
    EXPECT_NE(std::string(e.what()).find("sections, more than the 65,279 an ELF file can number"), std::string::npos)
        << e.what();
  }
}

// ---- the tools ----

struct Tools {
  std::string as = vp_test::bin_dir() + "/vp-as";
  std::string od = vp_test::bin_dir() + "/vp-objdump";
  std::string dir = vp_test::make_temp_dir();
  bool built() const { return vp_test::file_exists(as) && vp_test::file_exists(od); }
  std::string ls() const {
    std::string out;
    vp_test::run("ls -A " + dir, &out);
    return out;
  }
};

TEST(AsmHostileCli, UnwritableListingLeavesNoObject) {
  Tools t;
  if (!t.built()) GTEST_SKIP() << "tools not built";
  vp_test::write_file(t.dir + "/p.s", ".core 0,0\n li r1, 1\n");
  std::string out;
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo --listing=" + t.dir + "/no/such/dir/p.lst",
                         &out),
            1);
  EXPECT_NE(out.find("no/such/dir/p.lst: cannot create output"), std::string::npos) << out;
  EXPECT_EQ(t.ls(), "p.s\n");  // no object, no temporary
  // An object already there stays as it was.
  vp_test::write_file(t.dir + "/p.vpo", "old object");
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo --listing=" + t.dir, &out), 1);
  EXPECT_NE(out.find("is a directory"), std::string::npos) << out;
  EXPECT_EQ(vp_test::read_file(t.dir + "/p.vpo"), "old object");
  EXPECT_EQ(t.ls(), "p.s\np.vpo\n");
  // Both written when both can be.
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo --listing=" + t.dir + "/p.lst", &out), 0)
      << out;
  EXPECT_NE(vp_test::read_file(t.dir + "/p.lst").find("li r1, 1"), std::string::npos);
  EXPECT_NE(vp_test::read_file(t.dir + "/p.vpo"), "old object");
}

TEST(AsmHostileCli, ListingToAFullDeviceFails) {
  Tools t;
  if (!t.built() || !vp_test::file_exists("/dev/full")) GTEST_SKIP();
  vp_test::write_file(t.dir + "/p.s", ".core 0,0\n li r1, 1\n");
  std::string out;
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo --listing 2>&1 >/dev/full", &out), 1);
  EXPECT_NE(out.find("cannot write the listing to standard output"), std::string::npos) << out;
}

TEST(AsmHostileCli, OutputOverTheInputIsRefused) {
  Tools t;
  if (!t.built()) GTEST_SKIP();
  const std::string src = ".core 0,0\n li r1, 1\n";
  vp_test::write_file(t.dir + "/p.s", src);
  std::string out;
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.s", &out), 1);
  EXPECT_NE(out.find("refusing to write an output over the input"), std::string::npos) << out;
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo --listing=" + t.dir + "/p.s", &out), 1);
  EXPECT_EQ(vp_test::read_file(t.dir + "/p.s"), src);
  EXPECT_EQ(t.ls(), "p.s\n");
}

TEST(AsmHostileCli, NumericOptionsAreStrict) {
  Tools t;
  if (!t.built()) GTEST_SKIP();
  vp_test::write_file(t.dir + "/p.s", ".core 0,0\n li r1, X\n");
  const std::string base = t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo ";
  std::string out;
  EXPECT_EQ(vp_test::run(base + "--max-errors -1", &out), 2);
  EXPECT_NE(out.find("--max-errors: expected a whole number"), std::string::npos) << out;
  EXPECT_EQ(vp_test::run(base + "--max-errors 0", &out), 2);
  EXPECT_EQ(vp_test::run(base + "--max-errors 5x", &out), 2);
  EXPECT_EQ(vp_test::run(base + "-D X=99999999999999999999", &out), 2);
  EXPECT_NE(out.find("-D X: expected an integer"), std::string::npos) << out;
  EXPECT_EQ(vp_test::run(base + "-D X=-18446744073709551615", &out), 2);
  for (const char* bad : {"-D 1abc=5", "-D =5", "-D 'a b=3'", "-D X-1=2"}) {
    EXPECT_EQ(vp_test::run(base + bad, &out), 2) << bad;
    EXPECT_NE(out.find("is not a name"), std::string::npos) << bad << ": " << out;
  }
  EXPECT_EQ(t.ls(), "p.s\n");
  EXPECT_EQ(vp_test::run(base + "-D X=-5", &out), 0) << out;
}

TEST(AsmHostileCli, DeepInputExitsOneWithoutObject) {
  Tools t;
  if (!t.built()) GTEST_SKIP();
  vp_test::write_file(t.dir + "/p.s", ".core 0,0\nli r1, " + nest("(", 30000, "1", ")") + "\n");
  std::string out;
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo", &out), 1);
  EXPECT_NE(out.find("p.s:2:265: error: expression nested more than 256 levels deep"), std::string::npos)
      << out.substr(0, 300);
  EXPECT_EQ(t.ls(), "p.s\n");
}

// Each used to assemble to an object that vp-run ran as an empty program.
TEST(AsmHostileCli, SourceWithoutCodeExitsOneWithoutObject) {
  Tools t;
  if (!t.built()) GTEST_SKIP();
  std::string out;
  for (const char* src : {"", "\n\n", "# only a comment\n  ; and another\n", ".equ N, 4\nM = N * 2\n",
                          ".data global, 0\n.word 1, 2\n", ".chip clusters=2\n.layer 0, \"conv\"\n",
                          ".input \"x\", 0, 4, \"int8\", 4\n"}) {
    vp_test::write_file(t.dir + "/p.s", src);
    EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo", &out), 1) << src;
    EXPECT_NE(out.find(t.dir + "/p.s: error: no code: no instruction in any core and no crossbar cell program"),
              std::string::npos)
        << src << ": " << out;
    EXPECT_EQ(t.ls(), "p.s\n") << src;
  }
  vp_test::write_file(t.dir + "/p.s", ".core 0, 0\n.core 1, 0\n");
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo", &out), 1);
  EXPECT_NE(out.find("no code: the cores declared have no instructions"), std::string::npos) << out;
  // An error already reported is not followed by this one.
  vp_test::write_file(t.dir + "/p.s", ".equ N, 1 / 0\n");
  EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo", &out), 1);
  EXPECT_EQ(out.find("no code"), std::string::npos) << out;
  // One instruction anywhere, the control processor's too, is code; cell
  // programs alone are a model to deploy.
  for (const char* src : {".cp\nhalt\n", ".data global, 0\n.word 1\n.core 0, 1\nnop\n",
                          ".chip cell_bits=2\n.xbar 0, 0, 0, 0, 0, 1, 2\n.byte 1, 2\n"}) {
    vp_test::write_file(t.dir + "/p.s", src);
    EXPECT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo", &out), 0) << src << ": " << out;
  }
}

TEST(ObjdumpHostile, EmptyTruncatedAndDirectoryObjectsAreRejected) {
  Tools t;
  if (!t.built()) GTEST_SKIP();
  std::string out;
  vp_test::write_file(t.dir + "/empty.vpo", "");
  EXPECT_EQ(vp_test::run(t.od + " " + t.dir + "/empty.vpo", &out), 1);
  EXPECT_NE(out.find("empty.vpo: ELF header: empty file (0 bytes), expected a .vpo object"), std::string::npos) << out;
  vp_test::write_file(t.dir + "/p.s", ".core 0,0\n li r1, 1\n");
  ASSERT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo", &out), 0) << out;
  vp_test::write_file(t.dir + "/cut.vpo", vp_test::read_file(t.dir + "/p.vpo").substr(0, 40));
  EXPECT_EQ(vp_test::run(t.od + " " + t.dir + "/cut.vpo", &out), 1);
  EXPECT_NE(out.find("file too short (40 bytes"), std::string::npos) << out;
  vp_test::write_file(t.dir + "/text.vpo", "li r1, 1\n");  // a .vpo is never read as assembly
  EXPECT_EQ(vp_test::run(t.od + " " + t.dir + "/text.vpo", &out), 1);
  EXPECT_NE(out.find("bad magic"), std::string::npos) << out;
  EXPECT_EQ(vp_test::run(t.od + " " + t.dir, &out), 1);
  EXPECT_NE(out.find("is a directory"), std::string::npos) << out;
}

TEST(ObjdumpHostile, WriteErrorOnStdoutFails) {
  Tools t;
  if (!t.built() || !vp_test::file_exists("/dev/full")) GTEST_SKIP();
  vp_test::write_file(t.dir + "/p.s", ".core 0,0\n li r1, 1\n");
  std::string out;
  ASSERT_EQ(vp_test::run(t.as + " " + t.dir + "/p.s -o " + t.dir + "/p.vpo", &out), 0) << out;
  for (const char* opt : {"", "-d", "--asm", "--cells"}) {
    EXPECT_EQ(vp_test::run(t.od + " " + t.dir + "/p.vpo " + opt + " 2>&1 >/dev/full", &out), 1) << opt;
    EXPECT_NE(out.find("vp-objdump: cannot write to standard output"), std::string::npos) << opt << out;
  }
  EXPECT_EQ(vp_test::run(t.od + " " + t.dir + "/p.vpo -d >/dev/null", &out), 0);
}

TEST(ObjectLoaderHostile, EmptyBufferNamesTheReason) {
  try {
    vp::obj::parse_object(nullptr, 0, "x.vpo");
    FAIL() << "an empty object was accepted";
  } catch (const vp::obj::ObjectError& e) {
    EXPECT_NE(std::string(e.what()).find("x.vpo: ELF header: empty file (0 bytes)"), std::string::npos) << e.what();
  }
}

}  // namespace
