#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>

#include "vp/hw/noc/bandwidth_channel.h"

namespace vp::hw::noc {
namespace {

// 12.8 bytes/cycle = 64 bytes every 5 cycles: occupancy = ceil(bytes * 5 / 64).
std::uint64_t occ_12_8(std::uint64_t bytes) { return (bytes * 5 + 63) / 64; }

BandwidthChannelConfig cfg(Cycle latency, double bpc) {
  BandwidthChannelConfig c;
  c.name = "test";
  c.latency_cycles = latency;
  c.bytes_per_cycle = bpc;
  return c;
}

TEST(BandwidthChannel, OneTransferEqualsFormula) {
  BandwidthChannel ch(cfg(10, 12.8));
  EXPECT_EQ(ch.rate(), (Rational{64, 5}));
  const ChannelTransfer t = ch.transfer(100, 3);
  EXPECT_EQ(t.start_cycle, 3u);
  EXPECT_EQ(t.occupancy_cycles, 8u);  // 7.8125 rounded up
  EXPECT_EQ(t.end_cycle, 3u + 10u + 8u);
  EXPECT_EQ(t.latency(), 18u);
  EXPECT_EQ(ch.free_at(), 11u);
  EXPECT_EQ(ch.unloaded_latency(100), 18u);
  for (std::uint64_t bytes : {0u, 1u, 12u, 13u, 64u, 65u, 640u, 100000u}) {
    BandwidthChannel fresh(cfg(10, 12.8));
    EXPECT_EQ(fresh.transfer(bytes, 0).end_cycle, 10 + occ_12_8(bytes)) << bytes;
  }
}

TEST(BandwidthChannel, IntegerBandwidth) {
  BandwidthChannel sram(cfg(2, 64.0));
  EXPECT_EQ(sram.transfer(64, 0).end_cycle, 3u);
  EXPECT_EQ(sram.transfer(65, 0).end_cycle, 1u + 2u + 2u);  // waits 1, then 2 beats
  BandwidthChannel slow(cfg(0, 0.5));  // 2 cycles per byte
  EXPECT_EQ(slow.transfer(3, 0).end_cycle, 6u);
}

TEST(BandwidthChannel, BackToBackTransfersSerializeButPipelineTheLatency) {
  BandwidthChannel ch(cfg(10, 12.8));
  const ChannelTransfer a = ch.transfer(100, 0);
  const ChannelTransfer b = ch.transfer(100, 0);
  const ChannelTransfer c = ch.transfer(100, 0);
  EXPECT_EQ(a.start_cycle, 0u);
  EXPECT_EQ(b.start_cycle, 8u);
  EXPECT_EQ(c.start_cycle, 16u);
  EXPECT_EQ(a.end_cycle, 18u);
  EXPECT_EQ(b.end_cycle, 26u);  // one occupancy after a, not one latency
  EXPECT_EQ(c.end_cycle, 34u);
  // A transfer ready after the channel frees does not wait.
  const ChannelTransfer d = ch.transfer(64, 100);
  EXPECT_EQ(d.start_cycle, 100u);
  EXPECT_EQ(d.end_cycle, 115u);
  const ChannelStats& s = ch.stats();
  EXPECT_EQ(s.bytes, 364u);
  EXPECT_EQ(s.transfers, 4u);
  EXPECT_EQ(s.busy_cycles, 8u * 3 + 5u);
  EXPECT_EQ(s.wait_cycles, 8u + 16u);
  EXPECT_EQ(s.last_end_cycle, 115u);
  ch.reset();
  EXPECT_EQ(ch.free_at(), 0u);
  EXPECT_EQ(ch.stats().transfers, 0u);
}

// Requests come from loosely-timed cores out of cycle order: one ready
// earlier than a reservation made before it takes the gap in front of it
// when its beats fit there, and the first gap after that otherwise; it is
// never queued behind a transfer that became ready later.
TEST(BandwidthChannel, EarlierRequestsBackFillGaps) {
  BandwidthChannel ch(cfg(10, 1.0));       // one byte per cycle
  EXPECT_EQ(ch.transfer(50, 1000).start_cycle, 1000u);  // [1000, 1050)
  EXPECT_EQ(ch.transfer(20, 1100).start_cycle, 1100u);  // [1100, 1120)
  const ChannelTransfer early = ch.transfer(100, 0);    // fits before 1000
  EXPECT_EQ(early.start_cycle, 0u);
  EXPECT_EQ(early.end_cycle, 110u);
  // 60 beats from 960: not before 1000 (only 40 free), not in [1050, 1100)
  // (50 free): after 1120.
  EXPECT_EQ(ch.transfer(60, 960).start_cycle, 1120u);
  // 50 beats from 1040 fit [1050, 1100) exactly.
  EXPECT_EQ(ch.transfer(50, 1040).start_cycle, 1050u);
  EXPECT_EQ(ch.free_at(), 1180u);
  EXPECT_EQ(ch.stats().wait_cycles, (1120u - 960u) + (1050u - 1040u));
  // Past reservations are forgotten once no request can be ready before
  // them; what is left still blocks.
  ch.advance(1100);
  EXPECT_EQ(ch.transfer(10, 1100).start_cycle, 1180u);
  ch.reset();
  EXPECT_EQ(ch.transfer(10, 0).start_cycle, 0u);
}

// Bytes moved divided by the cycles the channel was busy is the configured
// bandwidth: exactly when every transfer is a whole number of beats, and
// within one cycle of rounding per transfer otherwise.
TEST(BandwidthChannel, MeasuredBandwidthEqualsConfigured) {
  {
    BandwidthChannel ch(cfg(40, 12.8));
    const int n = 1000;
    for (int i = 0; i < n; ++i) ch.transfer(640, 0);
    EXPECT_EQ(ch.free_at(), static_cast<Cycle>(n) * 50);
    EXPECT_DOUBLE_EQ(static_cast<double>(ch.stats().bytes) / static_cast<double>(ch.free_at()), 12.8);
    // The last transfer ends one latency after the last beat.
    EXPECT_EQ(ch.stats().last_end_cycle, ch.free_at() + 40);
  }
  {
    BandwidthChannel ch(cfg(40, 12.8));
    std::mt19937 rng(1);
    const int n = 5000;
    for (int i = 0; i < n; ++i) ch.transfer(1 + rng() % 4096, 0);
    const double ideal = static_cast<double>(ch.stats().bytes) / 12.8;
    const double busy = static_cast<double>(ch.free_at());
    EXPECT_GE(busy, ideal);
    EXPECT_LE(busy, ideal + n);
    EXPECT_NEAR(static_cast<double>(ch.stats().bytes) / busy, 12.8, 12.8 * n / ideal);
  }
  {
    // 25.6 GB/s at 1.2 GHz = 21.333... bytes/cycle, held as 64/3.
    BandwidthChannel ch(gmem_channel_config(0, 25.6, 1200));
    EXPECT_EQ(ch.rate(), (Rational{64, 3}));
    for (int i = 0; i < 300; ++i) ch.transfer(64, 0);
    EXPECT_EQ(ch.free_at(), 900u);
  }
}

TEST(BandwidthChannel, GmemConfigConvertsUnits) {
  const BandwidthChannelConfig c = gmem_channel_config(100.0, 64.0, 1000.0);
  EXPECT_EQ(c.name, "gmem");
  EXPECT_EQ(c.latency_cycles, 100u);
  EXPECT_DOUBLE_EQ(c.bytes_per_cycle, 64.0);
  const BandwidthChannelConfig d = gmem_channel_config(50.0, 6.4, 1200.0, "hbm");
  EXPECT_EQ(d.name, "hbm");
  EXPECT_EQ(d.latency_cycles, 60u);
  BandwidthChannel ch(d);
  EXPECT_EQ(ch.rate(), (Rational{16, 3}));  // 6.4e9 / 1.2e9
  EXPECT_EQ(ch.occupancy(16), 3u);
  EXPECT_THROW(gmem_channel_config(100.0, 0.0, 1000.0), std::invalid_argument);
  EXPECT_THROW(gmem_channel_config(100.0, 64.0, 0.0), std::invalid_argument);
  EXPECT_THROW(gmem_channel_config(-1.0, 64.0, 1000.0), std::invalid_argument);
}

TEST(BandwidthChannel, RejectsNonPositiveBandwidth) {
  EXPECT_THROW(BandwidthChannel(cfg(1, 0.0)), std::invalid_argument);
  EXPECT_THROW(BandwidthChannel(cfg(1, -3.0)), std::invalid_argument);
}

}  // namespace
}  // namespace vp::hw::noc
