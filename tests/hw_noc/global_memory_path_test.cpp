#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "vp/hw/noc/global_memory_path.h"

namespace vp::hw::noc {
namespace {

// Same clock for NoC and core so the parts are plain integers:
// H = 2, P = 1, 32-byte flits + 1 header flit, S = flits.
MeshNocConfig mesh() {
  MeshNocConfig c;
  c.clusters = 16;
  c.mesh_cols = 4;
  c.hop_cycles = 2;
  c.local_port_cycles = 1;
  c.link_bits = 256;
  c.packet_header_flits = 1;
  c.clock_mhz = 1000;
  c.core_clock_mhz = 1000;
  return c;
}

std::uint64_t flits(std::uint64_t bytes) { return 1 + (bytes + 31) / 32; }
std::uint64_t mesh_latency(std::uint64_t hops, std::uint64_t bytes) { return 2 * 1 + hops * 2 + flits(bytes); }
std::uint64_t hops(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::uint64_t>(std::abs(static_cast<int>(a % 4) - static_cast<int>(b % 4)) +
                                    std::abs(static_cast<int>(a / 4) - static_cast<int>(b / 4)));
}
// 100 ns at 1 GHz, 16 GB/s = 16 bytes/cycle.
constexpr std::uint64_t kMemLatency = 100;
std::uint64_t mem_occ(std::uint64_t bytes) { return (bytes + 15) / 16; }

GlobalMemoryConfig gmem(std::uint32_t attach, bool request = true) {
  GlobalMemoryConfig g;
  g.attach_cluster = attach;
  g.channel = gmem_channel_config(100.0, 16.0, 1000.0);
  g.read_request_packet = request;
  return g;
}

TEST(GlobalMemoryPath, WriteIsMeshThenChannel) {
  for (std::uint32_t attach : {0u, 15u}) {
    for (std::uint32_t cluster : {0u, 5u, 12u, 15u}) {
      for (std::uint64_t bytes : {1u, 64u, 1000u, 65536u}) {
        MeshNoc noc(mesh());
        GlobalMemoryPath path(noc, gmem(attach));
        const GmemTransfer t = path.write(cluster, bytes, 20);
        const std::uint64_t expect = mesh_latency(hops(cluster, attach), bytes) + kMemLatency + mem_occ(bytes);
        EXPECT_EQ(t.latency(), expect) << attach << " " << cluster << " " << bytes;
        EXPECT_EQ(t.end_cycle, 20 + expect);
        EXPECT_EQ(t.data.hops, hops(cluster, attach));
        EXPECT_EQ(t.memory.start_cycle, t.data.arrival_cycle);
        EXPECT_EQ(path.unloaded_write_latency(cluster, bytes), expect);
      }
    }
  }
}

TEST(GlobalMemoryPath, ReadIsRequestThenChannelThenData) {
  for (std::uint32_t cluster : {0u, 3u, 10u}) {
    for (std::uint64_t bytes : {8u, 4096u}) {
      MeshNoc noc(mesh());
      GlobalMemoryPath path(noc, gmem(0));
      const GmemTransfer t = path.read(cluster, bytes, 0);
      const std::uint64_t h = hops(cluster, 0);
      const std::uint64_t expect = mesh_latency(h, 0) + kMemLatency + mem_occ(bytes) + mesh_latency(h, bytes);
      EXPECT_EQ(t.latency(), expect) << cluster << " " << bytes;
      EXPECT_EQ(t.request.flits, 1u);
      EXPECT_EQ(t.memory.start_cycle, t.request.arrival_cycle);
      EXPECT_EQ(t.data.ready_cycle, t.memory.end_cycle);
      EXPECT_EQ(path.unloaded_read_latency(cluster, bytes), expect);
    }
  }
  MeshNoc noc(mesh());
  GlobalMemoryPath direct(noc, gmem(0, false));
  const GmemTransfer t = direct.read(5, 256, 0);
  EXPECT_EQ(t.latency(), kMemLatency + mem_occ(256) + mesh_latency(2, 256));
  EXPECT_EQ(noc.totals().packets, 1u);
}

TEST(GlobalMemoryPath, ControllerPortAppearsInLinkStatistics) {
  MeshNoc noc(mesh());
  GlobalMemoryPath path(noc, gmem(3));
  EXPECT_EQ(path.controller().router, 3u);
  path.write(0, 320, 0);
  const LinkId in = noc.find_link("r(3,0)->gmem");
  ASSERT_NE(in, kNoLink);
  EXPECT_EQ(noc.link(in).stats.bytes, 320u);
  EXPECT_EQ(noc.link(in).stats.packets, 1u);
  EXPECT_EQ(noc.link(noc.find_link("r(3,0)->local(3,0)")).stats.packets, 0u);
  path.read(0, 64, 1000);
  EXPECT_EQ(noc.link(noc.find_link("gmem->r(3,0)")).stats.bytes, 64u);
  EXPECT_EQ(path.channel().stats().transfers, 2u);
  EXPECT_EQ(path.channel().stats().bytes, 384u);
}

// Two clusters one hop from the controller write at once: their packets meet
// at the controller's ejection port (second waits S), then the channel
// serves them in turn.
TEST(GlobalMemoryPath, ConcurrentWritesContendOnPortAndChannel) {
  MeshNoc noc(mesh());
  GlobalMemoryPath path(noc, gmem(0));
  const std::uint64_t bytes = 640;  // 21 flits, 40 channel cycles
  const GmemTransfer a = path.write(1, bytes, 0);
  const GmemTransfer b = path.write(4, bytes, 0);
  const std::uint64_t s = flits(bytes);
  EXPECT_EQ(a.data.arrival_cycle, mesh_latency(1, bytes));
  EXPECT_EQ(b.data.arrival_cycle, mesh_latency(1, bytes) + s);
  EXPECT_EQ(a.end_cycle, mesh_latency(1, bytes) + kMemLatency + mem_occ(bytes));
  // b's data arrives s = 21 cycles after a's, the channel is busy 40: b waits 19 more.
  const std::uint64_t b_start = std::max(b.data.arrival_cycle, a.memory.start_cycle + mem_occ(bytes));
  EXPECT_EQ(b.memory.start_cycle, b_start);
  EXPECT_EQ(b.end_cycle, b_start + kMemLatency + mem_occ(bytes));
  EXPECT_EQ(b.memory.start_cycle, a.memory.start_cycle + mem_occ(bytes));
}

TEST(GlobalMemoryPath, RejectsAttachOutsideTheMesh) {
  MeshNoc noc(mesh());
  EXPECT_THROW(GlobalMemoryPath(noc, gmem(16)), std::invalid_argument);
  GlobalMemoryPath ok(noc, gmem(0));
  EXPECT_THROW(ok.write(16, 1, 0), std::out_of_range);
}

}  // namespace
}  // namespace vp::hw::noc
