// Attention as PyTorch exports it, read on the chip's layout.
//
// A Linear's output [T, C] is stored row by row, which is also [T, heads, d]
// row by row: the export's Reshape to [T, heads, d] moves no byte, and its
// Transpose to [heads, T, d] only changes how the next operator indexes the
// bytes. So no head tensor is ever materialized in the export's order: a
// MatMul of two activations reads its operands where the Linear layers put
// them (Node::heads, trans_b), and writes [M][heads][N] (the scores of query
// row m, head by head; then attention x values as [T][heads][d], which is
// [T, C] again for the output projection).
//
// Which bytes an operand's elements are is found by following the chain of
// Reshapes and Transposes back to the stored value with the element indices
// themselves (View): the MatMul is accepted when they are exactly one of the
// layouts above, and a chain after it is dropped when it puts every byte
// back where it is. Between the two MatMuls a Mul or Div by a scalar
// constant folds into the first one's alpha, an Add of a causal mask
// (0 on and below the diagonal, at most -1000 above it) or a Where of one
// (masked_fill of the entries above the diagonal with -inf) becomes the
// Softmax's `causal`, and the Softmax over the last axis runs over runs of
// N channels, one per head.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "canonicalize_util.h"
#include "vp/cc/passes.h"

namespace vp::cc::canon {
namespace {

// Logical dims and, for each element in row-major order over them, its
// byte offset in the stored tensor.
struct View {
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> at;
};

// A value in the attention's layout: logical [heads, m, n] stored
// [m][heads][n]; with windows > 1 (a Swin transformer's attention inside
// windows) logical [windows, heads, m / windows, n], the same bytes.
struct HeadLayout {
  std::int64_t heads, m, n;
  std::int64_t windows = 1;
  bool four = false;  // viewed 4-D (windows first) even with one window
};

std::int64_t numel(const std::vector<std::int64_t>& d) {
  return std::accumulate(d.begin(), d.end(), std::int64_t{1}, std::multiplies<>());
}

std::string dims_text(const std::vector<std::int64_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// Reshape, Transpose, and a Gather of one constant index (a Swin
// attention's q, k, v = qkv[0], qkv[1], qkv[2] after its permute).
bool is_view_op(const Graph& g, const Node& n) {
  if (n.op == OpKind::Reshape || n.op == OpKind::Transpose) return true;
  return n.op == OpKind::Gather && n.in.size() == 2 && n.in[1] >= 0 && g.val(n.in[1]).is_const &&
         g.val(n.in[1]).data.size() == 1 && g.val(n.in[1]).dims.empty();
}

// The stored value a chain of Reshapes and Transposes reads (the chain's
// nodes, first to last, in `chain`).
int stored_value(const Graph& g, int v, std::vector<int>& chain) {
  chain.clear();
  for (;;) {
    const int p = g.producer(v);
    if (p < 0 || !is_view_op(g, g.nodes[static_cast<std::size_t>(p)]) || g.val(g.nodes[static_cast<std::size_t>(p)].in[0]).is_const)
      break;
    chain.insert(chain.begin(), p);
    v = g.nodes[static_cast<std::size_t>(p)].in[0];
  }
  return v;
}

View stored_view(const Graph& g, int v, const std::map<int, HeadLayout>& lay) {
  View w;
  const auto it = lay.find(v);
  if (it != lay.end()) {
    const HeadLayout& l = it->second;
    w.dims = l.windows > 1 || l.four ? std::vector<std::int64_t>{l.windows, l.heads, l.m / l.windows, l.n}
                                     : std::vector<std::int64_t>{l.heads, l.m, l.n};
    // Row-major over [windows, heads, rows per window, n].
    const std::int64_t mw = l.m / l.windows;
    w.at.reserve(static_cast<std::size_t>(l.heads * l.m * l.n));
    for (std::int64_t ww = 0; ww < l.windows; ++ww)
      for (std::int64_t h = 0; h < l.heads; ++h)
        for (std::int64_t m = ww * mw; m < (ww + 1) * mw; ++m)
          for (std::int64_t n = 0; n < l.n; ++n) w.at.push_back((m * l.heads + h) * l.n + n);
    return w;
  }
  // Any other value is row-major in the chip's layout when it is a [B, K]
  // matrix, a vector, or one pixel of channels.
  const Value& val = g.val(v);
  w.dims = val.dims;
  if (val.dims.size() > 2 && val.shape.h * val.shape.w != 1)
    throw CompileError("tensor '" + val.name + "' " + dims_text(val.dims) +
                       " feeds a MatMul of two activations through Reshape/Transpose; supported are [T, C] "
                       "matrices and the attention's own products");
  if (numel(val.dims) != val.shape.numel())
    throw CompileError("tensor '" + val.name + "' " + dims_text(val.dims) + " has no known shape");
  w.at.resize(static_cast<std::size_t>(numel(val.dims)));
  std::iota(w.at.begin(), w.at.end(), std::int64_t{0});
  return w;
}

// The view after one Reshape or Transpose.
View apply(const Graph& g, const Node& n, View w) {
  const auto& out = g.val(n.out[0]).dims;
  if (n.op == OpKind::Gather) {  // one index along the axis: that slice, the axis gone
    const auto r = static_cast<std::int64_t>(w.dims.size());
    auto axis = attr_i(n, "axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r || numel(w.dims) != static_cast<std::int64_t>(w.at.size()))
      throw CompileError("node '" + n.name + "' (Gather): axis outside its input's rank");
    const std::int64_t dim = w.dims[static_cast<std::size_t>(axis)];
    const float f = g.val(n.in[1]).data[0];
    if (!(f > -9.0e18f && f < 9.0e18f)) throw CompileError("node '" + n.name + "' (Gather): index outside the axis");
    auto idx = static_cast<std::int64_t>(f);
    if (idx < 0) idx += dim;
    if (idx < 0 || idx >= dim) throw CompileError("node '" + n.name + "' (Gather): index outside the axis");
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t i = 0; i < axis; ++i) outer *= w.dims[static_cast<std::size_t>(i)];
    for (std::int64_t i = axis + 1; i < r; ++i) inner *= w.dims[static_cast<std::size_t>(i)];
    View o;
    o.dims = w.dims;
    o.dims.erase(o.dims.begin() + axis);
    for (std::int64_t a = 0; a < outer; ++a)
      for (std::int64_t b = 0; b < inner; ++b) o.at.push_back(w.at[static_cast<std::size_t>((a * dim + idx) * inner + b)]);
    return o;
  }
  if (n.op == OpKind::Reshape) {
    if (numel(out) != static_cast<std::int64_t>(w.at.size()))
      throw CompileError("node '" + n.name + "' (Reshape): element count changes");
    w.dims = out;
    return w;
  }
  const std::size_t r = w.dims.size();
  std::vector<std::int64_t> perm(r);
  const auto it = n.ints.find("perm");
  if (it != n.ints.end()) perm = it->second;
  else
    for (std::size_t i = 0; i < r; ++i) perm[i] = static_cast<std::int64_t>(r - 1 - i);
  if (perm.size() != r || numel(w.dims) != static_cast<std::int64_t>(w.at.size()))
    throw CompileError("node '" + n.name + "' (Transpose): perm does not match the rank of its input");
  std::vector<bool> seen(r, false);
  for (const auto p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(r) || seen[static_cast<std::size_t>(p)])
      throw CompileError("node '" + n.name + "' (Transpose): perm is not a permutation of 0.." + std::to_string(r - 1));
    seen[static_cast<std::size_t>(p)] = true;
  }
  std::vector<std::int64_t> nd(r), stride(r, 1);
  for (std::size_t i = r; i-- > 1;) stride[i - 1] = stride[i] * w.dims[i];
  for (std::size_t i = 0; i < r; ++i) nd[i] = w.dims[static_cast<std::size_t>(perm[i])];
  View o;
  o.dims = nd;
  o.at.resize(w.at.size());
  std::vector<std::int64_t> idx(r, 0);
  for (std::size_t e = 0; e < o.at.size(); ++e) {
    std::int64_t src = 0;
    for (std::size_t i = 0; i < r; ++i) src += idx[i] * stride[static_cast<std::size_t>(perm[i])];
    o.at[e] = w.at[static_cast<std::size_t>(src)];
    for (std::size_t i = r; i-- > 0;) {
      if (++idx[i] < nd[i]) break;
      idx[i] = 0;
    }
  }
  return o;
}

View view_of(const Graph& g, int v, const std::map<int, HeadLayout>& lay, int& stored) {
  std::vector<int> chain;
  stored = stored_value(g, v, chain);
  View w = stored_view(g, stored, lay);
  for (int p : chain) w = apply(g, g.nodes[static_cast<std::size_t>(p)], std::move(w));
  return w;
}

// [windows, heads, rows, cols] of a 2-D, 3-D or 4-D logical view (windows
// 1 but for a 4-D one).
bool head_dims(const View& w, std::int64_t& W, std::int64_t& h, std::int64_t& rows, std::int64_t& cols) {
  W = 1;
  h = 1;
  if (w.dims.size() < 2 || w.dims.size() > 4) return false;
  const std::size_t r = w.dims.size();
  rows = w.dims[r - 2];
  cols = w.dims[r - 1];
  if (r >= 3) h = w.dims[r - 3];
  if (r == 4) W = w.dims[0];
  return true;
}

// Every element (ww, hh, i, j) of the view sits at f(ww, hh, i, j).
template <class F>
bool laid_out(const View& w, std::int64_t W, std::int64_t h, std::int64_t rows, std::int64_t cols, F f) {
  if (numel(w.dims) != W * h * rows * cols || static_cast<std::int64_t>(w.at.size()) != W * h * rows * cols) return false;
  for (std::int64_t ww = 0; ww < W; ++ww)
    for (std::int64_t hh = 0; hh < h; ++hh)
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j)
          if (w.at[static_cast<std::size_t>(((ww * h + hh) * rows + i) * cols + j)] != f(ww, hh, i, j)) return false;
  return true;
}

// An operand of a MatMul of two activations: `width` channels from channel
// `off` of every row of its stored value (rows of `stride` bytes). A part of
// a wider row (q, k and v of one qkv Linear, taken by a Gather after a
// permute) becomes a Slice of those channels, which slice_linear_parts
// makes the Linear's own part.
int operand_rows(Graph& g, std::size_t& at, int stored, std::int64_t off, std::int64_t width, const std::string& part) {
  const Value& v = g.val(stored);
  if (off == 0 && width == v.shape.c) return stored;
  if (v.shape.w != 1 || off < 0 || off + width > v.shape.c)
    throw CompileError("tensor '" + v.name + "': an attention operand from part of its rows; supported from a [T, C] matrix");
  auto constant = [&](std::int64_t x, const char* what) {
    Value c;
    c.name = v.name + "." + part + "." + what;
    c.is_const = true;
    c.dims = {1};
    c.data = {static_cast<float>(x)};
    return g.add_value(std::move(c));
  };
  Value y;
  y.name = v.name + "." + part;
  y.dims = {v.shape.h, width};
  y.shape = Shape{width, v.shape.h, 1};
  Node slice;
  slice.name = y.name;
  slice.op = OpKind::Slice;
  slice.in = {stored, constant(off, "starts"), constant(off + width, "ends"), constant(1, "axes")};
  const int id = g.add_value(std::move(y));
  slice.out = {id};
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(at), std::move(slice));
  ++at;
  return id;
}

// The constant of an Add to attention scores laid out as `l`, broadcast to
// the Add's dims `od` (which end in [heads, rows per window, n]), at each
// element's byte in the scores' layout; false when the dims do not match.
bool scores_constant(const Value& c, const std::vector<std::int64_t>& od, const HeadLayout& l, std::vector<float>& out) {
  const std::size_t r = od.size();
  if (r < 3 || od[r - 3] != l.heads || od[r - 1] != l.n || c.dims.size() > r ||
      static_cast<std::int64_t>(c.data.size()) != numel(c.dims))
    return false;
  const std::int64_t mw = od[r - 2], lead = numel(od) / (l.heads * mw * l.n);
  if (lead * mw != l.m || (l.windows > 1 && mw * l.windows != l.m)) return false;
  std::vector<std::int64_t> cd(r, 1);
  std::copy(c.dims.begin(), c.dims.end(), cd.begin() + static_cast<std::ptrdiff_t>(r - c.dims.size()));
  for (std::size_t i = 0; i < r; ++i)
    if (cd[i] != 1 && cd[i] != od[i]) return false;
  std::vector<std::int64_t> cs(r, 1);
  for (std::size_t i = r; i-- > 1;) cs[i - 1] = cs[i] * cd[i];
  out.assign(static_cast<std::size_t>(numel(od)), 0.f);
  std::vector<std::int64_t> idx(r, 0);
  for (std::int64_t e = 0; e < numel(od); ++e) {
    std::int64_t src = 0;
    for (std::size_t i = 0; i < r; ++i) src += (cd[i] == 1 ? 0 : idx[i]) * cs[i];
    const std::int64_t j = e % l.n, m = e / l.n % mw, hh = e / (l.n * mw) % l.heads, w = e / (l.n * mw * l.heads);
    out[static_cast<std::size_t>(((w * mw + m) * l.heads + hh) * l.n + j)] = c.data[static_cast<std::size_t>(src)];
    for (std::size_t i = r; i-- > 0;) {
      if (++idx[i] < od[i]) break;
      idx[i] = 0;
    }
  }
  return true;
}

// An additive mask entry: its exponential is 0 beside any other score in
// float (Swin's -100, -inf, a causal mask's -1e4 or below).
bool masks(float v) { return !(v > -30.f); }

// A constant that adds 0 on and below the diagonal of its last two axes and
// at most -1000 above it (its exponential is 0 in float), one [M, N] for
// every head.
bool causal_mask(const Value& k, std::int64_t M, std::int64_t N) {
  if (k.dims.size() < 2 || k.dims[k.dims.size() - 2] != M || k.dims.back() != N || numel(k.dims) != M * N ||
      k.data.size() != static_cast<std::size_t>(M * N))
    return false;
  for (std::int64_t t = 0; t < M; ++t)
    for (std::int64_t s = 0; s < N; ++s) {
      const float v = k.data[static_cast<std::size_t>(t * N + s)];
      if (s <= t ? v != 0.f : !(v <= -1000.f)) return false;
    }
  return M == N;
}

// A Where's condition that keeps exactly the causal triangle of an [M, N]
// matrix (M = N): where(mask, scores, fill) keeps where true (torch.where),
// masked_fill(mask, fill) where false; and its fill a scalar whose
// exponential is 0 in float (-inf, or at most -1000).
bool causal_where(const Value& cond, const Value& fill, std::int64_t M, std::int64_t N, bool keep_when_true) {
  if (M != N || cond.dims.size() < 2 || cond.dims[cond.dims.size() - 2] != M || cond.dims.back() != N ||
      numel(cond.dims) != M * N || cond.data.size() != static_cast<std::size_t>(M * N) || fill.data.size() != 1 ||
      !(fill.data[0] <= -1000.f))
    return false;
  for (std::int64_t t = 0; t < M; ++t)
    for (std::int64_t s = 0; s < N; ++s)
      if ((cond.data[static_cast<std::size_t>(t * N + s)] != 0.f) != (keep_when_true ? s <= t : s > t)) return false;
  return true;
}

// Marks the Softmax that alone reads `masked` causal.
void causal_softmax(Graph& g, const Node& mask, int masked) {
  const int s = sole_consumer(g, masked);
  if (s < 0 || g.nodes[static_cast<std::size_t>(s)].op != OpKind::Softmax)
    throw CompileError("node '" + mask.name + "' (" + op_name(mask.op) +
                       "): a causal mask is supported before a Softmax that alone reads it");
  g.nodes[static_cast<std::size_t>(s)].causal = true;
}

}  // namespace

void fold_attention(Graph& g) {
  // A scale on an operand's chain (nn.MultiheadAttention divides the
  // queries [heads, T, d] by sqrt(d) before q x k^T): the products are
  // linear in it, so it goes to the alpha of the MatMuls that read it.
  for (Node& n : g.nodes) {
    if ((n.op != OpKind::Mul && n.op != OpKind::Div) || n.out.size() != 1 || n.in.size() != 2 ||
        !g.val(n.in[1]).is_const || g.val(n.in[1]).data.size() != 1 || g.val(n.in[0]).is_const ||
        is_output(g, n.out[0]))
      continue;
    const int p = g.producer(n.in[0]);
    const auto readers = g.consumers(n.out[0]);
    const auto matmul = [&](int r) {
      const Node& m = g.nodes[static_cast<std::size_t>(r)];
      return m.op == OpKind::MatMul && m.in.size() == 2 && !g.val(m.in[0]).is_const && !g.val(m.in[1]).is_const &&
             m.in[0] != m.in[1];  // (read twice, the scale would count twice)
    };
    if (p < 0 || !is_view_op(g, g.nodes[static_cast<std::size_t>(p)]) || readers.empty() ||
        !std::all_of(readers.begin(), readers.end(), matmul))
      continue;
    const float k = g.val(n.in[1]).data[0];
    if (n.op == OpKind::Div && k == 0) continue;  // refused where Div is
    for (const int r : readers) {
      Node& m = g.nodes[static_cast<std::size_t>(r)];
      m.alpha = n.op == OpKind::Mul ? m.alpha * k : m.alpha / k;
    }
    replace_uses(g, n.out[0], n.in[0]);
    n.out.clear();
  }
  std::map<int, HeadLayout> lay;
  std::map<int, int> mask_of;  // scores -> the mask the Softmax reading them applies
  bool any = false;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.out.empty()) continue;
    if (n.op == OpKind::MatMul && n.in.size() == 2 && !g.val(n.in[0]).is_const && !g.val(n.in[1]).is_const) {
      int sa = -1, sb = -1;
      const View a = view_of(g, n.in[0], lay, sa), b = view_of(g, n.in[1], lay, sb);
      std::int64_t W = 1, h = 0, M = 0, K = 0, Wb = 1, hb = 0, Kb = 0, N = 0;
      if (!head_dims(a, W, h, M, K) || !head_dims(b, Wb, hb, Kb, N) || hb != h || Kb != K || Wb != W)
        throw CompileError("node '" + n.name + "' (MatMul): operands " + dims_text(a.dims) + " and " + dims_text(b.dims) +
                           "; a MatMul of two activations is supported as [heads, M, K] x [heads, K, N], or "
                           "[windows, heads, M, K] x [windows, heads, K, N]");
      // Rows of the stored values: A [W x M][..][heads][K], B [W x N][..][heads][K]
      // (keys) or [W x K][..][heads][N] (values), from a channel offset.
      const std::int64_t SA = g.val(sa).shape.c, SB = g.val(sb).shape.c, oa = a.at.empty() ? 0 : a.at[0],
                         ob = b.at.empty() ? 0 : b.at[0];
      if (!laid_out(a, W, h, M, K, [&](auto ww, auto hh, auto m, auto k) { return (ww * M + m) * SA + oa + hh * K + k; }))
        throw CompileError("node '" + n.name + "' (MatMul): its first operand is not [M][heads][K] in memory (a Linear "
                           "layer's [T, C] output viewed as [T, heads, d] and transposed to [heads, T, d])");
      if (laid_out(b, W, h, K, N, [&](auto ww, auto hh, auto k, auto nn) { return (ww * N + nn) * SB + ob + hh * K + k; }))
        n.trans_b = true;
      else if (laid_out(b, W, h, K, N, [&](auto ww, auto hh, auto k, auto nn) { return (ww * K + k) * SB + ob + hh * N + nn; }))
        n.trans_b = false;
      else
        throw CompileError("node '" + n.name + "' (MatMul): its second operand is neither [N][heads][K] (keys, "
                           "transposed) nor [K][heads][N] (values) in memory");
      const bool tb = n.trans_b;
      const std::string name = n.name;
      sa = operand_rows(g, i, sa, oa, h * K, "a." + name);
      sb = operand_rows(g, i, sb, ob, tb ? h * K : h * N, "b." + name);
      Node& mm = g.nodes[i];
      const Shape want_a{h * K, W * M, 1}, want_b = tb ? Shape{h * K, W * N, 1} : Shape{h * N, W * K, 1};
      if (!(g.val(sa).shape == want_a) || !(g.val(sb).shape == want_b))
        throw CompileError("node '" + mm.name + "' (MatMul): its operands are not stored as rows of heads x channels");
      mm.in = {sa, sb};
      mm.heads = static_cast<int>(h);
      mm.windows = static_cast<int>(W);
      Value& y = g.val(mm.out[0]);
      y.shape = Shape{h * N, W * M, 1};
      lay[mm.out[0]] = HeadLayout{h, W * M, N, W, a.dims.size() == 4};
      any = true;
      continue;
    }
    // A Reshape of scores that keeps [heads, rows, n] last and only regroups
    // the windows before them (Swin's [1, windows, heads, 49, 49] around its
    // mask's Add): the same bytes.
    if (n.op == OpKind::Reshape && !n.in.empty() && lay.count(n.in[0]) && !is_output(g, n.out[0])) {
      const HeadLayout l = lay.at(n.in[0]);
      const auto& od = g.val(n.out[0]).dims;
      const std::size_t r = od.size();
      if (r >= 3 && od[r - 3] == l.heads && od[r - 1] == l.n && numel(od) == l.heads * l.m * l.n &&
          (l.windows > 1 ? l.m / l.windows == od[r - 2] : l.m == od[r - 2])) {
        if (mask_of.count(n.out[0]) == 0 && mask_of.count(n.in[0])) mask_of[n.out[0]] = mask_of.at(n.in[0]);
        replace_uses(g, n.out[0], n.in[0]);
        n.out.clear();
        continue;
      }
    }
    // A constant added to the scores: a relative position bias (a preloaded
    // map added by the vector unit, as a ViT's position embedding is) and a
    // mask of 0 and at most -30 (Swin's shifted windows: -100; the
    // Softmax's mask input, as a causal mask is its flag).
    if (n.op == OpKind::Add && n.in.size() == 2 && n.in[0] >= 0 && n.in[1] >= 0 &&
        (lay.count(n.in[0]) || lay.count(n.in[1])) && (g.val(n.in[0]).is_const || g.val(n.in[1]).is_const)) {
      const int x = lay.count(n.in[0]) ? n.in[0] : n.in[1], c = x == n.in[0] ? n.in[1] : n.in[0];
      const HeadLayout l = lay.at(x);
      std::vector<float> full;
      if (!causal_mask(g.val(c), l.m, l.n)) {
        if (!scores_constant(g.val(c), g.val(n.out[0]).dims, l, full))
          throw CompileError("node '" + n.name + "' (Add): a constant " + dims_text(g.val(c).dims) +
                             " added to attention scores " + dims_text(g.val(n.out[0]).dims) +
                             " that does not broadcast over their windows and heads");
        const bool any_mask = std::any_of(full.begin(), full.end(), masks);
        // A row of one head whose every score is masked would be a Softmax
        // of nothing on the chip, where float shifts them all alike.
        for (std::size_t r0 = 0; any_mask && r0 < full.size(); r0 += static_cast<std::size_t>(l.n))
          if (std::all_of(full.begin() + static_cast<std::ptrdiff_t>(r0),
                          full.begin() + static_cast<std::ptrdiff_t>(r0) + l.n, masks))
            throw CompileError("node '" + n.name + "' (Add): its constant masks every score of row " +
                               std::to_string(r0 / static_cast<std::size_t>(l.n * l.heads)) +
                               " of a head (-30 or below throughout); supported are masks that keep one at least");
        const bool any_bias = std::any_of(full.begin(), full.end(), [](float f) { return !masks(f) && f != 0.f; });
        int mask = -1;
        if (any_mask) {
          Value mv;
          mv.name = g.val(c).name + ".mask";
          mv.preload = true;
          mv.softmax_mask = true;
          mv.dims = {l.m, l.heads * l.n};
          mv.shape = Shape{l.heads * l.n, l.m, 1};
          for (const float f : full) mv.data.push_back(masks(f) ? -128.f : 127.f);
          if (mask_of.count(x)) {  // two masks: a channel counts where both keep it
            const Value& before = g.val(mask_of.at(x));
            for (std::size_t e = 0; e < mv.data.size(); ++e) mv.data[e] = std::min(mv.data[e], before.data[e]);
          }
          // Codes channel by channel, as the interpreters hold every tensor.
          const std::int64_t T = l.m, C = l.heads * l.n;
          mv.codes.resize(mv.data.size());
          for (std::int64_t t = 0; t < T; ++t)
            for (std::int64_t ch = 0; ch < C; ++ch)
              mv.codes[static_cast<std::size_t>(ch * T + t)] = static_cast<std::int8_t>(mv.data[static_cast<std::size_t>(t * C + ch)]);
          mask = g.add_value(std::move(mv));
        }
        if (any_bias) {
          Value bv;
          bv.name = g.val(c).name + ".scores";
          bv.preload = true;
          bv.dims = {l.m, l.heads * l.n};
          bv.shape = Shape{l.heads * l.n, l.m, 1};
          for (const float f : full) bv.data.push_back(masks(f) ? 0.f : f);
          n.in = {x, g.add_value(std::move(bv))};
          g.val(n.out[0]).shape = g.val(x).shape;
          lay[n.out[0]] = l;
          if (mask >= 0) mask_of[n.out[0]] = mask;
          else if (mask_of.count(x)) mask_of[n.out[0]] = mask_of.at(x);
          continue;
        }
        if (mask >= 0) mask_of[x] = mask;
        replace_uses(g, n.out[0], x);
        n.out.clear();
        continue;
      }
    }
    if (n.op == OpKind::Where && n.in.size() == 3 && n.in[0] >= 0 && n.in[1] >= 0 && n.in[2] >= 0 &&
        (lay.count(n.in[1]) || lay.count(n.in[2]))) {
      // masked_fill(mask, -inf) (scores third) or where(mask, scores, -inf).
      const bool keep_when_true = lay.count(n.in[1]) > 0;
      const int scores = n.in[keep_when_true ? 1 : 2], fill = n.in[keep_when_true ? 2 : 1];
      const HeadLayout l = lay.at(scores);
      if (!g.val(n.in[0]).is_const || !g.val(fill).is_const ||
          !causal_where(g.val(n.in[0]), g.val(fill), l.m, l.n, keep_when_true))
        throw CompileError("node '" + n.name + "' (Where): on attention scores it is supported as a causal mask only "
                           "(a constant condition masking exactly the entries above the diagonal with -inf or at most "
                           "-1000)");
      causal_softmax(g, n, n.out[0]);
      replace_uses(g, n.out[0], scores);
      n.out.clear();
      continue;
    }
    if (n.in.empty() || !lay.count(n.in[0])) {
      if (n.in.size() > 1 && lay.count(n.in[1]) && !is_view_op(g, n) && n.op != OpKind::MatMul)
        throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): reads attention scores as its second input; not supported");
      continue;
    }
    const int x = n.in[0];
    const HeadLayout l = lay.at(x);
    const int p = g.producer(x);
    const bool c1 = n.in.size() == 2 && g.val(n.in[1]).is_const;
    if ((n.op == OpKind::Mul || n.op == OpKind::Div) && c1 && g.val(n.in[1]).data.size() == 1 && p >= 0 &&
        g.nodes[static_cast<std::size_t>(p)].op == OpKind::MatMul && sole_consumer(g, x) == static_cast<int>(i)) {
      // The scale of the scores: into the MatMul's requantization.
      const float k = g.val(n.in[1]).data[0];
      Node& mm = g.nodes[static_cast<std::size_t>(p)];
      mm.alpha = n.op == OpKind::Mul ? mm.alpha * k : mm.alpha / k;
      mm.out = n.out;
      n.out.clear();
      g.val(mm.out[0]).shape = g.val(x).shape;
      lay[mm.out[0]] = l;
      continue;
    }
    if (n.op == OpKind::Add && c1 && causal_mask(g.val(n.in[1]), l.m, l.n)) {
      causal_softmax(g, n, n.out[0]);
      replace_uses(g, n.out[0], x);
      n.out.clear();
      continue;
    }
    if (n.op == OpKind::Softmax) {
      if (mask_of.count(x)) {
        if (n.causal)
          throw CompileError("node '" + n.name + "' (Softmax): a causal mask and a constant mask together; not supported");
        n.in.push_back(mask_of.at(x));
      }
      const auto rank = static_cast<std::int64_t>(g.val(x).dims.size());
      auto axis = attr_i(n, "axis", -1);
      if (axis < 0) axis += rank;
      if (axis != rank - 1)
        throw CompileError("node '" + n.name + "' (Softmax): over attention scores it is supported over the last axis");
      n.group = l.n;
      g.val(n.out[0]).shape = g.val(x).shape;
      lay[n.out[0]] = l;
      continue;
    }
    if (is_view_op(g, n) || n.op == OpKind::MatMul) continue;  // a chain into a MatMul or out of the attention (below)
    if (l.heads == 1) continue;  // one [M, N] matrix, row by row: any operator reads it
    throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): reads attention scores " +
                       dims_text(g.val(x).dims) + "; supported between the two MatMuls are a scale, a causal mask and Softmax");
  }
  if (!any) return;
  // Beside a causal Softmax, the MatMuls need only the rows of B up to
  // their own: the scores' producer and the reader of the probabilities.
  g.remove_dead_nodes();  // the folded scales and masks no longer read the scores
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& s = g.nodes[i];
    if (s.op != OpKind::Softmax || !s.causal || s.out.empty()) continue;
    const int p = g.producer(s.in[0]);
    if (p >= 0 && g.nodes[static_cast<std::size_t>(p)].op == OpKind::MatMul &&
        g.nodes[static_cast<std::size_t>(p)].trans_b && sole_consumer(g, s.in[0]) == static_cast<int>(i))
      g.nodes[static_cast<std::size_t>(p)].causal = true;
    for (int r : g.consumers(s.out[0])) {
      Node& mm = g.nodes[static_cast<std::size_t>(r)];
      if (mm.op == OpKind::MatMul && !mm.trans_b && mm.in[0] == s.out[0]) mm.causal = true;
    }
  }
  // The host reads a graph output in its ONNX order; [M][heads][N] is not
  // the order of [heads, M, N].
  for (const auto& [v, l] : lay)
    if (l.heads > 1 && is_output(g, v))
      throw CompileError("graph output '" + g.val(v).name + "' " + dims_text(g.val(v).dims) +
                         " is attention heads; supported as an output is the attention's result viewed as [T, C]");
  // Chains out of the attention (its product transposed back and viewed as
  // [T, C]): dropped when every byte stays where it is.
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (!is_view_op(g, n) || n.out.empty()) continue;
    const auto readers = g.consumers(n.out[0]);
    const bool end = is_output(g, n.out[0]) || std::any_of(readers.begin(), readers.end(), [&](int r) {
                       return !is_view_op(g, g.nodes[static_cast<std::size_t>(r)]) &&
                              !(g.nodes[static_cast<std::size_t>(r)].op == OpKind::MatMul && g.nodes[static_cast<std::size_t>(r)].heads > 1);
                     });
    if (!end) continue;
    int s = -1;
    std::vector<int> chain;
    s = stored_value(g, n.out[0], chain);
    if (!lay.count(s)) continue;
    const View w = view_of(g, n.out[0], lay, s);
    for (std::size_t e = 0; e < w.at.size(); ++e)
      if (w.at[e] != static_cast<std::int64_t>(e))
        throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): reorders the attention's output " +
                           dims_text(w.dims) + "; supported is its transpose back to [T, heads, d] viewed as [T, C]");
    Value& out = g.val(n.out[0]);
    out.shape = shape_of_dims(out.dims, out.name);
    if (!(out.shape == g.val(s).shape))
      throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): the attention's output viewed as " +
                         dims_text(out.dims) + " is not its rows of channels");
    replace_uses(g, n.out[0], s);
    n.out.clear();
  }
  g.remove_dead_nodes();
}

}  // namespace vp::cc::canon
