// Pareto fronts on known sets, CSV quoting, golden comparisons and .npy
// reading: the parts of the results that need no simulation.
#include <gtest/gtest.h>

#include "sweep_test_util.h"
#include "vp/sweep/metrics.h"
#include "vp/sweep/pareto.h"
#include "vp/sweep/results.h"
#include "vp/sweep/slurm.h"
#include "vp/sweep/stats_catalog.h"

namespace {

using namespace vp::sweep;
using P = std::optional<std::pair<double, double>>;

std::vector<int> front_of(const std::vector<P>& pts, Goal gx, Goal gy) {
  std::vector<int> out;
  const auto f = pareto_front(pts, gx, gy);
  for (std::size_t i = 0; i < f.size(); ++i)
    if (f[i]) out.push_back(static_cast<int>(i));
  return out;
}

TEST(Pareto, MinimiseBothOnAKnownSet) {
  //   0:(1,9) 1:(2,4) 2:(3,5) 3:(4,1) 4:(5,1) 5:(2,4) 6:none 7:(3,3)
  const std::vector<P> pts = {P{{1, 9}}, P{{2, 4}}, P{{3, 5}}, P{{4, 1}}, P{{5, 1}}, P{{2, 4}}, std::nullopt, P{{3, 3}}};
  // 2 is dominated by 1, 4 by 3 (same y, larger x); equal points 1 and 5 both stay.
  EXPECT_EQ(front_of(pts, Goal::kMin, Goal::kMin), (std::vector<int>{0, 1, 3, 5, 7}));
}

TEST(Pareto, GoalsFlipTheFront) {
  const std::vector<P> pts = {P{{1, 1}}, P{{2, 3}}, P{{3, 2}}, P{{4, 4}}};
  EXPECT_EQ(front_of(pts, Goal::kMax, Goal::kMax), (std::vector<int>{3}));
  EXPECT_EQ(front_of(pts, Goal::kMin, Goal::kMin), (std::vector<int>{0}));
  EXPECT_EQ(front_of(pts, Goal::kMin, Goal::kMax), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(front_of(pts, Goal::kMax, Goal::kMin), (std::vector<int>{0, 2, 3}));
}

TEST(Pareto, BruteForceAgreesOnPseudoRandomSets) {
  std::uint32_t s = 12345;
  auto next = [&] { return (s = s * 1103515245u + 12345u) >> 16 & 15; };
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<P> pts;
    for (int i = 0; i < 30; ++i) pts.push_back(P{{double(next()), double(next())}});
    const auto f = pareto_front(pts, Goal::kMin, Goal::kMax);
    for (std::size_t i = 0; i < pts.size(); ++i) {
      bool dominated = false;
      for (std::size_t j = 0; j < pts.size(); ++j) {
        const auto& a = *pts[j];
        const auto& b = *pts[i];
        dominated |= a.first <= b.first && a.second >= b.second && (a.first < b.first || a.second > b.second);
      }
      EXPECT_EQ(f[i], !dominated) << "trial " << trial << " point " << i;
    }
  }
}

TEST(ResultsCsv, FieldsWithSeparatorsAreQuoted) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(Slurm, ArrayRangesCompressRuns) {
  EXPECT_EQ(array_ranges({0, 1, 2, 3, 7, 9, 10}), "0-3,7,9-10");
  EXPECT_EQ(array_ranges({5}), "5");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

class GoldenTest : public sweep_test::ScratchTest {};

TEST_F(GoldenTest, ExactFractionAndMaxErrorOverRawAndNpy) {
  const std::int32_t want[4] = {10, -20, 30, 40};
  const std::int32_t got[4] = {10, -20, 33, 40};
  write("want.bin", std::string(reinterpret_cast<const char*>(want), sizeof want));
  // .npy v1 with a padded header, as vp-run writes it.
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string npy = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
  npy.append(reinterpret_cast<const char*>(got), sizeof got);
  write("got.npy", npy);
  const auto g = read_numbers(path("got.npy"), "int8");  // the header wins over the raw type
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[1], -20);
  const auto w = read_numbers(path("want.bin"), "int32");
  EXPECT_DOUBLE_EQ(compare_tensors(g, w, MetricDef::Measure::kExactFraction).get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(compare_tensors(g, w, MetricDef::Measure::kMaxAbsError).get<double>(), 3.0);
  EXPECT_TRUE(compare_tensors(g, {1, 2}, MetricDef::Measure::kExactFraction).is_null());
}

// Rows of scores against labels: the first of equal largest values is the
// class, as numpy's argmax; sizes that do not divide are no figure.
TEST(Accuracy, TopOneOfEachRowAgainstItsLabel) {
  const std::vector<double> scores = {1, 5, 2,   // class 1
                                      7, 7, 0,   // tie: class 0
                                      -3, -1, -2,  // class 1
                                      0, 0, 9};  // class 2
  EXPECT_DOUBLE_EQ(top1_accuracy(scores, {1, 0, 1, 2}).get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(top1_accuracy(scores, {1, 1, 0, 2}).get<double>(), 0.5);
  EXPECT_TRUE(top1_accuracy(scores, {1, 0, 1, 2, 0}).is_null());
  EXPECT_TRUE(top1_accuracy(scores, {}).is_null());
}

}  // namespace

namespace {

// docs/vp-sweep.md names every collectable statistic (units.<unit>.* once).
TEST(SweepDocs, ListEveryCollectableStatistic) {
  const std::string doc = sweep_test::slurp(sweep_test::env_or("VP_SOURCE_DIR", ".") + std::string("/docs/vp-sweep.md"));
  ASSERT_FALSE(doc.empty());
  for (const auto& s : vp::sweep::stat_catalog()) {
    std::string path = s.path;
    if (path.rfind("units.", 0) == 0) path = "units.<unit>." + path.substr(path.rfind('.') + 1);
    EXPECT_NE(doc.find("`" + path + "`"), std::string::npos) << path << " is not in docs/vp-sweep.md";
  }
  for (const auto& d : vp::sweep::derived_metric_names()) EXPECT_NE(doc.find("`" + d + "`"), std::string::npos) << d;
}

}  // namespace

namespace {

// Derived figures: per program run from the firmware's timing when it has
// one (deployment excluded), else from the whole run.
TEST(DerivedMetrics, InferencesPerSecondAndEnergyPerInference) {
  vp::sweep::SweepSpec spec;
  spec.inferences_per_run = 2;
  vp::sweep::MetricDef ips, epi, util;
  ips.kind = vp::sweep::MetricDef::Kind::kInferencesPerS;
  epi.kind = vp::sweep::MetricDef::Kind::kEnergyPerInference;
  util.path = "units.vector.utilization";
  util.zero_when_absent = true;
  nlohmann::json plain = {{"run", {{"cycles", 4000}, {"clock_mhz", 1000.0}}},
                          {"energy_pj", {{"total", 800.0}}},
                          {"units", {{"xbar", {{"utilization", 0.5}}}}}};
  EXPECT_DOUBLE_EQ(vp::sweep::evaluate_metric(spec, ips, plain, "").get<double>(), 1e9 / 4000 * 2);
  EXPECT_DOUBLE_EQ(vp::sweep::evaluate_metric(spec, epi, plain, "").get<double>(), 400.0);
  EXPECT_EQ(vp::sweep::evaluate_metric(spec, util, plain, "").get<double>(), 0.0);  // the unit never ran
  nlohmann::json fw = plain;
  fw["firmware"] = {{"inference_cycles_mean", 1000.0}, {"inferences", 4}};
  EXPECT_DOUBLE_EQ(vp::sweep::evaluate_metric(spec, ips, fw, "").get<double>(), 1e9 / 1000 * 2);
  EXPECT_DOUBLE_EQ(vp::sweep::evaluate_metric(spec, epi, fw, "").get<double>(), 100.0);
  EXPECT_TRUE(vp::sweep::evaluate_metric(spec, ips, nullptr, "").is_null());
}

}  // namespace
