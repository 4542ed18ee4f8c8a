// Map: every operator with crossbar weights (operators.def: Conv, which
// Gemm, MatMul and BatchNormalization have become) becomes a weight matrix
// of K = kh*kw*Cin rows by N output channels, tiled into crossbar blocks of
// rows x lcols and placed on (cluster, CU, crossbar), in one or more copies.
//
// Rows follow the channel-wise lowering (seeds: RAPTOR thesis): row
// (r*kw + s)*C' + c holds input channel c of window position (r, s), so a
// window in the channels-last activation is kh contiguous runs of kw*C bytes.
//
// One copy of a layer is a set of CU loads ("bins"), whose MVM groups fire
// at once for each pixel: column tiles that read the same window share a
// bin while its crossbars last (one-crossbar tiles as a `concat` group,
// taller ones as `sum` groups), and a tile needing more crossbars than a CU
// has is split over several CUs whose partial sums travel on the NoC to the
// first. Two placements: pipelined (map_pipelined: one load per CU, all
// layers at once, lanes of the load side by side on its crossbars, copies
// for the shortest single inference) and shared (place_shared in
// map_shared.cpp: a CU holds loads of many layers, a layer's bins on
// distinct CUs near its home CU, copies by the cycles they save per
// crossbar).
#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>

#include "handed_rows.h"
#include "handover_estimate.h"
#include "map_layers.h"
#include "schedule_cost.h"
#include "shared_loads.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

// Every copy of its rows (ColumnTile::redundant) included.
int row_tiles(const ColumnTile& ct, const Target& t) { return ct.row_tiles(t.rows); }

// One copy's CU loads: one MVM group each, or (`packed`, when the chip has
// too few CUs for that) whole tiles packed while a CU's crossbars last.
std::vector<Bin> copy_bins(const std::vector<ColumnTile>& tiles, const Target& t, bool packed) {
  const int X = t.xbars_per_cu;
  std::vector<Bin> bins;
  Bin cur;
  int ci0 = -1, ci1 = -1;
  auto flush = [&] {
    if (!cur.slots.empty()) bins.push_back(cur);
    cur = Bin{};
  };
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const ColumnTile& ct = tiles[i];
    const int rt = row_tiles(ct, t);
    if (rt > X) {
      flush();
      for (int r0 = 0; r0 < rt; r0 += X) {
        const int part = std::min(X, rt - r0);
        bins.push_back({{{static_cast<int>(i), r0, part}}, part});
      }
      continue;
    }
    // Tiles reading the same window share a CU while its crossbars last:
    // one-crossbar tiles as one `concat` group, taller ones as `sum` groups
    // of their own, all fired at once (cu.xbar.concurrent_mvm), so the
    // window is read once for all of them.
    const bool group = !cur.slots.empty() && cur.xbars + rt <= std::min(X, kMaxGroup) && ct.ci0 == ci0 && ct.ci1 == ci1;
    const bool joins = packed ? cur.xbars + rt <= X : group;
    if (!joins) flush();
    cur.slots.push_back({static_cast<int>(i), 0, rt});
    cur.xbars += rt;
    ci0 = ct.ci0;
    ci1 = ct.ci1;
  }
  flush();
  return bins;
}

// One copy's column tiles of a Conv: lcols channels each, never straddling
// more groups than needed.
std::vector<ColumnTile> column_tiles(const Graph& g, const Node& n, int L) {
  const Shape in = g.val(n.in[0]).shape;
  const int N = static_cast<int>(g.val(n.out[0]).shape.c);
  const int G = n.geom.group, Cg = static_cast<int>(in.c) / G, Ng = N / G;
  std::vector<ColumnTile> tiles;
  for (int n0 = 0; n0 < N; n0 += L) {
    ColumnTile ct;
    ct.n0 = n0;
    ct.ncols = std::min(L, N - n0);
    ct.ci0 = (n0 / Ng) * Cg;
    ct.ci1 = ((n0 + ct.ncols - 1) / Ng + 1) * Cg;
    ct.k = std::int64_t{n.geom.kh} * n.geom.kw * (ct.ci1 - ct.ci0);
    ct.redundant = n.redundancy;
    tiles.push_back(ct);
  }
  return tiles;
}

// A copy's CU loads: one MVM group each when the chip has the CUs, else packed.
std::vector<Bin> layer_bins(const std::vector<ColumnTile>& tiles, const Target& t) {
  std::vector<Bin> bins = copy_bins(tiles, t, false);
  if (static_cast<int>(bins.size()) > t.cores()) bins = copy_bins(tiles, t, true);
  return bins;
}

// The pipelined mapping: every CU holds the load of one copy of one layer,
// or runs one share of an operator without weights, so all layers run at
// once on CUs of their own and the row hand-over (emit_sync.cpp) keeps them
// in step. Copies go where they shorten a single inference most per CU
// (below), while CUs last; layers take consecutive CUs in program order (a
// layer's readers are its neighbours). False (nothing changed) when one
// copy of everything needs more CUs than the chip has.
bool map_pipelined(Graph& g, const Target& t, const CostModel& cm, std::vector<Layer>& layers,
                   const MapOptions& opt) {
  struct Stage {
    int node;
    int layer;  // index in `layers`, -1 for an operator without weights
    LayerCost cost;
    int cus_per_copy;
    int max_copies;
    int copies = 1;
    int max_lanes = 1;
    int unit = 1;  // copies come in multiples of it (a MatMul's groups of heads)
  };
  std::vector<Stage> stages;
  std::vector<int> layer_of_node(g.nodes.size(), -1);
  for (std::size_t l = 0; l < layers.size(); ++l) layer_of_node[static_cast<std::size_t>(layers[l].node)] = static_cast<int>(l);
  for (std::size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const Node& n = g.nodes[ni];
    if (n.fused) continue;
    const int l = layer_of_node[ni];
    if (l >= 0) {
      const Layer& lay = layers[static_cast<std::size_t>(l)];
      stages.push_back({static_cast<int>(ni), l, lay.cost, static_cast<int>(lay.bins.size()), lay.max_copies});
      // Lanes: copies of each load side by side on its CU, as many as its
      // crossbars allow, when no load is part of a tile split over CUs
      // (those exchange partial sums pixel by pixel).
      int widest = 1;
      bool split = false;
      for (const Bin& b : lay.bins) {
        widest = std::max(widest, b.xbars);
        for (const Slot& sl : b.slots)
          split = split || sl.row_tiles != row_tiles(lay.tiles[static_cast<std::size_t>(sl.tile)], t);
      }
      int lanes = split || opt.replicate == 1 ? 1 : std::max(1, t.xbars_per_cu / widest);
      if (opt.lanes > 0) lanes = std::min(lanes, opt.lanes);
      stages.back().max_lanes = lanes;
      stages.back().cost.lanes = lanes;
      // One layer per CU: the CU pipelines its groups of pixels (emit_conv).
      stages.back().cost.overlap = true;
    } else if (!op_has(n.op, op_crossbar)) {
      const LayerCost c = cm.other(g, n);
      const int most = n.op == OpKind::GlobalAveragePool
                           ? 1
                           : static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(c.units, kMaxGroup * 4)));
      stages.push_back({static_cast<int>(ni), -1, c, 1, most});
      // A MatMul of two activations whose B is too large for one core: its
      // heads in groups, a core each at the least (emit_matmul.cpp).
      if (n.op == OpKind::MatMul) {
        const int groups = matmul_head_groups(g, n, t);
        if (groups > 1) {
          stages.back().copies = stages.back().unit = groups;
          stages.back().max_copies = groups * std::max(1, most / groups);
        }
        // Inside windows a core takes whole windows: past a core per window
        // and group, more cores get none.
        if (n.windows > 1)
          stages.back().max_copies = std::min(stages.back().max_copies, std::max(1, groups) * n.windows);
      }
    }
  }
  // The row hand-over's messages of a stage's cores at the copies chosen
  // so far (handover_estimate.h): each costs the core a pass of its table
  // loop, so a pooling between two layers of many copies is paced by its
  // messages, not its windows (tiny_cnn's max pooling on 8 cores: 1,722
  // messages a core, 10 k cycles, against a stage of 2 k).
  std::vector<int> stage_nodes, stage_cus, copies;
  for (const Stage& s : stages) {
    stage_nodes.push_back(s.node);
    stage_cus.push_back(s.cus_per_copy);
  }
  const HandoverEstimate handover(g, stage_nodes, stage_cus);
  // Kept equal to each stage's copies as they grow.
  for (const Stage& s : stages) copies.push_back(s.copies);
  auto messages = [&](std::size_t i, int k) { return handover.messages(i, k, copies); };
  auto stage_time = [&](const Stage& s, int k) {
    return cm.stage(s.cost, k) + kTokenCycles * messages(static_cast<std::size_t>(&s - stages.data()), k);
  };
  auto step_time = [&](const Stage& s, int k) {
    const std::int64_t st = cm.stage(s.cost, k);
    return st > 0 ? cm.step(s.cost, k) * stage_time(s, k) / st : cm.step(s.cost, k);
  };

  // Handed rows (handed_rows.h): a 1x1 Conv reading a residual block's
  // output follows the copies of the Conv that stores it, when each copy of
  // both is one CU, so that its copy r can sit beside the writer's copy r:
  // the writer's copies grow with the reader's, at the CUs of both, and the
  // reader's are not chosen on their own (a stream is paced by the rows
  // the mesh carries, which the pairs keep off it: docs/compiler.md,
  // "Handed rows").
  std::vector<int> follower(stages.size(), -1);
  std::vector<bool> follows(stages.size(), false);
  if (opt.hand_rows) {
    std::map<int, std::size_t> stage_of;
    for (std::size_t i = 0; i < stages.size(); ++i) stage_of[stages[i].node] = i;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      Stage& s = stages[i];
      if (s.layer < 0 || s.cus_per_copy != 1) continue;
      const auto w = stage_of.find(hand_source(g, g.nodes[static_cast<std::size_t>(s.node)], t));
      if (w == stage_of.end() || follower[w->second] >= 0 || follows[w->second] || follows[i] || follower[i] >= 0)
        continue;
      const Stage& ws = stages[w->second];
      if (ws.layer < 0 || ws.cus_per_copy != 1 || ws.copies != s.copies) continue;
      follower[w->second] = static_cast<int>(i);
      follows[i] = true;
    }
  }
  std::int64_t used = 0;
  for (const Stage& s : stages) used += std::int64_t{s.cus_per_copy} * s.copies;
  if (used > t.cores()) return false;
  std::int64_t spare = t.cores() - used;
  // CUs that growing stage s to `to` copies takes, its follower's with it.
  auto cus_for = [&](const Stage& s, int to) {
    const int f = follower[static_cast<std::size_t>(&s - stages.data())];
    const std::int64_t per = s.cus_per_copy + (f >= 0 ? stages[static_cast<std::size_t>(f)].cus_per_copy : 0);
    return per * (to - s.copies);
  };
  auto fits = [&](const Stage& s, int to) {
    const int f = follower[static_cast<std::size_t>(&s - stages.data())];
    return to <= s.max_copies && (f < 0 || to <= stages[static_cast<std::size_t>(f)].max_copies) &&
           cus_for(s, to) <= spare;
  };
  if (opt.replicate != kReplicateAuto) {
    for (Stage& s : stages) {
      const int to = std::max(s.copies, std::min(opt.replicate, s.max_copies) / s.unit * s.unit);
      if (std::int64_t{s.cus_per_copy} * (to - s.copies) > spare) return false;
      spare -= std::int64_t{s.cus_per_copy} * (to - s.copies);
      s.copies = to;
    }
  } else {
    // Copies go where they shorten the inference most per CU. A row of a
    // layer's share is one step of the row hand-over, and a reader waits
    // for about one step of each layer before it, so a single inference
    // takes about the slowest stage plus the sum of every layer's step:
    // copies that shorten a stage (more rows or pixels dealt out) or a step
    // (narrower strips) both count.
    auto step = [&](const Stage& s, int k) { return step_time(s, k); };
    // A whole-map reduction (a global pooling: one pixel out of many) ends
    // a stretch of the pipeline: what reads it starts once the map's last
    // row is in (a squeeze-and-excitation gate's Mul has every row wait
    // for it). Each stretch takes about its own slowest stage, so the
    // slowest stage is counted per stretch (node_segments); a network with
    // no reduction before its classifier has one, as before.
    const std::vector<int> node_seg = node_segments(g);
    std::vector<int> seg;
    for (const Stage& s : stages) seg.push_back(node_seg[static_cast<std::size_t>(s.node)]);
    const int K = seg.empty() ? 1 : *std::max_element(seg.begin(), seg.end()) + 1;
    for (;;) {
      std::vector<std::int64_t> top(static_cast<std::size_t>(K), 0), second = top, below = top;
      std::vector<int> tied(static_cast<std::size_t>(K), 0);
      for (std::size_t i = 0; i < stages.size(); ++i) {
        const std::size_t k = static_cast<std::size_t>(seg[i]);
        const std::int64_t c = stage_time(stages[i], stages[i].copies);
        if (c > top[k]) {
          second[k] = top[k];
          top[k] = c;
        } else if (c > second[k]) {
          second[k] = c;
        }
      }
      for (std::size_t i = 0; i < stages.size(); ++i) {
        const std::size_t k = static_cast<std::size_t>(seg[i]);
        const std::int64_t c = stage_time(stages[i], stages[i].copies);
        if (c == top[k]) ++tied[k];
        else below[k] = std::max(below[k], c);
      }
      Stage* pick = nullptr;
      int grow = 0;
      double best = 0;
      for (Stage& s : stages) {
        if (follows[static_cast<std::size_t>(&s - stages.data())]) continue;
        const std::size_t k = static_cast<std::size_t>(seg[static_cast<std::size_t>(&s - stages.data())]);
        const std::int64_t c0 = stage_time(s, s.copies), s0 = step(s, s.copies);
        const std::int64_t others = c0 == top[k] ? second[k] : top[k];
        for (int to = s.copies + s.unit; to <= s.copies + 64 && fits(s, to); to += s.unit) {
          const std::int64_t c1 = stage_time(s, to), s1 = step(s, to);
          if (c1 >= c0 && s1 >= s0) continue;
          // One of `tied` stages at the slowest: its share of what they save together.
          const std::int64_t saved = (tied[k] > 1 && c0 == top[k] ? (c0 - std::max(below[k], c1)) / tied[k]
                                                                  : std::max(top[k], c0) - std::max(others, c1)) +
                                     (s0 - s1);
          const double gain = static_cast<double>(saved) / static_cast<double>(cus_for(s, to));
          if (gain > best) {
            best = gain;
            pick = &s;
            grow = to;
          }
        }
      }
      // Several stages tied at the slowest (a transformer's q, k, v and MLP
      // Linear layers over the same rows): shortening one alone saves
      // nothing until all are, so no single copy shows a gain. Then the
      // tied stage whose next copies shorten it most per CU goes first.
      // Within 1 % counts as tied: with its GELU computed by the first MLP
      // Linear, Swin's layout block had that Linear 0.15 % above three
      // LayerNorms, no copy of either showed a gain, and the choice stopped
      // with 254 CUs free (28,951 -> 36,282 cycles).
      if (!pick) {
        double most = 0;
        for (Stage& s : stages) {
          if (follows[static_cast<std::size_t>(&s - stages.data())]) continue;
          const std::size_t k = static_cast<std::size_t>(seg[static_cast<std::size_t>(&s - stages.data())]);
          const auto near_top = [&](std::int64_t c) { return c * 100 >= top[k] * 99; };
          const std::int64_t c0 = stage_time(s, s.copies);
          if (!near_top(c0) || !near_top(second[k]) || top[k] <= 0) continue;
          for (int to = s.copies + s.unit; to <= s.copies + 64 && fits(s, to); to += s.unit) {
            const std::int64_t c1 = stage_time(s, to);
            const double gain = static_cast<double>(c0 - c1) / static_cast<double>(cus_for(s, to));
            if (c1 < c0 && gain > most) {
              most = gain;
              pick = &s;
              grow = to;
            }
          }
        }
      }
      if (!pick) break;
      spare -= cus_for(*pick, grow);
      pick->copies = grow;
      copies[static_cast<std::size_t>(pick - stages.data())] = grow;
      if (const int f = follower[static_cast<std::size_t>(pick - stages.data())]; f >= 0) {
        stages[static_cast<std::size_t>(f)].copies = grow;
        copies[static_cast<std::size_t>(f)] = grow;
      }
    }
  }
  // The pairs that hand rows, as copied: the reader's copies are the
  // writer's (the choice above grew them together).
  std::vector<std::pair<std::size_t, std::size_t>> hands;  // (writer's stage, reader's stage)
  for (std::size_t i = 0; i < stages.size(); ++i)
    if (follower[i] >= 0 && stages[static_cast<std::size_t>(follower[i])].copies == stages[i].copies)
      hands.emplace_back(i, static_cast<std::size_t>(follower[i]));
  // Fewest lanes that keep each stage's time (spare crossbars stay unprogrammed).
  for (Stage& s : stages) {
    const std::int64_t best = cm.stage(s.cost, s.copies);
    while (s.cost.lanes > 1) {
      LayerCost fewer = s.cost;
      --fewer.lanes;
      if (cm.stage(fewer, s.copies) > best) break;
      s.cost = fewer;
    }
  }
  // Consecutive CUs in program order, the clusters row by row from the
  // mesh corner farthest from the memory controller's router: the first
  // layers (the largest maps, the most traffic) stay off the links every
  // global-memory transfer crosses, and the last layers (small maps, the
  // tensors that did not fit the SRAMs) end near the memory.
  // For one image the k-th CU taken is instead the (k / clusters)-th of
  // cluster k mod clusters (in the same order of clusters): the CUs of a
  // layer, which load the same input rows at the same moment, then sit in
  // as many clusters, so their loads come in through as many of the
  // clusters' 8-byte router ports instead of queueing at one (ResNet-50
  // 1,161,510 -> 1,120,335 cycles, ResNet-18 505,125 -> 404,769,
  // MobileNetV2 1,096,867 -> 776,481). A stream spreads its layers so
  // too when all its activations fit the SRAMs, rings of rows counted at
  // their size: with row releases its layers run at the pace of their
  // clusters' ports (ResNet-18 at batch 16 330,838 -> 272,636 cycles per
  // inference, MobileNetV2 690,958 -> 514,599, ResNet-50 with its rings
  // 605,806 -> 467,173). A stream whose activations spill to global memory
  // keeps each layer's CUs together: the memory's one port paces it, and
  // the longer paths cost more than the clusters' ports save (ResNet-50
  // without rings at batch 16: 936,494 spread, 716,192 not).
  for (const Stage& s : stages) g.nodes[static_cast<std::size_t>(s.node)].replicas = s.copies;
  const bool spread = opt.batch == 1 || activations_fit_sram(g, t, opt.batch > 1 && opt.row_releases);
  const int mrow = t.gmem_attach_cluster / t.mesh_cols, mcol = t.gmem_attach_cluster % t.mesh_cols;
  const int rows = t.clusters / t.mesh_cols;
  std::vector<int> order;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < t.mesh_cols; ++j) {
      // Walk away from the far edge: rows (columns) the memory is nearer
      // the start of are taken from their end.
      const int row = mrow < rows / 2 ? rows - 1 - i : i, col = mcol < t.mesh_cols / 2 ? t.mesh_cols - 1 - j : j;
      order.push_back(row * t.mesh_cols + col);
    }
  // A copy whose loads are shared needs all its CUs in one cluster. Spread,
  // those groups are placed first, largest first, each in the cluster with
  // the most CUs still free (the first such in `order`); the other CUs are
  // then dealt to the clusters in turn, passing over full ones. With no
  // groups that is the k-th CU taken = the (k / clusters)-th of cluster
  // k mod clusters, as above. Not spread, a copy's CUs are consecutive and
  // share their loads when they happen to sit in one cluster.
  std::vector<int> taken_in(static_cast<std::size_t>(t.clusters), 0);
  std::map<std::pair<std::size_t, int>, std::vector<int>> grouped;  // (stage, copy) -> its CUs
  if (spread && opt.shared_loads) {
    std::vector<CopyGroup> groups;
    for (std::size_t i = 0; i < stages.size(); ++i)
      if (stages[i].layer >= 0 && wants_shared_loads(g, g.nodes[static_cast<std::size_t>(stages[i].node)],
                                                     static_cast<int>(layers[static_cast<std::size_t>(stages[i].layer)].bins.size()), t))
        for (int r = 0; r < stages[i].copies; ++r) groups.push_back({i, r, stages[i].cus_per_copy});
    grouped = place_copy_groups(groups, order, t, taken_in);
  }
  // Each writer's copy and its reader's in one cluster, two CUs a pair,
  // placed as the groups above (spread: the CUs dealt over the clusters).
  if (spread && !hands.empty()) {
    std::vector<CopyGroup> pairs;
    std::map<std::size_t, std::size_t> reader_of;
    for (const auto& [ws, rs] : hands) {
      reader_of[ws] = rs;
      for (int r = 0; r < stages[ws].copies; ++r) pairs.push_back({ws, r, 2});
    }
    for (const auto& [key, cus] : place_copy_groups(pairs, order, t, taken_in)) {
      grouped[key] = {cus[0]};
      grouped[{reader_of.at(key.first), key.second}] = {cus[1]};
    }
  }
  int next_cu = 0;
  std::size_t turn = 0;
  auto take = [&] {
    if (!spread) {
      const int k0 = next_cu++;
      return order[static_cast<std::size_t>(k0 / t.cus_per_cluster)] * t.cus_per_cluster + k0 % t.cus_per_cluster;
    }
    for (std::size_t tries = 0; tries < order.size(); ++tries) {
      const int cl = order[turn++ % order.size()];
      if (taken_in[static_cast<std::size_t>(cl)] < t.cus_per_cluster) return cl * t.cus_per_cluster + taken_in[static_cast<std::size_t>(cl)]++;
    }
    throw CompileError("map: more CUs taken than the chip has");
  };
  for (std::size_t si = 0; si < stages.size(); ++si) {
    const Stage& s = stages[si];
    Node& n = g.nodes[static_cast<std::size_t>(s.node)];
    n.tiles.clear();
    n.cores.clear();
    n.replicas = s.copies;
    cm.price(n, s.cost, s.copies, false);
    if (s.layer < 0) {
      for (int r = 0; r < s.copies; ++r) n.cores.push_back(take());
      continue;
    }
    Layer& L = layers[static_cast<std::size_t>(s.layer)];
    L.copies = s.copies;
    L.cost = s.cost;
    n.lanes = s.cost.lanes;
    for (int r = 0; r < s.copies; ++r) {
      std::vector<ColumnTile> copy = L.tiles;
      for (ColumnTile& ct : copy) ct.copy = r;
      const auto group = grouped.find({si, r});
      for (std::size_t bi = 0; bi < L.bins.size(); ++bi) {
        const Bin& bin = L.bins[bi];
        const int core = group != grouped.end() ? group->second[bi] : take();
        n.cores.push_back(core);
        int xb = 0;
        for (const Slot& sl : bin.slots) {
          copy[static_cast<std::size_t>(sl.tile)].parts.push_back(
              {core, xb, sl.row_tile0, sl.row_tiles, s.cost.lanes, bin.xbars});
          xb += sl.row_tiles;
        }
      }
      n.tiles.insert(n.tiles.end(), copy.begin(), copy.end());
    }
    n.bound_cycles = cm.bound(L.cost, L.copies);
    mark_shared_loads(g, n, static_cast<int>(L.bins.size()), t, opt.shared_loads);
    // Copies that share their loads bring each row over the mesh once; the
    // copies out of their cluster's SRAM (dma.sl) stay off it.
    if (!n.share_copy.empty() && std::all_of(n.share_copy.begin(), n.share_copy.end(), [](bool b) { return b; })) {
      LayerCost once = s.cost;
      once.line_readers = std::min<std::int64_t>(once.line_readers, 1);
      n.memory_bytes = cm.memory(once, s.copies);
    }
  }
  // A pair hands its rows when every copy of the reader sits in its
  // writer's copy's cluster (place_copy_groups left none out).
  for (const auto& [ws, rs] : hands) {
    const int p = stages[ws].node;
    Node& q = g.nodes[static_cast<std::size_t>(stages[rs].node)];
    const Node& w = g.nodes[static_cast<std::size_t>(p)];
    bool together = spread && q.replicas == w.replicas;
    for (int r = 0; together && r < q.replicas; ++r) {
      const std::vector<int> a = copy_cores(w, r), b = copy_cores(q, r);
      together = a.size() == 1 && b.size() == 1 && t.cluster_of(a[0]) == t.cluster_of(b[0]);
    }
    q.handed_from = together ? p : -1;
  }
  for (Node& n : g.nodes)
    if (n.fused) {
      n.cores.clear();
      n.replicas = 1;
      n.stage_cycles = n.bound_cycles = n.step_cycles = n.memory_bytes = n.loaded_stage_cycles = n.loaded_step_cycles = 0;
      n.dma_packets = 0;
    }
  return true;
}

}  // namespace

std::vector<LayerDemand> layer_demands(const Graph& g, const Target& t) {
  const CostModel cm(t);
  std::vector<LayerDemand> out(g.nodes.size());
  for (std::size_t ni = 0; ni < g.nodes.size(); ++ni) {
    const Node& n = g.nodes[ni];
    if (!op_has(n.op, op_crossbar)) continue;
    // The same column tiles and CU loads as one copy in map_crossbars.
    const std::vector<ColumnTile> tiles = column_tiles(g, n, t.lcols(xbar_format(n, t)));
    const std::vector<Bin> bins = layer_bins(tiles, t);
    int cols = 0;
    for (const Bin& b : bins) {
      out[ni].crossbars += b.xbars;
      int cb = 0;
      for (const Slot& s : b.slots) cb += tiles[static_cast<std::size_t>(s.tile)].ncols;
      cols = std::max(cols, cb);
    }
    out[ni].stage_cycles = cm.stage(cm.conv(g, n, 1, cols, static_cast<int>(bins.size())), 1);
  }
  return out;
}

void map_crossbars(Graph& g, const Target& t, const MapOptions& opt) {
  g.min_strip = opt.batch > 1 ? kMinStripStream : kMinStrip;
  const CostModel cm(t, g.min_strip, opt.rows_as_loaded);
  fuse_adds(g);
  fuse_tables(g);
  std::vector<Layer> layers;
  std::int64_t total_xbars = 0;
  for (std::size_t ni = 0; ni < g.nodes.size(); ++ni) {
    Node& n = g.nodes[ni];
    n.tiles.clear();
    n.cores.clear();
    n.replicas = 1;
    n.lanes = 1;
    n.share_copy.clear();
    n.staging.clear();
    n.handed_from = -1;
    n.hand_slot.clear();
    if (!op_has(n.op, op_crossbar)) continue;
    const Shape out = g.val(n.out[0]).shape;
    Layer lay;
    lay.node = static_cast<int>(ni);
    lay.tiles = column_tiles(g, n, t.lcols(xbar_format(n, t)));
    lay.bins = layer_bins(lay.tiles, t);
    // A CU's MVM groups for one pixel run at once (cu.xbar.concurrent_mvm):
    // one MVM time per pixel whatever the bin holds.
    const int groups = 1;
    int cols = 0;
    for (const Bin& b : lay.bins) {
      lay.xbars += b.xbars;
      int cb = 0;
      for (const Slot& s : b.slots) cb += lay.tiles[static_cast<std::size_t>(s.tile)].ncols;
      cols = std::max(cols, cb);
    }
    lay.cost = cm.conv(g, n, groups, cols, static_cast<int>(lay.bins.size()));
    const std::int64_t pixels = out.h * out.w;
    lay.max_copies = static_cast<int>(std::max<std::int64_t>(
        1, std::min<std::int64_t>(pixels, t.cores() / static_cast<std::int64_t>(lay.bins.size()))));
    total_xbars += lay.xbars;
    layers.push_back(std::move(lay));
  }
  if (total_xbars > t.crossbars())
    throw CompileError("model needs " + std::to_string(total_xbars) + " crossbars, chip '" + t.name + "' has " +
                       std::to_string(t.crossbars()) + " crossbars on " + std::to_string(t.cores()) + " CUs");
  if (opt.pipeline && map_pipelined(g, t, cm, layers, opt)) return;
  // Shared CUs (the model's loads outnumber the CUs, or --placement shared):
  // copies fixed, or the cost model's greedy choice within the crossbars.
  if (opt.replicate != kReplicateAuto) {
    for (Layer& lay : layers) lay.copies = std::min(opt.replicate, lay.max_copies);
  } else {
    std::int64_t spare = t.crossbars() - total_xbars;
    // The next useful copy count: the fewest copies that shorten the stage
    // (the share's geometry decides which counts help), within the spare
    // crossbars; past max_copies when none does.
    auto next = [&](const Layer& lay) {
      const std::int64_t now = cm.stage(lay.cost, lay.copies);
      for (int to = lay.copies + 1; to <= std::min(lay.max_copies, lay.copies + 64); ++to) {
        if (std::int64_t{lay.xbars} * (to - lay.copies) > spare) break;
        if (cm.stage(lay.cost, to) < now) return to;
      }
      return lay.max_copies + 1;
    };
    auto gain = [&](const Layer& lay) {
      const int to = next(lay);
      if (to > lay.max_copies || std::int64_t{lay.xbars} * (to - lay.copies) > spare) return 0.0;
      const std::int64_t d = cm.stage(lay.cost, lay.copies) - cm.stage(lay.cost, to);
      return static_cast<double>(d) / (double(lay.xbars) * (to - lay.copies));
    };
    using Item = std::pair<double, int>;
    std::priority_queue<Item> q;
    for (std::size_t i = 0; i < layers.size(); ++i) q.push({gain(layers[i]), static_cast<int>(i)});
    while (!q.empty()) {
      const auto [gv, i] = q.top();
      q.pop();
      Layer& lay = layers[static_cast<std::size_t>(i)];
      const double now = gain(lay);
      if (now <= 0) continue;
      if (now < gv) {  // stale entry: requeue with the current gain
        q.push({now, i});
        continue;
      }
      const int to = next(lay);
      spare -= std::int64_t{lay.xbars} * (to - lay.copies);
      lay.copies = to;
      q.push({gain(lay), i});
    }
  }
  // Fragmentation may leave a bin without a CU: drop the copy that costs least.
  while (!place_shared(g, t, layers)) {
    Layer* best = nullptr;
    std::int64_t loss = 0;
    for (Layer& lay : layers) {
      if (lay.copies <= 1) continue;
      const std::int64_t d = cm.stage(lay.cost, lay.copies - 1) - cm.stage(lay.cost, lay.copies);
      if (!best || d < loss) {
        best = &lay;
        loss = d;
      }
    }
    if (!best)
      throw CompileError("model needs " + std::to_string(total_xbars) + " crossbars in CU-sized groups that chip '" +
                         t.name + "' (" + std::to_string(t.crossbars()) + " crossbars on " +
                         std::to_string(t.cores()) + " CUs) cannot place");
    --best->copies;
  }
  for (const Layer& lay : layers) {
    Node& n = g.nodes[static_cast<std::size_t>(lay.node)];
    cm.price(n, lay.cost, lay.copies, true);
  }
  // Operators without weights run on the CUs of the layer that feeds them
  // (their input is freshest there), or from CU 0, as many as the cost
  // model finds worth it (rows or pixels shared out like copies).
  for (Node& n : g.nodes) {
    if (op_has(n.op, op_crossbar)) continue;
    if (n.fused) {  // runs inside its Conv
      n.cores.clear();
      n.replicas = 1;
      n.stage_cycles = n.bound_cycles = n.step_cycles = n.memory_bytes = n.loaded_stage_cycles = n.loaded_step_cycles = 0;
      n.dma_packets = 0;
      continue;
    }
    const LayerCost c = cm.other(g, n);
    int k = 1;
    if (n.op != OpKind::GlobalAveragePool && opt.replicate != 1) {
      const std::int64_t limit = std::min<std::int64_t>({c.units, t.cores(), kMaxGroup * 4});
      if (opt.replicate != kReplicateAuto) {
        k = static_cast<int>(std::min<std::int64_t>(opt.replicate, limit));
      } else {
        while (k < limit && cm.stage(c, k + 1) < cm.stage(c, k)) ++k;
      }
    }
    // A MatMul whose B is too large for one core: a core per group of heads
    // at the least, copies in whole sets of groups (emit_matmul.cpp).
    if (n.op == OpKind::MatMul) {
      const int groups = matmul_head_groups(g, n, t);
      if (groups > 1) k = std::max(groups, k / groups * groups);
      if (k > t.cores())
        throw CompileError("node '" + n.name + "': its " + std::to_string(groups) + " groups of heads need " +
                           std::to_string(k) + " CUs; chip '" + t.name + "' has " + std::to_string(t.cores()));
    }
    const int p = g.producer(n.in[0]);
    const std::vector<int>* from = p >= 0 ? &g.nodes[static_cast<std::size_t>(p)].cores : nullptr;
    const int first = from && !from->empty() ? (*from)[0] : 0;
    n.cores.clear();
    for (int i = 0; static_cast<int>(n.cores.size()) < k; ++i) {
      const int core = from && i < static_cast<int>(from->size()) ? (*from)[static_cast<std::size_t>(i)]
                                                                  : (first + i) % t.cores();
      if (std::find(n.cores.begin(), n.cores.end(), core) == n.cores.end()) n.cores.push_back(core);
    }
    n.replicas = k;
    cm.price(n, c, k, false);
  }
}

}  // namespace vp::cc
