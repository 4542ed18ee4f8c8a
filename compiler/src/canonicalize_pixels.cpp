// Chains of layout operators that move whole pixels of a channels-last
// tensor: a Swin transformer's window partition and its reverse
// (x.view(B, H/7, 7, W/7, 7, C).permute(0, 1, 3, 2, 4, 5) and back), its
// cyclic shift (torch.roll: Slices and a Concat along H and along W), the
// Pad to whole windows (of 0 pixels when they divide the map) and the
// patch merging's four strided Slices concatenated along the channels.
//
// Each element of the chain's result is followed back to the element of the
// stored tensor it copies (the rank-6 views in between are never stored).
// When every run of C consecutive result elements (C: the stored tensor's
// channels) is one whole pixel of it, the chain is one pixel gather
// (Node::gather, a Concat of one input): the chip copies pixels, C bytes
// each, by DMA. A chain that puts every pixel back where it was is dropped.
//
// Only tensors whose ONNX order is their byte order take part: channels-last
// maps ([1, H, W, C], inside a permute(0, 2, 3, 1) ... permute(0, 3, 1, 2)
// region), and matrices of rows ([T, C], [N, T, C]). The chains of an
// attention's heads (canonicalize_attention.cpp) and of a channel shuffle
// (canonicalize_layout.cpp) move parts of pixels and are left alone.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "canonicalize_util.h"

namespace vp::cc::canon {
namespace {

// Past this many elements a chain is left to the other passes.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 23;

std::int64_t count(const std::vector<std::int64_t>& d) {
  std::int64_t n = 1;
  for (const auto x : d) {
    if (x <= 0 || n > kMaxElements / x) return -1;
    n *= x;
  }
  return n;
}

bool moves_elements(OpKind k) {
  return k == OpKind::Reshape || k == OpKind::Transpose || k == OpKind::Slice || k == OpKind::Concat ||
         k == OpKind::Pad;
}

// Result elements, row-major over dims, as indices into the stored tensor.
struct Elements {
  int leaf = -1;
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> at;
};

std::vector<std::int64_t> strides_of(const std::vector<std::int64_t>& d) {
  std::vector<std::int64_t> s(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

// A constant input of integers, or nullopt-like false.
bool const_ints(const Graph& g, const Node& n, std::size_t i, std::vector<std::int64_t>& out) {
  out.clear();
  if (n.in.size() <= i || n.in[i] < 0) return false;
  const Value& v = g.val(n.in[i]);
  if (!v.is_const) return false;
  for (const float f : v.data) {
    if (!(f > -9.0e18f && f < 9.0e18f)) {
      out.push_back(f < 0 ? std::numeric_limits<std::int64_t>::min() / 4 : std::numeric_limits<std::int64_t>::max() / 4);
      continue;
    }
    out.push_back(static_cast<std::int64_t>(f));
  }
  return true;
}

class Tracer {
 public:
  explicit Tracer(const Graph& g) : g_(g) {}

  // The elements of value v, or false when its chain is not followable.
  bool trace(int v, Elements& out) {
    const auto it = memo_.find(v);
    if (it != memo_.end()) {
      out = it->second;
      return !out.at.empty();
    }
    Elements e;
    const bool ok = follow(v, e);
    if (!ok) e = Elements{};
    memo_[v] = e;
    out = std::move(e);
    return ok;
  }

 private:
  bool follow(int v, Elements& e) {
    const Value& val = g_.val(v);
    if (count(val.dims) < 0) return false;
    const int p = g_.producer(v);
    if (p < 0 || !moves_elements(g_.nodes[static_cast<std::size_t>(p)].op) ||
        g_.val(g_.nodes[static_cast<std::size_t>(p)].in[0]).is_const) {
      e.leaf = v;
      e.dims = val.dims;
      e.at.resize(static_cast<std::size_t>(count(val.dims)));
      std::iota(e.at.begin(), e.at.end(), std::int64_t{0});
      return true;
    }
    const Node& n = g_.nodes[static_cast<std::size_t>(p)];
    if (n.out.empty() || n.out[0] != v) return false;
    const auto& od = val.dims;
    const std::int64_t total = count(od);
    if (n.op == OpKind::Concat) {
      std::vector<Elements> parts(n.in.size());
      for (std::size_t k = 0; k < n.in.size(); ++k)
        if (n.in[k] < 0 || g_.val(n.in[k]).is_const || !trace(n.in[k], parts[k]) || parts[k].leaf != parts[0].leaf)
          return false;
      const auto rank = static_cast<std::int64_t>(od.size());
      auto axis = attr_i(n, "axis", 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) return false;
      std::int64_t outer = 1;
      for (std::int64_t i = 0; i < axis; ++i) outer *= od[static_cast<std::size_t>(i)];
      e.leaf = parts[0].leaf;
      e.dims = od;
      e.at.reserve(static_cast<std::size_t>(total));
      for (std::int64_t o = 0; o < outer; ++o)
        for (const Elements& part : parts) {
          if (part.dims.size() != od.size()) return false;
          const std::int64_t inner = static_cast<std::int64_t>(part.at.size()) / outer;
          e.at.insert(e.at.end(), part.at.begin() + o * inner, part.at.begin() + (o + 1) * inner);
        }
      return static_cast<std::int64_t>(e.at.size()) == total;
    }
    Elements x;
    if (!trace(n.in[0], x)) return false;
    e.leaf = x.leaf;
    e.dims = od;
    if (n.op == OpKind::Reshape) {
      if (static_cast<std::int64_t>(x.at.size()) != total) return false;
      e.at = std::move(x.at);
      return true;
    }
    if (n.op == OpKind::Pad) {
      // Only a Pad of nothing (Swin's pad to whole windows when they divide the map).
      std::vector<std::int64_t> pads;
      if (!const_ints(g_, n, 1, pads) && n.ints.count("pads")) pads = n.ints.at("pads");
      if (std::any_of(pads.begin(), pads.end(), [](std::int64_t q) { return q != 0; })) return false;
      if (od != x.dims) return false;
      e.at = std::move(x.at);
      return true;
    }
    const std::size_t r = x.dims.size();
    const auto xs = strides_of(x.dims);
    if (n.op == OpKind::Transpose) {
      std::vector<std::int64_t> perm(r);
      const auto it = n.ints.find("perm");
      if (it != n.ints.end()) perm = it->second;
      else
        for (std::size_t i = 0; i < r; ++i) perm[i] = static_cast<std::int64_t>(r - 1 - i);
      if (perm.size() != r || od.size() != r) return false;
      std::vector<bool> seen(r, false);
      for (std::size_t i = 0; i < r; ++i) {
        const auto q = perm[i];
        if (q < 0 || q >= static_cast<std::int64_t>(r) || seen[static_cast<std::size_t>(q)] ||
            od[i] != x.dims[static_cast<std::size_t>(q)])
          return false;
        seen[static_cast<std::size_t>(q)] = true;
      }
      std::vector<std::int64_t> step(r), start(r, 0);
      for (std::size_t i = 0; i < r; ++i) step[i] = xs[static_cast<std::size_t>(perm[i])];
      walk(od, start, step, x.at, e.at);
      return static_cast<std::int64_t>(e.at.size()) == total;
    }
    // Slice: starts, ends[, axes[, steps]] as constant inputs (opset 10+) or attributes.
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (!const_ints(g_, n, 1, starts)) {
      if (!n.ints.count("starts") || !n.ints.count("ends")) return false;
      starts = n.ints.at("starts");
      ends = n.ints.at("ends");
      if (n.ints.count("axes")) axes = n.ints.at("axes");
    } else {
      if (!const_ints(g_, n, 2, ends)) return false;
      if (n.in.size() > 3 && n.in[3] >= 0 && !const_ints(g_, n, 3, axes)) return false;
      if (n.in.size() > 4 && n.in[4] >= 0 && !const_ints(g_, n, 4, steps)) return false;
    }
    if (axes.empty())
      for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (starts.size() != ends.size() || axes.size() != starts.size() || steps.size() != starts.size() || od.size() != r)
      return false;
    std::vector<std::int64_t> first(r, 0), step(r, 1);
    for (std::size_t k = 0; k < axes.size(); ++k) {
      auto a = axes[k];
      if (a < 0) a += static_cast<std::int64_t>(r);
      if (a < 0 || a >= static_cast<std::int64_t>(r) || steps[k] == 0) return false;
      const std::int64_t dim = x.dims[static_cast<std::size_t>(a)];
      auto clampi = [](std::int64_t q, std::int64_t lo, std::int64_t hi) { return std::min(std::max(q, lo), hi); };
      std::int64_t s = starts[k] < 0 ? starts[k] + dim : starts[k];
      s = steps[k] > 0 ? clampi(s, 0, dim) : clampi(s, 0, dim - 1);
      first[static_cast<std::size_t>(a)] = s;
      step[static_cast<std::size_t>(a)] = steps[k];
    }
    std::vector<std::int64_t> walk_step(r), start(r);
    for (std::size_t i = 0; i < r; ++i) {
      // The result's extent along i must stay inside the input.
      const std::int64_t last = first[i] + (od[i] - 1) * step[i];
      if (od[i] > x.dims[i] || first[i] < 0 || last < 0 || last >= x.dims[i]) return false;
      walk_step[i] = step[i] * xs[i];
      start[i] = first[i] * xs[i];
    }
    walk(od, start, walk_step, x.at, e.at);
    return static_cast<std::int64_t>(e.at.size()) == total;
  }

  // Elements of a strided walk over `from`: index sum(start + idx * step).
  static void walk(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& start,
                   const std::vector<std::int64_t>& step, const std::vector<std::int64_t>& from,
                   std::vector<std::int64_t>& to) {
    const std::size_t r = dims.size();
    std::int64_t total = 1;
    for (const auto d : dims) total *= d;
    to.resize(static_cast<std::size_t>(total));
    std::vector<std::int64_t> idx(r, 0);
    std::int64_t base = std::accumulate(start.begin(), start.end(), std::int64_t{0});
    for (std::int64_t e = 0; e < total; ++e) {
      to[static_cast<std::size_t>(e)] = from[static_cast<std::size_t>(base)];
      for (std::size_t i = r; i-- > 0;) {
        base += step[i];
        if (++idx[i] < dims[i]) break;
        base -= step[i] * dims[i];
        idx[i] = 0;
      }
    }
  }

  const Graph& g_;
  std::map<int, Elements> memo_;
};

// Values whose ONNX order is their byte order on the chip, with their
// channels last: [T, C] and [1, T, C] matrices, and [1, H, W, C] maps
// inside a channels-last region (a permute(0, 2, 3, 1)'s result, and what
// per-pixel operators and pixel gathers compute from them, [N, T, C] window
// rows among them). The matrices first; the rest node by node
// (channels_last_output).
std::set<int> channels_last_matrices(const Graph& g) {
  std::set<int> last;
  for (std::size_t id = 0; id < g.values.size(); ++id) {
    const Value& v = g.values[id];
    if (v.is_const) continue;
    const int p = g.producer(static_cast<int>(id));
    // (A stack [heads, T, d] of an attention is stored [T][heads][d]: not
    // its ONNX order, and never taken here.)
    if (v.dims.size() == 2 ||
        (v.dims.size() == 3 && v.dims[0] == 1 && p >= 0 && !moves_elements(g.nodes[static_cast<std::size_t>(p)].op)))
      last.insert(static_cast<int>(id));
  }
  return last;
}

// Whether node n's output is channels-last given its inputs.
bool channels_last_output(const Graph& g, const Node& n, const std::set<int>& last) {
  if (n.out.empty()) return false;
  const auto perm = n.ints.find("perm");
  if (n.op == OpKind::Transpose && perm != n.ints.end() && perm->second == std::vector<std::int64_t>{0, 2, 3, 1})
    return true;
  bool per_pixel = false;
  switch (n.op) {
    case OpKind::LayerNormalization: {
      const auto it = n.ints.find("axis");
      const std::int64_t a = it == n.ints.end() ? -1 : it->second.at(0);
      per_pixel = a == -1 || a == static_cast<std::int64_t>(g.val(n.out[0]).dims.size()) - 1;
      break;
    }
    case OpKind::MatMul:
      per_pixel = n.in.size() == 2 && g.val(n.in[1]).is_const;
      // A Linear layer's [N, T, C'] result is rows whatever it read (the
      // attention's output, which canonicalize_attention.cpp checks is rows).
      if (per_pixel && g.val(n.out[0]).dims.size() == 3) return true;
      break;
    case OpKind::Add: case OpKind::Sub: case OpKind::Mul: case OpKind::Div: case OpKind::Erf: case OpKind::Relu:
    case OpKind::Gelu: case OpKind::Sigmoid: case OpKind::Tanh: case OpKind::Dropout: case OpKind::Identity:
      per_pixel = true;
      break;
    default: break;
  }
  if (!per_pixel) return false;
  bool any = false, all = true;
  for (const int id : n.in) {
    if (id < 0 || g.val(id).is_const) continue;
    if (last.count(id)) any = true;
    else all = false;
  }
  return any && all && g.val(n.out[0]).dims.size() >= 2;
}

}  // namespace

void gather_pixels(Graph& g) {
  // Only graphs with a chain of more than a view (a Reshape or Transpose
  // alone is a view the other passes read).
  bool any = false;
  for (const Node& n : g.nodes)
    if (!n.out.empty() && (n.op == OpKind::Slice || n.op == OpKind::Concat || n.op == OpKind::Pad ||
                           (n.op == OpKind::Reshape && g.val(n.out[0]).dims.size() > 4)))
      any = true;
  if (!any) return;
  std::set<int> last = channels_last_matrices(g);
  Tracer tracer(g);
  bool changed = false;
  // In program order: channels-last values as they are computed, and the
  // ends of chains (results of moving operators that something else reads).
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!moves_elements(n.op) || (n.op == OpKind::Transpose && channels_last_output(g, n, last))) {
      if (channels_last_output(g, n, last)) last.insert(n.out[0]);
      continue;
    }
    if (n.out.empty() || !n.gather.empty() || n.in.empty() || n.in[0] < 0 || g.val(n.in[0]).is_const) continue;
    const int v = n.out[0];
    const auto readers = g.consumers(v);
    const bool end = is_output(g, v) || std::any_of(readers.begin(), readers.end(), [&](int r) {
                       return !moves_elements(g.nodes[static_cast<std::size_t>(r)].op);
                     });
    if (!end) continue;
    Elements el;
    if (!tracer.trace(v, el) || !last.count(el.leaf) || el.leaf == v) continue;
    const Value& leaf = g.val(el.leaf);
    const auto& od = g.val(v).dims;
    if (leaf.dims.size() < 2 || od.empty()) continue;
    const std::int64_t C = leaf.dims.back();
    // The result's channels: a whole number of the leaf's pixels.
    if (od.back() % C != 0) continue;
    const std::int64_t chunks = static_cast<std::int64_t>(el.at.size()) / C;
    std::vector<std::int64_t> pixel(static_cast<std::size_t>(chunks));
    bool whole = true, same = chunks == count(leaf.dims) / C;
    for (std::int64_t k = 0; k < chunks && whole; ++k) {
      const std::int64_t first = el.at[static_cast<std::size_t>(k * C)];
      whole = first % C == 0;
      for (std::int64_t c = 1; c < C && whole; ++c) whole = el.at[static_cast<std::size_t>(k * C + c)] == first + c;
      pixel[static_cast<std::size_t>(k)] = first / C;
      same = same && first / C == k;
    }
    if (!whole) continue;
    // The result is channels-last as well (and its readers see it so).
    Node& end_node = g.nodes[i];
    if (same && !is_output(g, v) && od == leaf.dims) {
      replace_uses(g, v, el.leaf);
      end_node.out.clear();
      changed = true;
      continue;
    }
    last.insert(v);
    // The end node itself becomes the gather: it comes after every node of
    // its chain, so the order stays topological.
    end_node.op = OpKind::Concat;
    end_node.name += ".pixels";
    end_node.in = {el.leaf};
    end_node.ints.clear();
    end_node.floats.clear();
    end_node.gather = std::move(pixel);
    changed = true;
  }
  if (!changed) return;
  g.remove_dead_nodes();
}

}  // namespace vp::cc::canon
