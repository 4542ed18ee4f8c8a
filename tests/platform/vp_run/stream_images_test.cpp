// When each image of a stream has its result (stream_images.h): global
// memory's marks of the writes into the output bindings, attributed to
// the firmware's starts and to each image's slots, and the steady period.
#include <gtest/gtest.h>

#include <vector>

#include "vp/platform/stream_images.h"

namespace {

using Mark = vp::hw::SharedMemory::WriteMark;
using vp::platform::image_done_cycles;
using vp::platform::OutputSlots;
using vp::platform::steady_period;

TEST(StreamImages, EachImageTakesItsLastWriteWithinItsStart) {
  // Two outputs of 4 images (16 and 8 bytes an image), two starts.
  const std::vector<OutputSlots> outs = {{1000, 16}, {2000, 8}};
  const std::vector<std::pair<uint64_t, uint64_t>> starts = {{100, 900}, {1000, 1900}};
  const std::vector<Mark> marks = {
      {1000, 16, 300},  // image 0 of output 0
      {2000, 8, 350},   // image 0 of output 1: the later one counts
      {1016, 32, 500},  // images 1 and 2 of output 0 at once
      {2008, 8, 450},   // image 1 of output 1
      {2016, 8, 520},   // image 2 of output 1
      {1048, 16, 600},  // image 3
      {2024, 8, 610},
      {3000, 64, 700},  // not an output slot
      {1000, 16, 950},  // between the starts: neither's
      {1008, 8, 1200},  // part of image 0, second start
      {2000, 8, 1150},
  };
  const auto done = image_done_cycles(marks, outs, 4, starts);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0], (std::vector<uint64_t>{250, 400, 420, 510}));
  // The second start wrote only image 0.
  EXPECT_EQ(done[1], (std::vector<uint64_t>{200, 0, 0, 0}));
}

TEST(StreamImages, APeriodIsTheMiddleHalfsCyclesPerImage) {
  // Filling (slow) and draining (fast) images around a steady 100 cycles
  // that jitter by 30: from image 2 to image 6 (n/4 to 3n/4) the steady
  // figure, where the mean or the median of all gaps would not be (132.9
  // and 130).
  const std::vector<uint64_t> row = {900, 1200, 1400, 1530, 1600, 1730, 1800, 1830};
  EXPECT_DOUBLE_EQ(steady_period({row}), 100.0);
  // Averaged over the starts.
  const std::vector<uint64_t> other = {500, 550, 600, 650, 700, 750, 800, 850};
  EXPECT_DOUBLE_EQ(steady_period({row, other}), 75.0);
}

TEST(StreamImages, NoPeriodWithoutAWholeMiddleHalf) {
  EXPECT_EQ(steady_period({}), 0);
  EXPECT_EQ(steady_period({{100, 200, 300}}), 0);                       // under 4 images
  EXPECT_EQ(steady_period({{100, 200, 0, 400, 500, 600, 700, 800}}), 0);  // image 2 never written
  EXPECT_EQ(steady_period({{100, 200, 350, 300, 500, 600, 700, 800}}), 0);  // image 3 before image 2
  // The images outside the middle half may be missing.
  EXPECT_DOUBLE_EQ(steady_period({{0, 200, 300, 400, 500, 600, 700, 0}}), 100.0);
}

}  // namespace
