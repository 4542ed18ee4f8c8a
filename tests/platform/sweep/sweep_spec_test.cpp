// Sweep files: ranges and their values, grid and zip counts, stable point
// ids, recompilation keys, and every error naming its line.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "sweep_test_util.h"
#include "vp/sweep/plan.h"
#include "vp/sweep/sweep_error.h"
#include "vp/sweep/sweep_spec.h"

namespace {

using namespace vp::sweep;

class SweepSpecTest : public sweep_test::ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    write("prog.s", "halt\n");
    write("model.onnx", "not really onnx: only hashed here");
  }
  // `body` after a model line (an assembled program unless told) and the preset.
  SweepSpec parse(const std::string& body, const std::string& model = "prog.s") {
    return parse_sweep_text("model: " + model + "\npreset: small\n" + body, path("s.yaml"));
  }
  // The error's message, which must name s.yaml:line.
  std::string error_of(const std::string& body, const std::string& model = "prog.s") {
    try {
      parse(body, model);
    } catch (const SweepError& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(SweepSpecTest, ListsAndRangesExpandToTheirValues) {
  const SweepSpec s = parse(
      "parameters:\n"
      "  xbar.read_ns: {from: 25, to: 200, steps: 4, scale: log}\n"
      "  adc.bits: {from: 4, to: 8, step: 2}\n"
      "  noc.link_bits: {from: 16, to: 128, factor: 2}\n"
      "  xbar.sample_hold_ns: {from: 0.1, to: 0.5, step: 0.1}\n"
      "  adc.mode: [ideal, quantize]\n");
  ASSERT_EQ(s.axes.size(), 5u);
  EXPECT_EQ(s.axes[0].texts, (std::vector<std::string>{"25", "50", "100", "200"}));
  EXPECT_TRUE(s.axes[0].log_scale);
  EXPECT_EQ(s.axes[1].texts, (std::vector<std::string>{"4", "6", "8"}));
  EXPECT_EQ(s.axes[2].texts, (std::vector<std::string>{"16", "32", "64", "128"}));
  EXPECT_TRUE(s.axes[2].log_scale);
  EXPECT_EQ(s.axes[3].texts, (std::vector<std::string>{"0.1", "0.2", "0.3", "0.4", "0.5"}));
  EXPECT_EQ(s.axes[4].texts, (std::vector<std::string>{"ideal", "quantize"}));
  EXPECT_TRUE(s.axes[4].numeric.empty());
}

TEST_F(SweepSpecTest, GridMultipliesAndZipPairsTheValues) {
  const std::string axes = "parameters:\n  xbar.read_ns: [50, 100, 200]\n  adc.bits: [4, 6, 8]\nseeds: [1, 2]\n";
  const Plan grid = make_plan(parse(axes));
  EXPECT_EQ(grid.points.size(), 3u * 3u * 2u);
  const Plan zip = make_plan(parse(axes + "mode: zip\n"));
  ASSERT_EQ(zip.points.size(), 3u * 2u);
  EXPECT_EQ(zip.points[2].values, (std::vector<std::string>{"100", "6"}));
  // Grid order: the last parameter varies fastest, seeds innermost.
  EXPECT_EQ(grid.points[2].values, (std::vector<std::string>{"50", "6"}));
  EXPECT_EQ(grid.points[2].seed, 1u);
  EXPECT_EQ(make_plan(parse("seeds: {from: 7, count: 3}\n")).points.size(), 3u);
}

TEST_F(SweepSpecTest, PointIdsAreStableAndDistinct) {
  const std::string body = "parameters:\n  xbar.read_ns: [50, 100]\nseeds: [1, 2]\n";
  const Plan a = make_plan(parse(body)), b = make_plan(parse(body));
  std::set<std::string> ids;
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(a.points[i].id, b.points[i].id);
    ids.insert(a.points[i].id);
  }
  EXPECT_EQ(ids.size(), a.points.size());
  // The same point in a bigger sweep keeps its id (and so its results).
  const Plan c = make_plan(parse("parameters:\n  xbar.read_ns: [25, 50, 100]\nseeds: [1, 2]\n"));
  EXPECT_EQ(c.points[2].id, a.points[0].id);
  // Changing what the run sees changes the id.
  write("prog.s", "nop\nhalt\n");
  EXPECT_NE(make_plan(parse(body)).points[0].id, a.points[0].id);
}

TEST_F(SweepSpecTest, OnlyProgramAffectingParametersMakeNewCompiles) {
  const std::string head = "model: model.onnx\npreset: small\n";
  const SweepSpec timing = parse_sweep_text(head + "parameters:\n  xbar.read_ns: [50, 100, 200]\nseeds: [1, 2]\n", path("s.yaml"));
  EXPECT_EQ(make_plan(timing).programs.size(), 1u);
  const SweepSpec shape = parse_sweep_text(
      head + "parameters:\n  xbar.read_ns: [50, 100]\n  xbar.cell_bits: [1, 2]\n  cu.spad_kib: [16, 32]\n", path("s.yaml"));
  const Plan p = make_plan(shape);
  EXPECT_EQ(p.points.size(), 8u);
  EXPECT_EQ(p.programs.size(), 4u);
  EXPECT_EQ(p.points[0].program, p.points[4].program);  // differ only in xbar.read_ns
  EXPECT_NE(p.points[0].program, p.points[1].program);
  // Assembly is run as written: nothing to compile.
  EXPECT_TRUE(make_plan(parse("parameters:\n  xbar.cell_bits: [1, 2]\n")).programs.empty());
}

TEST_F(SweepSpecTest, InconsistentCombinationsAreMarkedInvalidNotRun) {
  const Plan p = make_plan(parse("parameters:\n  chip.clusters: [4, 6]\n  chip.mesh_cols: [2, 4]\n"));
  ASSERT_EQ(p.points.size(), 4u);
  EXPECT_TRUE(p.points[0].invalid.empty());   // 4 clusters, 2 columns
  EXPECT_FALSE(p.points[3].invalid.empty());  // 6 clusters, 4 columns
}

TEST_F(SweepSpecTest, UnknownParameterNamesTheLineAndASuggestion) {
  const std::string e = error_of("parameters:\n  xbar.read_n: [50]\n");
  EXPECT_NE(e.find("s.yaml:4"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean xbar.read_ns"), std::string::npos) << e;
}

TEST_F(SweepSpecTest, EmptyRangesAndListsNameTheLine) {
  for (const std::string& body :
       {std::string("parameters:\n  xbar.read_ns: {from: 100, to: 50, step: 10}\n"),
        std::string("parameters:\n  xbar.read_ns: []\n"),
        std::string("parameters:\n  xbar.read_ns: {from: 50, to: 100, steps: 0}\n")}) {
    const std::string e = error_of(body);
    EXPECT_NE(e.find("s.yaml:4"), std::string::npos) << e;
    EXPECT_NE(e.find("empty"), std::string::npos) << e;
  }
  EXPECT_NE(error_of("seeds: []\n").find("s.yaml:3: seeds: empty"), std::string::npos);
}

TEST_F(SweepSpecTest, BadMetricPathNamesTheLineAndTheRightPath) {
  const std::string e = error_of("metrics:\n  - run.cycles\n  - run.cycle\n");
  EXPECT_NE(e.find("s.yaml:5"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean run.cycles"), std::string::npos) << e;
  EXPECT_NE(error_of("metrics: [units.xbar.utilisation]\n").find("units.xbar.utilization"), std::string::npos);
  EXPECT_NE(error_of("metrics: [run.cycles]\npareto: {run.cycles: min, energy_pj.total: max}\n").find("s.yaml:4"),
            std::string::npos);
}

TEST_F(SweepSpecTest, WrongTypesNameTheLine) {
  EXPECT_NE(error_of("parameters:\n  xbar.rows: [64, big]\n").find("s.yaml:4"), std::string::npos);
  EXPECT_NE(error_of("parameters:\n  adc.bits: [4.5]\n").find("s.yaml:4"), std::string::npos);
  EXPECT_NE(error_of("parameters:\n  adc.mode: [exact]\n").find("s.yaml:4"), std::string::npos);
  EXPECT_NE(error_of("parameters:\n  adc.bits: [\"6\"]\n").find("s.yaml:4"), std::string::npos);
  EXPECT_NE(error_of("parameters:\n  adc.mode: {from: 1, to: 2, step: 1}\n").find("numeric"), std::string::npos);
  EXPECT_NE(error_of("seeds: [one]\n").find("s.yaml:3"), std::string::npos);
  EXPECT_NE(error_of("timeout_s: soon\n").find("s.yaml:3"), std::string::npos);
  EXPECT_NE(error_of("parameters:\n  xbar.rows: [0]\n").find("s.yaml:4"), std::string::npos);  // out of range
}

TEST_F(SweepSpecTest, StructuralMistakesNameTheLine) {
  EXPECT_NE(error_of("paramters:\n  xbar.rows: [64]\n").find("s.yaml:3: sweep file: unknown key 'paramters'"),
            std::string::npos);
  const std::string zip = error_of("mode: zip\nparameters:\n  xbar.read_ns: [1, 2]\n  adc.bits: [4, 6, 8]\n");
  EXPECT_NE(zip.find("s.yaml:6"), std::string::npos) << zip;
  EXPECT_NE(error_of("parameters:\n  xbar.read_ns: [50, 50]\n").find("twice"), std::string::npos);
  EXPECT_NE(error_of("parameters:\n  xbar.rows: {from: 60, to: 64, steps: 9}\n").find("whole numbers"),
            std::string::npos);
  EXPECT_NE(error_of("parameters:\n  device.seed: [1, 2]\n").find("seeds:"), std::string::npos);
  EXPECT_NE(error_of("set: {xbar.read_ns: 10}\nparameters:\n  xbar.read_ns: [1]\n").find("s.yaml:5"), std::string::npos);
  EXPECT_NE(error_of("outputs: [y.bin@16]\n").find("s.yaml:3"), std::string::npos);
  EXPECT_NE(error_of("outputs: [out/y.bin]\n").find("bare file name"), std::string::npos);
  EXPECT_NE(error_of("metrics:\n  - {golden: prog.s, output: y.bin}\n").find("not among 'outputs:'"), std::string::npos);
  EXPECT_NE(error_of("parameters: [1\n").find("s.yaml:"), std::string::npos);  // YAML syntax
  // A model vp-run cannot run is named with what is expected; a system of
  // chips (vp-cc --chips) is one it can.
  write("net.json", "{}");
  write("net.system.json", "{}");
  try {
    parse_sweep_text("model: net.json\n", path("s.yaml"));
    ADD_FAILURE() << "a .json model was accepted";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".system.json (a system of chips)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_sweep_text("model: net.system.json\n", path("s.yaml")).models.size(), 1u);
  try {
    parse_sweep_text("preset: small\n", path("s.yaml"));
    ADD_FAILURE() << "a sweep without a model was accepted";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("no model"), std::string::npos);
  }
}

// Every number in inputs: and outputs: is read when the file is, strictly,
// with the line and the entry named.
TEST_F(SweepSpecTest, InputAndOutputAddressesAndSizesAreChecked) {
  write("x.bin", "12345678");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"outputs: [y.bin@0x1000:abc]\n", "bytes"},
      {"outputs: [y.bin@zz:80]\n", "address"},
      {"outputs: [y.bin@-5:80]\n", "address"},
      {"outputs: [y.bin@0x1000:-80]\n", "bytes"},
      {"outputs: [y.bin@0x1000:0]\n", "positive multiple"},
      {"outputs: [y.bin@0x1000:6:int32]\n", "multiple of 4"},
      {"outputs: [y.bin@0x1000:80:float64]\n", "dtype"},
      {"outputs: [\"@0x1000:80\"]\n", "no file name"},
      {"inputs: [x.bin@0x10g]\n", "input 'x.bin@0x10g' address"},
      {"inputs: [x.bin@]\n", "address"},
  };
  for (const auto& [body, part] : cases) {
    const std::string e = error_of(body);
    EXPECT_NE(e.find("s.yaml:3"), std::string::npos) << body << " -> " << e;
    EXPECT_NE(e.find(part), std::string::npos) << body << " -> " << e;
  }
  EXPECT_EQ(error_of("inputs: [x.bin@0x10]\noutputs: [y.bin@0x1000:80:int32, z.bin@4096:3, w.bin]\n"), "no error");
}

// A bare output with a dtype (vp-run's FILE:DTYPE, the binding's codes) is
// the file FILE: golden metrics name it so and find it in the point's folder,
// and vp-run still gets the suffix.
TEST_F(SweepSpecTest, BareOutputsWithADtypeAreTheirFile) {
  const SweepSpec s =
      parse("outputs: [y.npy:int8, z.npy:int16, w.npy]\nmetrics:\n  - {golden: prog.s, output: y.npy}\n");
  ASSERT_EQ(s.outputs.size(), 3u);
  EXPECT_EQ(s.outputs[0].file, "y.npy");
  EXPECT_EQ(s.outputs[0].spec, ":int8");
  EXPECT_EQ(s.outputs[1].dtype, "int16");
  EXPECT_EQ(s.outputs[2].file, "w.npy");
  EXPECT_EQ(s.outputs[2].spec, "");
  EXPECT_NE(error_of("outputs: [y.npy:int8]\nmetrics:\n  - {golden: prog.s, output: y.npy:int8}\n").find(
                "not among 'outputs:'"),
            std::string::npos);
}

// An accuracy metric classifies an output's rows against a labels file;
// `batch:` passes vp-run --batch.
TEST_F(SweepSpecTest, AccuracyMetricAndBatchAreChecked) {
  write("labels.npy", "labels");
  const SweepSpec s = parse("outputs: [y.npy:int8]\nbatch: 359\nmetrics:\n  - {labels: labels.npy, output: y.npy}\n");
  ASSERT_EQ(s.metrics.size(), 1u);
  EXPECT_EQ(s.metrics[0].kind, MetricDef::Kind::kAccuracy);
  EXPECT_EQ(s.metrics[0].name, "y.npy.accuracy");
  EXPECT_EQ(s.metrics[0].labels, path("labels.npy"));
  EXPECT_EQ(s.batch, 359u);
  EXPECT_NE(error_of("outputs: [y.npy]\nmetrics:\n  - {labels: nothing.npy, output: y.npy}\n").find("s.yaml:5: labels file"),
            std::string::npos);
  EXPECT_NE(error_of("outputs: [y.npy]\nmetrics:\n  - {labels: labels.npy, output: z.npy}\n").find(
                "not among 'outputs:'"),
            std::string::npos);
  EXPECT_NE(error_of("outputs: [y.npy]\nmetrics:\n  - {labels: labels.npy}\n").find("output: FILE"),
            std::string::npos);
  EXPECT_NE(error_of("outputs: [y.npy]\nmetrics:\n  - {labels: labels.npy, golden: prog.s, output: y.npy}\n")
                .find("one of 'path', 'golden' or 'labels'"),
            std::string::npos);
  EXPECT_NE(error_of("batch: 0\n").find("s.yaml:3: batch must be from 1 to 1000000"), std::string::npos)
      << error_of("batch: 0\n");
}

// compiler.adc_ranges: the calibration inputs exist, the headroom is at
// least 1, and only an ONNX model (which vp-cc compiles again) takes it.
TEST_F(SweepSpecTest, AdcRangeCalibrationIsChecked) {
  write("c0.npy", "calibration");
  const SweepSpec s = parse("compiler:\n  adc_ranges: {inputs: [c0.npy, c0.npy@0x100], headroom: 1.5}\n", "model.onnx");
  ASSERT_EQ(s.adc_calib_inputs.size(), 2u);
  EXPECT_EQ(s.adc_calib_inputs[0], path("c0.npy"));
  EXPECT_EQ(s.adc_calib_inputs[1], path("c0.npy") + "@0x100");
  EXPECT_EQ(s.adc_headroom, 1.5);
  EXPECT_TRUE(parse("", "model.onnx").adc_calib_inputs.empty());
  EXPECT_NE(error_of("compiler:\n  adc_ranges: {inputs: [missing.npy]}\n", "model.onnx").find("s.yaml:4"), std::string::npos);
  EXPECT_NE(error_of("compiler:\n  adc_ranges: {inputs: [c0.npy], headroom: 0.5}\n", "model.onnx").find("from 1 to 1e6"),
            std::string::npos);
  EXPECT_NE(error_of("compiler:\n  adc_ranges: {headroom: 2}\n", "model.onnx").find("no inputs"), std::string::npos);
  EXPECT_NE(error_of("compiler:\n  adc_ranges: {inputs: []}\n", "model.onnx").find("inputs"), std::string::npos);
  EXPECT_NE(error_of("compiler:\n  adc_ranges: {inputs: [c0.npy], bits: 8}\n", "model.onnx").find("bits"), std::string::npos);
  EXPECT_NE(error_of("compiler:\n  adc_ranges: [c0.npy]\n", "model.onnx").find("s.yaml:4"), std::string::npos);
  EXPECT_NE(error_of("compiler:\n  adc_ranges: {inputs: [c0.npy@zz]}\n", "model.onnx").find("address"), std::string::npos);
  EXPECT_NE(error_of("compiler:\n  adc_ranges: {inputs: [c0.npy]}\n").find("is not ONNX"), std::string::npos);
}

// A sweep is planned in memory: a range of seeds or a grid too large to
// hold is refused when the file is read, not after minutes of expansion.
TEST_F(SweepSpecTest, SweepSizeIsBounded) {
  EXPECT_NE(error_of("seeds: {from: 1, count: 1000000000000}\n").find("s.yaml:3"), std::string::npos);
  EXPECT_NE(error_of("seeds: {from: 18446744073709551615, count: 2}\n").find("beyond"), std::string::npos);
  const std::string grid = error_of(
      "parameters:\n  xbar.read_ns: {from: 1, to: 2000, step: 1}\n  device.start_sigma: {from: 0, to: 1, "
      "steps: 600}\n");  // 1,200,000 points from 2,600 values
  EXPECT_NE(grid.find("more than 1000000 points"), std::string::npos) << grid;
  // A large sweep under the cap is read (10,000 points: the cap itself,
  // 1,000,000, takes minutes to expand under the sanitizers).
  EXPECT_EQ(error_of("seeds: {from: 1, count: 100}\nparameters:\n  xbar.read_ns: {from: 1, to: 100, step: 1}\n"),
            "no error");
}

// Duplicate values were found by scanning every earlier value of the axis
// (or seed, model, output): 100,000 values took 8 s to read. Checked as a
// ratio against 5,000 values read the same way, so a slow or loaded machine
// does not fail it: linear is about 20x, quadratic 400x.
TEST_F(SweepSpecTest, LongAxesAndSeedListsAreReadInLinearTime) {
  const auto list = [](int n) {
    std::string s = "[";
    for (int i = 1; i <= n; ++i) s += (i > 1 ? ", " : "") + std::to_string(i);
    return s + "]";
  };
  const auto seconds = [&](const std::string& body) {
    std::vector<double> t;
    for (int run = 0; run < 3; ++run) {
      const auto t0 = std::chrono::steady_clock::now();
      parse(body);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[1];
  };
  for (const auto& form : {std::string("parameters:\n  xbar.read_ns: "), std::string("seeds: ")}) {
    const double small = seconds(form + list(5000) + "\n");
    const double large = seconds(form + list(100000) + "\n");
    EXPECT_LT(large, 100 * small + 0.2) << form << ": 5,000 values " << small << " s, 100,000 values " << large << " s";
  }
  const double small = seconds("parameters:\n  xbar.read_ns: {from: 1, to: 5000, steps: 5000}\n");
  const double large = seconds("parameters:\n  xbar.read_ns: {from: 1, to: 100000, steps: 100000}\n");
  EXPECT_LT(large, 100 * small + 0.2) << "ranges: 5,000 values " << small << " s, 100,000 values " << large << " s";
  // Still every value, in order, and a repeat found wherever it is.
  const SweepSpec s = parse("parameters:\n  xbar.read_ns: " + list(100000) + "\n");
  ASSERT_EQ(s.axes.at(0).texts.size(), 100000u);
  EXPECT_EQ(s.axes[0].texts.back(), "100000");
  std::string twice = list(100000);
  twice.insert(twice.size() - 1, ", 1");
  EXPECT_NE(error_of("parameters:\n  xbar.read_ns: " + twice + "\n").find("value 1 appears twice"), std::string::npos);
  EXPECT_NE(error_of("seeds: " + twice + "\n").find("seed 1 listed twice"), std::string::npos);
}

// The sweep file is read whole: /dev/zero used to end in std::bad_alloc
// after eating memory, a directory read as an empty file.
TEST_F(SweepSpecTest, OnlyARegularFileIsReadAsASweepFile) {
  const auto error_reading = [](const std::string& p) -> std::string {
    try {
      parse_sweep_file(p);
    } catch (const SweepError& e) {
      return e.what();
    }
    return "no error";
  };
  if (std::filesystem::exists("/dev/zero")) {
    EXPECT_EQ(error_reading("/dev/zero"), "/dev/zero: is a device, expected a sweep file (YAML)");
  }
  std::filesystem::create_directories(path("d.yaml"));
  EXPECT_EQ(error_reading(path("d.yaml")), path("d.yaml") + ": is a directory, expected a sweep file (YAML)");
  EXPECT_EQ(error_reading(path("none.yaml")), path("none.yaml") + ": cannot open the sweep file");
  write("ok.yaml", "model: prog.s\npreset: small\n");
  EXPECT_EQ(error_reading(path("ok.yaml")), "no error");
}

// Found by sweep_parser_fuzz: a scalar where a map belongs (compiler: a)
// ended in yaml-cpp's BadSubscript instead of an error naming the line.
TEST_F(SweepSpecTest, ScalarOrListWhereAMapBelongsNamesTheLine) {
  for (const std::string body : {"compiler: a\n", "compiler: [args]\n", "seeds: {from: 1, count: 2}\ncompiler:\n  - x\n",
                                 "plots:\n  - just-a-name\n"}) {
    const std::string e = error_of(body);
    EXPECT_NE(e.find("s.yaml:"), std::string::npos) << body << " -> " << e;
    EXPECT_EQ(e.find("yaml-cpp"), std::string::npos) << body << " -> " << e;
    EXPECT_NE(e, "no error") << body;
  }
  EXPECT_NE(error_of("compiler: a\n").find("compiler: expected a map"), std::string::npos);
}

// Found by sweep_parser_fuzz: a preset path longer than the file system
// allows ended in std::filesystem's exception instead of the line.
TEST_F(SweepSpecTest, OverlongPresetOrConfigPathNamesTheLine) {
  const std::string longname(5000, 'p');
  try {
    parse_sweep_text("model: prog.s\npreset: " + longname + ".yaml\n", path("s.yaml"));
    ADD_FAILURE() << "accepted";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("s.yaml:2"), std::string::npos) << e.what();
  }
  const std::string e = error_of("config: [" + longname + ".yaml]\n");
  EXPECT_NE(e.find("s.yaml:3"), std::string::npos) << e;
}

}  // namespace
