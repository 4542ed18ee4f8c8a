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

// A value in the attention's layout: logical [heads, m, n] stored [m][heads][n].
struct HeadLayout {
  std::int64_t heads, m, n;
};

std::int64_t numel(const std::vector<std::int64_t>& d) {
  return std::accumulate(d.begin(), d.end(), std::int64_t{1}, std::multiplies<>());
}

std::string dims_text(const std::vector<std::int64_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

bool is_view_op(const Node& n) { return n.op == OpKind::Reshape || n.op == OpKind::Transpose; }

// The stored value a chain of Reshapes and Transposes reads (the chain's
// nodes, first to last, in `chain`).
int stored_value(const Graph& g, int v, std::vector<int>& chain) {
  chain.clear();
  for (;;) {
    const int p = g.producer(v);
    if (p < 0 || !is_view_op(g.nodes[static_cast<std::size_t>(p)]) || g.val(g.nodes[static_cast<std::size_t>(p)].in[0]).is_const)
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
    w.dims = {l.heads, l.m, l.n};
    w.at.resize(static_cast<std::size_t>(l.heads * l.m * l.n));
    for (std::int64_t h = 0; h < l.heads; ++h)
      for (std::int64_t m = 0; m < l.m; ++m)
        for (std::int64_t n = 0; n < l.n; ++n)
          w.at[static_cast<std::size_t>((h * l.m + m) * l.n + n)] = (m * l.heads + h) * l.n + n;
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

// [heads, rows, cols] of a 2-D or 3-D logical view.
bool head_dims(const View& w, std::int64_t& h, std::int64_t& rows, std::int64_t& cols) {
  if (w.dims.size() == 2) {
    h = 1;
    rows = w.dims[0];
    cols = w.dims[1];
    return true;
  }
  if (w.dims.size() != 3) return false;
  h = w.dims[0];
  rows = w.dims[1];
  cols = w.dims[2];
  return true;
}

// Every element (hh, i, j) of the view sits at f(hh, i, j).
template <class F>
bool laid_out(const View& w, std::int64_t h, std::int64_t rows, std::int64_t cols, F f) {
  for (std::int64_t hh = 0; hh < h; ++hh)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        if (w.at[static_cast<std::size_t>((hh * rows + i) * cols + j)] != f(hh, i, j)) return false;
  return true;
}

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
    if (p < 0 || !is_view_op(g.nodes[static_cast<std::size_t>(p)]) || readers.empty() ||
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
  bool any = false;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.out.empty()) continue;
    if (n.op == OpKind::MatMul && n.in.size() == 2 && !g.val(n.in[0]).is_const && !g.val(n.in[1]).is_const) {
      int sa = -1, sb = -1;
      const View a = view_of(g, n.in[0], lay, sa), b = view_of(g, n.in[1], lay, sb);
      std::int64_t h = 0, M = 0, K = 0, hb = 0, Kb = 0, N = 0;
      if (!head_dims(a, h, M, K) || !head_dims(b, hb, Kb, N) || hb != h || Kb != K)
        throw CompileError("node '" + n.name + "' (MatMul): operands " + dims_text(a.dims) + " and " + dims_text(b.dims) +
                           "; a MatMul of two activations is supported as [heads, M, K] x [heads, K, N]");
      if (!laid_out(a, h, M, K, [&](auto hh, auto m, auto k) { return (m * h + hh) * K + k; }))
        throw CompileError("node '" + n.name + "' (MatMul): its first operand is not [M][heads][K] in memory (a Linear "
                           "layer's [T, C] output viewed as [T, heads, d] and transposed to [heads, T, d])");
      if (laid_out(b, h, K, N, [&](auto hh, auto k, auto nn) { return (nn * h + hh) * K + k; })) n.trans_b = true;
      else if (laid_out(b, h, K, N, [&](auto hh, auto k, auto nn) { return (k * h + hh) * N + nn; })) n.trans_b = false;
      else
        throw CompileError("node '" + n.name + "' (MatMul): its second operand is neither [N][heads][K] (keys, "
                           "transposed) nor [K][heads][N] (values) in memory");
      const Shape want_a{h * K, M, 1}, want_b = n.trans_b ? Shape{h * K, N, 1} : Shape{h * N, K, 1};
      if (!(g.val(sa).shape == want_a) || !(g.val(sb).shape == want_b))
        throw CompileError("node '" + n.name + "' (MatMul): its operands are not stored as rows of heads x channels");
      n.in = {sa, sb};
      n.heads = static_cast<int>(h);
      Value& y = g.val(n.out[0]);
      y.shape = Shape{h * N, M, 1};
      lay[n.out[0]] = HeadLayout{h, M, N};
      any = true;
      continue;
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
      if (n.in.size() > 1 && lay.count(n.in[1]) && !is_view_op(n) && n.op != OpKind::MatMul)
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
    if (is_view_op(n) || n.op == OpKind::MatMul) continue;  // a chain into a MatMul or out of the attention (below)
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
    if (!is_view_op(n) || n.out.empty()) continue;
    const auto readers = g.consumers(n.out[0]);
    const bool end = is_output(g, n.out[0]) || std::any_of(readers.begin(), readers.end(), [&](int r) {
                       return !is_view_op(g.nodes[static_cast<std::size_t>(r)]) &&
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
