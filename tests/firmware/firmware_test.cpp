// The firmware on the SystemC chip (small preset): deploys cell programs
// through the ISPP write path and every crossbar reads back its targets;
// pulse and failed-cell counts and each row's programming time match the
// device model's closed form (ispp_write_path.h); a model for a bigger chip
// and a corrupt image stop with the named error; boot_block.inc and
// model_image.h agree. One chip per test: CTest runs each case alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "vp/as/assembler.h"
#include "vp/config/param_set.h"
#include "vp/hw/chip/chip.h"
#include "vp/platform/chip_builder.h"
#include "vp/platform/firmware_report.h"
#include "vp/platform/model_image.h"

namespace vp {
namespace {

namespace fw = platform::fw;

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

struct XprogEvent {
  int32_t cluster, cu;
  uint64_t start, end;
};

class Capture : public hw::TraceSink {
 public:
  std::vector<XprogEvent> xprogs, blocks;  // xprog (a partial row), xprogn (whole rows)
  std::map<std::pair<int32_t, int32_t>, uint64_t> first_issue;  // (cluster, cu): its first instruction's start
  void retire(const hw::CoreIdentity& who, const hw::RetireEvent& ev) override {
    first_issue.emplace(std::make_pair(who.cluster, who.cu), ev.start);
    const std::string m = ev.info->mnemonic;
    if (m == "xprog") xprogs.push_back({who.cluster, who.cu, ev.start, ev.end});
    if (m == "xprogn") blocks.push_back({who.cluster, who.cu, ev.start, ev.end});
  }
};

// A cell program of the test model: crossbar (cluster, cu, xbar) and the
// rectangle, with random target levels.
struct Rect {
  int cluster, cu, xbar;
  uint32_t row0, col0, rows, cols;
  std::vector<uint8_t> levels;
};

std::vector<Rect> make_rects(std::vector<Rect> rects, uint32_t seed) {
  std::mt19937 rng(seed);
  for (auto& r : rects) {
    r.levels.resize(size_t{r.rows} * r.cols);
    for (auto& l : r.levels) l = static_cast<uint8_t>(rng() % 4);
  }
  return rects;
}

// .chip rows/cols: the firmware checks crossbar shape for equality, and the
// assembler would otherwise record the rows and columns a program touches.
std::string model_source(const std::vector<Rect>& rects, const std::string& head = ".chip rows=64, cols=64\n") {
  std::ostringstream s;
  s << head;
  for (const auto& r : rects) {
    s << ".xbar " << r.cluster << ", " << r.cu << ", " << r.xbar << ", " << r.row0 << ", " << r.col0 << ", " << r.rows
      << ", " << r.cols << "\n";
    for (size_t i = 0; i < r.levels.size(); ++i) s << (i % 32 ? "," : "\n    .byte ") << int(r.levels[i]);
    s << "\n";
  }
  return s.str();
}

struct FwRun {
  config::ParamSet params;
  hw::ChipConfig cfg;
  Capture trace;
  // The model outlives the chip (members go in reverse order): the chip's
  // deployment worker reads the model's cell levels until the chip is
  // destroyed, also after a run that ended early (a refused boot block).
  as::Result model;
  std::unique_ptr<hw::Chip> chip;
  platform::ModelImage image;
  hw::RunResult result;
  platform::FirmwareReport report;

  FwRun(const std::string& source, const std::vector<std::string>& sets, platform::ImageOptions opt = {},
        const std::function<void(hw::Chip&, const platform::ModelImage&)>& tamper = {}) {
    params.apply_preset("small");
    params.apply_sets(sets);
    params.validate();
    cfg = platform::chip_config_from(params);
    model = as::assemble_string(source, "model.s");
    if (!model.ok()) throw std::runtime_error(model.error_text());
    const obj::Object firmware = obj::load_object(env_or("VP_BIN_DIR", "build/bin") + "/../firmware/sidra_fw.vpo");
    chip = std::make_unique<hw::Chip>("chip", cfg, &trace);
    platform::HostIo io;
    image = platform::install_model(model.object, firmware, io, *chip, opt);
    if (tamper) tamper(*chip, image);
    result = chip->run(0);
    report = platform::read_firmware_report(*chip, image);
  }
  uint32_t xbar_id(const Rect& r) const {
    return (static_cast<uint32_t>(r.cluster) * cfg.cus_per_cluster + static_cast<uint32_t>(r.cu)) * cfg.xbars_per_cu +
           static_cast<uint32_t>(r.xbar);
  }
};

const std::vector<std::string> kDeterministic = {"device.step_levels_sigma=0", "device.start_sigma=0"};

// Full crossbars, a band of full rows, and two rectangles sharing rows of
// one crossbar (partial rows: read-modify-write).
std::vector<Rect> mixed_rects() {
  return make_rects({{0, 0, 0, 0, 0, 64, 64, {}},
                     {0, 0, 1, 5, 0, 10, 64, {}},
                     {0, 1, 2, 3, 8, 6, 20, {}},
                     {0, 1, 2, 3, 40, 6, 10, {}},
                     {1, 0, 3, 0, 0, 64, 64, {}}},
                    7);
}

// An ideal device: every cell of the rectangles reads back its level, the
// cells outside them the reset level 0.
void expect_targets_read_back(const std::vector<Rect>& rects, const std::vector<std::string>& sets) {
  FwRun run(model_source(rects), sets);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  EXPECT_EQ(run.report.code, fw::kStatusDone);
  EXPECT_EQ(run.report.phase, fw::kPhaseDone);
  hw::CrossbarBank& bank = run.chip->crossbars();
  std::map<uint32_t, std::vector<uint8_t>> expect;  // crossbar -> all its levels
  for (const auto& r : rects) {
    auto& cells = expect[run.xbar_id(r)];
    cells.resize(64 * 64, 0);  // never-programmed cells stay at the reset level 0
    for (uint32_t i = 0; i < r.rows; ++i)
      for (uint32_t j = 0; j < r.cols; ++j) cells[(r.row0 + i) * 64 + r.col0 + j] = r.levels[i * r.cols + j];
  }
  for (const auto& [id, cells] : expect) {
    std::vector<uint8_t> row(64);
    for (uint32_t i = 0; i < 64; ++i) {
      bank.read_row(id, i, row.data());
      for (uint32_t j = 0; j < 64; ++j) ASSERT_EQ(int(row[j]), int(cells[i * 64 + j])) << "crossbar " << id << " row " << i << " col " << j;
    }
  }
  uint64_t rows = 0;
  for (const auto& r : rects) rows += r.rows;
  EXPECT_EQ(run.report.rows, rows);
  EXPECT_EQ(run.report.retries, 0u);
}
TEST(FirmwareDeploy, EveryCrossbarReadsBackItsTargetsWithAnIdealDevice) {
  expect_targets_read_back(mixed_rects(), kDeterministic);
}
// Whole rows reach xprogn packed, xbar.cell_bits a level (model_image.cpp
// packs 1, 2, 4 and 8 bits a byte at a time and other widths bit by bit):
// 1-, 3- and 4-bit cells, the same rectangles with levels over each width.
// (One chip per test.)
void expect_packed_read_back(int bits) {
  auto rects = mixed_rects();
  std::mt19937 rng(11);
  for (auto& r : rects)
    for (auto& l : r.levels) l = static_cast<uint8_t>(rng() % (1u << bits));
  auto sets = kDeterministic;
  sets.push_back("xbar.cell_bits=" + std::to_string(bits));
  sets.push_back("ispp.max_pulses=80");  // 15 levels at 0.25 a pulse
  expect_targets_read_back(rects, sets);
}
TEST(FirmwareDeploy, PackedLevelsOfOneBitCellsReadBackTheirTargets) { expect_packed_read_back(1); }
TEST(FirmwareDeploy, PackedLevelsOfThreeBitCellsReadBackTheirTargets) { expect_packed_read_back(3); }
TEST(FirmwareDeploy, PackedLevelsOfFourBitCellsReadBackTheirTargets) { expect_packed_read_back(4); }

// Pulses and failed cells of the deterministic device in closed form:
// cells start at level 0, cells outside the rectangles keep target 0 (no
// pulses), and re-programmed cells already on target take none.
struct Analytic {
  uint64_t pulses = 0, failed = 0;
};
Analytic analytic(const std::vector<Rect>& rects, const hw::ChipConfig& cfg) {
  const hw::IsppWritePath ispp(cfg.ispp);
  const int top = (1 << cfg.xbar.cell_bits) - 1;
  Analytic a;
  for (const auto& r : rects)
    for (uint8_t t : r.levels) {
      const hw::IsppAnalytic p = ispp.analytic_pulses(0.0, t, cfg.device.step_levels_mean, top);
      a.pulses += static_cast<uint64_t>(p.pulses);
      a.failed += p.converged ? 0 : 1;
    }
  return a;
}

TEST(FirmwareDeploy, PulseAndFailedCountsAreTheDeviceModelsClosedForm) {
  const auto rects = mixed_rects();
  FwRun run(model_source(rects), kDeterministic);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const Analytic a = analytic(rects, run.cfg);
  EXPECT_GT(a.pulses, 0u);
  EXPECT_EQ(run.report.pulses, a.pulses);
  EXPECT_EQ(run.report.failed_cells, 0u);
  EXPECT_EQ(run.chip->crossbars().stats().ispp_pulses, a.pulses);
}

TEST(FirmwareDeploy, NonConvergingCellsAreCountedAndDeployGoesOn) {
  // Step 0.4 and tolerance 0.1: level-1 cells jump over their window (0.8
  // -> 1.2) and oscillate until the cap; levels 2 and 3 converge. (Without
  // the second rectangle on shared rows: its read-modify-write would pulse
  // the first one's failed cells again.)
  auto rects = mixed_rects();
  rects.erase(rects.begin() + 3);
  std::vector<std::string> sets = kDeterministic;
  sets.push_back("device.step_levels_mean=0.4");
  sets.push_back("ispp.tolerance_levels=0.1");
  platform::ImageOptions opt;
  opt.retries = 0;
  FwRun run(model_source(rects), sets, opt);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const Analytic a = analytic(rects, run.cfg);
  EXPECT_GT(a.failed, 100u);
  EXPECT_EQ(run.report.failed_cells, a.failed);
  EXPECT_EQ(run.report.pulses, a.pulses);
  EXPECT_EQ(run.report.code, fw::kStatusDone);  // deploy went on past them
  uint64_t rows = 0;
  for (const auto& r : rects) rows += r.rows;
  EXPECT_EQ(run.report.rows, rows);
}

TEST(FirmwareDeploy, RowsWithFailedCellsAreRetried) {
  const auto rects = make_rects({{0, 0, 0, 0, 0, 16, 64, {}}}, 3);
  std::vector<std::string> sets = kDeterministic;
  sets.push_back("device.step_levels_mean=0.4");
  sets.push_back("ispp.tolerance_levels=0.1");
  platform::ImageOptions opt;
  opt.retries = 3;
  FwRun run(model_source(rects), sets, opt);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  // Every row has level-1 cells (random levels over 64 columns), and the
  // deterministic device never converges them: each row takes all retries,
  // inside the one xprogn that programs the 16 whole rows.
  EXPECT_EQ(run.report.retries, 16u * 3u);
  EXPECT_EQ(run.trace.blocks.size(), 1u);
  EXPECT_EQ(run.trace.xprogs.size(), 0u);
  EXPECT_EQ(run.chip->crossbars().stats().rows_programmed, 16u * 4u);
  EXPECT_EQ(run.report.failed_cells, analytic(rects, run.cfg).failed);
  EXPECT_EQ(run.report.rows, 16u);
}

TEST(FirmwareDeploy, EachRowTakesTheAnalyticRowTimeAndDeployIsTheirSum) {
  // Core 0 programs two crossbars: 64 + 10 whole rows, in crossbar order,
  // in blocks of at most 32 (fw::kKernelBlockRows), each row's levels a DMA
  // and each block one xprogn: 32 + 32 + 10 rows.
  const auto all = mixed_rects();
  const std::vector<Rect> rects(all.begin(), all.begin() + 2);
  FwRun run(model_source(rects), kDeterministic);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const hw::IsppWritePath ispp(run.cfg.ispp);
  const uint64_t per_round = ispp.cycles_per_iteration();
  ASSERT_EQ(per_round, 300u);  // 100 ns pulse + 200 ns verify at 1 GHz
  std::vector<uint64_t> want;  // per block, the sum of its rows' times
  for (const auto& r : rects)
    for (uint32_t i = 0; i < r.rows; ++i) {
      if (i % fw::kKernelBlockRows == 0) want.push_back(0);
      int rounds = 0;
      for (uint32_t j = 0; j < r.cols; ++j)
        rounds = std::max(rounds, ispp.analytic_pulses(0.0, r.levels[i * r.cols + j], run.cfg.device.step_levels_mean, 3).pulses);
      want.back() += static_cast<uint64_t>(rounds) * per_round;
    }
  ASSERT_EQ(want.size(), 3u);
  ASSERT_EQ(run.trace.blocks.size(), want.size());
  EXPECT_EQ(run.trace.xprogs.size(), 0u);
  uint64_t sum = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(run.trace.blocks[i].end - run.trace.blocks[i].start, want[i]) << "block " << i;
    EXPECT_EQ(run.trace.blocks[i].cluster, 0);
    sum += want[i];
  }
  // The crossbar unit of core 0 is busy exactly for the rows plus three
  // one-cycle xstat reads per block; deploy adds only the rows' fetches.
  const auto& st = run.chip->core(0).core().stats();
  EXPECT_EQ(st.unit_busy[static_cast<size_t>(isa::Unit::Crossbar)], sum + 3 * want.size());
  const uint64_t deploy = run.report.t_load - run.report.t_deploy;
  EXPECT_GE(deploy, sum);
  EXPECT_LE(deploy, sum + 250 * (64 + 10) + 2000) << "deploy " << deploy << " analytic " << sum;
}

// The kernel's blocks of whole rows stay below the model's own data in the
// scratchpad (the host writes it before the firmware runs): a word five
// packed rows above the row buffer (64 cells of 2 bits: 16 bytes a row)
// makes blocks of five rows (16 rows: 5, 5, 5, 1), and the word is there
// after deployment. A word inside the first row of byte levels (what a
// partial row needs) leaves no room: the model is refused at load, naming
// the core and the addresses, instead of losing the word. (One chip per
// test.)
std::string with_word_at(const std::vector<Rect>& rects, uint64_t at) {
  return model_source(rects) + ".core 0, 0\n    halt\n.data local, " + std::to_string(at) + "\n    .word 305419896\n";
}
TEST(FirmwareDeploy, BlocksStayBelowTheModelsOwnScratchpadData) {
  const auto rects = make_rects({{0, 0, 0, 0, 0, 16, 64, {}}}, 5);
  const uint64_t at = fw::kKernelRowBuffer + 5 * 64 * 2 / 8;
  FwRun run(with_word_at(rects, at), kDeterministic);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  EXPECT_EQ(run.trace.blocks.size(), 4u);
  EXPECT_EQ(run.trace.xprogs.size(), 0u);
  EXPECT_EQ(run.chip->core(0).core().scratchpad().load32(at), 305419896);
  EXPECT_EQ(run.report.rows, 16u);
  EXPECT_EQ(run.report.pulses, analytic(rects, run.cfg).pulses);
}
TEST(FirmwareErrors, ScratchpadDataInTheKernelsRowBufferIsRefused) {
  const auto rects = make_rects({{0, 0, 0, 0, 0, 16, 64, {}}}, 5);
  try {
    FwRun run(with_word_at(rects, fw::kKernelRowBuffer + 32), kDeterministic);
    FAIL() << "loaded";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("core 0 deploys cell programs"), std::string::npos) << what;
    EXPECT_NE(what.find("at or above 320"), std::string::npos) << what;
  }
}

TEST(FirmwareDeploy, ANoisyDeviceLeavesEveryConvergedCellInsideItsWindow) {
  const auto rects = make_rects({{0, 0, 0, 0, 0, 64, 64, {}}, {1, 1, 2, 0, 0, 32, 64, {}}}, 11);
  FwRun run(model_source(rects), {"ispp.keep_residual=true", "device.step_levels_sigma=0.08"});
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const double tol = run.cfg.ispp.tolerance_levels;
  uint64_t outside = 0, off_target = 0;
  for (const auto& r : rects) {
    const hw::Crossbar& xb = run.chip->crossbars().at(run.xbar_id(r));
    for (uint32_t i = 0; i < r.rows; ++i)
      for (uint32_t j = 0; j < r.cols; ++j) {
        const double level = xb.level(static_cast<int>(r.row0 + i), static_cast<int>(r.col0 + j));
        const double target = r.levels[i * r.cols + j];
        if (std::fabs(level - target) > tol + 1e-6) outside++;
        if (level != target) off_target++;
      }
  }
  EXPECT_GT(off_target, 1000u);  // the residual is kept: levels are not snapped to target
  EXPECT_EQ(outside, run.report.failed_cells);
  EXPECT_GT(run.report.pulses, 0u);
}

TEST(FirmwareErrors, AModelForABiggerChipStopsAtBoot) {
  FwRun run(model_source(make_rects({{0, 0, 0, 0, 0, 2, 64, {}}}, 1), ".chip clusters=8, rows=64, cols=64\n"), {});
  ASSERT_EQ(run.result.status, hw::RunStatus::Trap);
  EXPECT_EQ(run.result.trap_code, fw::kErrClusters);
  EXPECT_EQ(run.report.code, fw::kErrClusters);
  EXPECT_EQ(run.report.phase, fw::kPhaseBoot);
  EXPECT_EQ(platform::firmware_error_message(run.result.trap_code, run.report),
            "firmware: the model needs 8 clusters, the chip has 4 (ERR_CLUSTERS)");
  EXPECT_EQ(run.chip->crossbars().stats().rows_programmed, 0u);
}

TEST(FirmwareErrors, OtherCrossbarRowsStopAtBoot) {
  FwRun run(".chip rows=128\n", {});
  ASSERT_EQ(run.result.status, hw::RunStatus::Trap);
  EXPECT_EQ(run.result.trap_code, fw::kErrRows);
  EXPECT_NE(platform::firmware_error_message(run.result.trap_code, run.report).find("128 rows, the chip's have 64"),
            std::string::npos);
}

TEST(FirmwareErrors, ACorruptBootBlockIsRefused) {
  FwRun run(model_source(make_rects({{0, 0, 0, 0, 0, 2, 64, {}}}, 1)), {}, {},
            [](hw::Chip& chip, const platform::ModelImage&) {
              chip.global_memory().data()[fw::kBootAddress] ^= 0xFF;
            });
  ASSERT_EQ(run.result.status, hw::RunStatus::Trap);
  EXPECT_EQ(run.result.trap_code, fw::kErrBootBlock);
  EXPECT_NE(platform::firmware_error_message(run.result.trap_code, run.report).find("ERR_BOOT_BLOCK"),
            std::string::npos);
}

TEST(FirmwareErrors, ACellProgramOutsideTheCrossbarStopsDeploy) {
  FwRun run(model_source(make_rects({{0, 0, 0, 0, 0, 2, 64, {}}}, 1)), {}, {},
            [](hw::Chip& chip, const platform::ModelImage&) {
              uint8_t* boot = chip.global_memory().data() + fw::kBootAddress;
              uint32_t cells = 0;
              std::memcpy(&cells, boot + fw::kCell, 4);
              const uint32_t rows = 65;  // one more than the crossbar has
              std::memcpy(chip.global_memory().data() + cells + 12, &rows, 4);
            });
  ASSERT_EQ(run.result.status, hw::RunStatus::Trap);
  EXPECT_EQ(run.result.trap_code, fw::kErrCells);
  EXPECT_EQ(run.chip->crossbars().stats().rows_programmed, 0u);
}

TEST(FirmwareImage, NoDeployLeavesTheLevelsToThePlatform) {
  const auto rects = mixed_rects();
  platform::ImageOptions opt;
  opt.deploy = false;
  FwRun run(model_source(rects), kDeterministic, opt);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  EXPECT_TRUE(run.trace.xprogs.empty());
  EXPECT_EQ(run.report.t_deploy, 0u);
  EXPECT_EQ(run.image.preload_pulses, analytic(rects, run.cfg).pulses);
  std::vector<uint8_t> row(64);
  run.chip->crossbars().read_row(run.xbar_id(rects[0]), 3, row.data());
  EXPECT_EQ(std::vector<uint8_t>(rects[0].levels.begin() + 3 * 64, rects[0].levels.begin() + 4 * 64), row);
}

// The firmware starts the CUs in the order of the program table, and the
// host puts each CU's program there by the first layer it marks (`layer`),
// so a pipeline's head starts first; unmarked programs come after, in core
// order. In core order the table would start (0,0) first.
TEST(FirmwareImage, CusStartInTheOrderOfTheirFirstLayer) {
  const std::string source = ".chip rows=64, cols=64\n"
                             ".core 0, 0\n    layer 3\n    halt\n"
                             ".core 0, 1\n    layer 1\n    layer 4\n    halt\n"
                             ".core 1, 1\n    nop\n    halt\n"
                             ".core 1, 0\n    li r1, 5\n    layer 2\n    halt\n";
  FwRun run(source, kDeterministic);
  ASSERT_EQ(run.result.status, hw::RunStatus::Completed) << run.result.message;
  const auto at = [&](int32_t cluster, int32_t cu) {
    const auto it = run.trace.first_issue.find({cluster, cu});
    EXPECT_NE(it, run.trace.first_issue.end()) << "core " << cluster << "," << cu << " never ran";
    return it == run.trace.first_issue.end() ? uint64_t{0} : it->second;
  };
  EXPECT_LT(at(0, 1), at(1, 0));
  EXPECT_LT(at(1, 0), at(0, 0));
  EXPECT_LT(at(0, 0), at(1, 1));
}

// boot_block.inc (the firmware's view) and model_image.h (the host's) agree.
TEST(FirmwareImage, BootBlockIncludeMatchesTheHostLayout) {
  std::ifstream in(env_or("VP_SOURCE_DIR", ".") + "/firmware/boot_block.inc");
  ASSERT_TRUE(in) << "cannot open firmware/boot_block.inc";
  std::map<std::string, int64_t> equ;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string dir, name, value;
    if (!(s >> dir) || dir != ".equ") continue;
    std::getline(s, name, ',');
    s >> value;
    name.erase(0, name.find_first_not_of(' '));
    equ[name] = std::stoll(value, nullptr, 0);
  }
  const std::pair<const char*, int64_t> want[] = {
      {"BOOT", fw::kBootAddress}, {"BB_MAGIC_VALUE", fw::kMagic}, {"BB_VERSION_VALUE", fw::kVersion},
      {"BB_SIZE", fw::kBootSize}, {"ST_SIZE", fw::kStatusSize}, {"FLAG_DEPLOY", fw::kFlagDeploy},
      {"BB_CLUSTERS", fw::kClusters}, {"BB_CUS", fw::kCus}, {"BB_XBARS", fw::kXbars}, {"BB_ROWS", fw::kRows},
      {"BB_COLS", fw::kCols}, {"BB_FLAGS", fw::kFlags}, {"BB_NPROG", fw::kNProg}, {"BB_PROG", fw::kProg},
      {"BB_NCELL", fw::kNCell}, {"BB_CELL", fw::kCell}, {"BB_NDCORE", fw::kNDCore}, {"BB_DCORES", fw::kDCores},
      {"BB_DEPLOY", fw::kDeploy}, {"BB_KERNEL", fw::kKernel}, {"BB_KWORDS", fw::kKWords}, {"BB_NIN", fw::kNIn},
      {"BB_IN", fw::kIn}, {"BB_NOUT", fw::kNOut}, {"BB_OUT", fw::kOut}, {"BB_BATCH", fw::kBatch},
      {"BB_BIN", fw::kBin}, {"BB_BIN_STRIDE", fw::kBinStride}, {"BB_BOUT", fw::kBout},
      {"BB_BOUT_STRIDE", fw::kBoutStride}, {"BB_STATUS", fw::kStatus}, {"BB_TIMES", fw::kTimes},
      {"BB_RESULTS", fw::kResults}, {"BB_RETRIES", fw::kRetries}, {"CELL_REC", fw::kCellRecord},
      {"CELL_PACKED", fw::kCellPackedField}, {"PROG_REC", fw::kProgRecord}, {"DEPLOY_REC", fw::kDeployRecord},
      {"DEPLOY_MAX_BLOCK", fw::kKernelBlockRows}, {"IO_REC", fw::kIoRecord}, {"CP_PROGS", fw::kCpProgramCache},
      {"IO_INDIRECT", fw::kIoIndirect},
      {"RES_REC", fw::kResultRecord},
      {"ST_CODE", fw::kCode}, {"ST_PHASE", fw::kPhase}, {"ST_DETAIL0", fw::kDetail0}, {"ST_DETAIL1", fw::kDetail1},
      {"ST_T_BOOT", fw::kTBoot}, {"ST_T_DEPLOY", fw::kTDeploy}, {"ST_T_LOAD", fw::kTLoad},
      {"ST_T_INFER", fw::kTInfer}, {"ST_T_END", fw::kTEnd}, {"ST_PULSES", fw::kPulses}, {"ST_FAILED", fw::kFailed},
      {"ST_RETRIES", fw::kRetriesDone}, {"ST_ROWS", fw::kRowsDone}, {"ST_DONE", fw::kDone},
      {"STATUS_DONE", fw::kStatusDone}, {"PHASE_DEPLOY", fw::kPhaseDeploy}, {"PHASE_DONE", fw::kPhaseDone},
      {"ERR_BOOT_BLOCK", fw::kErrBootBlock}, {"ERR_CLUSTERS", fw::kErrClusters}, {"ERR_CUS", fw::kErrCus},
      {"ERR_XBARS", fw::kErrXbars}, {"ERR_ROWS", fw::kErrRows}, {"ERR_COLS", fw::kErrCols},
      {"ERR_PROGRAM", fw::kErrProgram}, {"ERR_CELLS", fw::kErrCells}};
  for (const auto& [name, value] : want) {
    ASSERT_TRUE(equ.count(name)) << name << " missing from boot_block.inc";
    EXPECT_EQ(equ[name], value) << name;
  }
}

}  // namespace
}  // namespace vp
