// Round trips: instruction text -> word -> text -> word; object -> source
// (vp-objdump --asm) -> object, byte-identical; the tools end to end.
#include <dirent.h>

#include <random>

#include "program_gen.h"
#include "test_util.h"

namespace {

using vp::obj::CoreId;

TEST(RoundTrip, EveryInstructionWithRandomOperands) {
  std::mt19937_64 rng(7);
  for (const auto& in : vp::isa::instructions()) {
    for (int rep = 0; rep < 50; ++rep) {
      vp::isa::Instruction inst;
      inst.opcode = in.opcode;
      for (size_t i = 0; i < in.fields.size(); ++i) {
        const auto& f = in.fields[i];
        inst.operand[i] = f.kind == vp::isa::FieldKind::Enum ? f.enums->values[rng() % f.enums->values.size()].value
                                                             : vp_test::random_operand(f, rng);
      }
      const uint64_t word = vp::isa::encode(inst);
      const std::string text = vp::isa::disassemble(*vp::isa::decode(word));
      auto r = vp::as::assemble_string(".core 0,0\n" + text + "\n", "one.s");
      ASSERT_TRUE(r.ok()) << text << "\n" << r.error_text();
      ASSERT_EQ(r.object.texts[0].words.size(), 1u);
      EXPECT_EQ(r.object.texts[0].words[0], word) << text;
    }
  }
}

TEST(RoundTrip, RandomSpellingsAssembleToDecodableWords) {
  std::mt19937_64 rng(11);
  for (const auto& in : vp::isa::instructions()) {
    for (int rep = 0; rep < 20; ++rep) {
      const std::string text = vp_test::random_instruction(in, rng, 0);
      auto r = vp::as::assemble_string(".core 0,0\n" + text + "\n", "one.s");
      ASSERT_TRUE(r.ok()) << text << "\n" << r.error_text();
      const uint64_t w = r.object.texts[0].words[0];
      auto d = vp::isa::decode(w);
      ASSERT_TRUE(d.has_value()) << text;
      EXPECT_EQ(vp::isa::encode(*d), w);
      // and the disassembly of that word assembles to the same word
      auto r2 = vp::as::assemble_string(".core 0,0\n" + vp::isa::disassemble(*d) + "\n", "two.s");
      ASSERT_TRUE(r2.ok()) << r2.error_text();
      EXPECT_EQ(r2.object.texts[0].words[0], w) << text;
    }
  }
}

TEST(RoundTrip, RandomProgramsAreByteIdenticalThroughObjdump) {
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const std::string src = vp_test::random_program(seed);
    auto r = vp::as::assemble_string(src, "rand.s");
    ASSERT_TRUE(r.ok()) << r.error_text() << src;
    const auto bytes = vp::obj::serialize_object(r.object);
    // Through the loader too: load -> source -> assemble -> bytes.
    const auto loaded = vp::obj::parse_object(bytes.data(), bytes.size(), "rand.vpo");
    const std::string regenerated = vp::as::to_source(loaded);
    auto r2 = vp::as::assemble_string(regenerated, "regen.s");
    ASSERT_TRUE(r2.ok()) << r2.error_text() << regenerated;
    EXPECT_EQ(vp::obj::serialize_object(r2.object), bytes) << "seed " << seed << "\n" << src << "\n---\n" << regenerated;
    EXPECT_EQ(vp::as::to_source(r.object), regenerated);
  }
}

std::vector<std::string> examples() {
  std::vector<std::string> out;
  const std::string dir = vp_test::source_dir() + "/examples";
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 2 && n.substr(n.size() - 2) == ".s") out.push_back(dir + "/" + n);
    }
    ::closedir(d);
  }
  return out;
}

TEST(RoundTrip, ExamplesAssembleAndRoundTrip) {
  const auto list = examples();
  ASSERT_GE(list.size(), 2u) << "examples/*.s missing";
  for (const auto& path : list) {
    auto r = vp::as::assemble_file(path);
    ASSERT_TRUE(r.ok()) << path << "\n" << r.error_text();
    EXPECT_FALSE(r.object.texts.empty()) << path;
    const auto bytes = vp::obj::serialize_object(r.object);
    auto r2 = vp::as::assemble_string(vp::as::to_source(r.object), "regen.s");
    ASSERT_TRUE(r2.ok()) << r2.error_text();
    EXPECT_EQ(vp::obj::serialize_object(r2.object), bytes) << path;
  }
}

TEST(RoundTripCli, AsObjdumpAsIsByteIdentical) {
  const std::string as = vp_test::bin_dir() + "/vp-as", od = vp_test::bin_dir() + "/vp-objdump";
  if (!vp_test::file_exists(as) || !vp_test::file_exists(od)) GTEST_SKIP() << "tools not built";
  const std::string dir = vp_test::make_temp_dir();
  for (uint64_t seed : {3u, 5u, 8u}) {
    vp_test::write_file(dir + "/p.s", vp_test::random_program(seed));
    std::string out;
    ASSERT_EQ(vp_test::run(as + " " + dir + "/p.s -o " + dir + "/p.vpo", &out), 0) << out;
    ASSERT_EQ(vp_test::run(od + " --asm " + dir + "/p.vpo > " + dir + "/q.s"), 0);
    ASSERT_EQ(vp_test::run(as + " " + dir + "/q.s -o " + dir + "/q.vpo", &out), 0) << out;
    EXPECT_EQ(vp_test::read_file(dir + "/p.vpo"), vp_test::read_file(dir + "/q.vpo"));
    // objdump also reads assembly directly.
    std::string a, b;
    ASSERT_EQ(vp_test::run(od + " -d -t -h --cells --meta " + dir + "/p.vpo", &a), 0);
    ASSERT_EQ(vp_test::run(od + " -d -t -h --cells --meta " + dir + "/p.s", &b), 0);
    EXPECT_EQ(a.substr(a.find("Sections")), b.substr(b.find("Sections")));
  }
}

TEST(RoundTripCli, ExamplesThroughTheTools) {
  const std::string as = vp_test::bin_dir() + "/vp-as", od = vp_test::bin_dir() + "/vp-objdump";
  if (!vp_test::file_exists(as)) GTEST_SKIP() << "tools not built";
  const std::string dir = vp_test::make_temp_dir();
  for (const auto& path : examples()) {
    std::string out;
    ASSERT_EQ(vp_test::run(as + " " + path + " -o " + dir + "/e.vpo", &out), 0) << out;
    ASSERT_EQ(vp_test::run(od + " -d --cells " + dir + "/e.vpo", &out), 0) << out;
    EXPECT_NE(out.find("Disassembly of"), std::string::npos);
    ASSERT_EQ(vp_test::run(od + " --asm " + dir + "/e.vpo > " + dir + "/e2.s"), 0);
    ASSERT_EQ(vp_test::run(as + " " + dir + "/e2.s -o " + dir + "/e2.vpo", &out), 0) << out;
    EXPECT_EQ(vp_test::read_file(dir + "/e.vpo"), vp_test::read_file(dir + "/e2.vpo")) << path;
  }
}

}  // namespace
