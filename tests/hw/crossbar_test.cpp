#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <cmath>
#include <limits>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/non_ideality.h"

namespace {

using vp::hw::CellFault;
using vp::hw::Crossbar;
using vp::hw::CrossbarConfig;

TEST(Crossbar, StartsAtInitialLevelWithoutFaults) {
  Crossbar xb(4, 6, 2, 1.0f);
  EXPECT_EQ(xb.rows(), 4);
  EXPECT_EQ(xb.cols(), 6);
  EXPECT_EQ(xb.max_level(), 3);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) EXPECT_FLOAT_EQ(xb.level(r, c), 1.0f);
  EXPECT_FALSE(xb.has_faults());
  EXPECT_EQ(xb.row_faults(0), nullptr);
  EXPECT_EQ(xb.non_ideality(), nullptr);
}

TEST(Crossbar, StorageIsOneContiguousRowMajorArray) {
  Crossbar xb(3, 5, 2);
  xb.set_level(2, 4, 2.5f);
  xb.set_level(1, 0, 1.25f);
  EXPECT_EQ(xb.levels()[2 * 5 + 4], 2.5f);
  EXPECT_EQ(xb.row_levels(1), xb.levels() + 5);
  EXPECT_EQ(xb.row_levels(1)[0], 1.25f);
}

TEST(Crossbar, ExactProgrammingSetsTargetsAndLevels) {
  Crossbar xb(CrossbarConfig{});
  const std::vector<std::uint8_t> t = {0, 1, 2, 3, 3, 2};
  xb.program_row_exact(10, 100, t.data(), 6);
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(xb.target(10, 100 + i), t[static_cast<std::size_t>(i)]);
    EXPECT_FLOAT_EQ(xb.level(10, 100 + i), t[static_cast<std::size_t>(i)]);
  }
  EXPECT_FLOAT_EQ(xb.level(10, 99), 0.0f);
  EXPECT_FLOAT_EQ(xb.level(11, 100), 0.0f);
}

// An exact analog state is not stored: after compact() the levels read as
// the targets, and every later write starts from them, so what a row
// holds never depends on whether the array was compacted.
TEST(Crossbar, CompactDropsOnlyAnExactStateAndWritesRestoreIt) {
  Crossbar xb(4, 8, 2);
  EXPECT_FALSE(xb.stores_levels());  // level 0 everywhere is the target 0
  const std::vector<std::uint8_t> t0 = {0, 1, 2, 3, 3, 2, 1, 0}, t1 = {3, 3, 3, 3, 0, 0, 0, 0};
  xb.program_row_exact(1, 0, t0.data(), 8);
  ASSERT_TRUE(xb.compact());
  EXPECT_FALSE(xb.stores_levels());
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(xb.level(1, c), static_cast<float>(t0[static_cast<std::size_t>(c)]));
    EXPECT_EQ(xb.read_level(1, c), t0[static_cast<std::size_t>(c)]);
  }
  EXPECT_EQ(xb.levels()[8 + 2], 2.0f);  // asking for the array stores it again
  // New targets without a write of the state (what the ISPP path does
  // first): the state is still the old targets, now inexact.
  ASSERT_TRUE(xb.compact());
  xb.set_row_targets(1, 0, t1.data(), 8);
  EXPECT_EQ(xb.level(1, 0), 0.0f);
  EXPECT_EQ(xb.level(1, 4), 3.0f);
  EXPECT_FALSE(xb.levels_are_targets());
  EXPECT_FALSE(xb.compact());
  EXPECT_TRUE(xb.stores_levels());
  // An analog write, then exact again.
  xb.set_level(2, 3, 1.4f);
  EXPECT_EQ(xb.read_level(2, 3), 1);
  xb.program_row_exact(1, 0, t1.data(), 8);
  xb.set_level(2, 3, 0.0f);
  EXPECT_TRUE(xb.compact());
  EXPECT_EQ(xb.level(1, 0), 3.0f);
}

// A row read back at once is every cell read back: rounded half up and
// clamped to the levels, from the analog state or, compacted, the targets.
TEST(Crossbar, ARowReadBackIsEveryCellReadBack) {
  Crossbar xb(2, 12, 2);
  const float analog[12] = {-0.7f, -0.2f, 0.49f, 0.5f, 0.51f, 1.5f, 2.49f, 2.5f, 3.0f, 3.4f, 3.6f, 9.0f};
  for (int c = 0; c < 12; ++c) xb.set_level(0, c, analog[c]);
  std::uint8_t row[12];
  xb.read_row_levels(0, row);
  for (int c = 0; c < 12; ++c) EXPECT_EQ(row[c], xb.read_level(0, c)) << "column " << c;
  EXPECT_EQ(row[0], 0);
  EXPECT_EQ(row[3], 1);
  EXPECT_EQ(row[11], 3);
  // Just below and at the half steps, and far outside the levels.
  const float edges[12] = {-0.5f, -0.50001f, -1e30f, std::nextafter(0.5f, 0.0f), std::nextafter(1.5f, 0.0f), 2.5f,
                           std::nextafter(2.5f, 0.0f), 1e30f, -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::infinity(), 1.0f, 0.0f};
  for (int c = 0; c < 12; ++c) xb.set_level(1, c, edges[c]);
  xb.read_row_levels(1, row);
  for (int c = 0; c < 12; ++c) EXPECT_EQ(row[c], xb.read_level(1, c)) << "edge column " << c;
  const std::uint8_t t[12] = {0, 1, 2, 3, 3, 2, 1, 0, 1, 2, 3, 0};
  Crossbar exact(2, 12, 2);
  exact.program_row_exact(1, 0, t, 12);
  ASSERT_TRUE(exact.compact());
  exact.read_row_levels(1, row);
  for (int c = 0; c < 12; ++c) EXPECT_EQ(row[c], t[c]) << "column " << c;
  EXPECT_THROW(exact.read_row_levels(2, row), std::out_of_range);
}

TEST(Crossbar, RejectsOutOfRangeWrites) {
  Crossbar xb(8, 8, 2);
  const std::vector<std::uint8_t> t(4, 1);
  EXPECT_THROW(xb.program_row_exact(8, 0, t.data(), 4), std::out_of_range);
  EXPECT_THROW(xb.program_row_exact(0, 5, t.data(), 4), std::out_of_range);
  const std::vector<std::uint8_t> too_high(4, 4);  // 2-bit cells stop at 3
  EXPECT_THROW(xb.program_row_exact(0, 0, too_high.data(), 4), std::out_of_range);
  EXPECT_THROW(Crossbar(0, 8, 2), std::invalid_argument);
  EXPECT_THROW(Crossbar(8, 8, 9), std::invalid_argument);
}

TEST(Crossbar, ReadLevelRoundsAndClamps) {
  Crossbar xb(1, 4, 2);
  xb.set_level(0, 0, 1.49f);
  xb.set_level(0, 1, 1.5f);
  xb.set_level(0, 2, 3.4f);
  xb.set_level(0, 3, -0.3f);
  EXPECT_EQ(xb.read_level(0, 0), 1);
  EXPECT_EQ(xb.read_level(0, 1), 2);
  EXPECT_EQ(xb.read_level(0, 2), 3);
  EXPECT_EQ(xb.read_level(0, 3), 0);
  const auto block = xb.read_levels(0, 1, 1, 2);
  EXPECT_EQ(block, (std::vector<std::uint8_t>{2, 3}));
}

TEST(Crossbar, StuckCellsIgnoreWrites) {
  Crossbar xb(2, 4, 2);
  xb.set_fault(0, 1, CellFault::stuck_hrs);
  xb.set_fault(0, 2, CellFault::stuck_lrs);
  EXPECT_TRUE(xb.has_faults());
  EXPECT_EQ(xb.fault_count(), 2u);
  EXPECT_FLOAT_EQ(xb.level(0, 2), 3.0f);
  const std::vector<std::uint8_t> t = {2, 2, 2, 2};
  xb.program_row_exact(0, 0, t.data(), 4);
  EXPECT_FLOAT_EQ(xb.level(0, 0), 2.0f);
  EXPECT_FLOAT_EQ(xb.level(0, 1), 0.0f);
  EXPECT_FLOAT_EQ(xb.level(0, 2), 3.0f);
  EXPECT_FLOAT_EQ(xb.level(0, 3), 2.0f);
  EXPECT_EQ(xb.target(0, 1), 2);  // the intent is recorded, the cell does not follow
  xb.set_level(0, 1, 1.0f);
  EXPECT_FLOAT_EQ(xb.level(0, 1), 0.0f);
}

// The scan in blocks of 256 cells: a difference in any block, at either
// end of one, or in a short last block is found.
TEST(Crossbar, FindsALevelOffItsTargetAnywhere) {
  for (const auto& shape : {std::pair<int, int>{256, 256}, std::pair<int, int>{7, 300}}) {
    const int rows = shape.first;
    const int cols = shape.second;
    for (const int cell : {0, 255, 256, 511, 1000, rows * cols - 1}) {
      Crossbar xb(rows, cols, 2);
      std::vector<std::uint8_t> t(static_cast<std::size_t>(cols));
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>((r + c) % 4);
        xb.program_row_exact(r, 0, t.data(), cols);
      }
      EXPECT_TRUE(xb.levels_are_targets());
      const int r = cell / cols;
      const int c = cell % cols;
      xb.set_level(r, c, static_cast<float>(xb.target(r, c)) + 0.125f);
      EXPECT_FALSE(xb.levels_are_targets()) << rows << "x" << cols << " cell " << cell;
    }
  }
}

TEST(Crossbar, TracksWhetherLevelsEqualTargets) {
  Crossbar xb(4, 4, 2);
  EXPECT_TRUE(xb.levels_are_targets());  // all 0
  const std::vector<std::uint8_t> t = {1, 2, 3, 0};
  xb.program_row_exact(1, 0, t.data(), 4);
  EXPECT_TRUE(xb.levels_are_targets());
  xb.set_level(1, 2, 2.9f);
  EXPECT_FALSE(xb.levels_are_targets());
  xb.set_level(1, 2, 3.0f);
  EXPECT_TRUE(xb.levels_are_targets());
  xb.row_levels(3)[0] = 0.5f;
  EXPECT_FALSE(xb.levels_are_targets());
  xb.row_levels(3)[0] = 0.0f;
  EXPECT_TRUE(xb.levels_are_targets());
  xb.program_row_exact(2, 1, t.data(), 3);  // exact write on an exact array
  EXPECT_TRUE(xb.levels_are_targets());
  xb.set_level(0, 0, 0.25f);
  EXPECT_FALSE(xb.levels_are_targets());
  xb.program_row_exact(1, 0, t.data(), 4);  // does not repair row 0
  EXPECT_FALSE(xb.levels_are_targets());
  xb.program_row_exact(0, 0, std::vector<std::uint8_t>(4, 0).data(), 4);
  EXPECT_TRUE(xb.levels_are_targets());
  xb.set_fault(0, 0, CellFault::stuck_lrs);
  EXPECT_FALSE(xb.levels_are_targets());
  EXPECT_FALSE(Crossbar(2, 2, 2, 1.0f).levels_are_targets());
}

// A non-ideality sees fabrication and every write, through the crossbar.
struct CountingModel : vp::hw::NonIdeality {
  int fabricated = 0;
  int rows_written = 0;
  int last_begin = -1;
  int last_end = -1;
  void on_fabricate(Crossbar&) override { ++fabricated; }
  void on_program_row(Crossbar&, int, int b, int e) override {
    ++rows_written;
    last_begin = b;
    last_end = e;
  }
};

TEST(Crossbar, AttachedModelSeesFabricationAndWrites) {
  Crossbar xb(4, 8, 2);
  auto model = std::make_shared<CountingModel>();
  xb.attach(model);
  EXPECT_EQ(model->fabricated, 1);
  EXPECT_EQ(xb.non_ideality(), model.get());
  const std::vector<std::uint8_t> t(4 * 3, 1);
  xb.program_block_exact(0, 4, 2, 3, t.data());
  EXPECT_EQ(model->rows_written, 4);
  EXPECT_EQ(model->last_begin, 2);
  EXPECT_EQ(model->last_end, 5);
}

}  // namespace
