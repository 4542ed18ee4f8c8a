// A shared memory (global memory or a cluster SRAM) as a TLM-2.0 target: a
// transfer of B bytes ready at t starts at max(t, channel free) and ends
// latency + ceil(B / bytes per cycle) later; only the transfer time occupies
// the channel, so a second request's latency overlaps the first's data
// (docs/chip-model.md, Memories). Out-of-range accesses are address errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <vector>

#include "../sc_stimulus.h"
#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {
namespace {

// 20 cycles, 8 bytes per cycle.
noc::BandwidthChannelConfig channel() {
  noc::BandwidthChannelConfig c;
  c.name = "mem";
  c.latency_cycles = 20;
  c.bytes_per_cycle = 8;
  return c;
}

struct Bench {
  SharedMemory mem{"mem", 4096, channel()};
  test::Initiator port{"port"};
  Bench() { port.socket.bind(mem.socket); }
};

TEST(SharedMemory, TransfersQueueOnTheChannelAndOverlapTheirLatency) {
  Bench b;
  std::vector<uint8_t> data(64), back(64, 0), other(16, 0);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(200 - i);
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t, bool>> busy;
  b.mem.set_listener([&](uint64_t s, uint64_t e, uint64_t n, bool read) { busy.emplace_back(s, e, n, read); });
  test::Completion w, r, q;
  test::Script script("script", [&] {
    test::wait_until(10);
    w = b.port.transport(false, 100, data.data(), 64);   // channel 10 .. 18
    r = b.port.transport(true, 100, back.data(), 64);    // waits: 18 .. 26
    test::wait_until(200);
    q = b.port.transport(true, 4080, other.data(), 16);  // idle again, ends at the last byte
  });
  sc_core::sc_start();
  EXPECT_EQ(w.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(w.cycle, 10u + 20 + 8);
  EXPECT_EQ(r.cycle, 18u + 20 + 8);
  EXPECT_EQ(back, data);
  EXPECT_EQ(q.cycle, 200u + 20 + 2);
  ASSERT_EQ(busy.size(), 3u);
  EXPECT_EQ(busy[1], std::make_tuple(uint64_t{18}, uint64_t{26}, uint64_t{64}, true));
  EXPECT_EQ(b.mem.stats().writes, 1u);
  EXPECT_EQ(b.mem.stats().reads, 2u);
  EXPECT_EQ(b.mem.stats().bytes_read, 80u);
  EXPECT_EQ(b.mem.channel().stats().wait_cycles, 8u);
}

TEST(SharedMemory, AccessesOutsideTheMemoryAreAddressErrors) {
  Bench b;
  std::vector<uint8_t> buf(32, 0);
  test::Completion end, wrap;
  test::Script script("script", [&] {
    end = b.port.transport(true, 4080, buf.data(), 32);
    wrap = b.port.transport(false, ~uint64_t{0} - 8, buf.data(), 32);
  });
  sc_core::sc_start();
  EXPECT_EQ(end.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(wrap.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(end.cycle, 0u);  // refused at once, the channel untouched
  EXPECT_EQ(b.mem.channel().stats().transfers, 0u);
}

}  // namespace
}  // namespace vp::hw
