// YAML and JSON configuration files: both spellings of keys, and errors
// that point at file:line and name the key.
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "vp/config/param_set.h"
#include "vp/config/report.h"

namespace vp::config {
namespace {

using test::expect_config_error;
using test::TempFile;
using Kind = ConfigError::Kind;

TEST(ConfigFiles, YamlNestedFlatAndMixed) {
  ParamSet p;
  p.apply_yaml(R"(
# comments are fine
xbar:
  rows: 128
  read_ns: 50
cu:
  scalar.alu_cycles: 2      # dotted key inside a map
  vector: {lanes: 16}
adc.mode: quantize
chip.name: "test chip"
xbar.pipelined: no
)",
               "inline.yaml");
  EXPECT_EQ(p.get_int("xbar.rows"), 128);
  EXPECT_DOUBLE_EQ(p.get_double("xbar.read_ns"), 50.0);
  EXPECT_EQ(p.get_int("cu.scalar.alu_cycles"), 2);
  EXPECT_EQ(p.get_int("cu.vector.lanes"), 16);
  EXPECT_EQ(p.get_string("adc.mode"), "quantize");
  EXPECT_EQ(p.get_string("chip.name"), "test chip");
  EXPECT_FALSE(p.get_bool("xbar.pipelined"));
  EXPECT_EQ(p.origin("xbar.rows"), "inline.yaml:4");
  EXPECT_EQ(p.origin("adc.mode"), "inline.yaml:9");
}

TEST(ConfigFiles, EmptyYamlChangesNothing) {
  ParamSet p;
  p.apply_yaml("", "empty.yaml");
  p.apply_yaml("# only a comment\n", "comment.yaml");
  EXPECT_EQ(p, ParamSet());
}

// A file named on purpose must be a configuration: a directory (which a
// stream opens and reads as nothing) or an empty file is refused by name.
TEST(ConfigFiles, DirectoryAndEmptyFilesAreErrorsNotNoChange) {
  TempFile f("empty.yaml", "");
  TempFile blank("blank.json", " \n\t\n");
  TempFile comment("comment.yaml", "# nothing\n");
  ParamSet p;
  expect_config_error([&] { p.apply_file(f.dir()); }, Kind::kFile, {f.dir(), "is a directory"});
  expect_config_error([&] { p.apply_file(f.path()); }, Kind::kFile, {"empty.yaml", "is empty"});
  expect_config_error([&] { p.apply_file(blank.path()); }, Kind::kFile, {"blank.json", "is empty"});
  expect_config_error([&] { p.apply_file(f.dir() + "/none.yaml"); }, Kind::kFile, {"none.yaml", "cannot open"});
  p.apply_file(comment.path());
  EXPECT_EQ(p, ParamSet());
}

TEST(ConfigFiles, GarbageAndWrongTypesNameFileLineAndKey) {
  ParamSet p;
  expect_config_error([&] { p.apply_yaml("xbar: {rows: [1, 2\n", "g.yaml"); }, Kind::kFile, {"g.yaml:"});
  expect_config_error([&] { p.apply_yaml("words\n", "w.yaml"); }, Kind::kFile, {"w.yaml:1", "expected a map"});
  expect_config_error([&] { p.apply_yaml("xbar:\n  rows: banana\n", "t.yaml"); }, Kind::kWrongType,
                      {"t.yaml:2", "xbar.rows", "expected int"});
  expect_config_error([&] { p.apply_json("[1, 2]", "a.json"); }, Kind::kFile, {"a.json", "expected an object"});
  expect_config_error([&] { p.apply_json("{\"xbar\": {\"rows\": 1e999}}", "big.json"); }, Kind::kFile,
                      {"big.json"});
}

// Found by config_fuzz: a chip.name that is not UTF-8 loaded, then made
// dump_yaml (and vp-run --dump-config / --stats) throw from the JSON
// serializer. It is refused where it is read, naming the key and byte.
TEST(ConfigFiles, StringParametersMustBeUtf8) {
  ParamSet p;
  expect_config_error([&] { p.apply_yaml("chip:\n  name: smal\xd4\xd4\xd4 al.\n", "n.yaml"); }, Kind::kWrongType,
                      {"n.yaml:2", "chip.name", "expected UTF-8 text, byte 4 (0xd4)"});
  expect_config_error([&] { p.apply_set("chip.name=a\xff"); }, Kind::kWrongType, {"--set", "chip.name", "0xff"});
  expect_config_error([&] { p.apply_set("chip.name=\xed\xa0\x80"); }, Kind::kWrongType, {"chip.name"});  // surrogate
  expect_config_error([&] { p.apply_set("chip.name=\xc0\xaf"); }, Kind::kWrongType, {"chip.name"});      // overlong
  p.apply_set("chip.name=caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
  ParamSet back;
  back.apply_yaml(dump_yaml(p), "dump.yaml");
  EXPECT_EQ(back.get_string("chip.name"), "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
}

TEST(ConfigFiles, JsonNestedAndFlat) {
  TempFile f("c.json", R"({
  "xbar": {"rows": 64, "signed_encoding": "differential"},
  "nonideal.read_noise_sigma": 0.05,
  "xbar.pipelined": false
})");
  ParamSet p;
  p.apply_file(f.path());
  EXPECT_EQ(p.get_int("xbar.rows"), 64);
  EXPECT_EQ(p.get_string("xbar.signed_encoding"), "differential");
  EXPECT_DOUBLE_EQ(p.get_double("nonideal.read_noise_sigma"), 0.05);
  EXPECT_FALSE(p.get_bool("xbar.pipelined"));
}

TEST(ConfigFiles, YamlFileByPathUsesItsName) {
  TempFile f("over.yml", "noc:\n  hop_cycles: 3\n");
  ParamSet p;
  p.apply_file(f.path());
  EXPECT_EQ(p.get_int("noc.hop_cycles"), 3);
  EXPECT_EQ(p.origin("noc.hop_cycles"), f.path() + ":2");
}

TEST(ConfigFiles, YamlErrorsCarryFileLineAndKey) {
  ParamSet p;
  expect_config_error([&] { p.apply_yaml("xbar:\n  rows: 128\n  rowz: 64\n", "a.yaml"); },
                      Kind::kUnknownKey, {"a.yaml:3", "xbar.rowz", "did you mean xbar.rows"});
  expect_config_error([&] { p.apply_yaml("xbarr:\n  rows: 64\n", "b.yaml"); }, Kind::kUnknownKey,
                      {"b.yaml:2", "xbarr.rows", "xbar.rows"});
  expect_config_error([&] { p.apply_yaml("\n\nxbar.rows: many\n", "c.yaml"); }, Kind::kWrongType,
                      {"c.yaml:3", "xbar.rows", "expected int"});
  expect_config_error([&] { p.apply_yaml("xbar: {rows: \"128\"}\n", "d.yaml"); }, Kind::kWrongType,
                      {"d.yaml:1", "xbar.rows", "quoted"});
  expect_config_error([&] { p.apply_yaml("xbar:\n  rows: 8192\n", "e.yaml"); },
                      Kind::kOutOfRange, {"e.yaml:2", "xbar.rows", "1..4096"});
  expect_config_error([&] { p.apply_yaml("adc:\n  mode: exact\n", "f.yaml"); }, Kind::kBadEnum,
                      {"f.yaml:2", "adc.mode", "ideal, quantize"});
  expect_config_error([&] { p.apply_yaml("xbar:\n  rows:\n", "g.yaml"); }, Kind::kMalformed,
                      {"g.yaml:2", "xbar.rows", "no value"});
  expect_config_error([&] { p.apply_yaml("xbar:\n  rows: [1, 2]\n", "h.yaml"); },
                      Kind::kWrongType, {"h.yaml:2", "xbar.rows", "a list"});
  expect_config_error([&] { p.apply_yaml("xbar:\n  rows: {a: 1}\n", "i.yaml"); },
                      Kind::kWrongType, {"i.yaml:2", "xbar.rows", "a map"});
  expect_config_error([&] { p.apply_yaml("xbar: 5\n", "j.yaml"); }, Kind::kUnknownKey,
                      {"j.yaml:1", "xbar", "group of parameters"});
  expect_config_error([&] { p.apply_yaml("- 1\n- 2\n", "k.yaml"); }, Kind::kFile,
                      {"k.yaml:1", "map of parameters"});
  expect_config_error([&] { p.apply_yaml("xbar: {rows: 1\n", "l.yaml"); }, Kind::kFile,
                      {"l.yaml:"});
  EXPECT_EQ(p, ParamSet()) << "a file that fails validation of a key changes nothing before it";
}

TEST(ConfigFiles, DuplicateKeyInOneFileNamesBothLines) {
  ParamSet p;
  expect_config_error([&] { p.apply_yaml("xbar:\n  rows: 128\nxbar.rows: 64\n", "dup.yaml"); },
                      Kind::kMalformed, {"dup.yaml:3", "xbar.rows", "dup.yaml:2"});
}

TEST(ConfigFiles, JsonErrorsNameTheKey) {
  ParamSet p;
  expect_config_error([&] { p.apply_json(R"({"xbar": {"rows": "128"}})", "a.json"); },
                      Kind::kWrongType, {"a.json", "xbar.rows", "quoted"});
  expect_config_error([&] { p.apply_json(R"({"xbar": {"colz": 1}})", "b.json"); },
                      Kind::kUnknownKey, {"b.json", "xbar.colz", "xbar.cols"});
  expect_config_error([&] { p.apply_json(R"({"xbar": {"rows": null}})", "c.json"); },
                      Kind::kMalformed, {"xbar.rows", "null"});
  expect_config_error([&] { p.apply_json(R"({"xbar": {"rows": [1]}})", "d.json"); },
                      Kind::kWrongType, {"xbar.rows", "an array"});
  expect_config_error([&] { p.apply_json(R"({"xbar.rows": 1.5})", "e.json"); }, Kind::kWrongType,
                      {"xbar.rows"});
  expect_config_error([&] { p.apply_json("{\n\"xbar\": {\n  \"rows\": 1,,\n}}", "f.json"); },
                      Kind::kFile, {"f.json:3"});
  expect_config_error([&] { p.apply_json("[1]", "g.json"); }, Kind::kFile, {"g.json", "object"});
}

TEST(ConfigFiles, MissingFile) {
  ParamSet p;
  expect_config_error([&] { p.apply_file("/nonexistent/dir/x.yaml"); }, Kind::kFile,
                      {"/nonexistent/dir/x.yaml", "cannot open"});
}

}  // namespace
}  // namespace vp::config
