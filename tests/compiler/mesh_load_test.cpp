// The report's mesh model (vp/cc/mesh_load.h) on traffic whose routes can
// be counted by hand on sidra-y1's 4x4 mesh under XY routing.
#include <gtest/gtest.h>

#include "vp/cc/graph.h"
#include "vp/cc/mesh_load.h"
#include "vp/cc/target.h"
#include "schedule_cost.h"

namespace vp::cc {
namespace {

// One Conv-like node on the given cores reading `read` bytes of a value in
// the SRAM window and writing its output of `written` bytes there too.
Graph one_node(const std::vector<int>& cores, std::int64_t read, std::int64_t written) {
  Graph g;
  Value in;
  in.name = "x";
  in.shape = {read, 1, 1};
  Value out;
  out.name = "y";
  out.shape = {written, 1, 1};
  const int vi = g.add_value(in), vo = g.add_value(out);
  Node n;
  n.name = "conv";
  n.op = OpKind::Conv;
  n.in = {vi};
  n.out = {vo};
  n.cores = cores;
  n.memory_bytes = read + written;
  g.nodes.push_back(n);
  return g;
}

TEST(MeshLoad, ReadsConvergeOnTheReadersClusterAndWritesFanOut) {
  const Target t = load_target("sidra-y1");
  ASSERT_EQ(t.clusters, 16);
  ASSERT_EQ(t.mesh_cols, 4);
  ASSERT_GT(t.sram_global_base, 0);
  const double flit = 8.0;  // noc.link_bits 64
  // Reads into cluster (0,0) from every cluster, a sixteenth each: X
  // first, so the twelve clusters of rows 1 to 3 come down column 0 into
  // (0,0) through r(0,1)->r(0,0).
  {
    const MeshLoad m = mesh_load(one_node({0}, 16 * 8000, 0), t);
    EXPECT_EQ(m.busiest, "r(0,1)->r(0,0)");
    EXPECT_DOUBLE_EQ(m.busiest_flits, 12 * 8000 / flit);
    // All fifteen remote sixteenths come in through the CUs' port; each
    // SRAM's port sends one.
    EXPECT_EQ(m.busiest_port, "r(0,0)->local(0,0)");
    EXPECT_DOUBLE_EQ(m.busiest_port_flits, 15 * 8000 / flit);
  }
  // Writes from (0,0) to every cluster: the twelve of columns 1 to 3 leave
  // along row 0 through r(0,0)->r(1,0).
  {
    const MeshLoad m = mesh_load(one_node({0}, 0, 16 * 8000), t);
    EXPECT_EQ(m.busiest, "r(0,0)->r(1,0)");
    EXPECT_DOUBLE_EQ(m.busiest_flits, 12 * 8000 / flit);
    EXPECT_EQ(m.busiest_port, "local(0,0)->r(0,0)");
    EXPECT_DOUBLE_EQ(m.busiest_port_flits, 15 * 8000 / flit);
  }
  // Eight CUs of one cluster (3,3) reading: they share its port, while
  // each SRAM sends its sixteenth from its own.
  {
    std::vector<int> cores;
    for (int u = 0; u < 8; ++u) cores.push_back(15 * t.cus_per_cluster + u);
    const MeshLoad m = mesh_load(one_node(cores, 16 * 8000, 0), t);
    EXPECT_EQ(m.busiest_port, "r(3,3)->local(3,3)");
    EXPECT_DOUBLE_EQ(m.busiest_port_flits, 15 * 8000 / flit);
  }
  // Shared by two CUs in clusters (0,0) and (3,3), each reading half: the
  // twelve clusters of rows 0 to 2 reach (3,3) down column 3 through
  // r(3,2)->r(3,3), as rows 1 to 3 reach (0,0); the busiest links carry
  // twelve sixteenths of a half.
  {
    const MeshLoad m = mesh_load(one_node({0, 15 * t.cus_per_cluster}, 16 * 8000, 0), t);
    EXPECT_DOUBLE_EQ(m.busiest_flits, 12 * 4000 / flit);
  }
  // A value of two granules sits in two SRAMs, (1,1) and (2,1): their
  // ports send all of it, and it comes along row 1, then down column 0.
  {
    Graph g = one_node({0}, 8000, 0);
    g.val(g.nodes[0].in[0]).buf.addr = t.sram_global_base + 5 * t.sram_interleave_bytes;
    ASSERT_EQ(t.sram_interleave_bytes, 4096);
    const MeshLoad m = mesh_load(g, t);
    EXPECT_EQ(m.busiest_port, "r(0,0)->local(0,0)");
    EXPECT_DOUBLE_EQ(m.busiest_port_flits, 8000 / flit);
    EXPECT_EQ(m.busiest, "r(0,1)->r(0,0)");
    EXPECT_DOUBLE_EQ(m.busiest_flits, 8000 / flit);
    // Read from (1,1): only the other granule moves, out of sram6's port
    // and into the CUs' port of (1,1), which the ports' order names first.
    g.nodes[0].cores = {5 * t.cus_per_cluster};
    const MeshLoad here = mesh_load(g, t);
    EXPECT_EQ(here.busiest_port, "r(1,1)->local(1,1)");
    EXPECT_DOUBLE_EQ(here.busiest_port_flits, (8000 - 4096) / flit);
  }
  // No cores: nothing moves.
  EXPECT_EQ(mesh_load(one_node({}, 1000, 1000), t).busiest_flits, 0);
}

// Where each resource's flits come from, the router input they reach it
// over: what lets a packet not queue behind the flits that crossed the hop
// before with it (contended_times.cpp).
TEST(MeshLoad, EachResourcesFlitsAreTakenByTheInputTheyCameFrom) {
  const Target t = load_target("sidra-y1");
  const double f = 8000 / 8.0;  // a sixteenth of the value, in flits
  const Graph g = one_node({0}, 16 * 8000, 0);
  const std::vector<double> in = node_traffic_entering(g, t)[0], all = node_traffic(g, t)[0];
  ASSERT_EQ(in.size(), all.size() * kMeshInputs);
  for (std::size_t r = 0; r < all.size(); ++r) {
    double sum = 0;
    for (int k = 0; k < kMeshInputs; ++k) sum += in[r * kMeshInputs + static_cast<std::size_t>(k)];
    EXPECT_NEAR(sum, all[r], 1e-9) << "resource " << r;
  }
  const auto at = [&](std::size_t r, int k) { return in[r * kMeshInputs + static_cast<std::size_t>(k)]; };
  // r(0,1)->r(0,0): router 4's northbound link. Cluster 4's sixteenth comes
  // from its SRAM's port, those of 5 to 7 along row 1 heading west, those
  // of rows 2 and 3 down column 0 heading north.
  const std::size_t north_of_4 = 4 * 4 + 3;
  EXPECT_DOUBLE_EQ(at(north_of_4, 5), f);
  EXPECT_DOUBLE_EQ(at(north_of_4, 1), 3 * f);
  EXPECT_DOUBLE_EQ(at(north_of_4, 3), 8 * f);
  // The CUs' eject port of (0,0): twelve sixteenths heading north, three
  // along row 0 heading west; its own sixteenth stays off the mesh.
  const std::size_t eject = 4 * 16 + 1;
  EXPECT_DOUBLE_EQ(at(eject, 3), 12 * f);
  EXPECT_DOUBLE_EQ(at(eject, 1), 3 * f);
  // An SRAM's inject port is where its flits start.
  const std::size_t sram5 = 4 * 16 + 4 * 5 + 2;
  EXPECT_DOUBLE_EQ(at(sram5, kFirstHop), f);
}

// The compiler plans for the chip's links (noc.link_bits is a program
// parameter): twice the width, half the flits on every link and port, and
// a DMA priced that many flits shorter.
TEST(MeshLoad, TheTargetsLinkWidthSetsTheFlits) {
  const Target narrow = load_target("sidra-y1"), wide = load_target("sidra-y1", {"noc.link_bits=128"});
  ASSERT_EQ(narrow.noc_link_bits, 64);
  ASSERT_EQ(wide.noc_link_bits, 128);
  const Graph g = one_node({0}, 16 * 8000, 0);
  const MeshLoad a = mesh_load(g, narrow), b = mesh_load(g, wide);
  EXPECT_EQ(a.busiest, b.busiest);
  EXPECT_DOUBLE_EQ(a.busiest_flits, 12 * 8000 / 8.0);
  EXPECT_DOUBLE_EQ(b.busiest_flits, 12 * 8000 / 16.0);
  EXPECT_DOUBLE_EQ(b.busiest_port_flits, 15 * 8000 / 16.0);
  // 4,096 bytes: 512 flits of 8 bytes, 256 of 16.
  EXPECT_EQ(CostModel(narrow).dma(4096) - CostModel(wide).dma(4096), 256);
}

}  // namespace
}  // namespace vp::cc
