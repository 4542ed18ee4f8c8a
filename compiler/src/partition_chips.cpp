// Partition over chips (vp-cc --chips N): the quantized graph cut into N
// runs of consecutive nodes, one per chip, a layer-wise pipeline as the
// SIDRA chapter's compiler does it ("chip 1: layers 1-4, chip 2: layers
// 5-8"). Each chip then maps, plans and emits its own part as a model of
// its own whose inputs are the values that cross into it; the link carries
// them (platform/src/run/system_run.cpp).
//
// The cut balances the cost model: a part's work is the sum over its layers
// of (crossbars of one copy) x (stage time with one copy), i.e. the
// crossbar-cycles its MVMs occupy, so once each chip spreads copies over
// its crossbars a part takes about work / crossbars. Minimising the largest
// part sets the pace of a stream; ties go to the cut that moves the fewest
// bytes over the link. Every part must hold one copy of its layers.
//
// Work is not yet time: a chip takes one image at a time, so what paces a
// batch through the chips is each part's time per image, the critical path
// of its row hand-over plus its firmware's copies of the values that cross
// the link (ResNet-50 on 4 chips, cut by work alone, crosses 1.0 MB after
// layer1, whose copies cost the first two chips more than their layers).
// With refine, each cut is then moved, one at a time within a window of
// nodes, to where the larger part it bounds is estimated fastest, each
// candidate part mapped and estimated as its chip's program would be.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "vp/cc/io_bindings.h"
#include "vp/cc/passes.h"

namespace vp::cc {

namespace {

// Values read by nodes at or after `from` that are written before it (or
// are graph inputs), in value-id order.
std::vector<int> crossing_into(const Graph& g, std::size_t from, std::size_t to) {
  std::set<int> ids;
  for (std::size_t i = from; i < to; ++i)
    for (int v : g.nodes[i].in) {
      // Constants and preloaded maps (a Swin's bias and mask) go with the
      // program of each chip that reads them.
      if (v < 0 || g.val(v).is_const || g.val(v).preload) continue;
      const int p = g.producer(v);
      if (p < static_cast<int>(from)) ids.insert(v);
    }
  return {ids.begin(), ids.end()};
}

// Parts [starts[k], starts[k + 1]) of the nodes with their inputs, outputs
// and the routes between them.
Partition from_cuts(const Graph& g, const std::vector<std::size_t>& starts, const std::vector<std::int64_t>& work,
                    const std::vector<std::int64_t>& xbars) {
  const std::size_t M = g.nodes.size();
  Partition p;
  p.parts.resize(starts.size());
  for (std::size_t k = 0; k < starts.size(); ++k) {
    ChipPart& part = p.parts[k];
    const std::size_t end = k + 1 < starts.size() ? starts[k + 1] : M;
    part.first = static_cast<int>(starts[k]);
    part.last = static_cast<int>(end);
    part.crossbars = xbars[end] - xbars[starts[k]];
    part.work = work[end] - work[starts[k]];
  }
  // Which part writes each value.
  std::vector<int> part_of(g.values.size(), -1);
  for (std::size_t k = 0; k < p.parts.size(); ++k)
    for (int i = p.parts[k].first; i < p.parts[k].last; ++i)
      for (int v : g.nodes[static_cast<std::size_t>(i)].out) part_of[static_cast<std::size_t>(v)] = static_cast<int>(k);
  for (std::size_t k = 0; k < p.parts.size(); ++k) {
    ChipPart& part = p.parts[k];
    if (k == 0) part.inputs = g.inputs;
    else part.inputs = crossing_into(g, static_cast<std::size_t>(part.first), static_cast<std::size_t>(part.last));
  }
  for (std::size_t k = 0; k + 1 < p.parts.size(); ++k) {
    std::set<int> outs;
    for (std::size_t m = k + 1; m < p.parts.size(); ++m)
      for (int v : p.parts[m].inputs)
        if (part_of[static_cast<std::size_t>(v)] == static_cast<int>(k)) outs.insert(v);
    p.parts[k].outputs.assign(outs.begin(), outs.end());
  }
  p.parts.back().outputs = g.outputs;
  for (std::size_t m = 1; m < p.parts.size(); ++m)
    for (std::size_t j = 0; j < p.parts[m].inputs.size(); ++j) {
      const int v = p.parts[m].inputs[j];
      const int k = part_of[static_cast<std::size_t>(v)];
      if (k < 0)
        throw CompileError("tensor '" + g.val(v).name + "' is a graph input that chip " + std::to_string(m) +
                           " reads; a graph input is read by the first chip only");
      const auto& outs = p.parts[static_cast<std::size_t>(k)].outputs;
      const auto at = std::find(outs.begin(), outs.end(), v) - outs.begin();
      p.routes.push_back({v, k, static_cast<int>(at), static_cast<int>(m), static_cast<int>(j), g.val(v).shape.numel()});
    }
  return p;
}

// Part [first, last) alone, as its chip's program would be: cut out of a
// partition at first and last (so its inputs and outputs are the ones the
// link would carry), mapped with `mo`, estimated per image (critical path
// and firmware copies).
std::int64_t part_estimate(const Graph& g, const Target& t, const MapOptions& mo, std::size_t first, std::size_t last,
                           const std::vector<std::int64_t>& work, const std::vector<std::int64_t>& xbars) {
  std::vector<std::size_t> starts;
  if (first > 0) starts.push_back(0);
  starts.push_back(first);
  if (last < g.nodes.size()) starts.push_back(last);
  Graph cg = chip_graph(g, from_cuts(g, starts, work, xbars), first > 0 ? 1 : 0);
  try {
    map_crossbars(cg, t, mo);
  } catch (const CompileError&) {
    return std::numeric_limits<std::int64_t>::max() / 4;  // does not fit: never chosen
  }
  return estimate_cycles(cg, t, false);
}

// The cuts moved one at a time, each to the allowed position within
// kWindow nodes that minimises (largest part's estimate, sum of the parts'),
// until no move helps.
std::vector<std::size_t> refine_cuts(const Graph& g, const Target& t, const MapOptions& mo, std::vector<std::size_t> starts,
                                     const std::vector<bool>& allowed, const std::vector<std::int64_t>& work,
                                     const std::vector<std::int64_t>& xbars) {
  constexpr std::size_t kWindow = 12;
  constexpr int kRounds = 4;
  const std::size_t M = g.nodes.size(), K = starts.size();
  if (K < 2) return starts;
  std::map<std::pair<std::size_t, std::size_t>, std::int64_t> memo;
  auto est = [&](std::size_t first, std::size_t last) {
    const auto key = std::make_pair(first, last);
    const auto it = memo.find(key);
    if (it != memo.end()) return it->second;
    return memo[key] = part_estimate(g, t, mo, first, last, work, xbars);
  };
  using Cost = std::pair<std::int64_t, std::int64_t>;
  auto cost = [&](const std::vector<std::size_t>& st) {
    Cost c{0, 0};
    for (std::size_t k = 0; k < K; ++k) {
      const std::int64_t e = est(st[k], k + 1 < K ? st[k + 1] : M);
      c.first = std::max(c.first, e);
      c.second += e;
    }
    return c;
  };
  Cost now = cost(starts);
  for (int round = 0; round < kRounds; ++round) {
    bool moved = false;
    for (std::size_t k = 1; k < K; ++k) {
      const std::size_t lo = std::max(starts[k - 1] + 1, starts[k] > kWindow ? starts[k] - kWindow : 0);
      const std::size_t hi = std::min((k + 1 < K ? starts[k + 1] : M) - 1, starts[k] + kWindow);
      std::size_t best = starts[k];
      for (std::size_t c = lo; c <= hi; ++c) {
        if (c == starts[k] || !allowed[c]) continue;
        if (xbars[c] - xbars[starts[k - 1]] > t.crossbars() ||
            xbars[k + 1 < K ? starts[k + 1] : M] - xbars[c] > t.crossbars())
          continue;
        std::vector<std::size_t> st = starts;
        st[k] = c;
        const Cost c2 = cost(st);
        if (c2 < now) {
          now = c2;
          best = c;
        }
      }
      if (best != starts[k]) {
        starts[k] = best;
        moved = true;
      }
    }
    if (!moved) break;
  }
  return starts;
}

}  // namespace

Partition partition_chips(const Graph& g, const Target& t, int chips, const MapOptions* refine) {
  const std::size_t M = g.nodes.size();
  if (chips < 1) throw CompileError("--chips " + std::to_string(chips) + ": expected 1 or more chips");
  if (static_cast<std::size_t>(chips) > M)
    throw CompileError("--chips " + std::to_string(chips) + ": the model has only " + std::to_string(M) +
                       " layers to spread over them");
  const std::vector<LayerDemand> d = layer_demands(g, t);
  for (std::size_t i = 0; i < M; ++i)
    if (d[i].crossbars > t.crossbars())
      throw CompileError("layer '" + g.nodes[i].name + "' alone needs " + std::to_string(d[i].crossbars) +
                         " crossbars, chip '" + t.name + "' has " + std::to_string(t.crossbars()) +
                         ", and only a layer of two or more column tiles without groups is split over chips");
  std::vector<std::int64_t> work(M + 1, 0), xbars(M + 1, 0);
  for (std::size_t i = 0; i < M; ++i) {
    work[i + 1] = work[i] + d[i].crossbars * d[i].stage_cycles;
    xbars[i + 1] = xbars[i] + d[i].crossbars;
  }
  // A cut before node c is allowed when no graph input is read at or after
  // c and no graph output is written before it (the host feeds the first
  // chip and reads the last); its price is the bytes that cross it.
  std::vector<bool> allowed(M + 1, true);
  std::vector<std::int64_t> cut_bytes(M + 1, 0);
  std::vector<std::size_t> crossings(M + 1, 0);
  {
    std::vector<int> last_reader(g.values.size(), -1);
    for (std::size_t i = 0; i < M; ++i)
      for (int v : g.nodes[i].in) last_reader[static_cast<std::size_t>(v)] = static_cast<int>(i);
    for (std::size_t c = 1; c < M; ++c) {
      for (int v : g.inputs)
        if (last_reader[static_cast<std::size_t>(v)] >= static_cast<int>(c)) allowed[c] = false;
      for (int v : g.outputs)
        if (g.producer(v) < static_cast<int>(c)) allowed[c] = false;
      for (int v : crossing_into(g, c, M)) {
        cut_bytes[c] += g.val(v).shape.numel();
        ++crossings[c];
        // The link's bytes are a chip output and input, bound by their ONNX
        // dims (io_bindings): a value whose dims are not the chip's order
        // (a Swin product's windows, 4x2x16x16 for 64x1x32) cannot cross.
        if (!g.val(v).dims.empty() && !dims_describe_bytes(g.val(v).shape, g.val(v).dims)) allowed[c] = false;
        // A chip's output has no border (the link carries the plain
        // tensor), so a padded window on the same chip cannot read it.
        for (int r : g.consumers(v)) {
          const Node& n = g.nodes[static_cast<std::size_t>(r)];
          const bool padded = n.geom.pt || n.geom.pl || n.geom.pb || n.geom.pr;
          if (r < static_cast<int>(c) && op_has(n.op, op_window) && n.in[0] == v && padded) allowed[c] = false;
        }
      }
    }
  }
  // dp[k][c]: the best split of nodes [0, c) into k parts, as (largest
  // part's work, bytes crossing the cuts); from[k][c] the last cut.
  using Cost = std::pair<std::int64_t, std::int64_t>;
  const Cost none{std::numeric_limits<std::int64_t>::max(), 0};
  const std::size_t K = static_cast<std::size_t>(chips);
  auto solve = [&](const std::vector<bool>& ok, std::vector<std::vector<std::size_t>>& from) {
    std::vector<std::vector<Cost>> dp(K + 1, std::vector<Cost>(M + 1, none));
    from.assign(K + 1, std::vector<std::size_t>(M + 1, 0));
    dp[0][0] = {0, 0};
    for (std::size_t k = 1; k <= K; ++k)
      for (std::size_t c = k; c <= M; ++c) {
        if (c < M && !ok[c]) continue;
        for (std::size_t b = k - 1; b < c; ++b) {
          if (dp[k - 1][b] == none) continue;
          if (xbars[c] - xbars[b] > t.crossbars()) continue;
          const Cost cost{std::max(dp[k - 1][b].first, work[c] - work[b]),
                          dp[k - 1][b].second + (b > 0 ? cut_bytes[b] : 0)};
          if (cost < dp[k][c]) {
            dp[k][c] = cost;
            from[k][c] = b;
          }
        }
      }
    return dp[K][M];
  };
  std::vector<std::vector<std::size_t>> from;
  const Cost best = solve(allowed, from);
  if (best == none)
    throw CompileError("the model (" + std::to_string(xbars[M]) + " crossbars) cannot be cut into " +
                       std::to_string(chips) + " runs of layers that each fit chip '" + t.name + "' (" +
                       std::to_string(t.crossbars()) + " crossbars); try more chips");
  // Cutting where one value crosses (between residual blocks, not inside
  // one, where the block's input crosses too) moves fewer bytes and keeps
  // each chip's blocks whole; taken when it costs at most 5 % of balance.
  {
    std::vector<bool> single(allowed);
    for (std::size_t c = 1; c < M; ++c) single[c] = allowed[c] && crossings[c] == 1;
    std::vector<std::vector<std::size_t>> from_single;
    const Cost whole = solve(single, from_single);
    if (whole != none && whole.first <= best.first + best.first / 20) from = std::move(from_single);
  }

  std::vector<std::size_t> starts(K, 0);
  for (std::size_t k = K, c = M; k > 0; --k) {
    starts[k - 1] = from[k][c];
    c = from[k][c];
  }
  if (refine) starts = refine_cuts(g, t, *refine, std::move(starts), allowed, work, xbars);
  return from_cuts(g, starts, work, xbars);
}

Graph chip_graph(const Graph& g, const Partition& p, int chip) {
  const ChipPart& part = p.parts.at(static_cast<std::size_t>(chip));
  const bool last = chip + 1 == static_cast<int>(p.parts.size());
  Graph s;
  s.name = g.name + ".chip" + std::to_string(chip);
  s.opset = g.opset;
  s.batch = g.batch;
  // Only the values this part touches, renumbered in their old order.
  std::map<int, int> id;
  auto keep = [&](int v) { id.emplace(v, -1); };
  for (int v : part.inputs) keep(v);
  for (int i = part.first; i < part.last; ++i) {
    for (int v : g.nodes[static_cast<std::size_t>(i)].in) keep(v);
    for (int v : g.nodes[static_cast<std::size_t>(i)].out) keep(v);
  }
  for (auto& [old, now] : id) now = s.add_value(g.val(old));
  auto renumber = [&](std::vector<int>& ids) {
    for (int& v : ids) v = id.at(v);
  };
  for (int i = part.first; i < part.last; ++i) {
    Node n = g.nodes[static_cast<std::size_t>(i)];
    renumber(n.in);
    renumber(n.out);
    s.nodes.push_back(std::move(n));
  }
  s.inputs = part.inputs;
  renumber(s.inputs);
  s.outputs = part.outputs;
  renumber(s.outputs);
  if (last) {
    s.host_softmax = g.host_softmax;
    s.output_names = g.output_names;
    s.output_dims = g.output_dims;
  } else {
    // A value handed to the next chip is published as the chip holds it.
    for (int v : part.outputs) {
      s.host_softmax.push_back(false);
      s.output_names.push_back(g.val(v).name);
      s.output_dims.push_back(g.val(v).dims);
    }
  }
  return s;
}

std::string system_json(const Graph& g, const Partition& p, const std::vector<std::string>& programs,
                        const std::string& chip, const std::string& link) {
  nlohmann::ordered_json j;
  j["format"] = "sidra-system-1";
  j["chip"] = chip;
  j["chips"] = p.parts.size();
  j["link"] = link;
  j["programs"] = programs;
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < p.parts.size(); ++k) {
    const ChipPart& c = p.parts[k];
    nlohmann::ordered_json e;
    e["chip"] = k;
    e["first_layer"] = g.nodes[static_cast<std::size_t>(c.first)].name;
    e["last_layer"] = g.nodes[static_cast<std::size_t>(c.last - 1)].name;
    e["nodes"] = c.last - c.first;
    e["crossbars"] = c.crossbars;
    e["work"] = c.work;
    auto names = [&](const std::vector<int>& ids) {
      std::vector<std::string> n;
      for (int v : ids) n.push_back(g.val(v).name);
      return n;
    };
    e["inputs"] = names(c.inputs);
    e["outputs"] = names(c.outputs);
    parts.push_back(std::move(e));
  }
  j["parts"] = std::move(parts);
  nlohmann::ordered_json routes = nlohmann::ordered_json::array();
  for (const ChipRoute& r : p.routes)
    routes.push_back({{"value", g.val(r.value).name}, {"from", r.from}, {"output", r.output}, {"to", r.to},
                      {"input", r.input}, {"bytes", r.bytes}});
  j["routes"] = std::move(routes);
  return j.dump(2);
}

std::string partition_report(const Graph& g, const Partition& p, const Target& t) {
  std::string out = "partition over " + std::to_string(p.parts.size()) + " chips '" + t.name + "' (" +
                    std::to_string(t.crossbars()) + " crossbars each):\n";
  char line[512];
  std::snprintf(line, sizeof line, "%5s %6s %10s %14s  %s\n", "chip", "nodes", "crossbars", "work", "layers");
  out += line;
  for (std::size_t k = 0; k < p.parts.size(); ++k) {
    const ChipPart& c = p.parts[k];
    std::snprintf(line, sizeof line, "%5zu %6d %10lld %14lld  %s .. %s\n", k, c.last - c.first,
                  static_cast<long long>(c.crossbars), static_cast<long long>(c.work),
                  g.nodes[static_cast<std::size_t>(c.first)].name.c_str(),
                  g.nodes[static_cast<std::size_t>(c.last - 1)].name.c_str());
    out += line;
  }
  for (const ChipRoute& r : p.routes) {
    std::snprintf(line, sizeof line, "  link: chip %d output %d -> chip %d input %d, '%s', %lld bytes per inference\n",
                  r.from, r.output, r.to, r.input, g.val(r.value).name.c_str(), static_cast<long long>(r.bytes));
    out += line;
  }
  return out + "\n";
}

}  // namespace vp::cc
