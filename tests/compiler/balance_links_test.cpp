// The placement's link balance (balance_links.h) on CUs whose traffic can
// be routed by hand on sidra-y1's 4x4 mesh: CUs crowded into one cluster
// spread out, what must share a cluster still does, and every node and tile
// names its CU's new place.
#include <gtest/gtest.h>

#include <set>

#include "balance_links.h"
#include "shared_loads.h"
#include "vp/cc/graph.h"
#include "vp/cc/mesh_load.h"
#include "vp/cc/target.h"

namespace vp::cc {
namespace {

// A Conv-like node reading `read` bytes of its own input in the SRAM window
// and writing `written` (at least the one byte of its output's shape), one
// copy per entry of `copies` (its CUs).
int add_node(Graph& g, const std::string& name, const std::vector<std::vector<int>>& copies, std::int64_t read,
             std::int64_t written) {
  Value in;
  in.name = name + ".x";
  in.shape = {std::max<std::int64_t>(read, 1), 1, 1};
  Value out;
  out.name = name + ".y";
  out.shape = {std::max<std::int64_t>(written, 1), 1, 1};
  const int vi = g.add_value(in), vo = g.add_value(out);
  Node n;
  n.name = name;
  n.op = OpKind::Conv;
  n.in = {vi};
  n.out = {vo};
  n.memory_bytes = read + written;
  n.replicas = static_cast<int>(copies.size());
  for (std::size_t r = 0; r < copies.size(); ++r) {
    ColumnTile ct;
    ct.copy = static_cast<int>(r);
    for (int c : copies[r]) {
      n.cores.push_back(c);
      ct.parts.push_back({c, 0, 0, 1});
    }
    n.tiles.push_back(ct);
  }
  g.nodes.push_back(n);
  return static_cast<int>(g.nodes.size()) - 1;
}

std::set<int> clusters_of(const Target& t, const std::vector<int>& cores) {
  std::set<int> s;
  for (int c : cores) s.insert(t.cluster_of(c));
  return s;
}

// Every CU named once, and each node's tiles on its own CUs.
void expect_consistent(const Graph& g) {
  std::set<int> seen;
  for (const Node& n : g.nodes) {
    for (int c : n.cores) EXPECT_TRUE(seen.insert(c).second) << "CU " << c << " twice";
    for (const ColumnTile& ct : n.tiles)
      for (const ColumnTile::Part& p : ct.parts)
        EXPECT_NE(std::find(n.cores.begin(), n.cores.end(), p.core), n.cores.end()) << n.name;
  }
}

// Two CUs of cluster (0,0) each read 16 x 8,000 bytes spread over every
// SRAM: X first, the twelve sixteenths of rows 1 to 3 come down column 0,
// 2 x 12,000 flits on r(0,1)->r(0,0), and all thirty remote sixteenths in
// through the CUs' port, 30,000 flits. Apart, each brings its own half.
TEST(BalanceLinks, CUsCrowdedIntoOneClusterSpreadOut) {
  const Target t = load_target("sidra-y1");
  ASSERT_EQ(t.clusters, 16);
  Graph g;
  const int a = add_node(g, "a", {{0}}, 16 * 8000, 0), b = add_node(g, "b", {{1}}, 16 * 8000, 0);
  const MeshLoad before = mesh_load(g, t);
  EXPECT_NEAR(before.busiest_flits, 2 * 12 * 1000, 1.0);
  EXPECT_NEAR(before.busiest_port_flits, 2 * 15 * 1000, 1.0);
  EXPECT_GT(balance_links(g, t), 0);
  const MeshLoad after = mesh_load(g, t);
  const int ca = t.cluster_of(g.nodes[static_cast<std::size_t>(a)].cores[0]);
  const int cb = t.cluster_of(g.nodes[static_cast<std::size_t>(b)].cores[0]);
  EXPECT_NE(ca, cb);
  // Each reader's incoming links: at most 12 sixteenths on one (a corner),
  // 8 for a cluster inside the mesh; its port its own 15.
  EXPECT_LE(after.busiest_flits, 12 * 1000 + 1.0);
  EXPECT_NEAR(after.busiest_port_flits, 15 * 1000, 1.0);
  expect_consistent(g);
}

// A copy that shares its loads (two CUs, Node::share_copy) and a handed
// pair (writer copy and reader copy, Node::handed_from) each keep their
// CUs in one cluster wherever they go. Both heavy and crowded into cluster
// (0,0), two light copies that share their loads elsewhere: the heavy sets
// trade places with the light ones, like for like, and end apart.
TEST(BalanceLinks, WhatMustShareAClusterMovesTogether) {
  const Target t = load_target("sidra-y1");
  const int k = t.cus_per_cluster;
  Graph g;
  const int shared = add_node(g, "shared", {{0, 1}}, 16 * 8000, 16 * 4000);
  const int w = add_node(g, "writer", {{2}}, 16 * 8000, 16 * 8000);
  const int q = add_node(g, "reader", {{3}}, 16 * 8000, 16 * 4000);
  g.nodes[static_cast<std::size_t>(q)].handed_from = w;
  const int light = add_node(g, "light", {{5 * k, 5 * k + 1}, {10 * k, 10 * k + 1}}, 64, 64);
  for (int n : {shared, light}) g.nodes[static_cast<std::size_t>(n)].share_copy.assign(g.nodes[static_cast<std::size_t>(n)].replicas, true);
  const double busiest = mesh_load(g, t).busiest_flits;
  EXPECT_GT(balance_links(g, t), 0);
  const auto& n = g.nodes;
  const std::set<int> s = clusters_of(t, copy_cores(n[static_cast<std::size_t>(shared)], 0));
  EXPECT_EQ(s.size(), 1u);
  const int cw = t.cluster_of(copy_cores(n[static_cast<std::size_t>(w)], 0)[0]);
  EXPECT_EQ(t.cluster_of(copy_cores(n[static_cast<std::size_t>(q)], 0)[0]), cw);
  EXPECT_NE(*s.begin(), cw);
  for (int r = 0; r < 2; ++r) EXPECT_EQ(clusters_of(t, copy_cores(n[static_cast<std::size_t>(light)], r)).size(), 1u);
  EXPECT_LT(mesh_load(g, t).busiest_flits, busiest);
  expect_consistent(g);
}

// Spread evenly already (one reader in each cluster, alike), no trade
// lowers the measure: nothing moves.
TEST(BalanceLinks, AnEvenPlacementStays) {
  const Target t = load_target("sidra-y1");
  Graph g;
  for (int k = 0; k < t.clusters; ++k) add_node(g, "n" + std::to_string(k), {{k * t.cus_per_cluster}}, 16 * 8000, 16 * 8000);
  const Graph before = g;
  EXPECT_EQ(balance_links(g, t), 0);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) EXPECT_EQ(g.nodes[i].cores, before.nodes[i].cores);
}

}  // namespace
}  // namespace vp::cc
