// Split along the channel axis (the last axis of a [T, C] matrix, axis 1 of
// a map). GPT-2's attention computes q, k and v with one Linear layer of 3C
// outputs and splits them (`c_attn(x).split(C, dim=2)`): when the Split is
// the only reader of a Conv (the Linear after gemm_to_conv), the Conv itself
// is cut into one Conv per part, each with its rows of the weights and
// bias. That costs no crossbar (the parts tile the same columns) and gives
// each part a scale of its own: q, k and v are calibrated apart, which is
// what the MatMuls of two activations read. Any other Split becomes one
// channel copy (a 1x1 Conv of 0/1 weights) per part, as a Slice does.
#include <algorithm>
#include <numeric>
#include <string>

#include "canonicalize_util.h"
#include "vp/cc/passes.h"

namespace vp::cc::canon {
namespace {

// The parts' sizes along the axis: the `split` input (opset 13+) or
// attribute (before), else equal parts.
std::vector<std::int64_t> part_sizes(const Graph& g, const Node& n, std::int64_t extent) {
  std::vector<std::int64_t> sizes;
  if (n.in.size() > 1 && n.in[1] >= 0) {
    const Value& s = g.val(n.in[1]);
    if (!s.is_const) throw CompileError("node '" + n.name + "' (Split): its sizes must be constant");
    for (const float f : s.data) sizes.push_back(static_cast<std::int64_t>(f));
  } else if (n.ints.count("split")) {
    sizes = n.ints.at("split");
  } else {
    const auto parts = static_cast<std::int64_t>(n.out.size());
    if (parts == 0 || extent % parts != 0)
      throw CompileError("node '" + n.name + "' (Split): " + std::to_string(extent) + " channels do not split into " +
                         std::to_string(parts) + " equal parts");
    sizes.assign(static_cast<std::size_t>(parts), extent / parts);
  }
  if (sizes.size() != n.out.size())
    throw CompileError("node '" + n.name + "' (Split): " + std::to_string(sizes.size()) + " sizes for " +
                       std::to_string(n.out.size()) + " outputs");
  for (const auto s : sizes)
    if (s <= 0) throw CompileError("node '" + n.name + "' (Split): every part must keep at least one channel");
  if (std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0}) != extent)
    throw CompileError("node '" + n.name + "' (Split): the sizes do not add up to the " + std::to_string(extent) +
                       " channels");
  return sizes;
}

// Checks the axis is the channels' and returns the sizes.
std::vector<std::int64_t> channel_parts(const Graph& g, const Node& n) {
  const Value& x = g.val(n.in[0]);
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  auto axis = attr_i(n, "axis", 0);
  if (axis < 0) axis += rank;
  if (!((rank == 2 || rank == 4) && axis == 1))
    throw CompileError("node '" + n.name + "' (Split): supported along the channels only (the last axis of a [T, C] "
                       "matrix or axis 1 of a map), got axis " + std::to_string(attr_i(n, "axis", 0)) + " of a " +
                       std::to_string(rank) + "-D tensor");
  return part_sizes(g, n, x.shape.c);
}

}  // namespace

void split_channels(Graph& g) {
  std::vector<int> cut(g.nodes.size(), -1);  // Conv node -> the Split that cuts it
  std::vector<std::vector<std::int64_t>> sizes(g.nodes.size());
  bool any = false;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op != OpKind::Split || n.out.empty()) continue;
    any = true;
    sizes[i] = channel_parts(g, n);
    const int p = g.producer(n.in[0]);
    if (p < 0) continue;
    const Node& c = g.nodes[static_cast<std::size_t>(p)];
    if (c.op == OpKind::Conv && c.geom.group == 1 && c.act == Act::none && c.fused_next < 0 &&
        sole_consumer(g, n.in[0]) == static_cast<int>(i))
      cut[static_cast<std::size_t>(p)] = static_cast<int>(i);
  }
  if (!any) return;
  std::vector<Node> nodes;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (cut[i] >= 0) {  // the Conv, one per part, where it stood
      const Node& s = g.nodes[static_cast<std::size_t>(cut[i])];
      std::int64_t c0 = 0;
      for (std::size_t k = 0; k < s.out.size(); ++k) {
        const std::int64_t rows = sizes[static_cast<std::size_t>(cut[i])][k];
        const std::string suffix = ".split" + std::to_string(k);
        Node part = n;
        part.name += suffix;
        part.in[1] = g.constant_rows(n.in[1], c0, c0 + rows, suffix);
        part.in[2] = g.constant_rows(n.in[2], c0, c0 + rows, suffix);
        part.out = {s.out[k]};
        nodes.push_back(std::move(part));
        c0 += rows;
      }
      continue;
    }
    if (n.op == OpKind::Split && !n.out.empty()) {
      if (n.in[0] >= 0 && g.producer(n.in[0]) >= 0 && cut[static_cast<std::size_t>(g.producer(n.in[0]))] == static_cast<int>(i))
        continue;  // done at its Conv
      std::int64_t c0 = 0;
      for (std::size_t k = 0; k < n.out.size(); ++k) {
        const std::int64_t rows = sizes[i][k];
        std::vector<std::int64_t> src(static_cast<std::size_t>(rows));
        std::iota(src.begin(), src.end(), c0);
        Node part = n;
        part.name += ".split" + std::to_string(k);
        channel_copy_conv(g, part, n.in[0], n.out[k], src);
        nodes.push_back(std::move(part));
        c0 += rows;
      }
      continue;
    }
    nodes.push_back(n);
  }
  g.nodes = std::move(nodes);
  g.remove_dead_nodes();  // parts nobody reads
}

void slice_linear_parts(Graph& g) {
  // [lo, hi) of the channels a Slice keeps, or false.
  const auto channel_range = [&](const Node& s, std::int64_t C, std::int64_t& lo, std::int64_t& hi) {
    const Value& x = g.val(s.in[0]);
    const auto rank = static_cast<std::int64_t>(x.dims.size());
    auto first = [&](std::size_t i, std::int64_t dflt, std::int64_t& v) {
      if (s.in.size() <= i || s.in[i] < 0) {
        v = dflt;
        return true;
      }
      const Value& c = g.val(s.in[i]);
      if (!c.is_const || c.data.size() != 1) return false;
      const float f = c.data[0];
      v = f > 9.0e18f ? C : f < -9.0e18f ? 0 : static_cast<std::int64_t>(f);
      return true;
    };
    std::int64_t axis = 0, step = 1;
    if (!first(1, 0, lo) || !first(2, C, hi) || !first(3, 0, axis) || !first(4, 1, step) || step != 1) return false;
    if (axis < 0) axis += rank;
    if (!((rank == 2 || rank == 4) && axis == 1)) return false;
    if (lo < 0) lo += C;
    if (hi < 0) hi += C;
    lo = std::clamp<std::int64_t>(lo, 0, C);
    hi = std::clamp<std::int64_t>(hi, 0, C);
    return hi > lo;
  };
  std::vector<Node> nodes;
  std::vector<bool> drop(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (drop[i]) continue;
    const auto readers = n.out.empty() ? std::vector<int>{} : g.consumers(n.out[0]);
    const std::int64_t C = n.out.empty() ? 0 : g.val(n.out[0]).shape.c;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (const int r : readers) {
      const Node& s = g.nodes[static_cast<std::size_t>(r)];
      std::int64_t lo = 0, hi = 0;
      if (s.op != OpKind::Slice || s.in[0] != n.out[0] || !channel_range(s, C, lo, hi)) break;
      ranges.emplace_back(lo, hi);
    }
    if (n.op != OpKind::Conv || n.geom.group != 1 || n.act != Act::none || n.fused_next >= 0 || readers.empty() ||
        ranges.size() != readers.size() || is_output(g, n.out[0])) {
      nodes.push_back(n);
      continue;
    }
    for (std::size_t k = 0; k < readers.size(); ++k) {
      Node& s = g.nodes[static_cast<std::size_t>(readers[k])];
      const std::string suffix = ".slice" + std::to_string(k);
      Node part = n;
      part.name += suffix;
      part.in[1] = g.constant_rows(n.in[1], ranges[k].first, ranges[k].second, suffix);
      part.in[2] = g.constant_rows(n.in[2], ranges[k].first, ranges[k].second, suffix);
      part.out = {s.out[0]};
      nodes.push_back(std::move(part));
      drop[static_cast<std::size_t>(readers[k])] = true;
    }
  }
  g.nodes = std::move(nodes);
  g.remove_dead_nodes();
}

}  // namespace vp::cc::canon
