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

namespace vp::hw {
namespace {

// Every cluster's SRAM in a global window from 16 MiB, 256-byte granules.
struct WindowBench {
  static constexpr uint64_t kBase = 1 << 24, kGranule = 256;
  noc::MeshNoc noc{mesh()};
  noc::Endpoint gmem_port;
  SharedMemory gmem;
  std::vector<std::unique_ptr<SharedMemory>> srams;
  ClusterBus bus;
  test::Initiator dma{"dma"};

  static SramGlobalWindow window() {
    SramGlobalWindow w;
    w.base = kBase;
    w.bytes = 1 << 16;
    w.granule = kGranule;
    w.clusters = 16;
    return w;
  }
  explicit WindowBench(uint32_t cluster)
      : gmem_port(noc.attach_device(0, "gmem")),
        gmem("gmem", 1 << 20, noc::gmem_channel_config(100.0, 16.0, 1000.0)),
        bus("bus", cluster, noc, gmem_port, window()) {
    for (uint32_t c = 0; c < 16; ++c) {
      noc::BandwidthChannelConfig ch;
      ch.name = "sram" + std::to_string(c);
      ch.latency_cycles = kSramLatency;
      ch.bytes_per_cycle = 8;
      srams.push_back(std::make_unique<SharedMemory>(("sram" + std::to_string(c)).c_str(), 1 << 16, ch));
      bus.to_cluster_sram.bind(srams.back()->socket);
    }
    dma.socket.bind(bus.cores);
    bus.to_sram.bind(srams[cluster]->socket);
    bus.to_global.bind(gmem.socket);
  }
};

TEST(ClusterBus, GlobalSramWindowSpreadsATransferOverTheClustersGranuleByGranule) {
  WindowBench b(5);
  const std::vector<uint8_t> data = pattern(600, 9);
  std::vector<uint8_t> back(600, 0);
  test::Completion w, r;
  test::Script script("script", [&] {
    std::vector<uint8_t> tmp = data;
    w = b.dma.transport(false, WindowBench::kBase + 200, tmp.data(), 600);
    test::wait_until(10000);
    r = b.dma.transport(true, WindowBench::kBase + 200, back.data(), 600);
  });
  sc_core::sc_start();
  ASSERT_EQ(w.status, tlm::TLM_OK_RESPONSE);
  ASSERT_EQ(r.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(back, data);
  // Granule 0 (cluster 0) from byte 200, granules 1 and 2 whole (clusters 1
  // and 2), 32 bytes of granule 3 (cluster 3), each at offset 0 of its SRAM
  // row of granules.
  auto at = [&](uint32_t c, uint64_t off, size_t n) {
    return std::vector<uint8_t>(b.srams[c]->data() + off, b.srams[c]->data() + off + n);
  };
  EXPECT_EQ(at(0, 200, 56), std::vector<uint8_t>(data.begin(), data.begin() + 56));
  EXPECT_EQ(at(1, 0, 256), std::vector<uint8_t>(data.begin() + 56, data.begin() + 312));
  EXPECT_EQ(at(2, 0, 256), std::vector<uint8_t>(data.begin() + 312, data.begin() + 568));
  EXPECT_EQ(at(3, 0, 32), std::vector<uint8_t>(data.begin() + 568, data.end()));
  // Four pieces written (posted), four read (request and data each).
  EXPECT_EQ(b.noc.totals().packets, 4u + 8u);
  // A piece is no faster than alone and the pieces overlap: the write ends
  // with its slowest piece, not the sum of all.
  uint64_t slowest = 0, sum = 0;
  const uint64_t sizes[4] = {56, 256, 256, 32};
  for (uint32_t c = 0; c < 4; ++c) {
    const uint64_t one = mesh_latency(hops(5, c), sizes[c]) + kSramLatency + sram_occ(sizes[c]);
    slowest = std::max(slowest, one);
    sum += one;
  }
  EXPECT_GE(w.cycle, slowest);
  EXPECT_LT(w.cycle, sum);
  EXPECT_EQ(b.gmem.stats().writes + b.gmem.stats().reads, 0u);
}

TEST(ClusterBus, GlobalSramWindowPiecesEnterEachSramAtItsOwnPort) {
  WindowBench b(5);
  std::vector<noc::Endpoint> ports;
  for (uint32_t c = 0; c < 16; ++c) ports.push_back(b.noc.attach_device(c, "sram" + std::to_string(c)));
  b.bus.set_sram_ports(ports);
  const std::vector<uint8_t> data = pattern(512, 2);
  test::Completion w;
  test::Script script("script", [&] {
    std::vector<uint8_t> tmp = data;
    w = b.dma.transport(false, WindowBench::kBase, tmp.data(), 512);  // granules 0 and 1: clusters 0 and 1
  });
  sc_core::sc_start();
  EXPECT_EQ(w.status, tlm::TLM_OK_RESPONSE);
  for (uint32_t c = 0; c < 2; ++c) {
    const noc::LinkId in = b.noc.find_link("r(" + std::to_string(c) + ",0)->sram" + std::to_string(c));
    ASSERT_NE(in, noc::kNoLink);
    EXPECT_EQ(b.noc.link(in).stats.bytes, 256u);
    EXPECT_EQ(b.noc.link(b.noc.find_link("r(" + std::to_string(c) + ",0)->local(" + std::to_string(c) + ",0)")).stats.packets,
              0u);
  }
  EXPECT_EQ(std::vector<uint8_t>(b.srams[1]->data(), b.srams[1]->data() + 256),
            std::vector<uint8_t>(data.begin() + 256, data.end()));
}

TEST(ClusterBus, GlobalSramWindowGranuleOfItsOwnClusterStaysOffTheMesh) {
  WindowBench b(5);
  const std::vector<uint8_t> data = pattern(256, 4);
  test::Completion w;
  test::Script script("script", [&] {
    test::wait_until(10);
    std::vector<uint8_t> tmp = data;
    // Granule 16 + 5 is cluster 5's second granule.
    w = b.dma.transport(false, WindowBench::kBase + 21 * WindowBench::kGranule, tmp.data(), 256);
  });
  sc_core::sc_start();
  EXPECT_EQ(w.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(w.cycle, 10 + kSramLatency + sram_occ(256));
  EXPECT_EQ(std::vector<uint8_t>(b.srams[5]->data() + 256, b.srams[5]->data() + 512), data);
  EXPECT_EQ(b.noc.totals().packets, 0u);
}

TEST(ClusterBus, GlobalSramWindowEndIsAnAddressError) {
  WindowBench b(2);
  std::vector<uint8_t> tmp(64, 1);
  test::Completion w;
  test::Script script("script", [&] {
    w = b.dma.transport(false, WindowBench::kBase + 16 * (1 << 16) - 32, tmp.data(), 64);
  });
  sc_core::sc_start();
  EXPECT_EQ(w.status, tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace
}  // namespace vp::hw
