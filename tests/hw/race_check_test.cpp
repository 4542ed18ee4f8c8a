// The race check (vp/hw/chip/race_check.h) on hand-made orders of accesses
// and synchronizations: each conflict is reported exactly when no message,
// barrier, start or halt orders the two accesses, whatever their cycles.
#include <gtest/gtest.h>

#include "vp/hw/chip/race_check.h"

namespace vp::hw {
namespace {

constexpr uint32_t kCp = 3;  // three cores and the control processor

RaceCheck::Site at(uint32_t p, uint64_t start, uint64_t end) {
  RaceCheck::Site s;
  s.participant = p;
  s.start = start;
  s.end = end;
  return s;
}

TEST(RaceCheck, AReadAfterAWriteNeedsAMessageSentOnceTheWriteHasLanded) {
  {  // no message: a race, however late the read
    RaceCheck rc(4);
    rc.access(at(0, 10, 50), -1, 1000, 64, true);
    rc.access(at(1, 9000, 9100), -1, 1000, 64, false);
    ASSERT_EQ(rc.races(), 1u);
    EXPECT_EQ(rc.first_races()[0].kind, RaceCheck::Kind::ReadAfterWrite);
    EXPECT_EQ(rc.first_races()[0].access.participant, 1u);
    EXPECT_EQ(rc.first_races()[0].earlier.participant, 0u);
  }
  {  // the token sent after the write landed, taken before the read
    RaceCheck rc(4);
    rc.access(at(0, 10, 50), -1, 1000, 64, true);
    rc.send(0, 1, 7, 60);
    rc.recv(1, 0, 7);
    rc.access(at(1, 200, 300), -1, 1000, 64, false);
    EXPECT_EQ(rc.races(), 0u);
  }
  {  // the token sent while the write was still in flight covers nothing
    RaceCheck rc(4);
    rc.access(at(0, 10, 50), -1, 1000, 64, true);
    rc.send(0, 1, 7, 40);
    rc.recv(1, 0, 7);
    rc.access(at(1, 200, 300), -1, 1000, 64, false);
    EXPECT_EQ(rc.races(), 1u);
  }
  {  // a token on another tag, or from another core, orders nothing
    RaceCheck rc(4);
    rc.access(at(0, 10, 50), -1, 1000, 64, true);
    rc.send(0, 1, 7, 60);
    rc.send(2, 1, 8, 60);
    rc.recv(1, 2, 8);
    rc.access(at(1, 200, 300), -1, 1000, 64, false);
    EXPECT_EQ(rc.races(), 1u);
  }
}

TEST(RaceCheck, AnOverwriteNeedsTheReleasesOfEveryReaderSinceTheLastWrite) {
  RaceCheck rc(4);
  rc.access(at(0, 0, 10), -1, 0, 256, true);
  rc.send(0, 1, 1, 20);
  rc.send(0, 2, 1, 20);
  rc.recv(1, 0, 1);
  rc.recv(2, 0, 1);
  rc.access(at(1, 30, 40), -1, 0, 128, false);
  rc.access(at(2, 30, 45), -1, 128, 128, false);
  EXPECT_EQ(rc.races(), 0u);
  // Core 1 releases its half; core 2 has not: overwriting core 1's half is
  // fine, the whole is not.
  rc.send(1, 0, 2, 50);
  rc.recv(0, 1, 2);
  rc.access(at(0, 60, 70), -1, 0, 128, true);
  EXPECT_EQ(rc.races(), 0u);
  rc.access(at(0, 80, 90), -1, 64, 128, true);
  ASSERT_EQ(rc.races(), 1u);
  const RaceCheck::Race& r = rc.first_races()[0];
  EXPECT_EQ(r.kind, RaceCheck::Kind::WriteAfterRead);
  EXPECT_EQ(r.earlier.participant, 2u);
  EXPECT_EQ(r.lo, 128u);  // the part core 2 read
  EXPECT_EQ(r.hi, 192u);
}

TEST(RaceCheck, AccessesInFlightTogetherRaceAndTheSameCoreNeverDoes) {
  RaceCheck rc(4);
  rc.access(at(0, 0, 100), -1, 0, 64, true);
  rc.access(at(0, 50, 60), -1, 0, 64, false);   // its own write: ordered by its scoreboard
  rc.access(at(0, 70, 90), -1, 32, 64, true);
  EXPECT_EQ(rc.races(), 0u);
  rc.access(at(1, 80, 120), -1, 0, 8, false);  // while core 0's write is in flight
  EXPECT_EQ(rc.races(), 1u);
}

TEST(RaceCheck, ClusterSramsAreSpacesOfTheirOwn) {
  RaceCheck rc(4);
  rc.access(at(0, 0, 10), 0, 4096, 64, true);
  rc.access(at(1, 100, 110), 1, 4096, 64, false);   // the same offset in another cluster's SRAM
  rc.access(at(1, 100, 110), -1, 4096, 64, false);  // and in global memory
  EXPECT_EQ(rc.races(), 0u);
  rc.access(at(1, 100, 110), 0, 4100, 4, false);
  EXPECT_EQ(rc.races(), 1u);
  EXPECT_TRUE(rc.first_races()[0].sram);
  EXPECT_NE(RaceCheck::describe(rc.first_races()[0]).find("cluster 0's SRAM"), std::string::npos);
}

TEST(RaceCheck, StartsHaltsAndBarriersOrderToo) {
  RaceCheck rc(4);
  // The control processor writes the input, then starts core 0.
  rc.access(at(kCp, 0, 100), -1, 0, 64, true);
  rc.start(kCp, 0, 120);
  rc.access(at(0, 200, 250), -1, 0, 64, false);
  // Core 0 writes its output and halts; the control processor reads it
  // only after waiting for the halt.
  rc.access(at(0, 300, 350), -1, 512, 64, true);
  rc.halt(0, 360);
  rc.waited(kCp, 0);
  rc.access(at(kCp, 400, 450), -1, 512, 64, false);
  EXPECT_EQ(rc.races(), 0u);
  // Cores 1 and 2 meet at a barrier: what either wrote before, the other
  // may read after.
  rc.access(at(1, 500, 550), -1, 2048, 16, true);
  rc.barrier_arrive(1, 5, 2, 560);
  rc.barrier_arrive(2, 5, 2, 600);
  rc.barrier_leave(1, 5);
  rc.barrier_leave(2, 5);
  rc.access(at(2, 700, 720), -1, 2048, 16, false);
  EXPECT_EQ(rc.races(), 0u);
  // A start before the write does not order it.
  rc.start(kCp, 1, 800);
  rc.access(at(kCp, 900, 1000), -1, 4096, 8, true);
  rc.access(at(1, 1100, 1200), -1, 4096, 8, false);
  EXPECT_EQ(rc.races(), 1u);
}

TEST(RaceCheck, TheReportNamesBothCoresTheirLayersAndTheBytes) {
  RaceCheck rc(4);
  RaceCheck::Site w = at(0, 10, 50), r = at(2, 900, 950);
  w.pc = 17;
  w.layer = 3;
  r.pc = 40;
  r.layer = 4;
  rc.access(w, -1, 4096, 32, true);
  rc.access(r, -1, 4104, 8, false);
  ASSERT_EQ(rc.races(), 1u);
  const std::map<uint32_t, std::string> names{{3, "/stem/Conv"}, {4, "/pool/MaxPool"}};
  EXPECT_EQ(RaceCheck::describe(rc.first_races()[0], &names),
            "core 2 (pc 40, layer 4 /pool/MaxPool) reads global [4104, 4112) at cycle 900, written by core 0 (pc 17, "
            "layer 3 /stem/Conv) until cycle 50 with no message, barrier or start between them (read-after-write race)");
  EXPECT_NE(RaceCheck::describe(rc.first_races()[0]).find("(pc 40, layer 4)"), std::string::npos);
}

TEST(RaceCheck, ReadOnlyBytesAreNotRecordedAndAWriteIntoThemIsReported) {
  RaceCheck rc(4);
  rc.read_only(-1, 1000, 2000);
  rc.access(at(0, 10, 20), -1, 1000, 64, false);   // inside: counted, not recorded
  rc.access(at(0, 10, 20), -1, 1990, 20, false);   // crosses the end: recorded
  rc.access(at(0, 10, 20), 0, 1000, 64, false);    // cluster 0's SRAM is another space
  EXPECT_EQ(rc.accesses(), 3u);
  EXPECT_EQ(rc.races(), 0u);
  // Only the read-only report, not also a write-after-read with core 0's
  // read, which was never recorded.
  rc.access(at(1, 500, 510), -1, 1010, 16, true);
  ASSERT_EQ(rc.races(), 1u);
  EXPECT_EQ(rc.first_races()[0].kind, RaceCheck::Kind::WriteOfReadOnly);
  EXPECT_EQ(rc.first_races()[0].lo, 1010u);
  EXPECT_EQ(rc.first_races()[0].hi, 1026u);
  EXPECT_NE(RaceCheck::describe(rc.first_races()[0]).find("core 1 (pc 0) writes global [1010, 1026) at cycle 500, "
                                                          "which the host loaded as read-only"),
            std::string::npos);
  // The recorded reads race as ever with unordered writes after them.
  rc.access(at(2, 600, 610), -1, 2000, 16, true);
  rc.access(at(2, 600, 610), 0, 1000, 8, true);
  EXPECT_EQ(rc.races(), 3u);
  EXPECT_EQ(rc.first_races()[1].kind, RaceCheck::Kind::WriteAfterRead);
  EXPECT_EQ(rc.first_races()[2].kind, RaceCheck::Kind::WriteAfterRead);
}

TEST(RaceCheck, KeepsTheFirstRacesAndCountsTheRest) {
  RaceCheck rc(4, 2);
  rc.access(at(0, 0, 10), -1, 0, 1024, true);
  for (uint64_t k = 0; k < 5; ++k) rc.access(at(1, 100, 110), -1, 64 * k, 8, false);
  EXPECT_EQ(rc.races(), 5u);
  EXPECT_EQ(rc.first_races().size(), 2u);
  EXPECT_EQ(rc.accesses(), 6u);
}

}  // namespace
}  // namespace vp::hw
