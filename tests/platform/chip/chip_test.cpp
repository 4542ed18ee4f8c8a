// The SystemC chip end to end on the `small` preset: functional results of
// crossbar MVMs against plain integer products, and the cycles of MVM, ISPP
// programming, NoC packets, DMA and barriers against the analytic formulas
// (written out here from the documented models, not taken from the code).
// Each test builds one chip: SystemC elaborates once per process, and CTest
// runs every test case in its own process.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "vp/as/assembler.h"
#include "vp/config/param_set.h"
#include "vp/hw/chip/chip.h"
#include "vp/hw/crossbar/weight_encoding.h"
#include "vp/platform/chip_builder.h"
#include "vp/platform/program_loader.h"
#include "vp/platform/run_statistics.h"

namespace vp {
namespace {

struct Retired {
  std::string mnemonic;
  int32_t cluster, cu;
  uint64_t start, end;
};

class Capture : public hw::TraceSink {
 public:
  std::vector<Retired> events;
  void retire(const hw::CoreIdentity& who, const hw::RetireEvent& ev) override {
    events.push_back({ev.info->mnemonic, who.cluster, who.cu, ev.start, ev.end});
  }
  const Retired& find(const std::string& mnemonic, int32_t cluster, int32_t cu, int nth = 0) const {
    for (const auto& e : events)
      if (e.mnemonic == mnemonic && e.cluster == cluster && e.cu == cu && nth-- == 0) return e;
    throw std::runtime_error("no " + mnemonic + " on " + std::to_string(cluster) + "," + std::to_string(cu));
  }
};

struct ChipRun {
  config::ParamSet params;
  hw::ChipConfig cfg;
  Capture trace;
  std::unique_ptr<hw::Chip> chip;
  hw::RunResult result;

  explicit ChipRun(const std::string& source, const std::vector<std::string>& sets = {}, uint64_t max_cycles = 0) {
    params.apply_preset("small");
    params.apply_sets(sets);
    params.validate();
    cfg = platform::chip_config_from(params);
    as::Result r = as::assemble_string(source, "test.s");
    if (!r.ok()) throw std::runtime_error(r.error_text());
    chip = std::make_unique<hw::Chip>("chip", cfg, &trace);
    platform::load_program(r.object, *chip);
    result = chip->run(max_cycles);
  }
  int64_t cycles(const char* key) const { return params.ns_to_cycles(params.get_double(key)); }
  int32_t local32(uint32_t core, uint64_t addr) { return chip->core(core).core().scratchpad().load32(addr); }
};

std::string byte_list(const std::vector<uint8_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    s += (i % 64 == 0 ? "\n    .byte " : ", ") + std::to_string(static_cast<int>(v[i]));
  }
  return s + "\n";
}

std::string signed_byte_list(const std::vector<int32_t>& v) {
  std::string s = "    .byte ";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "\n";
}

// ---- MVM: the functional result ---------------------------------------------

struct MvmCase {
  const char* name;
  std::vector<std::string> sets;
  int input_bits;
};

void PrintTo(const MvmCase& c, std::ostream* os) { *os << c.name; }

class ChipMvm : public ::testing::TestWithParam<MvmCase> {};

TEST_P(ChipMvm, EqualsTheIntegerProductInIdealMode) {
  const MvmCase& c = GetParam();
  config::ParamSet p;
  p.apply_preset("small");
  p.apply_sets(c.sets);
  const hw::ChipConfig cfg = platform::chip_config_from(p);
  const hw::WeightEncoding enc(cfg.xbar);
  const int rows = cfg.xbar.rows, lcols = enc.logical_cols(cfg.xbar.cols);

  std::mt19937 rng(42);
  std::uniform_int_distribution<int> w8(enc.min_weight(), enc.max_weight());
  const int lo = -(1 << (c.input_bits - 1)), hi = (1 << (c.input_bits - 1)) - 1;
  std::uniform_int_distribution<int> xin(lo, hi);
  std::vector<int32_t> w(static_cast<size_t>(rows * lcols)), x(static_cast<size_t>(rows));
  for (auto& v : w) v = w8(rng);
  for (auto& v : x) v = xin(rng);
  std::vector<uint8_t> levels(static_cast<size_t>(rows * cfg.xbar.cols), 0);
  for (int r = 0; r < rows; ++r)
    enc.encode_row(w.data() + r * lcols, lcols, levels.data() + static_cast<size_t>(r) * static_cast<size_t>(cfg.xbar.cols));

  const std::string src = ".core 0, 0\n    li r1, 0\n    li r2, 1024\n    mvm r2, r1, 0, 0x1, " +
                          std::to_string(c.input_bits) + ", 32, sum, 0\n    halt\n.data local, 0\n" + signed_byte_list(x) +
                          ".xbar 0, 0, 0, 0, 0, " + std::to_string(rows) + ", " + std::to_string(cfg.xbar.cols) +
                          byte_list(levels);
  ChipRun run(src, c.sets);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  for (int n = 0; n < lcols; ++n) {
    int64_t want = 0;
    for (int r = 0; r < rows; ++r) want += int64_t{w[static_cast<size_t>(r * lcols + n)]} * x[static_cast<size_t>(r)];
    ASSERT_EQ(run.local32(0, 1024 + 4 * static_cast<uint64_t>(n)), want) << "column " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configurations, ChipMvm,
    ::testing::Values(MvmCase{"default", {}, 8},
                      MvmCase{"dac2", {"dac.bits=2"}, 8},
                      MvmCase{"differential", {"xbar.signed_encoding=differential"}, 8},
                      MvmCase{"cell1", {"xbar.cell_bits=1"}, 8},
                      MvmCase{"inputs4", {}, 4},
                      MvmCase{"quantize_covered", {"adc.mode=quantize", "adc.bits=8"}, 8}),
    [](const ::testing::TestParamInfo<MvmCase>& p) { return std::string(p.param.name); });

TEST(ChipMvmGroups, SumModeAddsEveryCrossbarAndAccumulateAddsToMemory) {
  // A 3*64-row matrix split over crossbars 0, 2 and 3 (mask 0b1101): the
  // group's result is the product with the whole matrix; with acc=1 a second
  // MVM adds its result to what is already there.
  config::ParamSet p;
  p.apply_preset("small");
  const hw::ChipConfig cfg = platform::chip_config_from(p);
  const hw::WeightEncoding enc(cfg.xbar);
  const int rows = cfg.xbar.rows, lcols = enc.logical_cols(cfg.xbar.cols), tiles = 3;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> w8(-128, 127);
  std::vector<int32_t> w(static_cast<size_t>(tiles * rows * lcols)), x(static_cast<size_t>(tiles * rows));
  for (auto& v : w) v = w8(rng);
  for (auto& v : x) v = w8(rng);
  std::string src = ".core 0, 0\n    li r1, 0\n    li r2, 1024\n    mvm r2, r1, 0, 0xd, 8, 32, sum, 0\n"
                    "    li r3, 2048\n    mvm r3, r1, 0, 0xd, 8, 32, sum, 0\n    mvm r3, r1, 0, 0xd, 8, 32, sum, 1\n"
                    "    halt\n.data local, 0\n" + signed_byte_list(x);
  const int xbars[] = {0, 2, 3};
  for (int t = 0; t < tiles; ++t) {
    std::vector<uint8_t> levels(static_cast<size_t>(rows * cfg.xbar.cols));
    for (int r = 0; r < rows; ++r)
      enc.encode_row(w.data() + (t * rows + r) * lcols, lcols,
                     levels.data() + static_cast<size_t>(r) * static_cast<size_t>(cfg.xbar.cols));
    src += ".xbar 0, 0, " + std::to_string(xbars[t]) + ", 0, 0, " + std::to_string(rows) + ", " +
           std::to_string(cfg.xbar.cols) + byte_list(levels);
  }
  ChipRun run(src);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  for (int n = 0; n < lcols; ++n) {
    int64_t want = 0;
    for (int r = 0; r < tiles * rows; ++r) want += int64_t{w[static_cast<size_t>(r * lcols + n)]} * x[static_cast<size_t>(r)];
    ASSERT_EQ(run.local32(0, 1024 + 4 * static_cast<uint64_t>(n)), want) << "column " << n;
    ASSERT_EQ(run.local32(0, 2048 + 4 * static_cast<uint64_t>(n)), 2 * want) << "column " << n;
  }
}

// ---- MVM: crossbars of their own weight format (xfmt) ----------------------------

// One crossbar's weights encoded in `fmt`: the levels of its `.xbar` block.
std::string xbar_block(int xbar, const hw::CrossbarConfig& fmt, const std::vector<int32_t>& w, int lcols) {
  const hw::WeightEncoding enc(fmt);
  std::vector<uint8_t> levels(static_cast<size_t>(fmt.rows * fmt.cols), 0);
  for (int r = 0; r < fmt.rows; ++r)
    enc.encode_row(w.data() + static_cast<size_t>(r * lcols), lcols,
                   levels.data() + static_cast<size_t>(r) * static_cast<size_t>(fmt.cols));
  return ".xbar 0, 0, " + std::to_string(xbar) + ", 0, 0, " + std::to_string(fmt.rows) + ", " +
         std::to_string(fmt.cols) + byte_list(levels);
}

TEST(ChipMvmFormats, EachCrossbarDecodesItsOwnFormatAndConcatPlacesItsOwnColumns) {
  // Crossbar 0 keeps the chip's format (8-bit offset slices), crossbar 1 is
  // set to 8-bit differential pairs (half the logical columns), crossbar 2
  // to 4-bit offset slices (twice as many). One concat MVM over all three
  // writes each one's columns after the one before.
  config::ParamSet p;
  p.apply_preset("small");
  const hw::ChipConfig cfg = platform::chip_config_from(p);
  struct Fmt { int xbar, bits; hw::SignedEncoding enc; };
  const Fmt fmts[] = {{0, 8, hw::SignedEncoding::offset_slices},
                      {1, 8, hw::SignedEncoding::differential},
                      {2, 4, hw::SignedEncoding::offset_slices}};
  const int rows = cfg.xbar.rows;
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> xin(-128, 127);
  std::vector<int32_t> x(static_cast<size_t>(rows));
  for (auto& v : x) v = xin(rng);
  std::string src = ".core 0, 0\n    xfmt 1, 0x1, 8, diff\n    xfmt 2, 0x1, 4, offset\n    li r1, 0\n"
                    "    li r2, 1024\n    mvm r2, r1, 0, 0x7, 8, 32, concat, 0\n    halt\n.data local, 0\n" +
                    signed_byte_list(x);
  std::vector<std::vector<int32_t>> ws;
  std::vector<int> lcols;
  for (const Fmt& f : fmts) {
    hw::CrossbarConfig c = cfg.xbar;
    c.weight_bits = f.bits;
    c.signed_encoding = f.enc;
    const hw::WeightEncoding enc(c);
    const int n = enc.logical_cols(c.cols);
    std::uniform_int_distribution<int> wd(enc.min_weight(), enc.max_weight());
    std::vector<int32_t> w(static_cast<size_t>(rows * n));
    for (auto& v : w) v = wd(rng);
    src += xbar_block(f.xbar, c, w, n);
    ws.push_back(w);
    lcols.push_back(n);
  }
  ASSERT_EQ(lcols[1] * 2, lcols[0]);
  ASSERT_EQ(lcols[2], lcols[0] * 2);
  ChipRun run(src);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  uint64_t at = 1024;
  for (size_t k = 0; k < ws.size(); ++k)
    for (int n = 0; n < lcols[k]; ++n, at += 4) {
      int64_t want = 0;
      for (int r = 0; r < rows; ++r) want += int64_t{ws[k][static_cast<size_t>(r * lcols[k] + n)]} * x[static_cast<size_t>(r)];
      ASSERT_EQ(run.local32(0, at), want) << "crossbar " << k << " column " << n;
    }
  // Nothing past the last crossbar's columns was written.
  EXPECT_EQ(run.local32(0, at), 0);
}

TEST(ChipMvmFormats, ASumOfCrossbarsWithDifferentColumnCountsFaults) {
  ChipRun run(".core 0, 0\n    xfmt 1, 0x1, 8, diff\n    li r1, 0\n    li r2, 1024\n"
              "    mvm r2, r1, 0, 0x3, 8, 32, sum, 0\n    halt\n");
  ASSERT_EQ(run.result.status, hw::RunStatus::Fault);
  EXPECT_NE(run.result.message.find("logical columns (their xfmt formats differ)"), std::string::npos)
      << run.result.message;
}

TEST(ChipMvmFormats, AFormatTheCrossbarCannotHoldFaults) {
  ChipRun run(".core 0, 0\n    xfmt 0, 0x1, 1, offset\n    halt\n");
  ASSERT_EQ(run.result.status, hw::RunStatus::Fault);
  EXPECT_NE(run.result.message.find("xfmt: xbar.weight_bits: must be in [2, 16]"), std::string::npos)
      << run.result.message;
}

// ---- MVM: the cycles -----------------------------------------------------------

TEST(ChipTiming, MvmTakesThePipelinedPimsimLatency) {
  ChipRun run(R"(
.core 0, 0
    li r1, 0
    li r2, 512
    mvm r2, r1, 0, 0x1, 8, 32, sum, 0
    mvm r2, r1, 0, 0x1, 3, 32, sum, 0
    halt
)");
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const auto& p = run.params;
  const int64_t rows = p.get_int("xbar.rows"), cols = p.get_int("xbar.cols");
  const int64_t rows_per_step = std::min(rows, p.get_int("dac.rows_per_step"));
  const int64_t dac_bits = p.get_int("dac.bits");
  const int64_t adc = run.cycles("adc.conversion_ns"), sa = run.cycles("xbar.shift_add_ns");
  const int64_t front = run.cycles("dac.latency_ns") + run.cycles("xbar.read_ns") + run.cycles("xbar.sample_hold_ns");
  const int64_t adcs = (cols + p.get_int("adc.columns_per_adc") - 1) / p.get_int("adc.columns_per_adc");
  const int64_t groups = (cols + adcs - 1) / adcs;
  ASSERT_TRUE(p.get_bool("xbar.pipelined") && p.get_bool("adc.pipelined")) << "the small preset pipelines both stages";
  const int64_t back = adc + sa + (groups - 1) * std::max(adc, sa);
  for (int bits : {8, 3}) {
    const int64_t steps = ((bits + dac_bits - 1) / dac_bits) * ((rows + rows_per_step - 1) / rows_per_step);
    const int64_t want = front + back + (steps - 1) * std::max(front, back);
    const Retired& m = run.trace.find("mvm", 0, 0, bits == 8 ? 0 : 1);
    EXPECT_EQ(static_cast<int64_t>(m.end - m.start), want) << bits << "-bit inputs";
  }
}

// ---- ISPP: programming a row -------------------------------------------------------

TEST(ChipTiming, RowProgrammingTakesTheRowArithmeticOfADeterministicDevice) {
  // Step 0.25 levels per pulse from level 0, window +-0.1: a cell with target
  // L needs ceil((L - 0.1) / 0.25) pulses; the row needs as many rounds as
  // its slowest cell, each a pulse and a verify read.
  const std::vector<std::string> sets = {"device.step_levels_sigma=0", "device.start_sigma=0", "device.start_level=0",
                                         "device.step_levels_mean=0.25", "ispp.tolerance_levels=0.1"};
  std::string levels = ".data local, 256\n    .byte ";
  for (int c = 0; c < 64; ++c) levels += (c ? ", " : "") + std::to_string(c % 3);  // targets 0..2
  ChipRun run(".core 0, 0\n    li r1, 256\n    li r2, 5\n    li r3, 7\n    xprog r1, r2, r3\n"
              "    li r4, 512\n    xread r4, r2, r3\n    halt\n" + levels + "\n",
              sets);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const int rounds = static_cast<int>(std::ceil((2 - 0.1) / 0.25));
  const int64_t per_round = run.cycles("ispp.pulse_ns") + run.cycles("ispp.verify_ns");
  const Retired& x = run.trace.find("xprog", 0, 0);
  EXPECT_EQ(static_cast<int64_t>(x.end - x.start), rounds * per_round);
  const Retired& rd = run.trace.find("xread", 0, 0);
  EXPECT_EQ(static_cast<int64_t>(rd.end - rd.start), run.cycles("xbar.readback_ns_per_row"));
  for (int c = 0; c < 64; ++c) EXPECT_EQ(*run.chip->core(0).core().scratchpad().at(512 + static_cast<uint64_t>(c)), c % 3);
  const auto& st = run.chip->crossbars().stats();
  // Pulses: 0, 4 and 8 per cell for targets 0, 1, 2 (ceil(0.9/0.25) = 4).
  EXPECT_EQ(st.ispp_pulses, 22u * 0 + 21u * 4 + 21u * 8);
  EXPECT_EQ(st.ispp_failed_cells, 0u);
}

TEST(ChipTiming, CellsThatCannotConvergeAreCountedAndKeepTheirLevel) {
  // A 0.3-level step cannot land within +-0.1 of level 1 from 0 (0.9, 1.2)
  // and never reaches level 3 within 5 pulses: both fail.
  const std::vector<std::string> sets = {"device.step_levels_sigma=0", "device.start_sigma=0", "device.start_level=0",
                                         "device.step_levels_mean=0.3", "ispp.tolerance_levels=0.05",
                                         "ispp.max_pulses=5"};
  ChipRun run(".core 0, 0\n    li r1, 256\n    li r2, 0\n    xprog r1, r2, r2\n    halt\n"
              ".data local, 256\n    .byte 1, 3, 0\n",
              sets);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  EXPECT_EQ(run.chip->crossbars().stats().ispp_failed_cells, 2u);
  const hw::Crossbar& xb = run.chip->crossbars().at(0);
  EXPECT_NEAR(xb.level(0, 1), 1.5, 1e-6);  // five pulses of 0.3
  EXPECT_EQ(xb.read_level(0, 2), 0);
}

// xprogn: three rows of one crossbar in one instruction, each row written
// again while cells fail and retries are left (rt = 2), as three xprogs
// with their retries would: the level-1 cells of the 0.3-level step never
// converge, so every row takes all three passes; the block's time is the
// nine passes' rounds, its status their pulses, the failed cells after each
// row's last pass and the six retries.
TEST(ChipTiming, AnXprognProgramsItsRowsAndRetriesEachAsXprogsWould) {
  const std::vector<std::string> sets = {"device.step_levels_sigma=0", "device.start_sigma=0", "device.start_level=0",
                                         "device.step_levels_mean=0.3", "ispp.tolerance_levels=0.05",
                                         "ispp.max_pulses=5"};
  // Rows of 64 levels of 2 bits packed in 16 bytes: row r's level 1 at
  // column r, bits 2r..2r+1 of its first byte.
  std::string levels = ".data local, 256\n    .byte ";
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 16; ++k) levels += (r || k ? ", " : "") + std::to_string(k == 0 ? 1 << (2 * r) : 0);
  ChipRun run(".core 0, 0\n    li r1, 256\n    li r2, 4\n    li r3, 10\n    li r4, 3\n    li r5, 2\n"
              "    xprogn r1, r2, r3, r4, r5\n    xstat r6, pulses\n    xstat r7, failed\n    xstat r8, retries\n"
              "    xstat r9, rounds\n    li r10, 1024\n    st r6, r10, 0\n    st r7, r10, 4\n    st r8, r10, 8\n"
              "    st r9, r10, 12\n    halt\n" + levels + "\n",
              sets);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const hw::Scratchpad& sp = run.chip->core(0).core().scratchpad();
  EXPECT_EQ(sp.load32(1024), 3 * 3 * 5);  // 9 passes of one 5-pulse cell
  EXPECT_EQ(sp.load32(1028), 3);          // one failed cell per row, after its last pass
  EXPECT_EQ(sp.load32(1032), 6);          // two retries per row
  EXPECT_EQ(sp.load32(1036), 9 * 5);      // every pass's rounds
  const int64_t per_round = run.cycles("ispp.pulse_ns") + run.cycles("ispp.verify_ns");
  const Retired& x = run.trace.find("xprogn", 0, 0);
  EXPECT_EQ(static_cast<int64_t>(x.end - x.start), 9 * 5 * per_round);
  const auto& st = run.chip->crossbars().stats();
  EXPECT_EQ(st.rows_programmed, 9u);
  // Each row's level-1 cell is still outside its window; its other cells
  // stayed at their target 0 (no pulses).
  for (int r = 0; r < 3; ++r) {
    EXPECT_GT(std::fabs(run.chip->crossbars().at(4).level(10 + r, r) - 1.0), 0.05);
    EXPECT_EQ(run.chip->crossbars().at(4).read_level(10 + r, (r + 1) % 64), 0);
  }
}

// xprogn unpacks each row's levels, xbar.cell_bits each from the low bits
// of a byte up: on an ideal device (0.25 a pulse, no spread) every cell of
// two rows reads back its own level, of 2-bit cells (64 to a row of 16
// bytes) and of 4-bit cells (64 to a row of 32).
void expect_xprogn_unpacks(int bits) {
  const int top = (1 << bits) - 1, per_byte = 8 / bits;
  auto level = [&](int r, int c) { return (c * 7 + r * 3) % (top + 1); };
  std::string levels = ".data local, 256\n    .byte ";
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 64 / per_byte; ++k) {
      int byte = 0;
      for (int j = 0; j < per_byte; ++j) byte |= level(r, k * per_byte + j) << (j * bits);
      levels += (r || k ? ", " : "") + std::to_string(byte);
    }
  ChipRun run(".core 0, 0\n    li r1, 256\n    li r2, 1\n    li r3, 5\n    li r4, 2\n    li r5, 0\n"
              "    xprogn r1, r2, r3, r4, r5\n    halt\n" + levels + "\n",
              {"device.step_levels_sigma=0", "device.start_sigma=0", "device.start_level=0",
               "device.step_levels_mean=0.25", "ispp.max_pulses=80", "xbar.cell_bits=" + std::to_string(bits)});
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const hw::Crossbar& xb = run.chip->crossbars().at(1);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 64; ++c) EXPECT_EQ(xb.read_level(5 + r, c), level(r, c)) << "row " << r << " col " << c;
}
TEST(ChipTiming, AnXprognUnpacksTwoBitLevels) { expect_xprogn_unpacks(2); }
TEST(ChipTiming, AnXprognUnpacksFourBitLevels) { expect_xprogn_unpacks(4); }

void expect_xprogn_fault(const std::string& rows, const std::string& message, const std::vector<std::string>& sets = {}) {
  ChipRun run(".core 0, 0\n    li r1, 256\n    li r2, 0\n    li r4, " + rows + "\n    xprogn r1, r2, r2, r4, r2\n    halt\n",
              sets);
  EXPECT_EQ(run.result.status, hw::RunStatus::Fault);
  EXPECT_NE(run.result.message.find(message), std::string::npos) << run.result.message;
}
TEST(ChipErrors, AnXprognOfNoRowsFaults) { expect_xprogn_fault("0", "xprogn of 0 rows"); }
TEST(ChipErrors, AnXprognPastTheScratchpadFaults) { expect_xprogn_fault("4100", "xprogn reads"); }
TEST(ChipErrors, AnXprognOfRowsNotWholeBytesFaults) {
  expect_xprogn_fault("1", "xprogn takes rows of whole bytes, but 60 levels of 3 bits", {"xbar.cell_bits=3", "xbar.cols=60"});
}

// ---- NoC -------------------------------------------------------------------------------

std::string sender_receiver(int bytes) {
  const std::string n = std::to_string(bytes);
  return ".core 0, 0\n    li r1, 0\n    li r2, " + n + "\n    li r3, 7\n    nop\n    nop\n    nop\n    send r1, r2, r3, 1\n    halt\n"
         ".core 3, 1\n    li r1, 0\n    li r2, " + n + "\n    li r3, 0\n    recv r1, r2, r3, 1\n    halt\n";
}

TEST(ChipTiming, OnePacketArrivesAfterTheHopFormula) {
  // Cluster 0 at (0,0) to cluster 3 at (1,1) on the 2x2 mesh: two hops.
  const int bytes = 200;
  ChipRun run(sender_receiver(bytes), {"noc.clock_mhz=500"});
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const auto& p = run.params;
  const double ratio = p.get_double("chip.clock_mhz") / p.get_double("noc.clock_mhz");
  const int64_t H = static_cast<int64_t>(std::ceil(p.get_int("noc.hop_cycles") * ratio));
  const int64_t P = static_cast<int64_t>(std::ceil(p.get_int("noc.local_port_cycles") * ratio));
  const int64_t flits = p.get_int("noc.packet_header_flits") + (bytes * 8 + p.get_int("noc.link_bits") - 1) / p.get_int("noc.link_bits");
  const int64_t S = static_cast<int64_t>(std::ceil(static_cast<double>(flits) * ratio));
  const Retired& send = run.trace.find("send", 0, 0);
  const Retired& recv = run.trace.find("recv", 3, 1);
  EXPECT_EQ(static_cast<int64_t>(recv.end - send.start), 2 * P + 2 * H + S);
  EXPECT_EQ(static_cast<int64_t>(send.end - send.start), S);  // the tail has left the source port
  EXPECT_LT(recv.start, send.start);                              // the receiver was waiting
}

// Both CUs of cluster 0 send 512 bytes to cluster 3 in the same cycle.
std::string two_senders() {
  const std::string body = "    li r1, 0\n    li r2, 512\n    li r3, 6\n    send r1, r2, r3, 1\n    halt\n";
  return ".core 0, 0\n" + body + ".core 0, 1\n" + body +
         ".core 3, 0\n    li r1, 0\n    li r2, 512\n    li r3, 0\n    li r4, 1\n    li r5, 1024\n"
         "    recv r1, r2, r3, 1\n    recv r5, r2, r4, 1\n    halt\n";
}
// One 512-byte packet's serialization time S, in chip cycles.
int64_t serialization_512(const config::ParamSet& p) {
  const double ratio = p.get_double("chip.clock_mhz") / p.get_double("noc.clock_mhz");
  const int64_t flits = p.get_int("noc.packet_header_flits") + (512 * 8 + p.get_int("noc.link_bits") - 1) / p.get_int("noc.link_bits");
  return static_cast<int64_t>(std::ceil(static_cast<double>(flits) * ratio));
}

TEST(ChipTiming, TwoPacketsOnOneRouteAreSerialized) {
  // The second packet waits for the first on the shared links, one
  // serialization time.
  ChipRun run(two_senders());
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const int64_t S = serialization_512(run.params);
  const Retired& a = run.trace.find("recv", 3, 0, 0);
  const Retired& b = run.trace.find("recv", 3, 0, 1);
  ASSERT_EQ(run.trace.find("send", 0, 0).start, run.trace.find("send", 0, 1).start);
  EXPECT_EQ(static_cast<int64_t>(b.end) - static_cast<int64_t>(a.end), S);
  EXPECT_GT(run.chip->noc().totals().contention_cycles, 0u);
}

TEST(ChipStatistics, TheBusiestLinkIsTheOneBothPacketsCross) {
  // The two packets of two_senders(): the port out of cluster 0's CUs and
  // the links of the route each carry both, one serialization time apiece,
  // and nothing carries more: the statistics name such a link busiest,
  // busy 2 S cycles, and no run with this traffic is shorter than that.
  ChipRun run(two_senders());
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const int64_t S = serialization_512(run.params);
  const nlohmann::json st = platform::run_statistics(*run.chip, run.result, {}, {});
  ASSERT_TRUE(st["noc"].contains("busiest_link"));
  const auto& b = st["noc"]["busiest_link"];
  EXPECT_EQ(b["busy_cycles"].get<int64_t>(), 2 * S);
  uint64_t most = 0;
  bool named = false;
  for (const auto& l : st["noc"]["links"]) {
    most = std::max(most, l["busy_cycles"].get<uint64_t>());
    named = named || (l["link"] == b["link"] && l["busy_cycles"] == b["busy_cycles"]);
  }
  EXPECT_TRUE(named) << b.dump();
  EXPECT_EQ(most, b["busy_cycles"].get<uint64_t>());
  EXPECT_LE(b["busy_cycles"].get<uint64_t>(), run.result.cycles);
  EXPECT_DOUBLE_EQ(b["share_of_run"].get<double>(),
                   static_cast<double>(2 * S) / static_cast<double>(run.result.cycles));
  EXPECT_NE(platform::run_summary(st).find("busiest:     link " + b["link"].get<std::string>()), std::string::npos);
}

// ---- DMA ----------------------------------------------------------------------------------

TEST(ChipTiming, DmaFromGlobalMemoryCostsTheMeshAndTheChannel) {
  // Cluster 0 hosts the memory controller (gmem.attach_cluster 0): a read is
  // a header-only request, the memory's latency and transfer time at its
  // bandwidth, and the data packet back, each port crossing once.
  const int64_t n = 8192;
  ChipRun run(".core 0, 0\n    li r1, 0\n    li r2, 0\n    li r3, " + std::to_string(n) +
              "\n    dma.gl r1, r2, r3\n    halt\n");
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const auto& p = run.params;
  ASSERT_EQ(p.get_int("gmem.attach_cluster"), 0);
  const double ratio = p.get_double("chip.clock_mhz") / p.get_double("noc.clock_mhz");
  const int64_t P = static_cast<int64_t>(std::ceil(p.get_int("noc.local_port_cycles") * ratio));
  const int64_t header = p.get_int("noc.packet_header_flits");
  const int64_t S_req = static_cast<int64_t>(std::ceil(header * ratio));
  const int64_t S_data = static_cast<int64_t>(
      std::ceil((header + (n * 8 + p.get_int("noc.link_bits") - 1) / p.get_int("noc.link_bits")) * ratio));
  const double bytes_per_cycle = p.get_double("gmem.bandwidth_gbps") * 1000.0 / p.get_double("chip.clock_mhz");
  const int64_t transfer = static_cast<int64_t>(std::ceil(static_cast<double>(n) / bytes_per_cycle - 1e-9));
  const int64_t want = p.get_int("cu.dma.setup_cycles") + (2 * P + S_req) + run.cycles("gmem.latency_ns") + transfer +
                       (2 * P + S_data);
  const Retired& d = run.trace.find("dma.gl", 0, 0);
  EXPECT_EQ(static_cast<int64_t>(d.end - d.start), want);
}

TEST(ChipTiming, BackToBackDmasShareTheMemoryBandwidth) {
  // Two CUs in different clusters read 64 KiB each at once: the memory
  // channel serializes them, so the later one ends at least one full
  // transfer time after the earlier.
  const std::string body = "    li r1, 0\n    li r2, 0\n    li r3, 16384\n    dma.gl r1, r2, r3\n    halt\n";
  ChipRun run(".core 0, 0\n" + body + ".core 1, 0\n" + body);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const double bpc = run.params.get_double("gmem.bandwidth_gbps") * 1000.0 / run.params.get_double("chip.clock_mhz");
  const int64_t transfer = static_cast<int64_t>(std::ceil(16384 / bpc - 1e-9));
  const Retired& a = run.trace.find("dma.gl", 0, 0);
  const Retired& b = run.trace.find("dma.gl", 1, 0);
  EXPECT_GE(std::max(a.end, b.end) - std::min(a.end, b.end), static_cast<uint64_t>(transfer));
  EXPECT_EQ(run.chip->global_memory().channel().stats().busy_cycles, static_cast<uint64_t>(2 * transfer));
}

// ---- synchronisation, deadlock, limits ---------------------------------------------------------

TEST(ChipSync, ABarrierReleasesEveryoneWhenTheLastArrives) {
  ChipRun run(".core 0, 0\n    li r1, 300\n  l:\n    dbnz r1, l\n    bar 3, 3\n    halt\n"
              ".core 1, 0\n    bar 3, 3\n    halt\n"
              ".core 2, 1\n    bar 3, 3\n    halt\n");
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const Retired& late = run.trace.find("bar", 0, 0);
  const uint64_t release = late.end;
  EXPECT_EQ(run.trace.find("bar", 1, 0).end, release);
  EXPECT_EQ(run.trace.find("bar", 2, 1).end, release);
  EXPECT_EQ(release, late.start + static_cast<uint64_t>(run.params.get_int("sync.barrier_cycles")));
}

TEST(ChipSync, CoresWaitingOnEachOtherAreADeadlockWithAReport) {
  ChipRun run(".core 0, 0\n    li r1, 0\n    li r2, 4\n    li r3, 1\n    recv r1, r2, r3, 9\n    halt\n"
              ".core 0, 1\n    li r1, 0\n    li r2, 4\n    li r3, 0\n    nop\n    recv r1, r2, r3, 9\n    halt\n");
  ASSERT_EQ(run.result.status, hw::RunStatus::Deadlock);
  ASSERT_EQ(run.result.waiting.size(), 2u);
  EXPECT_NE(run.result.waiting[0].find("core 0 (cluster 0, cu 0) at pc 3"), std::string::npos) << run.result.waiting[0];
  EXPECT_NE(run.result.waiting[0].find("recv from core 1 tag 9"), std::string::npos) << run.result.waiting[0];
  EXPECT_NE(run.result.waiting[1].find("core 1 (cluster 0, cu 1) at pc 4"), std::string::npos) << run.result.waiting[1];
}

TEST(ChipSync, ARunStopsAtMaxCycles) {
  ChipRun run(".core 0, 0\n  forever:\n    jmp forever\n", {}, 5000);
  EXPECT_EQ(run.result.status, hw::RunStatus::MaxCycles);
  EXPECT_LE(run.result.cycles, 5000u + run.params.get_int("cu.scalar.branch_cycles"));
}

TEST(ChipSync, AFaultStopsTheRunAndNamesTheCore) {
  ChipRun run(".core 0, 0\n    li r1, 0\n    li r2, 4\n    li r3, 1\n    recv r1, r2, r3, 9\n    halt\n"
              ".core 1, 1\n    li r1, 0x7fffff00\n    li r2, 4\n    vadd r1, r1, r1, r2, i8\n    halt\n");
  ASSERT_EQ(run.result.status, hw::RunStatus::Fault);
  EXPECT_NE(run.result.message.find("core 3 (cluster 1, cu 1) pc 2"), std::string::npos) << run.result.message;
}

TEST(ChipControl, TheControlProcessorStartsAndWaitsForCores) {
  ChipRun run(".cp\n    li r1, 5\n    li r2, 1\n    cstart r1, r2\n    cwait r1\n    cstat r3, r1\n    halt\n"
              ".core 2, 1\n    li r9, 111\n    li r9, 222\n    halt\n");
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  EXPECT_EQ(run.chip->core(5).core().reg(9), 222u);  // started at pc 1, past the first li
  EXPECT_EQ(run.chip->control_processor().core().reg(3), 2u);  // halted
  const Retired& halt = run.trace.find("halt", 2, 1);
  EXPECT_GE(run.trace.find("cwait", -1, -1).end, halt.end);
}

}  // namespace
}  // namespace vp
