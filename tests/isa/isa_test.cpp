// The ISA table: every instruction encodes, decodes and disassembles back to
// itself; random valid words survive decode -> encode; invalid words are
// rejected; docs/isa.md is the generated reference.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "vp/isa/isa.h"

namespace {

using namespace vp::isa;

int64_t random_value(const Field& f, std::mt19937_64& rng) {
  if (f.kind == FieldKind::Enum) {
    const auto& v = f.enums->values;
    return v[rng() % v.size()].value;
  }
  const int64_t lo = f.min_value(), hi = f.max_value();
  switch (rng() % 4) {
    case 0: return lo;
    case 1: return hi;
    default: return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  }
}

// The value decode gives back: signed fields come back sign-extended.
int64_t canonical(const Field& f, int64_t v) {
  if (f.kind != FieldKind::SignedImm) return v;
  const uint64_t mask = (uint64_t{1} << f.width) - 1;
  uint64_t raw = static_cast<uint64_t>(v) & mask;
  if ((raw >> (f.width - 1)) & 1) raw |= ~mask;
  return static_cast<int64_t>(raw);
}

Instruction random_instruction(const InstrInfo& in, std::mt19937_64& rng) {
  Instruction inst;
  inst.opcode = in.opcode;
  for (size_t i = 0; i < in.fields.size(); ++i) inst.operand[i] = random_value(in.fields[i], rng);
  return inst;
}

TEST(IsaTable, HasEveryClass) {
  std::set<Unit> units;
  for (const auto& in : instructions()) units.insert(in.unit);
  EXPECT_EQ(units.size(), static_cast<size_t>(kUnitCount));
  EXPECT_GE(instructions().size(), 60u);
}

TEST(IsaTable, LookupsAgree) {
  for (const auto& in : instructions()) {
    EXPECT_EQ(find(in.mnemonic), &in) << in.mnemonic;
    EXPECT_EQ(find(in.opcode), &in) << in.mnemonic;
    EXPECT_FALSE(in.timing_param.empty()) << in.mnemonic;
    EXPECT_FALSE(in.semantics.empty()) << in.mnemonic;
    uint64_t used = uint64_t{0xff} << kOpcodeShift;
    for (const auto& f : in.fields) {
      const uint64_t m = ((uint64_t{1} << f.width) - 1) << f.shift;
      EXPECT_EQ(used & m, 0u) << in.mnemonic << " field " << f.name << " overlaps";
      used |= m;
      EXPECT_LE(f.min_value(), f.max_value());
    }
    EXPECT_EQ(used | in.reserved_mask, ~uint64_t{0}) << in.mnemonic;
    EXPECT_EQ(used & in.reserved_mask, 0u) << in.mnemonic;
  }
  EXPECT_EQ(find("no.such"), nullptr);
}

TEST(IsaCodec, EveryInstructionRoundTrips) {
  std::mt19937_64 rng(1);
  for (const auto& in : instructions()) {
    for (int rep = 0; rep < 200; ++rep) {
      Instruction inst = random_instruction(in, rng);
      const uint64_t w = encode(inst);
      EXPECT_EQ(w >> kOpcodeShift, static_cast<uint64_t>(in.opcode));
      std::string why;
      auto d = decode(w, &why);
      ASSERT_TRUE(d.has_value()) << in.mnemonic << ": " << why;
      EXPECT_EQ(d->opcode, in.opcode);
      for (size_t i = 0; i < in.fields.size(); ++i)
        EXPECT_EQ(d->operand[i], canonical(in.fields[i], inst.operand[i])) << in.mnemonic << " " << in.fields[i].name;
      EXPECT_EQ(encode(*d), w) << in.mnemonic;
      const std::string text = disassemble(*d);
      EXPECT_EQ(text.substr(0, in.mnemonic.size()), in.mnemonic);
      // The text names every operand: registers as rN, choices by name.
      for (size_t i = 0; i < in.fields.size(); ++i) {
        const Field& f = in.fields[i];
        if (is_register(f.kind)) {
          EXPECT_NE(text.find("r" + std::to_string(d->operand[i])), std::string::npos) << text;
        }
        if (f.kind == FieldKind::Enum) {
          EXPECT_NE(text.find(f.enums->by_value(static_cast<uint64_t>(d->operand[i]))->name), std::string::npos);
        }
      }
    }
  }
}

TEST(IsaCodec, LabelsInDisassembly) {
  Instruction inst;
  inst.opcode = Opcode::JMP;
  inst.operand[0] = 7;
  EXPECT_EQ(disassemble(inst), "jmp 7");
  EXPECT_EQ(disassemble(inst, [](uint32_t t) { return t == 7 ? std::string("there") : std::string(); }), "jmp there");
}

TEST(IsaCodec, EncodeRejectsOutOfRange) {
  for (const auto& in : instructions()) {
    for (size_t i = 0; i < in.fields.size(); ++i) {
      Instruction inst;
      inst.opcode = in.opcode;
      for (size_t k = 0; k < in.fields.size(); ++k) inst.operand[k] = in.fields[k].min_value();
      inst.operand[i] = in.fields[i].max_value() + 1;
      EXPECT_THROW(encode(inst), std::invalid_argument) << in.mnemonic << " " << in.fields[i].name;
      inst.operand[i] = in.fields[i].min_value() - 1;
      EXPECT_THROW(encode(inst), std::invalid_argument) << in.mnemonic << " " << in.fields[i].name;
    }
  }
}

TEST(IsaCodec, RandomWordsDecodeThenEncodeIdentity) {
  std::mt19937_64 rng(2);
  int valid = 0;
  for (int i = 0; i < 200000; ++i) {
    uint64_t w = rng();
    // Bias towards real opcodes and clean reserved bits so many words are valid.
    const auto& all = instructions();
    const InstrInfo& in = all[rng() % all.size()];
    if (i % 2) w = (w & ~(uint64_t{0xff} << kOpcodeShift)) | (uint64_t{static_cast<uint8_t>(in.opcode)} << kOpcodeShift);
    if (i % 4 == 1) w &= ~in.reserved_mask;
    auto d = decode(w);
    if (!d) continue;
    ++valid;
    EXPECT_EQ(encode(*d), w) << std::hex << w;
  }
  EXPECT_GT(valid, 20000);
}

TEST(IsaCodec, InvalidWordsRejected) {
  std::set<uint8_t> used;
  for (const auto& in : instructions()) used.insert(static_cast<uint8_t>(in.opcode));
  for (int code = 0; code < 256; ++code) {
    if (used.count(static_cast<uint8_t>(code))) continue;
    std::string why;
    EXPECT_FALSE(decode(uint64_t(code) << kOpcodeShift, &why).has_value()) << code;
    EXPECT_NE(why.find("unknown opcode"), std::string::npos);
  }
  for (const auto& in : instructions()) {
    if (in.reserved_mask) {
      const uint64_t w = (uint64_t{static_cast<uint8_t>(in.opcode)} << kOpcodeShift) | 1;
      std::string why;
      EXPECT_FALSE(decode(w, &why).has_value()) << in.mnemonic;
      EXPECT_NE(why.find("reserved"), std::string::npos) << why;
    }
    for (const auto& f : in.fields) {
      if (f.kind != FieldKind::Enum) continue;
      for (uint64_t raw = 0; raw < (uint64_t{1} << f.width); ++raw) {
        if (f.enums->by_value(raw)) continue;
        const uint64_t w = (uint64_t{static_cast<uint8_t>(in.opcode)} << kOpcodeShift) | (raw << f.shift);
        EXPECT_FALSE(decode(w).has_value()) << in.mnemonic << " " << f.name << "=" << raw;
      }
    }
  }
}

TEST(IsaDocs, ReferenceMarkdownIsCommitted) {
  const char* src = std::getenv("VP_SOURCE_DIR");
  const std::string path = std::string(src ? src : ".") + "/docs/isa.md";
  std::ifstream f(path);
  ASSERT_TRUE(f) << "cannot open " << path;
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(ss.str() == reference_markdown())
      << "docs/isa.md is stale: regenerate it with `build/bin/vp-isa --markdown > docs/isa.md`";
}

TEST(IsaDocs, VpIsaToolPrintsTheSameText) {
  const char* bin = std::getenv("VP_BIN_DIR");
  if (!bin) GTEST_SKIP() << "VP_BIN_DIR not set";
  const std::string exe = std::string(bin) + "/vp-isa";
  if (std::ifstream(exe).fail()) GTEST_SKIP() << exe << " not built";
  const std::string out = testing::TempDir() + "/isa_md_out.md";
  ASSERT_EQ(std::system((exe + " --markdown > " + out).c_str()), 0);
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), reference_markdown());
}

// A write that fails is an error: vp-isa used to exit 0 with its output
// lost (> /dev/full) and wrote the operand header in place, where a failed
// write left it cut short.
TEST(IsaDocs, VpIsaFailsWhenItsOutputCannotBeWritten) {
  const char* bin = std::getenv("VP_BIN_DIR");
  if (!bin) GTEST_SKIP() << "VP_BIN_DIR not set";
  const std::string exe = std::string(bin) + "/vp-isa";
  if (std::ifstream(exe).fail()) GTEST_SKIP() << exe << " not built";
  const std::string err = testing::TempDir() + "/isa_err.txt";
  const auto run = [&](const std::string& args) {
    const int st = std::system((exe + " " + args + " 2>" + err).c_str());
    std::ifstream f(err);
    std::stringstream ss;
    ss << f.rdbuf();
    return std::make_pair(WIFEXITED(st) ? WEXITSTATUS(st) : -1, ss.str());
  };
  if (std::ifstream("/dev/full").good()) {
    for (const char* args : {"--markdown >/dev/full", "--list >/dev/full"}) {
      const auto r = run(args);
      EXPECT_EQ(r.first, 1) << args;
      EXPECT_NE(r.second.find("cannot write to standard output"), std::string::npos) << r.second;
    }
  }
  const auto r = run("--operands-header " + testing::TempDir() + "/no/such/dir/operands.h");
  EXPECT_EQ(r.first, 1);
  EXPECT_NE(r.second.find("operands.h: cannot create output"), std::string::npos) << r.second;
  const std::string header = testing::TempDir() + "/operands.h";
  std::remove(header.c_str());
  EXPECT_EQ(run("--operands-header " + header).first, 0);
  std::ifstream f(header);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), operands_header());
}

}  // namespace
