// The chip-to-chip link's paths and times against the formulas of
// hw/system/chip_link.h (the transfers themselves are checked end to end by
// check_model.py --chips: bytes equal to the golden model, busy cycles and
// energy against the same formulas).
#include <gtest/gtest.h>

#include <cmath>

#include "vp/hw/system/chip_link.h"

namespace {

using vp::hw::ChipLink;
using vp::hw::LinkConfig;
using vp::hw::LinkTopology;
using Hops = std::vector<std::pair<int, int>>;

// A link over `n` chips with no routes: only its geometry and timing are used.
std::unique_ptr<ChipLink> make_link(LinkConfig cfg, int n) {
  static int count = 0;
  const std::string name = "link" + std::to_string(count++);
  return std::make_unique<ChipLink>(name.c_str(), cfg, std::vector<vp::hw::Chip*>(n, nullptr),
                                    std::vector<vp::hw::LinkRoute>{}, 1);
}

TEST(ChipLink, ChainGoesThroughEveryChipBetween) {
  LinkConfig cfg;
  cfg.topology = LinkTopology::Chain;
  auto link = make_link(cfg, 4);
  EXPECT_EQ(link->path(0, 3), (Hops{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(link->path(3, 1), (Hops{{3, 2}, {2, 1}}));
}

TEST(ChipLink, RingTakesTheShorterWayForwardOnATie) {
  LinkConfig cfg;
  cfg.topology = LinkTopology::Ring;
  auto link = make_link(cfg, 4);
  EXPECT_EQ(link->path(0, 3), (Hops{{0, 3}}));
  EXPECT_EQ(link->path(3, 0), (Hops{{3, 0}}));
  EXPECT_EQ(link->path(1, 3), (Hops{{1, 2}, {2, 3}}));
  EXPECT_EQ(link->path(3, 1), (Hops{{3, 0}, {0, 1}}));
}

TEST(ChipLink, SwitchIsTwoHopsWhateverTheChips) {
  LinkConfig cfg;
  cfg.topology = LinkTopology::Switch;
  auto link = make_link(cfg, 8);
  EXPECT_EQ(link->path(0, 7), (Hops{{0, -1}, {-1, 7}}));
  EXPECT_EQ(link->path(5, 4), (Hops{{5, -1}, {-1, 4}}));
}

TEST(ChipLink, TimesFollowLanesRateEncodingAndClock) {
  LinkConfig cfg;  // the defaults: PCIe 4.0 x16, 128b/130b, 500 ns, 1 GHz
  auto link = make_link(cfg, 2);
  const double gbps = 16 * 16.0 * (128.0 / 130.0) / 8.0;  // 31.5 GB/s
  EXPECT_NEAR(cfg.gbytes_per_s(), gbps, 1e-3);
  // 100,352 bytes (ResNet-18's layer2 map) in ceil(bytes / GB/s) ns.
  EXPECT_EQ(link->serialization_cycles(100352), static_cast<uint64_t>(std::ceil(100352 / gbps)));
  EXPECT_EQ(link->hop_cycles(), 500u);
  cfg.clock_mhz = 500;  // half the cycles for the same nanoseconds
  auto slow = make_link(cfg, 2);
  EXPECT_EQ(slow->hop_cycles(), 250u);
  EXPECT_EQ(slow->serialization_cycles(100352), static_cast<uint64_t>(std::ceil(100352 / gbps / 2)));
}

TEST(ChipLink, TopologyNamesRoundTrip) {
  for (const char* n : {"chain", "ring", "switch"})
    EXPECT_STREQ(vp::hw::link_topology_name(vp::hw::parse_link_topology(n)), n);
  EXPECT_THROW(vp::hw::parse_link_topology("mesh"), std::invalid_argument);
}

}  // namespace
