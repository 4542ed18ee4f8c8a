// One cluster of two CUs with its SRAM and bus, its ports bound to a real
// crossbar bank and message fabric (and a recording run supervisor), its
// bus to global memory at router 0 of a 2 x 1 mesh. The CUs get their
// identities from the cluster, reach the SRAM through the bus, each other
// and global memory through the mesh, and the bank with chip-wide indices.
// Cycles from docs/chip-model.md and docs/noc.md.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../plain_chip.h"
#include "../test_program.h"
#include "../sc_stimulus.h"
#include "vp/as/assembler.h"
#include "vp/hw/chip/crossbar_bank.h"
#include "vp/hw/chip/message_fabric.h"
#include "vp/hw/cluster/cluster.h"

namespace vp::hw {
namespace {

// NoC at the core clock: H = 2, P = 1, S(B) = 1 + ceil(B / 32).
// SRAM 3 cycles + B / 8; global memory 100 cycles + B / 16; DMA setup 4.
ChipConfig small() {
  ChipConfig c = test::plain_chip();
  c.memory.gmem_latency_ns = 100;
  c.memory.gmem_bandwidth_gbps = 16;
  c.memory.sram_latency_cycles = 3;
  c.memory.sram_bytes_per_cycle = 8;
  return c;
}

class RunDouble : public RunControlIf {
 public:
  std::vector<std::pair<uint32_t, uint64_t>> stopped;  // core, cycle
  void count_progress(uint64_t) override {}
  uint64_t max_cycles() const override { return 0; }
  void on_max_cycles(const ExecutionCore&) override {}
  void on_core_stopped(const ExecutionCore& c) override { stopped.emplace_back(c.identity().core, test::now()); }
};

struct Retired {
  std::string mnemonic;
  uint32_t core;
  uint64_t start, end;
};
class Recorder : public TraceSink {
 public:
  std::vector<Retired> events;
  void retire(const CoreIdentity& who, const RetireEvent& ev) override {
    events.push_back({ev.info->mnemonic, who.core, ev.start, ev.end});
  }
  const Retired& at(const std::string& m, uint32_t core) const {
    for (const auto& e : events)
      if (e.mnemonic == m && e.core == core) return e;
    throw std::runtime_error("no " + m + " on core " + std::to_string(core));
  }
};

void load(CoreModule& cu, const std::string& src) {
  test::load_text(cu, src);
  cu.start(0, 0);
}

// Cluster 1; cores 0 and 1 (cluster 0) are only mesh endpoints here.
struct Bench {
  ChipConfig cfg = small();
  noc::MeshNoc noc{cfg.noc};
  noc::Endpoint gmem_port = noc.attach_device(0, "gmem");
  SharedMemory gmem{"gmem", cfg.memory.gmem_bytes, noc::gmem_channel_config(100, 16, 1000)};
  CrossbarBank bank{cfg};
  MessageFabric fabric{"fabric", noc,
                       {noc.cluster_endpoint(0), noc.cluster_endpoint(0), noc.cluster_endpoint(1),
                        noc.cluster_endpoint(1), noc.attach_device(0, "cp")},
                       cfg.core.barrier_cycles};
  RunDouble run;
  Recorder trace;
  Cluster cluster{"cluster1", cfg, 1, noc, gmem_port, &trace};

  Bench() {
    cluster.bus().to_global.bind(gmem.socket);
    cluster.crossbars.bind(bank);
    cluster.fabric.bind(fabric);
    cluster.run_control.bind(run);
  }
};

TEST(Cluster, CusReachSramMeshGlobalMemoryAndCrossbarsThroughTheClustersPorts) {
  Bench b;
  ASSERT_EQ(b.cluster.cus(), 2u);
  EXPECT_EQ(b.cluster.cu(0).core().identity().core, 2u);
  EXPECT_EQ(b.cluster.cu(1).core().identity().core, 3u);
  EXPECT_EQ(b.cluster.cu(1).participant(), 3u);

  load(b.cluster.cu(0), R"(.core 1, 0
    li r1, 0
    li r2, 64
    li r3, 0x100
    dma.ls r3, r1, r2    ; sram[0x100..] = local[0..64)
    li r4, 3
    send r1, r2, r4, 1   ; to the other CU of this cluster
    halt
)");
  load(b.cluster.cu(1), R"(.core 1, 1
    li r1, 0
    li r2, 64
    li r4, 2
    recv r1, r2, r4, 1
    li r3, 0x2000
    dma.lg r3, r1, r2    ; global[0x2000..] = what arrived
    rdsr r5, core
    rdsr r6, cluster
    li r7, 512
    mvm r7, r1, 0, 0x1, 8, 32, sum, 0
    halt
)");
  for (int i = 0; i < 64; ++i) *b.cluster.cu(0).core().scratchpad().at(static_cast<uint64_t>(i)) = static_cast<uint8_t>(i + 1);
  sc_core::sc_start();

  ASSERT_EQ(b.cluster.cu(0).core().state(), CoreState::Halted) << b.cluster.cu(0).core().fault_message();
  ASSERT_EQ(b.cluster.cu(1).core().state(), CoreState::Halted) << b.cluster.cu(1).core().fault_message();
  std::vector<uint8_t> want(64);
  for (int i = 0; i < 64; ++i) want[static_cast<size_t>(i)] = static_cast<uint8_t>(i + 1);

  // dma.ls issues at 3: 4 setup + 3 SRAM latency + 64 / 8.
  EXPECT_EQ(b.trace.at("dma.ls", 2).end, 3u + 4 + 3 + 8);
  EXPECT_EQ(std::vector<uint8_t>(b.cluster.sram().data() + 0x100, b.cluster.sram().data() + 0x140), want);
  // send issues at 5 (it reads the scratchpad, which the DMA only reads);
  // within the cluster: 2P + S(64) = 2 + 3.
  EXPECT_EQ(b.trace.at("send", 2).end, 5u + 3);
  EXPECT_EQ(b.trace.at("recv", 3).end, 5u + 2 + 3);
  // The recv holds issue until its data is in (10); the li, then dma.lg at
  // 11, leaving at 15, one hop to router 0: 2P + H + S(64) = 7, then
  // 100 + 64 / 16.
  EXPECT_EQ(b.trace.at("dma.lg", 3).end, 15u + 7 + 100 + 4);
  EXPECT_EQ(std::vector<uint8_t>(b.gmem.data() + 0x2000, b.gmem.data() + 0x2040), want);
  EXPECT_EQ(b.cluster.cu(1).core().reg(5), 3u);
  EXPECT_EQ(b.cluster.cu(1).core().reg(6), 1u);
  // Crossbar 0 of core 3 is chip-wide crossbar 6.
  EXPECT_EQ(b.bank.stats().mvms, 1u);
  EXPECT_TRUE(b.bank.exists(6));
  ASSERT_EQ(b.run.stopped.size(), 2u);
  EXPECT_EQ(b.fabric.undelivered(), 0u);
}

}  // namespace
}  // namespace vp::hw
