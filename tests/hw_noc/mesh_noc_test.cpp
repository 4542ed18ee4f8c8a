#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw::noc {
namespace {

// The formula of docs/noc.md restated on integer clocks, so the ratio
// core/noc is exact without going through the model's Rational:
//   H = ceil(hop_cycles * core/noc), P = ceil(local_port_cycles * core/noc)
//   F = header + ceil(bytes * 8 / link_bits), S = ceil(F * core/noc)
//   arrival = ready + 2P + hops*H + S
struct Formula {
  std::uint64_t core_mhz, noc_mhz, hop, port, link_bits, header;

  std::uint64_t conv(std::uint64_t noc_cycles) const {
    return (noc_cycles * core_mhz + noc_mhz - 1) / noc_mhz;
  }
  std::uint64_t flits(std::uint64_t bytes) const { return header + (bytes * 8 + link_bits - 1) / link_bits; }
  std::uint64_t S(std::uint64_t bytes) const { return conv(flits(bytes)); }
  std::uint64_t H() const { return conv(hop); }
  std::uint64_t P() const { return conv(port); }
  std::uint64_t latency(std::uint64_t hops, std::uint64_t bytes) const {
    return 2 * P() + hops * H() + S(bytes);
  }
};

MeshNocConfig make_config(std::uint32_t clusters, std::uint32_t cols, const Formula& f) {
  MeshNocConfig c;
  c.clusters = clusters;
  c.mesh_cols = cols;
  c.hop_cycles = static_cast<std::uint32_t>(f.hop);
  c.local_port_cycles = static_cast<std::uint32_t>(f.port);
  c.link_bits = static_cast<std::uint32_t>(f.link_bits);
  c.packet_header_flits = static_cast<std::uint32_t>(f.header);
  c.clock_mhz = static_cast<double>(f.noc_mhz);
  c.core_clock_mhz = static_cast<double>(f.core_mhz);
  return c;
}

// NoC at 800 MHz under a 1 GHz core: every conversion rounds.
const Formula kSlowNoc{1000, 800, 3, 1, 64, 2};

std::uint32_t manhattan(std::uint32_t a, std::uint32_t b, std::uint32_t cols) {
  const int ax = static_cast<int>(a % cols), ay = static_cast<int>(a / cols);
  const int bx = static_cast<int>(b % cols), by = static_cast<int>(b / cols);
  return static_cast<std::uint32_t>(std::abs(ax - bx) + std::abs(ay - by));
}

TEST(MeshNoc, GeometryAndHopCount) {
  const MeshNoc noc(make_config(12, 4, kSlowNoc));
  EXPECT_EQ(noc.mesh_rows(), 3u);
  EXPECT_EQ(noc.x_of(6), 2u);
  EXPECT_EQ(noc.y_of(6), 1u);
  EXPECT_EQ(noc.hops(0, 11), 5u);
  EXPECT_EQ(noc.hops(11, 0), 5u);
  EXPECT_EQ(noc.hops(5, 6), 1u);
  EXPECT_EQ(noc.hops(7, 7), 0u);
  EXPECT_THROW(noc.hops(0, 12), std::out_of_range);
}

TEST(MeshNoc, DerivedTimingFollowsTheClockRatio) {
  const MeshNoc noc(make_config(16, 4, kSlowNoc));
  EXPECT_EQ(noc.core_per_noc_cycle(), (Rational{5, 4}));
  EXPECT_EQ(noc.hop_latency(), 4u);   // 3 * 1.25 = 3.75
  EXPECT_EQ(noc.port_latency(), 2u);  // 1.25
  EXPECT_EQ(noc.flits_for(0), 2u);
  EXPECT_EQ(noc.flits_for(1), 3u);
  EXPECT_EQ(noc.flits_for(8), 3u);
  EXPECT_EQ(noc.flits_for(9), 4u);
  EXPECT_EQ(noc.serialization(3), 4u);   // 3.75
  EXPECT_EQ(noc.serialization(4), 5u);   // exact
}

TEST(MeshNoc, LinkCountAndNames) {
  const MeshNoc noc(make_config(16, 4, kSlowNoc));
  // 4x4 mesh: 2 * (rows*(cols-1) + cols*(rows-1)) directional links + 2 ports per router.
  EXPECT_EQ(noc.link_count(), 2u * (4 * 3 + 4 * 3) + 2u * 16);
  const LinkId east = noc.mesh_link(6, Direction::kEast);
  ASSERT_NE(east, kNoLink);
  EXPECT_EQ(noc.link(east).name, "r(2,1)->r(3,1)");
  EXPECT_EQ(noc.link(noc.mesh_link(6, Direction::kSouth)).name, "r(2,1)->r(2,2)");
  EXPECT_EQ(noc.link(noc.mesh_link(6, Direction::kNorth)).name, "r(2,1)->r(2,0)");
  EXPECT_EQ(noc.link(noc.mesh_link(6, Direction::kWest)).name, "r(2,1)->r(1,1)");
  EXPECT_EQ(noc.mesh_link(3, Direction::kEast), kNoLink);
  EXPECT_EQ(noc.mesh_link(0, Direction::kNorth), kNoLink);
  EXPECT_EQ(noc.mesh_link(12, Direction::kSouth), kNoLink);
  EXPECT_EQ(noc.link(noc.inject_link(noc.cluster_endpoint(9))).name, "local(1,2)->r(1,2)");
  EXPECT_EQ(noc.link(noc.eject_link(noc.cluster_endpoint(9))).name, "r(1,2)->local(1,2)");
  EXPECT_EQ(noc.find_link("r(1,2)->r(2,2)"), noc.mesh_link(9, Direction::kEast));
  EXPECT_EQ(noc.find_link("r(0,0)->r(3,3)"), kNoLink);
  EXPECT_EQ(mesh_link_name(1, 2, 2, 2), "r(1,2)->r(2,2)");
}

TEST(MeshNoc, XYRouteGoesAlongXFirst) {
  const MeshNoc noc(make_config(16, 4, kSlowNoc));
  // 1 = (1,0) to 14 = (2,3): one hop east, then three south.
  const std::vector<std::string> forward{"local(1,0)->r(1,0)", "r(1,0)->r(2,0)", "r(2,0)->r(2,1)",
                                         "r(2,1)->r(2,2)",     "r(2,2)->r(2,3)", "r(2,3)->local(2,3)"};
  EXPECT_EQ(noc.route_names(1, 14), forward);
  // The way back is not the same links reversed: west first along row 3.
  const std::vector<std::string> back{"local(2,3)->r(2,3)", "r(2,3)->r(1,3)", "r(1,3)->r(1,2)",
                                      "r(1,2)->r(1,1)",     "r(1,1)->r(1,0)", "r(1,0)->local(1,0)"};
  EXPECT_EQ(noc.route_names(14, 1), back);
  const std::vector<std::string> self{"local(3,1)->r(3,1)", "r(3,1)->local(3,1)"};
  EXPECT_EQ(noc.route_names(7, 7), self);
  // Every route has hops + 2 links, each mesh link changing exactly one coordinate.
  for (std::uint32_t a = 0; a < 16; ++a) {
    for (std::uint32_t b = 0; b < 16; ++b) {
      const auto r = noc.route(a, b);
      ASSERT_EQ(r.size(), manhattan(a, b, 4) + 2u) << a << "->" << b;
      bool turned = false;  // once moving in Y, never again in X
      for (std::size_t i = 1; i + 1 < r.size(); ++i) {
        const Link& l = noc.link(r[i]);
        ASSERT_EQ(l.kind, LinkKind::kMesh);
        const bool moves_x = noc.x_of(l.from_router) != noc.x_of(l.to_router);
        if (!moves_x) turned = true;
        EXPECT_FALSE(turned && moves_x) << a << "->" << b;
        EXPECT_EQ(manhattan(l.from_router, l.to_router, 4), 1u);
      }
    }
  }
}

// Single packets on an idle mesh equal the hop formula, for every pair of
// routers, several sizes and three clock ratios.
TEST(MeshNoc, SinglePacketLatencyEqualsHopFormula) {
  const std::vector<Formula> formulas{
      kSlowNoc,
      Formula{1000, 1000, 2, 1, 256, 1},  // same clock
      Formula{1000, 2000, 3, 3, 32, 1},   // NoC twice as fast: halves round up
  };
  const std::vector<std::uint64_t> sizes{0, 1, 7, 8, 9, 31, 32, 33, 1000, 65536};
  for (const Formula& f : formulas) {
    MeshNoc noc(make_config(16, 4, f));
    for (std::uint32_t a = 0; a < 16; ++a) {
      for (std::uint32_t b = 0; b < 16; ++b) {
        for (std::uint64_t bytes : sizes) {
          noc.reset();
          const Cycle ready = 1000 + a;
          const NocTransfer t = noc.send(a, b, bytes, ready);
          const std::uint64_t h = manhattan(a, b, 4);
          ASSERT_EQ(t.hops, h);
          ASSERT_EQ(t.flits, f.flits(bytes));
          ASSERT_EQ(t.start_cycle, ready);
          ASSERT_EQ(t.inject_done_cycle, ready + f.S(bytes));
          ASSERT_EQ(t.head_arrival_cycle, ready + 2 * f.P() + h * f.H());
          ASSERT_EQ(t.arrival_cycle, ready + f.latency(h, bytes))
              << "core " << f.core_mhz << " noc " << f.noc_mhz << " " << a << "->" << b << " " << bytes;
          ASSERT_EQ(t.latency(), f.latency(h, bytes));
          ASSERT_EQ(t.contention_cycles, 0u);
          ASSERT_EQ(noc.zero_load_latency(a, b, bytes), f.latency(h, bytes));
        }
      }
    }
  }
}

// The worked example of docs/noc.md, in literal numbers.
TEST(MeshNoc, DocsWorkedExample) {
  MeshNoc noc(make_config(16, 4, kSlowNoc));
  EXPECT_EQ(noc.hop_latency(), 4u);
  EXPECT_EQ(noc.port_latency(), 2u);
  EXPECT_EQ(noc.flits_for(256), 34u);
  EXPECT_EQ(noc.serialization(34), 43u);
  const NocTransfer a = noc.send(0, 15, 256, 0);
  const NocTransfer b = noc.send(0, 15, 256, 0);
  EXPECT_EQ(a.arrival_cycle, 71u);
  EXPECT_EQ(b.start_cycle, 43u);
  EXPECT_EQ(b.arrival_cycle, 114u);
}

TEST(MeshNoc, SameClusterUsesOnlyLocalPorts) {
  MeshNoc noc(make_config(16, 4, kSlowNoc));
  const NocTransfer t = noc.send(5, 5, 100, 10);
  EXPECT_EQ(t.hops, 0u);
  EXPECT_EQ(t.arrival_cycle, 10 + 2 * kSlowNoc.P() + kSlowNoc.S(100));
  for (LinkId id = 0; id < noc.link_count(); ++id) {
    const Link& l = noc.link(id);
    const bool used = l.name == "local(1,1)->r(1,1)" || l.name == "r(1,1)->local(1,1)";
    EXPECT_EQ(l.stats.packets, used ? 1u : 0u) << l.name;
  }
  EXPECT_EQ(noc.totals().flit_hops, 0u);
  EXPECT_EQ(noc.totals().flit_router_traversals, kSlowNoc.flits(100));
}

// Same source and destination, both ready at once: the second waits for the
// first's occupancy of the injection port and then follows it exactly S later.
TEST(MeshNoc, BackToBackPacketsOnOnePathSerialize) {
  MeshNoc noc(make_config(16, 4, kSlowNoc));
  const Formula& f = kSlowNoc;
  const NocTransfer a = noc.send(0, 15, 256, 0);
  const NocTransfer b = noc.send(0, 15, 256, 0);
  EXPECT_EQ(a.arrival_cycle, f.latency(6, 256));
  EXPECT_EQ(b.start_cycle, f.S(256));
  EXPECT_EQ(b.inject_done_cycle, 2 * f.S(256));
  EXPECT_EQ(b.arrival_cycle, a.arrival_cycle + f.S(256));
  EXPECT_EQ(b.contention_cycles, f.S(256));
  // Packets of different sizes: the second is delayed by the first's S.
  noc.reset();
  const NocTransfer big = noc.send(0, 3, 4096, 0);
  const NocTransfer small = noc.send(0, 3, 8, 0);
  EXPECT_EQ(small.arrival_cycle, f.S(4096) + f.latency(3, 8));
  EXPECT_EQ(big.arrival_cycle, f.latency(3, 4096));
}

// Back-filling: A (0 -> 3) reserves r(2,0)->r(3,0) from when its head gets
// there, 2 hops on. B (2 -> 3), called after A but ready at 0, reaches that
// link first: it takes the gap before A's reservation when its whole
// serialization fits there, and waits for the end of A's otherwise. Once
// the model's time has passed an interval, it is forgotten.
TEST(MeshNoc, LaterCallTakesAnIdleGapBeforeAFutureReservation) {
  const Formula& f = kSlowNoc;
  {
    MeshNoc noc(make_config(16, 4, f));
    const NocTransfer a = noc.send(0, 3, 4096, 0);  // r(2,0)->r(3,0) from P + 2H
    const NocTransfer b = noc.send(2, 3, 0, 0);     // a header: S(0) < P + 2H - P
    ASSERT_LE(f.P() + f.S(0), f.P() + 2 * f.H());
    EXPECT_EQ(b.contention_cycles, 0u);
    EXPECT_EQ(b.arrival_cycle, f.latency(1, 0));
    // A was not delayed by B: its reservation stands.
    EXPECT_EQ(a.arrival_cycle, f.latency(3, 4096));
  }
  {
    MeshNoc noc(make_config(16, 4, f));
    const NocTransfer a = noc.send(0, 3, 4096, 0);
    const NocTransfer b = noc.send(2, 3, 256, 0);  // S(256) does not fit before A's head
    ASSERT_GT(f.P() + f.S(256), f.P() + 2 * f.H());
    const Cycle a_on_link = f.P() + 2 * f.H();
    EXPECT_EQ(b.arrival_cycle, a_on_link + f.S(4096) + f.H() + f.P() + f.S(256));
    EXPECT_GT(b.contention_cycles, 0u);
    (void)a;
  }
  {
    // After advance() past A's intervals a new packet sees idle links.
    MeshNoc noc(make_config(16, 4, f));
    const NocTransfer a = noc.send(0, 3, 4096, 0);
    noc.advance(a.arrival_cycle);
    const NocTransfer c = noc.send(0, 3, 64, a.arrival_cycle);
    EXPECT_EQ(c.contention_cycles, 0u);
    EXPECT_EQ(noc.link(noc.find_link("r(1,0)->r(2,0)")).busy.size(), 1u);
  }
}

// Two sources merging on one mesh link: A goes 0 -> 3 along row 0, B goes
// 1 -> 3 and joins A at r(1,0)->r(2,0). A's head is there at P + H; B's at
// ready_B + P. With ready_B = H + d, B waits max(0, S_A - d), exactly the rest
// of A's occupancy of that link, and nothing else changes.
TEST(MeshNoc, MergingPacketWaitsExactlyForTheFirstsOccupancy) {
  const Formula& f = kSlowNoc;
  const std::uint64_t bytes_a = 512, bytes_b = 64;
  const std::uint64_t sa = f.S(bytes_a);
  for (std::uint64_t d : {std::uint64_t{0}, std::uint64_t{1}, sa / 2, sa - 1, sa, sa + 5}) {
    MeshNoc noc(make_config(16, 4, f));
    const NocTransfer a = noc.send(0, 3, bytes_a, 0);
    const Cycle ready_b = f.H() + d;
    const NocTransfer b = noc.send(1, 3, bytes_b, ready_b);
    const std::uint64_t wait = d < sa ? sa - d : 0;
    EXPECT_EQ(a.arrival_cycle, f.latency(3, bytes_a));
    EXPECT_EQ(b.inject_done_cycle, ready_b + f.S(bytes_b)) << "own injection port is free";
    EXPECT_EQ(b.arrival_cycle, ready_b + f.latency(2, bytes_b) + wait) << "d=" << d;
    EXPECT_EQ(b.contention_cycles, wait);
    const Link& shared = noc.link(noc.find_link("r(1,0)->r(2,0)"));
    EXPECT_EQ(shared.stats.packets, 2u);
    EXPECT_EQ(shared.stats.blocked_cycles, wait);
    EXPECT_EQ(shared.stats.busy_cycles, sa + f.S(bytes_b));
  }
}

// B queued behind A on one link is also behind A on the following shared
// links and at the ejection port, but only by A's occupancy once.
TEST(MeshNoc, ContentionIsNotChargedTwiceAlongASharedPath) {
  const Formula& f = kSlowNoc;
  MeshNoc noc(make_config(16, 4, f));
  const NocTransfer a = noc.send(4, 7, 300, 0);   // row 1, 3 hops east
  const NocTransfer b = noc.send(5, 7, 300, f.H());  // joins at r(1,1)->r(2,1)
  EXPECT_EQ(a.contention_cycles, 0u);
  EXPECT_EQ(b.arrival_cycle, f.H() + f.latency(2, 300) + f.S(300));
  EXPECT_EQ(b.arrival_cycle, a.arrival_cycle + f.S(300));
}

TEST(MeshNoc, DisjointPathsDoNotInterfere) {
  const Formula& f = kSlowNoc;
  MeshNoc noc(make_config(16, 4, f));
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> flows{
      {0, 3, 1000},    // row 0 eastwards
      {15, 12, 1000},  // row 3 westwards
      {1, 0, 1000},    // opposite direction of the row-0 link r(1,0)->r(0,0)
      {4, 6, 1000},    // through router (1,1) east-west
      {13, 5, 1000},   // through router (1,2) and (1,1) northwards: other links of (1,1)
      {10, 10, 1000},  // local only
  };
  for (const auto& [src, dst, bytes] : flows) {
    const NocTransfer t = noc.send(src, dst, bytes, 7);
    EXPECT_EQ(t.contention_cycles, 0u) << src << "->" << dst;
    EXPECT_EQ(t.arrival_cycle, 7 + f.latency(manhattan(src, dst, 4), bytes)) << src << "->" << dst;
  }
}

TEST(MeshNoc, LinkFreeAgainAfterTheOccupancy) {
  const Formula& f = kSlowNoc;
  MeshNoc noc(make_config(16, 4, f));
  noc.send(0, 1, 128, 0);
  // A packet ready just when the injection port frees does not wait.
  const NocTransfer b = noc.send(0, 1, 128, f.S(128));
  EXPECT_EQ(b.contention_cycles, 0u);
  // One ready a cycle earlier waits exactly one cycle.
  noc.reset();
  noc.send(0, 1, 128, 0);
  const NocTransfer c = noc.send(0, 1, 128, f.S(128) - 1);
  EXPECT_EQ(c.contention_cycles, 1u);
  EXPECT_EQ(c.start_cycle, f.S(128));
}

TEST(MeshNoc, StatisticsCountBytesFlitsPacketsAndBusyCycles) {
  const Formula& f = kSlowNoc;
  MeshNoc noc(make_config(16, 4, f));
  noc.send(0, 5, 100, 0);   // r(0,0)->r(1,0), r(1,0)->r(1,1)
  noc.send(1, 5, 40, 100);  // r(1,0)->r(1,1)
  const Link& shared = noc.link(noc.find_link("r(1,0)->r(1,1)"));
  EXPECT_EQ(shared.stats.bytes, 140u);
  EXPECT_EQ(shared.stats.flits, f.flits(100) + f.flits(40));
  EXPECT_EQ(shared.stats.packets, 2u);
  EXPECT_EQ(shared.stats.busy_cycles, f.S(100) + f.S(40));
  const Link& first = noc.link(noc.find_link("r(0,0)->r(1,0)"));
  EXPECT_EQ(first.stats.packets, 1u);
  EXPECT_EQ(first.stats.bytes, 100u);
  const NocTotals& t = noc.totals();
  EXPECT_EQ(t.packets, 2u);
  EXPECT_EQ(t.bytes, 140u);
  EXPECT_EQ(t.flits, f.flits(100) + f.flits(40));
  EXPECT_EQ(t.flit_hops, 2 * f.flits(100) + 1 * f.flits(40));
  EXPECT_EQ(t.flit_router_traversals, 3 * f.flits(100) + 2 * f.flits(40));
  // flit_hops is also the sum of flits over the mesh links.
  std::uint64_t mesh_flits = 0;
  for (const Link& l : noc.links()) {
    if (l.kind == LinkKind::kMesh) mesh_flits += l.stats.flits;
  }
  EXPECT_EQ(mesh_flits, t.flit_hops);
  noc.reset();
  EXPECT_EQ(noc.totals().packets, 0u);
  EXPECT_EQ(shared.stats.packets, 0u);
  EXPECT_EQ(shared.free_at, 0u);
}

TEST(MeshNoc, ListenerSeesEveryReservationInRouteOrder) {
  const Formula& f = kSlowNoc;
  MeshNoc noc(make_config(16, 4, f));
  std::vector<std::tuple<LinkId, std::uint64_t, Cycle, Cycle>> seen;
  noc.set_link_listener([&](LinkId l, std::uint64_t p, Cycle s, Cycle e) { seen.emplace_back(l, p, s, e); });
  noc.send(2, 2, 8, 0);
  const NocTransfer t = noc.send(0, 6, 64, 3);
  const auto r = noc.route(0, 6);
  ASSERT_EQ(seen.size(), 2u + r.size());
  Cycle head = 3;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const auto& [link, packet, start, end] = seen[2 + i];
    EXPECT_EQ(link, r[i]);
    EXPECT_EQ(packet, t.packet_id);
    EXPECT_EQ(start, head);
    EXPECT_EQ(end, start + f.S(64));
    head += (i == 0 ? f.P() : f.H());
  }
  EXPECT_EQ(t.packet_id, 1u);
}

TEST(MeshNoc, DeterministicForTheSameCallSequence) {
  const auto run = [](std::uint32_t seed) {
    MeshNoc noc(make_config(16, 4, kSlowNoc));
    std::mt19937 rng(seed);
    std::vector<Cycle> out;
    Cycle now = 0;
    for (int i = 0; i < 2000; ++i) {
      now += rng() % 20;
      const NocTransfer t = noc.send(rng() % 16, rng() % 16, rng() % 2048, now);
      out.push_back(t.arrival_cycle);
      out.push_back(t.inject_done_cycle);
    }
    for (const Link& l : noc.links()) out.push_back(l.stats.busy_cycles + 7 * l.stats.blocked_cycles);
    return out;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
}

// Under random load no packet is faster than the zero-load formula and the
// contention reported is exactly the difference.
TEST(MeshNoc, ContentionOnlyAddsDelay) {
  const Formula& f = kSlowNoc;
  MeshNoc noc(make_config(16, 4, f));
  std::mt19937 rng(7);
  Cycle now = 0;
  for (int i = 0; i < 5000; ++i) {
    now += rng() % 8;
    const std::uint32_t a = rng() % 16, b = rng() % 16;
    const std::uint64_t bytes = rng() % 512;
    const NocTransfer t = noc.send(a, b, bytes, now);
    ASSERT_GE(t.arrival_cycle, now + f.latency(manhattan(a, b, 4), bytes));
    ASSERT_EQ(t.arrival_cycle - t.contention_cycles, now + f.latency(manhattan(a, b, 4), bytes));
    ASSERT_GE(t.start_cycle, now);
    ASSERT_EQ(t.arrival_cycle, t.head_arrival_cycle + f.S(bytes));
  }
  // No link is busy for more cycles than have elapsed.
  Cycle last = 0;
  for (const Link& l : noc.links()) last = std::max(last, l.free_at);
  for (const Link& l : noc.links()) EXPECT_LE(l.stats.busy_cycles, last) << l.name;
}

TEST(MeshNoc, AttachedDeviceHasItsOwnPorts) {
  const Formula& f = kSlowNoc;
  MeshNoc noc(make_config(16, 4, f));
  const Endpoint dev = noc.attach_device(3, "gmem");
  EXPECT_EQ(dev.router, 3u);
  EXPECT_EQ(dev.port, 1u);
  EXPECT_EQ(noc.link(noc.inject_link(dev)).name, "gmem->r(3,0)");
  EXPECT_EQ(noc.link(noc.eject_link(dev)).name, "r(3,0)->gmem");
  // A cluster packet to cluster 3 and a device packet at the same time do
  // not share the ejection port.
  const NocTransfer to_cluster = noc.send(noc.cluster_endpoint(2), noc.cluster_endpoint(3), 64, 0);
  const NocTransfer to_dev = noc.send(noc.cluster_endpoint(7), dev, 64, 0);
  EXPECT_EQ(to_cluster.contention_cycles, 0u);
  EXPECT_EQ(to_dev.contention_cycles, 0u);
  EXPECT_EQ(to_dev.arrival_cycle, f.latency(1, 64));
  const auto names = noc.route(dev, noc.cluster_endpoint(0));
  EXPECT_EQ(noc.link(names.front()).name, "gmem->r(3,0)");
  EXPECT_EQ(noc.link(names.back()).name, "r(0,0)->local(0,0)");
  EXPECT_THROW(noc.attach_device(16, "x"), std::out_of_range);
  EXPECT_THROW(noc.send(Endpoint{3, 2}, dev, 1, 0), std::out_of_range);
}

TEST(MeshNoc, RejectsBadConfigurationNamingTheParameter) {
  const auto message = [](MeshNocConfig c) -> std::string {
    try {
      MeshNoc noc(c);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  MeshNocConfig c = make_config(16, 4, kSlowNoc);
  c.mesh_cols = 5;
  EXPECT_NE(message(c).find("chip.mesh_cols"), std::string::npos);
  c = make_config(16, 4, kSlowNoc);
  c.link_bits = 0;
  EXPECT_NE(message(c).find("noc.link_bits"), std::string::npos);
  c = make_config(16, 4, kSlowNoc);
  c.clock_mhz = 0;
  EXPECT_NE(message(c).find("noc.clock_mhz"), std::string::npos);
  c = make_config(16, 4, kSlowNoc);
  c.clusters = 0;
  EXPECT_NE(message(c).find("chip.clusters"), std::string::npos);
  MeshNoc ok(make_config(16, 4, kSlowNoc));
  EXPECT_THROW(ok.send(0, 16, 1, 0), std::out_of_range);
}

TEST(MeshNoc, OneRowAndOneColumnMeshes) {
  const Formula& f = kSlowNoc;
  MeshNoc row(make_config(8, 8, f));
  EXPECT_EQ(row.mesh_rows(), 1u);
  EXPECT_EQ(row.send(0, 7, 10, 0).arrival_cycle, f.latency(7, 10));
  MeshNoc col(make_config(8, 1, f));
  EXPECT_EQ(col.mesh_rows(), 8u);
  EXPECT_EQ(col.send(7, 0, 10, 0).arrival_cycle, f.latency(7, 10));
  EXPECT_EQ(col.route_names(1, 0)[1], "r(0,1)->r(0,0)");
  MeshNoc one(make_config(1, 1, f));
  EXPECT_EQ(one.link_count(), 2u);
  EXPECT_EQ(one.send(0, 0, 10, 0).arrival_cycle, f.latency(0, 10));
}

}  // namespace
}  // namespace vp::hw::noc
