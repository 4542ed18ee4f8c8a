// The report's estimate row by row and with the waits at busy links and
// ports (row_times.cpp, contended_times.cpp), on graphs small enough to
// count by hand on sidra-y1's 4x4 mesh.
#include <array>

#include <gtest/gtest.h>

#include "contended_times.h"
#include "schedule_cost.h"
#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {
namespace {

int add_map(Graph& g, const std::string& name, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t addr) {
  Value v;
  v.name = name;
  v.shape = {c, h, w};
  v.buf.addr = addr;
  return g.add_value(v);
}

// A row-wise operator (a ReLU) on `cores`, one copy per core, priced at
// `stage` cycles over its share and moving `bytes` to and from memory in
// packets of `packet_bytes`.
Node& add_relu(Graph& g, const std::string& name, int in, int out, std::vector<int> cores, std::int64_t stage,
               std::int64_t step, std::int64_t bytes, double packets, double packet_bytes) {
  Node n;
  n.name = name;
  n.op = OpKind::Relu;
  n.in = {in};
  n.out = {out};
  n.replicas = static_cast<int>(cores.size());
  n.cores = std::move(cores);
  n.stage_cycles = n.loaded_stage_cycles = stage;
  n.step_cycles = n.loaded_step_cycles = step;
  n.memory_bytes = bytes;
  n.dma_packets = packets;
  n.packet_bytes = packet_bytes;
  n.packet_flits = 1 + packet_bytes / 8;
  n.packet_flits_sq = n.packet_flits * n.packet_flits;
  g.nodes.push_back(n);
  return g.nodes.back();
}

TEST(RowTimes, EachRowWaitsForTheRowsItReadsAndItsCopysRowBefore) {
  Graph g;
  g.min_strip = kMinStrip;
  const int x = add_map(g, "x", 8, 8, 8, -1), y = add_map(g, "y", 8, 8, 8, -1), z = add_map(g, "z", 8, 8, 8, -1);
  g.inputs = {x};
  add_relu(g, "slow", x, y, {0}, 80, 10, 0, 0, 0);
  add_relu(g, "fast", y, z, {1}, 8, 1, 0, 0, 0);
  StagePrices p;
  p.stage = {80, 8};
  p.step = {10, 1};
  const RowTimes rt = row_times(g, p);
  // One copy each: the slow one's rows at 10, 20 .. 80; each of the fast
  // one's a step after the same row of its input.
  EXPECT_DOUBLE_EQ(rt.first[0], 10);
  EXPECT_DOUBLE_EQ(rt.last[0], 80);
  EXPECT_DOUBLE_EQ(rt.first[1], 11);
  EXPECT_DOUBLE_EQ(rt.last[1], 81);
  EXPECT_DOUBLE_EQ(rt.total, 81);
  // The reader's pace is its writer's, not its own: a faster writer, and
  // the rows come back to its own step.
  p.step[0] = 1;
  const RowTimes quick = row_times(g, p);
  EXPECT_DOUBLE_EQ(quick.last[0], 8);
  EXPECT_DOUBLE_EQ(quick.last[1], 9);
}

TEST(RowTimes, RowsOfSeveralCopiesRunSideBySide) {
  // A Relu walks its share a row at a time (emit_unary: the map's rows are
  // its units), so four copies of an 8-row map take every fourth row: each
  // walks 2 rows, four rows done at each step (a strip of columns per copy
  // would have had each walk all 8). With 32 copies (fewer than 2 rows
  // each) contiguous blocks: every row's copy starts at once.
  for (const auto& [copies, last] : std::vector<std::pair<int, double>>{{4, 2}, {32, 1}}) {
    Graph g;
    g.min_strip = kMinStrip;
    const int x = add_map(g, "x", 8, 8, 8, -1), y = add_map(g, "y", 8, 8, 8, -1);
    g.inputs = {x};
    std::vector<int> cores;
    for (int c = 0; c < copies; ++c) cores.push_back(c);
    add_relu(g, "relu", x, y, cores, 8, 1, 0, 0, 0);
    const RowTimes rt = row_times(g, StagePrices{{8}, {1}, {}, {}});
    EXPECT_DOUBLE_EQ(rt.first[0], 1) << copies;
    EXPECT_DOUBLE_EQ(rt.last[0], last) << copies;
  }
}

// Two layers on one cluster's CUs reading the same SRAMs at the same time
// wait for each other's packets; apart in time, or with no other traffic,
// they do not.
TEST(ContendedTimes, LayersSharingLinksAtOnceWaitForEachOther) {
  const Target t = load_target("sidra-y1");
  const std::int64_t window = t.sram_global_base;
  auto graph = [&](bool second_reads) {
    Graph g;
    g.min_strip = kMinStrip;
    const int x = add_map(g, "x", 256, 64, 64, window), y = add_map(g, "y", 256, 64, 64, window + (1 << 21));
    const int u = add_map(g, "u", 256, 64, 64, window + (2 << 21)), v = add_map(g, "v", 256, 64, 64, window + (3 << 21));
    g.inputs = {x, u};
    // 2 MB read and written each, in 4 KiB packets, by 16 CUs of cluster 0.
    std::vector<int> a, b;
    for (int c = 0; c < 8; ++c) a.push_back(c);
    for (int c = 8; c < 16; ++c) b.push_back(c);
    add_relu(g, "a", x, y, a, 100000, 12500, 2 << 20, 64, 4096);
    add_relu(g, "b", u, v, b, 100000, 12500, second_reads ? 2 << 20 : 0, second_reads ? 64 : 0, 4096);
    return g;
  };
  const Graph alone = graph(false), both = graph(true);
  const Contended one = contended_times(alone, t), two = contended_times(both, t);
  // Alone, a's own eight CUs still share their cluster's port: some wait.
  EXPECT_GT(one.prices.stage[0], 100000);
  // Together, both wait more than a alone, and alike.
  EXPECT_GT(two.prices.stage[0], one.prices.stage[0] * 1.05);
  EXPECT_NEAR(two.prices.stage[0], two.prices.stage[1], 1e-6 * two.prices.stage[0]);
  // A stream: every layer busy all the time, the period no shorter than the
  // floor it is given and longer than the slowest stage without waits.
  double stage = 0;
  const double period = contended_period(both, t, 50000, &stage);
  EXPECT_GE(period, 100000);
  EXPECT_NEAR(period, stage, 1.0);
  EXPECT_GT(contended_period(both, t, 50000), contended_period(alone, t, 50000));
  // With no traffic there is nothing to wait for.
  Graph quiet = graph(false);
  quiet.nodes[0].memory_bytes = 0;
  EXPECT_DOUBLE_EQ(contended_times(quiet, t).prices.stage[0], 100000);
}

// Two layers whose packets share their whole route from its first port
// queue for that port, and then cross every link one behind the other as
// the port let them out: the platform reserves a packet's links in turn
// (docs/noc.md), so none waits again. Three hops away they take as long as
// one hop away; summed hop by hop at the whole load they took longer.
TEST(ContendedTimes, PacketsThatShareTheirRouteFromItsStartWaitOnce) {
  const Target t = load_target("sidra-y1");
  const std::int64_t G = t.sram_interleave_bytes;
  auto stages = [&](int sram) {
    Graph g;
    g.min_strip = kMinStrip;
    // Two values each way, of a granule or less, all in cluster `sram`'s SRAM.
    std::vector<int> v;
    for (int k = 0; k < 4; ++k) v.push_back(add_map(g, "v" + std::to_string(k), 16, 8, 8,
                                                    t.sram_global_base + (16 * k + sram) * G));
    g.inputs = {v[0], v[2]};
    add_relu(g, "a", v[0], v[1], {0}, 100000, 12500, 1 << 19, 512, 1024);
    add_relu(g, "b", v[2], v[3], {1}, 100000, 12500, 1 << 19, 512, 1024);
    return contended_times(g, t).prices.stage;
  };
  const std::vector<double> near = stages(1), far = stages(3);
  EXPECT_GT(near[0], 100000);  // they wait for each other at the ports
  EXPECT_NEAR(far[0], near[0], 1e-6 * near[0]);
  EXPECT_NEAR(far[1], near[1], 1e-6 * near[1]);
}

// A value in global memory proper answers after gmem.latency_ns, where the
// stages priced the SRAMs' latency: each packet from there costs the
// difference.
TEST(ContendedTimes, PacketsFromGlobalMemoryWaitForItsLatency) {
  const Target t = load_target("sidra-y1");
  auto stage = [&](std::int64_t addr) {
    Graph g;
    g.min_strip = kMinStrip;
    const int x = add_map(g, "x", 16, 8, 8, addr), y = add_map(g, "y", 16, 8, 8, addr + (1 << 20));
    g.inputs = {x};
    add_relu(g, "relu", x, y, {0}, 1000, 125, 2048, 16, 128);
    return contended_times(g, t).prices.stage[0];
  };
  const double sram = stage(t.sram_global_base), dram = stage(0);
  // 16 packets, about 98 cycles more each (100 ns at 1 GHz against 2).
  EXPECT_GT(dram - sram, 16 * 90.0);
  EXPECT_LT(dram - sram, 16 * 110.0);
}

// A graph input that a pad layer copies in exists row by row at the copy's
// pace (StagePrices::input_step): its reader's row k waits for input row k.
TEST(RowTimes, AGraphInputArrivesAtItsPadLayersPace) {
  Graph g;
  g.min_strip = kMinStrip;
  const int x = add_map(g, "x", 8, 8, 8, -1), y = add_map(g, "y", 8, 8, 8, -1);
  g.inputs = {x};
  add_relu(g, "relu", x, y, {0}, 8, 1, 0, 0, 0);
  StagePrices p{{8}, {1}, {}, {}};
  EXPECT_DOUBLE_EQ(row_times(g, p).last[0], 8);  // there from the start: its own pace
  p.input_step.assign(g.values.size(), 0.0);
  p.input_step[static_cast<std::size_t>(x)] = 10;
  const RowTimes rt = row_times(g, p);
  EXPECT_DOUBLE_EQ(rt.first[0], 11);
  EXPECT_DOUBLE_EQ(rt.last[0], 81);
}

// Copies in contiguous blocks of pixels are followed through their rows: a
// block across two rows computes its part of the second after its part of
// the first, each part a step's share by its pixels.
TEST(RowTimes, ABlockAcrossTwoRowsEndsItsSecondPartAfterItsFirst) {
  Graph g;
  g.min_strip = kMinStrip;
  // Three rows of 4 pixels in two copies: pixels 0-5 (row 0, half of row
  // 1) and 6-11 (the other half of row 1, row 2).
  const int x = add_map(g, "x", 8, 3, 4, -1), y = add_map(g, "y", 8, 3, 4, -1);
  g.inputs = {x};
  Node n;
  n.name = "mul";
  n.op = OpKind::Mul;
  n.in = {x, x};
  n.out = {y};
  n.replicas = 2;
  n.cores = {0, 1};
  g.nodes.push_back(n);
  StagePrices p{{80}, {40}, {}, {}};
  p.input_step.assign(g.values.size(), 0.0);
  p.input_step[static_cast<std::size_t>(x)] = 1;  // input row k there at k + 1
  const RowTimes rt = row_times(g, p);
  // Copy 0: row 0 at 1 + 40, then its half of row 1 at 41 + 20. Copy 1:
  // its half of row 1 at 2 + 20, row 2 at 22 + 40. (Taking row k as done a
  // step after its inputs, or after row k - 1 when the copy that ends it
  // began there, gave 41, 42 and 82.)
  EXPECT_DOUBLE_EQ(rt.first[0], 41);
  EXPECT_DOUBLE_EQ(rt.last[0], 62);
  // Inputs that come late set the pace instead: each part a step's share
  // after its own rows.
  p.input_step[static_cast<std::size_t>(x)] = 100;
  const RowTimes late = row_times(g, p);
  EXPECT_DOUBLE_EQ(late.first[0], 140);
  EXPECT_DOUBLE_EQ(late.last[0], 340);
}

// A pixel-wise operator's step on a map wider than one pixel is one row of
// the map (its cores walk and hand over whole rows), not one pixel.
TEST(CostModel, APixelOperatorsStepIsARowOfItsMap) {
  const CostModel cm(load_target("sidra-y1"), kMinStrip);
  LayerCost c;
  c.units = 64;  // an 8x8 map
  EXPECT_EQ(cm.map_row_step(c, 1, 6400), 100);  // rows of one unit: a pixel
  c.map_width = 8;
  EXPECT_EQ(cm.map_row_step(c, 1, 6400), 800);
  EXPECT_EQ(cm.map_row_step(c, 2, 3200), 400);  // two strips of 4 pixels, every row each
}

// A LayerNormalization's, MatMul's or Softmax's store is its pixel's last
// instruction and nothing waits for it until the row's end (emit_sync): the
// estimate's stage leaves each store out but each row's last; the copy
// choice's keeps them all.
TEST(CostModel, APixelsStoreGoesOutUnderTheNextPixel) {
  const CostModel cm(load_target("sidra-y1"), kMinStrip);
  LayerCost c;
  c.units = 64;  // an 8x8 map
  c.map_width = 8;
  c.pixel_cycles = 100;
  c.store_behind = 30;
  const std::int64_t whole = cm.stage(c, 1);
  EXPECT_EQ(cm.loaded_stage(c, 1), whole - (64 - 8) * 30);
  EXPECT_EQ(cm.loaded_stage(c, 2), cm.stage(c, 2) - (32 - 8) * 30);  // two strips of 4 pixels
  c.map_width = 0;  // rows of one pixel: every store is a row's last
  EXPECT_EQ(cm.loaded_stage(c, 1), cm.stage(c, 1));
}

// Inside windows a core takes whole windows (emit_matmul_head_groups): 4
// windows of 16 rows over 6 cores are one window on each of 4 of them, not
// 11 rows on each.
TEST(CostModel, AMatMulInsideWindowsSharesWholeWindows) {
  const CostModel cm(load_target("sidra-y1"), kMinStrip);
  LayerCost c;
  c.units = 64;
  c.windows = 4;
  for (const auto& [copies, groups, rows, pixels] :
       std::vector<std::array<int, 4>>{{6, 1, 16, 16}, {3, 1, 32, 32}, {1, 1, 64, 64}, {4, 2, 32, 16}, {8, 2, 16, 8}}) {
    c.head_groups = groups;
    const Share sh = cm.share(c, copies, 1);
    EXPECT_EQ(sh.rows, rows) << copies << " copies, " << groups << " groups";
    EXPECT_EQ(sh.pixels, pixels) << copies << " copies, " << groups << " groups";
  }
  c.windows = 0;
  EXPECT_EQ(cm.share(c, 6, 1).pixels, 11);  // no windows: rows dealt in turn
}

// A pixel gather copies each run of consecutive input pixels with one load
// and one store (emit_gather): a patch merging's strided pixels are a run
// each, a row that is one run is one DMA each way. The estimate's stage
// counts the runs; the copy choice keeps one DMA each way a row.
TEST(CostModel, AGatherLoadsAndStoresEachRunOfPixels) {
  const Target t = load_target("sidra-y1");
  const CostModel cm(t, kMinStrip);
  auto gather = [&](bool merging) {
    Graph g;
    g.min_strip = kMinStrip;
    const int x = add_map(g, "x", 32, 8, 8, t.sram_global_base);
    const int y = merging ? add_map(g, "y", 128, 4, 4, t.sram_global_base + 4096)
                          : add_map(g, "y", 32, 8, 8, t.sram_global_base + 4096);
    Node n;
    n.name = "gather";
    n.op = OpKind::Concat;
    n.in = {x};
    n.out = {y};
    if (merging) {
      // Output pixel (i, j) takes input pixels (2i, 2j), (2i + 1, 2j),
      // (2i, 2j + 1), (2i + 1, 2j + 1) side by side.
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          for (int p : {0, 8, 1, 9}) n.gather.push_back((2 * i) * 8 + 2 * j + p);
    } else {
      for (int k = 0; k < 64; ++k) n.gather.push_back(k ^ 8);  // rows swapped in pairs: whole rows
    }
    return cm.other(g, n);
  };
  const LayerCost merge = gather(true), rows = gather(false);
  // 16 runs of 32 bytes a row of 4 output pixels.
  EXPECT_EQ(merge.units, 4);
  EXPECT_EQ(merge.unit_dmas.size(), 32u);
  EXPECT_EQ(merge.loaded_pixel_cycles, 16 * (2 * cm.dma(32) + 3) + 12);
  EXPECT_EQ(merge.pixel_cycles, 2 * cm.dma(512) + 12);
  EXPECT_GT(cm.loaded_stage(merge, 1), cm.stage(merge, 1) * 3);
  // One run of 256 bytes a row.
  EXPECT_EQ(rows.unit_dmas.size(), 2u);
  EXPECT_EQ(rows.loaded_pixel_cycles, 2 * cm.dma(256) + 3 + 12);
}

// The stages price every DMA's route at kMeanHops to the memory's corner
// through four ports; the estimate reprices the latencies a stage waits
// out one after the other at the routes its placement gives. A value of
// many granules in the window spreads over the 16 clusters: from a corner
// cluster it is 3 hops away on average, from one in the middle 2, and a
// sixteenth of it is in the reader's own cluster.
TEST(ContendedTimes, ADmaNearerItsBytesWaitsLess) {
  const Target t = load_target("sidra-y1");
  auto stage = [&](int cluster, double latencies) {
    Graph g;
    g.min_strip = kMinStrip;
    const int x = add_map(g, "x", 64, 64, 64, t.sram_global_base);
    const int y = add_map(g, "y", 64, 64, 64, t.sram_global_base + (1 << 20));
    g.inputs = {x};
    Node& n = add_relu(g, "relu", x, y, {cluster * t.cus_per_cluster}, 100000, 12500, 1 << 19, 4096, 128);
    n.path_latencies = latencies;
    return contended_times(g, t).prices.stage[0];
  };
  const CostModel cm(t, kMinStrip);
  const double corner = stage(0, 100) - stage(0, 0), middle = stage(5, 100) - stage(5, 0);
  // The middle saves a hop each way on each of the 100 latencies.
  EXPECT_LT(middle, corner);
  EXPECT_NEAR(corner - middle, 100 * (cm.route_latency(3, 1) - cm.route_latency(2, 1)), 100 * 0.5);
  // The corner's route is the priced one but for its own sixteenth.
  EXPECT_NEAR(corner, 100 * (cm.route_latency(3, 15.0 / 16) - cm.route_latency(3, 1)), 100 * 0.5);
}

}  // namespace
}  // namespace vp::cc
