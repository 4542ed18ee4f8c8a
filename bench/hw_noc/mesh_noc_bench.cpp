// Host cost of one NoC transfer: the message fabric calls MeshNoc::send once
// per SEND instruction; the cluster bus serves a global-memory read with a
// request packet, the memory channel and a data packet.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "vp/hw/noc/bandwidth_channel.h"
#include "vp/hw/noc/mesh_noc.h"

namespace {

using vp::hw::noc::Cycle;

vp::hw::noc::MeshNocConfig mesh(std::uint32_t side) {
  vp::hw::noc::MeshNocConfig c;
  c.clusters = side * side;
  c.mesh_cols = side;
  c.clock_mhz = 800;
  c.core_clock_mhz = 1000;
  return c;
}

struct Call {
  std::uint32_t src, dst;
  std::uint64_t bytes;
};

std::vector<Call> calls(std::uint32_t clusters) {
  std::mt19937 rng(1);
  std::vector<Call> out(4096);
  for (Call& c : out) c = Call{static_cast<std::uint32_t>(rng() % clusters),
                               static_cast<std::uint32_t>(rng() % clusters), rng() % 4096};
  return out;
}

void BM_MeshNocSend(benchmark::State& state) {
  const auto side = static_cast<std::uint32_t>(state.range(0));
  vp::hw::noc::MeshNoc noc(mesh(side));
  const std::vector<Call> work = calls(side * side);
  std::size_t i = 0;
  Cycle now = 0;
  for (auto _ : state) {
    const Call& c = work[i++ & (work.size() - 1)];
    now += 3;
    benchmark::DoNotOptimize(noc.send(c.src, c.dst, c.bytes, now));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["avg_hops"] = static_cast<double>(noc.totals().flit_hops) /
                               static_cast<double>(noc.totals().flits);
}
BENCHMARK(BM_MeshNocSend)->Arg(4)->Arg(8)->Arg(16);

void BM_GlobalMemoryRead(benchmark::State& state) {
  vp::hw::noc::MeshNoc noc(mesh(4));
  vp::hw::noc::BandwidthChannel channel(vp::hw::noc::gmem_channel_config(100, 64, 1000));
  const vp::hw::noc::Endpoint controller = noc.attach_device(0, "gmem");
  const std::vector<Call> work = calls(16);
  std::size_t i = 0;
  Cycle now = 0;
  for (auto _ : state) {
    const Call& c = work[i++ & (work.size() - 1)];
    now += 50;
    const vp::hw::noc::Endpoint here = noc.cluster_endpoint(c.src);
    const Cycle at_memory = noc.send(here, controller, 0, now).arrival_cycle;
    const Cycle served = channel.transfer(c.bytes, at_memory).end_cycle;
    benchmark::DoNotOptimize(noc.send(controller, here, c.bytes, served));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GlobalMemoryRead);

}  // namespace
