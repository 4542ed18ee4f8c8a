// The RTL ISPP controller against the TLM write path: the same random row
// programs, on twin crossbars with twin device models (same seeds), give
// identical pulse counts, rounds, failed cells, programmed levels (bit for
// bit), energy and cycles. A difference names the first divergent cycle:
// the TLM's pulse counts fix which cells each round's pulse reaches and at
// which cycle (round r starts at (r-1) * (pulse + verify) cycles), and the
// RTL's pulse strobes are checked against that timeline.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/rtl/rtl_ispp_write_path.h"

namespace {

using namespace vp::hw;

struct Case {
  std::string name;
  int cols = 64;
  int cell_bits = 2;
  IsppConfig ispp;
  DeviceConfig device;
  NonIdealityConfig ni;
  int col_begin = 0;
  int n = -1;  // -1: to the end of the row
};

Case base(const std::string& name) {
  Case c;
  c.name = name;
  c.ispp.verify_ns = 200;  // the platform's defaults (param_table.cpp)
  c.ispp.tolerance_levels = 0.2;
  c.device.step_levels_mean = 0.25;
  c.device.start_sigma = 0.05;
  return c;
}

// gtest names a failing case by its name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back(base("platform_defaults"));
  { Case c = base("deterministic_steps_on_the_window_edge"); c.device.step_levels_sigma = 0;
    c.device.step_levels_mean = 0.2; c.device.start_sigma = 0; v.push_back(c); }
  // Levels land exactly on the window edge (0.25 steps, tolerance 0.25):
  // "inside" must include the edge, as in the TLM's <=.
  { Case c = base("exact_ties_on_the_window_edge"); c.device.step_levels_sigma = 0;
    c.device.step_levels_mean = 0.25; c.device.start_sigma = 0; c.ispp.tolerance_levels = 0.25; v.push_back(c); }
  { Case c = base("overshooting_steps_fail_at_the_cap"); c.device.step_levels_mean = 0.45;
    c.device.step_levels_sigma = 0; c.device.start_sigma = 0; c.ispp.tolerance_levels = 0.1; v.push_back(c); }
  { Case c = base("wide_spread_small_cap"); c.device.step_levels_sigma = 0.2; c.ispp.max_pulses = 7; v.push_back(c); }
  { Case c = base("keep_residual"); c.ispp.keep_residual = true; v.push_back(c); }
  { Case c = base("stuck_cells_and_program_noise"); c.ni.stuck_hrs_rate = 0.05; c.ni.stuck_lrs_rate = 0.03;
    c.ni.prog_noise_sigma = 0.05; v.push_back(c); }
  { Case c = base("three_bit_cells_short_phases"); c.cell_bits = 3; c.ispp.pulse_ns = 1; c.ispp.verify_ns = 2;
    c.ispp.tolerance_levels = 0.3; v.push_back(c); }
  { Case c = base("partial_range"); c.col_begin = 9; c.n = 31; v.push_back(c); }
  { Case c = base("full_256_cell_row"); c.cols = 256; v.push_back(c); }
  { Case c = base("slow_clock_rounding"); c.ispp.clock_mhz = 333; c.ispp.pulse_ns = 50; c.ispp.verify_ns = 70;
    v.push_back(c); }
  return v;
}

// First cycle at which the RTL's pulses differ from the TLM result's timeline.
std::string first_divergence(const IsppRowResult& tlm, const std::vector<rtl::IsppPulseEvent>& rtl,
                             std::uint64_t round_cycles) {
  for (int r = 1; r <= std::max<int>(tlm.iterations, static_cast<int>(rtl.size())); ++r) {
    const std::uint64_t at = static_cast<std::uint64_t>(r - 1) * round_cycles;
    std::vector<int> want;
    for (std::size_t i = 0; i < tlm.pulses.size(); ++i)
      if (tlm.pulses[i] >= r) want.push_back(static_cast<int>(i));
    const bool have = static_cast<std::size_t>(r) <= rtl.size();
    if (!have || rtl[static_cast<std::size_t>(r - 1)].cycle != at || rtl[static_cast<std::size_t>(r - 1)].cells != want) {
      std::ostringstream os;
      os << "first divergent cycle " << at << " (round " << r << "): TLM pulses " << want.size() << " cells, RTL "
         << (have ? std::to_string(rtl[static_cast<std::size_t>(r - 1)].cells.size()) + " cells at cycle " +
                        std::to_string(rtl[static_cast<std::size_t>(r - 1)].cycle)
                  : std::string("no pulse"));
      return os.str();
    }
  }
  return "pulse timelines agree; divergence after the last round (cycle " +
         std::to_string(static_cast<std::uint64_t>(tlm.iterations) * round_cycles) + ")";
}

class Ispp : public ::testing::TestWithParam<Case> {};

TEST_P(Ispp, SameLevelsPulsesAndCyclesAsTheTlmModel) {
  const Case& k = GetParam();
  const int rows = 12;
  auto make = [&] {
    auto xb = std::make_unique<Crossbar>(rows, k.cols, k.cell_bits);
    if (!k.ni.ideal()) xb->attach(std::make_shared<NonIdealityModel>(k.ni, 99));
    return xb;
  };
  auto xb_tlm = make();
  auto xb_rtl = make();
  DeviceModel dev_tlm(k.device, 5);
  DeviceModel dev_rtl(k.device, 5);
  dev_tlm.reset(*xb_tlm);
  dev_rtl.reset(*xb_rtl);
  IsppWritePath tlm(k.ispp);
  rtl::RtlIsppWritePath rtl(k.ispp);
  std::vector<rtl::IsppPulseEvent> log;
  rtl.record_pulses(&log);

  const int n = k.n < 0 ? k.cols - k.col_begin : k.n;
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> level(0, (1 << k.cell_bits) - 1);
  std::uint64_t failures = 0;
  // Every row twice: the second write starts from the first's levels.
  for (int pass = 0; pass < 2; ++pass) {
    for (int row = 0; row < rows; ++row) {
      std::vector<std::uint8_t> t(static_cast<std::size_t>(n));
      for (auto& e : t) e = static_cast<std::uint8_t>(level(rng));
      log.clear();
      const IsppRowResult a = tlm.program_row(*xb_tlm, row, k.col_begin, t.data(), n, dev_tlm);
      const IsppRowResult b = rtl.program_row(*xb_rtl, row, k.col_begin, t.data(), n, dev_rtl);
      const std::string where = k.name + " pass " + std::to_string(pass) + " row " + std::to_string(row) + ": " +
                                first_divergence(a, log, tlm.cycles_per_iteration());
      ASSERT_EQ(b.pulses, a.pulses) << where;
      ASSERT_EQ(b.iterations, a.iterations) << where;
      ASSERT_EQ(b.failed_cols, a.failed_cols) << where;
      ASSERT_EQ(b.cycles, a.cycles) << where;
      ASSERT_EQ(b.total_pulses, a.total_pulses) << where;
      ASSERT_EQ(b.verify_reads, a.verify_reads) << where;
      ASSERT_EQ(b.energy_pj, a.energy_pj) << where;
      ASSERT_EQ(b.time_ns, a.time_ns) << where;
      ASSERT_EQ(b.final_levels, a.final_levels) << where;  // float, bit for bit
      ASSERT_EQ(log.size(), static_cast<std::size_t>(a.iterations)) << where;
      failures += a.failed_cols.size();
    }
  }
  for (int row = 0; row < rows; ++row)
    for (int c = 0; c < k.cols; ++c) ASSERT_EQ(xb_rtl->level(row, c), xb_tlm->level(row, c)) << row << "," << c;
  // The cases that are meant to fail cells do.
  if (k.name.find("fail") != std::string::npos || k.name.find("stuck") != std::string::npos) {
    EXPECT_GT(failures, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, Ispp, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

TEST(IsppLimits, ConfigurationsBeyondTheRtlAreRefusedByName) {
  IsppConfig zero;
  zero.pulse_ns = 0;
  try {
    rtl::RtlIsppWritePath p(zero);
    FAIL() << "a 0-cycle pulse was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("ispp.pulse_ns"), std::string::npos);
  }
  rtl::RtlIsppWritePath p{IsppConfig{}};
  Crossbar xb(4, rtl::kIsppCells + 8, 2);
  DeviceModel dev(DeviceConfig{}, 1);
  std::vector<std::uint8_t> t(static_cast<std::size_t>(xb.cols()), 1);
  EXPECT_THROW(p.program_row(xb, 0, 0, t.data(), xb.cols(), dev), std::invalid_argument);
}

TEST(IsppFixedPoint, LevelsConvertExactlyWhereTheWindowEdgesAre) {
  // Above 1/16 a double level has no bits below 2^-56: the conversion is exact.
  EXPECT_EQ(rtl::level_to_fixed(1.0), std::uint64_t{1} << 56);
  EXPECT_EQ(rtl::level_to_fixed(0.2) * 5, (std::uint64_t{1} << 56) + 4);  // 0.2 is 0x3FC999999999999A
  EXPECT_EQ(rtl::level_to_fixed(255.0), std::uint64_t{255} << 56);
}

}  // namespace
