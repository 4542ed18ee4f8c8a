// The chip's crossbar bank as a processor reaches it (CrossbarBankIf): an
// MVM equals the integer product of the programmed weights in ideal mode and
// takes the pipelined MVM latency; a row programmed through the ISPP write
// path takes rounds x (pulse + verify) and reports its pulses and rounds;
// readback returns the levels after xbar.readback_ns_per_row; a crossbar,
// row or level the chip does not have is a fault, not an exception.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <memory>
#include <random>
#include <vector>

#include "vp/hw/chip/crossbar_bank.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace vp::hw {
namespace {

// Two CUs of two 16 x 16 crossbars (2-bit cells, offset slices: 4 weights a
// row), a deterministic device of 0.25 levels per pulse.
ChipConfig small() {
  ChipConfig c;
  c.clusters = 1;
  c.mesh_cols = 1;
  c.cus_per_cluster = 2;
  c.xbars_per_cu = 2;
  c.xbar.rows = 16;
  c.xbar.cols = 16;
  c.device.step_levels_mean = 0.25;
  c.device.step_levels_sigma = 0.0;
  c.device.start_sigma = 0.0;
  c.ispp.tolerance_levels = 0.1;
  c.ispp.pulse_ns = 60;
  c.ispp.verify_ns = 40;
  c.readback_ns_per_row = 150;
  c.clock_mhz = 1000;
  c.ispp.clock_mhz = 1000;
  return c;
}

TEST(CrossbarBank, MvmOfProgrammedRowsIsTheIntegerProduct) {
  const ChipConfig cfg = small();
  CrossbarBank bank(cfg);
  CrossbarBankIf& port = bank;
  const WeightEncoding enc(cfg.xbar);
  const int rows = cfg.xbar.rows, lcols = enc.logical_cols(cfg.xbar.cols);
  ASSERT_EQ(bank.count(), 4u);
  ASSERT_EQ(lcols, 4);

  std::mt19937 rng(7);
  std::uniform_int_distribution<int> w8(enc.min_weight(), enc.max_weight()), x8(-128, 127);
  std::vector<int32_t> w(static_cast<size_t>(rows * lcols)), x(static_cast<size_t>(rows));
  for (auto& v : w) v = w8(rng);
  for (auto& v : x) v = x8(rng);
  std::vector<uint8_t> levels(static_cast<size_t>(cfg.xbar.cols));
  for (int r = 0; r < rows; ++r) {
    enc.encode_row(w.data() + r * lcols, lcols, levels.data());
    ProgramStatus st;
    CoreFault f;
    port.program_row(3, static_cast<uint32_t>(r), levels.data(), st, f);
    ASSERT_FALSE(f.set) << f.message;
    ASSERT_EQ(st.failed, 0u);
  }
  std::vector<int64_t> y(static_cast<size_t>(lcols), -1);
  CoreFault f;
  const uint64_t cycles = port.mvm(3, x.data(), 8, y.data(), f);
  ASSERT_FALSE(f.set) << f.message;
  EXPECT_EQ(cycles, MvmTiming(cfg.xbar, cfg.mvm_timing).cycles(8));
  for (int n = 0; n < lcols; ++n) {
    int64_t want = 0;
    for (int r = 0; r < rows; ++r) want += int64_t{w[static_cast<size_t>(r * lcols + n)]} * x[static_cast<size_t>(r)];
    EXPECT_EQ(y[static_cast<size_t>(n)], want) << "column " << n;
  }
  EXPECT_EQ(bank.stats().mvms, 1u);
  EXPECT_EQ(bank.stats().crossbars_used, 1u);
}

TEST(CrossbarBank, ProgramRowReportsPulsesAndRounds) {
  const ChipConfig cfg = small();
  CrossbarBank bank(cfg);
  CrossbarBankIf& port = bank;
  // Levels 0..3: 0, 4, 8 and 12 pulses of 0.25 (within 0.1 of the target).
  std::vector<uint8_t> levels(16);
  for (size_t c = 0; c < levels.size(); ++c) levels[c] = static_cast<uint8_t>(c % 4);
  ProgramStatus st;
  CoreFault f;
  const uint64_t cycles = port.program_row(1, 5, levels.data(), st, f);
  ASSERT_FALSE(f.set) << f.message;
  EXPECT_EQ(st.rounds, 12u);
  EXPECT_EQ(cycles, 12u * (60 + 40));
  EXPECT_EQ(st.pulses, 4u * (0 + 4 + 8 + 12));
  EXPECT_EQ(st.failed, 0u);
  EXPECT_EQ(bank.stats().ispp_pulses, st.pulses);
  // A second row reports only its own pulses.
  std::vector<uint8_t> ones(16, 1);
  port.program_row(1, 6, ones.data(), st, f);
  EXPECT_EQ(st.pulses, 16u * 4);
  EXPECT_EQ(st.rounds, 4u);

  std::vector<uint8_t> back(16, 0xFF);
  EXPECT_EQ(port.read_row(1, 5, back.data(), f), 150u);
  ASSERT_FALSE(f.set) << f.message;
  EXPECT_EQ(back, levels);
  EXPECT_EQ(bank.stats().rows_read, 1u);
}

TEST(CrossbarBank, OutOfRangeRequestsFault) {
  const ChipConfig cfg = small();
  CrossbarBank bank(cfg);
  CrossbarBankIf& port = bank;
  std::vector<uint8_t> levels(16, 0);
  std::vector<int32_t> x(16, 1);
  std::vector<int64_t> y(4, 0);
  ProgramStatus st{7, 7, 7};

  CoreFault mvm;
  EXPECT_EQ(port.mvm(4, x.data(), 8, y.data(), mvm), 0u);
  EXPECT_TRUE(mvm.set);
  EXPECT_EQ(mvm.message, "mvm: crossbar 4 does not exist");

  CoreFault xbar, row, level, read;
  port.program_row(4, 0, levels.data(), st, xbar);
  EXPECT_EQ(xbar.message, "xprog row 0 of crossbar 4: the chip has 4 crossbars of 16 rows");
  port.program_row(0, 16, levels.data(), st, row);
  EXPECT_TRUE(row.set);
  levels[9] = 4;  // 2-bit cells: highest level 3
  port.program_row(0, 0, levels.data(), st, level);
  EXPECT_EQ(level.message, "xprog level 4 at column 9 exceeds the highest cell level 3");
  EXPECT_EQ(st.pulses, 7u);  // a refused row leaves the status alone
  port.read_row(0, 16, levels.data(), read);
  EXPECT_EQ(read.message, "xread row 16 of crossbar 0 does not exist");
  EXPECT_EQ(bank.stats().rows_programmed, 0u);
}

}  // namespace
}  // namespace vp::hw

namespace vp::hw {
namespace {

// Many rows written at once: a stochastic device (start state and steps)
// and a cap low enough to fail cells; the levels of every crossbar and every
// statistic, the energy sum included, are the same with 1, 2 or 4 threads
// and equal to writing the rows one by one, and some rows are written twice.
TEST(CrossbarBank, ProgramRowsGivesTheSameResultOnAnyNumberOfThreads) {
  ChipConfig cfg = small();
  cfg.device = DeviceConfig{};  // the default stochastic device
  cfg.ispp.max_pulses = 12;
  std::mt19937 rng(6);
  std::vector<std::vector<uint8_t>> levels;
  std::vector<CrossbarBank::RowWrite> writes;
  for (int k = 0; k < 120; ++k) {
    levels.emplace_back(16);
    for (auto& v : levels.back()) v = static_cast<uint8_t>(rng() % 4);
  }
  for (int k = 0; k < 120; ++k) {
    const uint32_t id = static_cast<uint32_t>(rng() % 4);
    const uint32_t col0 = static_cast<uint32_t>(rng() % 8);
    writes.push_back({id, static_cast<uint32_t>(rng() % 16), col0, 16 - col0, levels[static_cast<std::size_t>(k)].data()});
  }
  auto run = [&](unsigned threads, bool one_by_one) {
    auto bank = std::make_unique<CrossbarBank>(cfg);
    uint64_t cycles = 0;
    if (one_by_one) {
      for (const auto& w : writes) cycles += bank->program_row(w.id, w.row, w.levels, w.col0, w.ncols);
    } else {
      cycles = bank->program_rows(writes, threads);
    }
    EXPECT_EQ(cycles, bank->stats().ispp_cycles);
    return bank;
  };
  const auto ref = run(1, true);
  EXPECT_GT(ref->stats().ispp_failed_cells, 0u);
  for (unsigned threads : {1u, 2u, 4u}) {
    const auto b = run(threads, false);
    const CrossbarBankStats& s = b->stats();
    const CrossbarBankStats& r = ref->stats();
    EXPECT_EQ(s.crossbars_used, r.crossbars_used) << threads;
    EXPECT_EQ(s.rows_programmed, r.rows_programmed) << threads;
    EXPECT_EQ(s.cells_programmed, r.cells_programmed) << threads;
    EXPECT_EQ(s.ispp_pulses, r.ispp_pulses) << threads;
    EXPECT_EQ(s.ispp_verify_reads, r.ispp_verify_reads) << threads;
    EXPECT_EQ(s.ispp_failed_cells, r.ispp_failed_cells) << threads;
    EXPECT_EQ(s.ispp_cycles, r.ispp_cycles) << threads;
    EXPECT_EQ(s.ispp_energy_pj, r.ispp_energy_pj) << threads;  // summed in the same order
    EXPECT_EQ(b->failed_cells(), ref->failed_cells()) << threads;
    for (uint32_t id = 0; id < 4; ++id) {
      ASSERT_EQ(b->exists(id), ref->exists(id));
      if (!b->exists(id)) continue;
      const Crossbar& x = b->at(id);
      const Crossbar& y = ref->at(id);
      EXPECT_TRUE(std::equal(x.levels(), x.levels() + 256, y.levels())) << "crossbar " << id << ", " << threads;
    }
  }
}

// A crossbar's start state is drawn row by row when the row is first
// written (or the crossbar first read): the levels are those of a crossbar
// reset whole at creation and then written, with the same device streams.
TEST(CrossbarBank, RowsStartedOnFirstWriteEqualAResetAtCreation) {
  ChipConfig cfg = small();
  cfg.device = DeviceConfig{};  // stochastic steps and start states
  cfg.device.start_sigma = 0.3;
  cfg.ispp.keep_residual = true;  // the analog levels reached, not the targets
  CrossbarBank bank(cfg);
  Crossbar eager(cfg.xbar, static_cast<float>(cfg.device.start_level));
  DeviceModel dev(cfg.device, derive_seed(cfg.seed, 1));  // crossbar 1's device stream
  dev.reset(eager);
  const IsppWritePath ispp(cfg.ispp);
  std::mt19937 rng(8);
  for (const uint32_t row : {5u, 0u, 5u, 11u}) {  // some rows twice, most never
    std::vector<uint8_t> t(16);
    for (auto& v : t) v = static_cast<uint8_t>(rng() % 4);
    bank.program_row(1, row, t.data(), 0, 16);
    ispp.program_row_totals(eager, static_cast<int>(row), 0, t.data(), 16, dev);
  }
  const Crossbar& lazy = bank.at(1);
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) ASSERT_EQ(lazy.level(r, c), eager.level(r, c)) << "row " << r << " col " << c;
  }
  EXPECT_NE(eager.level(3, 3), static_cast<float>(cfg.device.start_level));  // the start state was drawn
}

// A deployment computed ahead on a second thread (DeployAhead) gives what
// the simulation thread computes alone: the read-backs, the statuses, the
// cycles, the statistics and every level, through partial rows (read back
// first), retries of rows with failed cells, a row given other levels than
// planned, a crossbar read (every row started) in the middle and a planned
// row never written.
TEST(CrossbarBank, ADeploymentComputedAheadEqualsTheSimulationsOwn) {
  ChipConfig cfg = small();
  cfg.device = DeviceConfig{};  // stochastic steps and start states
  cfg.device.start_sigma = 0.3;
  cfg.ispp.keep_residual = true;
  cfg.ispp.max_pulses = 12;  // some cells fail: rows are retried
  std::mt19937 rng(9);
  struct Planned {
    uint32_t id, row, col0;
    std::vector<uint8_t> data;
  };
  std::vector<Planned> plan;
  for (uint32_t id = 0; id < 4; ++id)
    for (uint32_t row = 0; row < 16; ++row) {
      const uint32_t col0 = (id + row) % 3 == 0 ? 4 : 0;  // a third of the rows partial
      std::vector<uint8_t> d(16 - col0);
      for (auto& v : d) v = static_cast<uint8_t>(rng() % 4);
      plan.push_back({id, row, col0, d});
    }
  std::vector<DeployAhead::Row> rows;
  for (const Planned& p : plan) rows.push_back({p.id, p.row, p.col0, static_cast<uint32_t>(p.data.size()), p.data.data()});

  struct Seen {
    std::vector<std::vector<uint8_t>> reads;
    std::vector<uint64_t> cycles;
    std::vector<ProgramStatus> status;
  };
  auto deploy = [&](CrossbarBank& bank) {
    Seen seen;
    // The two CUs' rows interleaved unevenly, as their kernels run.
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < 32; ++k) {
      order.push_back(k);
      if (k % 3 == 0) order.push_back(32 + k);
    }
    for (std::size_t k = 0; k < 32; ++k)
      if (k % 3 != 0) order.push_back(32 + k);
    for (std::size_t step = 0; step < order.size(); ++step) {
      const Planned& p = plan[order[step]];
      if (step == 20) bank.at(3);  // a read of a crossbar: its pending rows start
      if (p.id == 2 && p.row == 7) continue;  // planned, never written
      std::vector<uint8_t> row(16, 0);
      CoreFault f;
      if (p.col0 != 0) {
        seen.cycles.push_back(bank.read_row(p.id, p.row, row.data(), f));
        seen.reads.push_back(row);
      }
      std::copy(p.data.begin(), p.data.end(), row.begin() + p.col0);
      if (p.id == 1 && p.row == 4) row[0] ^= 1;  // other levels than planned
      for (int attempt = 0; attempt < 2; ++attempt) {
        ProgramStatus st;
        seen.cycles.push_back(bank.program_row(p.id, p.row, row.data(), st, f));
        seen.status.push_back(st);
        EXPECT_FALSE(f.set) << f.message;
        if (st.failed == 0) break;
      }
    }
    return seen;
  };
  CrossbarBank alone(cfg), ahead(cfg);
  ASSERT_TRUE(ahead.plan_deployment(rows, 2));
  EXPECT_FALSE(alone.plan_deployment(rows, 1));  // one host thread: nothing ahead
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the worker gets ahead
  const Seen a = deploy(alone), b = deploy(ahead);
  EXPECT_GT(ahead.rows_programmed_ahead(), 0u);
  EXPECT_EQ(a.reads, b.reads);
  EXPECT_EQ(a.cycles, b.cycles);
  ASSERT_EQ(a.status.size(), b.status.size());
  for (std::size_t i = 0; i < a.status.size(); ++i) {
    EXPECT_EQ(a.status[i].pulses, b.status[i].pulses) << i;
    EXPECT_EQ(a.status[i].failed, b.status[i].failed) << i;
    EXPECT_EQ(a.status[i].rounds, b.status[i].rounds) << i;
  }
  EXPECT_GT(alone.stats().ispp_failed_cells, 0u);
  const CrossbarBankStats& x = alone.stats();
  const CrossbarBankStats& y = ahead.stats();
  EXPECT_EQ(x.crossbars_used, y.crossbars_used);
  EXPECT_EQ(x.rows_programmed, y.rows_programmed);
  EXPECT_EQ(x.rows_read, y.rows_read);
  EXPECT_EQ(x.ispp_pulses, y.ispp_pulses);
  EXPECT_EQ(x.ispp_verify_reads, y.ispp_verify_reads);
  EXPECT_EQ(x.ispp_failed_cells, y.ispp_failed_cells);
  EXPECT_EQ(x.ispp_cycles, y.ispp_cycles);
  EXPECT_EQ(x.ispp_energy_pj, y.ispp_energy_pj);
  EXPECT_EQ(alone.failed_cells(), ahead.failed_cells());
  for (uint32_t id = 0; id < 4; ++id) {
    const Crossbar& p = alone.at(id);
    const Crossbar& q = ahead.at(id);
    EXPECT_TRUE(std::equal(p.levels(), p.levels() + 256, q.levels())) << "crossbar " << id;
    EXPECT_TRUE(std::equal(p.targets(), p.targets() + 256, q.targets())) << "crossbar " << id;
  }
}

}  // namespace
}  // namespace vp::hw
