// The cluster bus as its CUs' DMA engines see it: SRAM-window transactions
// go to the cluster SRAM through its channel only; global ones cross the
// mesh to the memory controller's port (a read as a header-only request,
// the data coming back in one packet), then the global-memory channel. The
// expected cycles are written out from docs/noc.md and docs/chip-model.md.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <vector>

#include "../plain_chip.h"
#include "../sc_stimulus.h"
#include "vp/hw/cluster/cluster_bus.h"
#include "vp/hw/memory/shared_memory.h"

namespace vp::hw {
namespace {

// Same clock for NoC and core so the parts are plain integers:
// H = 2, P = 1, 32-byte flits + 1 header flit, S = flits.
noc::MeshNocConfig mesh() { return test::plain_mesh(16, 4); }
using test::flits;
uint64_t mesh_latency(uint64_t hops, uint64_t bytes) { return 2 * 1 + hops * 2 + flits(bytes); }
uint64_t hops(uint32_t a, uint32_t b) {
  return static_cast<uint64_t>(std::abs(static_cast<int>(a % 4) - static_cast<int>(b % 4)) +
                               std::abs(static_cast<int>(a / 4) - static_cast<int>(b / 4)));
}
// Global memory: 100 ns at 1 GHz, 16 GB/s = 16 bytes/cycle.
constexpr uint64_t kMemLatency = 100;
uint64_t mem_occ(uint64_t bytes) { return (bytes + 15) / 16; }
// SRAM: 3 cycles, 8 bytes/cycle.
constexpr uint64_t kSramLatency = 3;
uint64_t sram_occ(uint64_t bytes) { return (bytes + 7) / 8; }

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  std::iota(v.begin(), v.end(), seed);
  return v;
}

// One or more clusters' buses on one mesh, sharing global memory attached
// at router `attach`; one initiator per bus.
struct Bench {
  noc::MeshNoc noc{mesh()};
  noc::Endpoint gmem_port;
  SharedMemory gmem;
  std::vector<std::unique_ptr<SharedMemory>> srams;
  std::vector<std::unique_ptr<ClusterBus>> buses;
  std::vector<std::unique_ptr<test::Initiator>> dma;

  Bench(uint32_t attach, std::vector<uint32_t> clusters)
      : gmem_port(noc.attach_device(attach, "gmem")),
        gmem("gmem", 1 << 20, noc::gmem_channel_config(100.0, 16.0, 1000.0)) {
    for (uint32_t c : clusters) {
      noc::BandwidthChannelConfig ch;
      ch.name = "sram" + std::to_string(c);
      ch.latency_cycles = kSramLatency;
      ch.bytes_per_cycle = 8;
      const std::string n = std::to_string(c);
      srams.push_back(std::make_unique<SharedMemory>(("sram" + n).c_str(), 1 << 16, ch));
      buses.push_back(std::make_unique<ClusterBus>(("bus" + n).c_str(), c, noc, gmem_port));
      dma.push_back(std::make_unique<test::Initiator>(("dma" + n).c_str()));
      dma.back()->socket.bind(buses.back()->cores);
      buses.back()->to_sram.bind(srams.back()->socket);
      buses.back()->to_global.bind(gmem.socket);
    }
  }
};

TEST(ClusterBus, SramWindowGoesToTheSramChannelOnly) {
  Bench b(0, {5});
  const std::vector<uint8_t> data = pattern(64, 1);
  std::vector<uint8_t> back(64, 0);
  test::Completion w, r;
  test::Script script("script", [&] {
    test::wait_until(10);
    std::vector<uint8_t> tmp = data;
    w = b.dma[0]->transport(false, kSramWindow | 0x100, tmp.data(), 64);
    test::wait_until(100);
    r = b.dma[0]->transport(true, kSramWindow | 0x100, back.data(), 64);
  });
  sc_core::sc_start();
  EXPECT_EQ(w.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(w.cycle, 10 + kSramLatency + sram_occ(64));
  EXPECT_EQ(w.address_after, kSramWindow | 0x100);  // the bus restores the initiator's address
  EXPECT_EQ(r.cycle, 100 + kSramLatency + sram_occ(64));
  EXPECT_EQ(back, data);
  EXPECT_EQ(std::vector<uint8_t>(b.srams[0]->data() + 0x100, b.srams[0]->data() + 0x140), data);
  EXPECT_EQ(b.noc.totals().packets, 0u);
  EXPECT_EQ(b.gmem.stats().writes + b.gmem.stats().reads, 0u);
}

TEST(ClusterBus, GlobalWriteIsMeshThenChannel) {
  const uint32_t cluster = 5, attach = 0;
  Bench b(attach, {cluster});
  const std::vector<uint8_t> data = pattern(1000, 7);
  test::Completion w;
  test::Script script("script", [&] {
    test::wait_until(20);
    std::vector<uint8_t> tmp = data;
    w = b.dma[0]->transport(false, 0x4000, tmp.data(), 1000);
  });
  sc_core::sc_start();
  EXPECT_EQ(w.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(w.cycle, 20 + mesh_latency(hops(cluster, attach), 1000) + kMemLatency + mem_occ(1000));
  EXPECT_EQ(std::vector<uint8_t>(b.gmem.data() + 0x4000, b.gmem.data() + 0x4000 + 1000), data);
  // The data crossed the controller's own ejection port, not cluster 0's.
  const noc::LinkId in = b.noc.find_link("r(0,0)->gmem");
  ASSERT_NE(in, noc::kNoLink);
  EXPECT_EQ(b.noc.link(in).stats.bytes, 1000u);
  EXPECT_EQ(b.noc.link(in).stats.packets, 1u);
  EXPECT_EQ(b.noc.link(b.noc.find_link("r(0,0)->local(0,0)")).stats.packets, 0u);
  EXPECT_EQ(b.noc.totals().packets, 1u);  // writes are posted: no acknowledgement
}

TEST(ClusterBus, GlobalReadIsRequestThenChannelThenData) {
  const uint32_t cluster = 10, attach = 3;
  Bench b(attach, {cluster});
  const std::vector<uint8_t> data = pattern(4096, 3);
  std::copy(data.begin(), data.end(), b.gmem.data() + 0x8000);
  std::vector<uint8_t> back(4096, 0);
  test::Completion r;
  test::Script script("script", [&] { r = b.dma[0]->transport(true, 0x8000, back.data(), 4096); });
  sc_core::sc_start();
  const uint64_t h = hops(cluster, attach);
  EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(r.cycle, mesh_latency(h, 0) + kMemLatency + mem_occ(4096) + mesh_latency(h, 4096));
  EXPECT_EQ(back, data);
  EXPECT_EQ(b.noc.totals().packets, 2u);
  EXPECT_EQ(b.noc.link(b.noc.find_link("r(3,0)->gmem")).stats.bytes, 0u);  // header-only request
  EXPECT_EQ(b.noc.link(b.noc.find_link("gmem->r(3,0)")).stats.bytes, 4096u);
  EXPECT_EQ(b.gmem.channel().stats().transfers, 1u);
}

// Two clusters one hop from the controller write at once: their packets meet
// at the controller's ejection port (the second waits S), then the channel
// serves them in turn.
TEST(ClusterBus, ConcurrentWritesContendOnPortAndChannel) {
  Bench b(0, {1, 4});
  const uint64_t bytes = 640;  // 21 flits, 40 channel cycles
  std::vector<uint8_t> x(bytes, 1), y(bytes, 2);
  test::Completion a, c;
  test::Script script("script", [&] {
    a = b.dma[0]->transport(false, 0, x.data(), bytes);
    c = b.dma[1]->transport(false, 4096, y.data(), bytes);
  });
  sc_core::sc_start();
  const uint64_t s = flits(bytes);
  const uint64_t a_arrival = mesh_latency(1, bytes), c_arrival = a_arrival + s;
  EXPECT_EQ(a.cycle, a_arrival + kMemLatency + mem_occ(bytes));
  // c's data arrives s = 21 cycles after a's but the channel is busy 40.
  const uint64_t c_start = std::max(c_arrival, a_arrival + mem_occ(bytes));
  EXPECT_EQ(c_start, a_arrival + mem_occ(bytes));
  EXPECT_EQ(c.cycle, c_start + kMemLatency + mem_occ(bytes));
  EXPECT_EQ(b.gmem.channel().stats().wait_cycles, c_start - c_arrival);
}

TEST(ClusterBus, AccessOutsideAMemoryIsAnAddressError) {
  Bench b(0, {2});
  std::vector<uint8_t> buf(64, 0);
  test::Completion g, s;
  test::Script script("script", [&] {
    g = b.dma[0]->transport(true, (1 << 20) - 32, buf.data(), 64);
    s = b.dma[0]->transport(false, kSramWindow | ((1 << 16) - 8), buf.data(), 64);
  });
  sc_core::sc_start();
  EXPECT_EQ(g.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(s.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(b.gmem.stats().reads, 0u);
  EXPECT_EQ(b.srams[0]->stats().writes, 0u);
}

}  // namespace
}  // namespace vp::hw
