// Normalization and the transformer-style blocks torchvision's ConvNeXt
// exports (canonicalize steps 1b and 2c):
//
//   Transpose(0,2,3,1) ... Transpose(0,3,1,2) around per-pixel operators
//                                     -> the same operators on the C x H x W
//                                        map (the Transposes vanish)
//   MatMul(x, B) over the channels   -> Conv 1x1
//   ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div [, Mul gamma]
//   [, Add beta] over the channels, or LayerNormalization over them
//                                     -> LayerNormalization (per pixel)
//   Mul(Mul(x, Add(Erf(Div(x, sqrt 2)), 1)), 0.5)
//                                     -> Gelu (one table)
//   Add/Mul of a Conv's output by one constant per channel
//                                     -> the Conv's bias and weights
//
// Channels-last regions are how PyTorch writes a LayerNorm over channels
// and a Linear layer on a feature map (x.permute(0, 2, 3, 1) ... permute
// back); the chip's layout is channels-last already, so the operators in
// between read the map as it is.
#include <algorithm>
#include <cmath>
#include <set>

#include "canonicalize_util.h"

namespace vp::cc::canon {

namespace {

bool perm_is(const Node& n, const std::vector<std::int64_t>& p) {
  const auto it = n.ints.find("perm");
  return n.op == OpKind::Transpose && it != n.ints.end() && it->second == p;
}

// A constant one value for all, or one per channel along the last axis
// ([C], [1, C], [1, 1, 1, C]).
bool last_axis_const(const Value& v, std::int64_t C) {
  if (!v.is_const) return false;
  if (v.data.size() == 1) return true;
  if (static_cast<std::int64_t>(v.data.size()) != C || v.dims.empty() || v.dims.back() != C) return false;
  return std::all_of(v.dims.begin(), v.dims.end() - 1, [](std::int64_t d) { return d == 1; });
}

// ReduceMean (or LayerNormalization) over the last axis of a rank-r tensor only.
bool over_last_axis(const Node& n, const char* key, std::int64_t dflt, bool list, std::size_t r) {
  const auto it = n.ints.find(key);
  std::vector<std::int64_t> a = it == n.ints.end() ? std::vector<std::int64_t>{dflt} : it->second;
  if (!list && a.size() != 1) return false;
  return a.size() == 1 && (a[0] == -1 || a[0] == static_cast<std::int64_t>(r) - 1);
}

// Which nodes a channels-last region holds, or false if the operators after
// the opening Transpose are not all per-pixel ones ending in Transposes back.
// A node joins once every activation it reads is in the region.
// Rows of pixels [N, T, C] leave and enter it through an attention's
// Reshapes and Transposes (canonicalize_attention.cpp reads them on the
// chip's layout): such a reader of a region value is an exit, and such a
// value read by a region node joins it (`foreign`: its dims become
// [N x T, C] with the region's).
bool collect_region(const Graph& g, int start, std::set<int>& nodes, std::set<int>& values, std::set<int>& closers,
                    std::set<int>& foreign) {
  std::vector<int> todo{start};
  std::set<int> pending;
  values.insert(start);
  // Once the region leaves into an attention's views, an attention's output
  // viewed as rows again ([N, T, C] after a Reshape of a Transpose of a
  // MatMul of two activations) comes back into it.
  bool left = false;
  auto attention_returns = [&] {
    auto made_by = [&](int v, OpKind k) {
      const int p = v < 0 ? -1 : g.producer(v);
      return p >= 0 && g.nodes[static_cast<std::size_t>(p)].op == k ? &g.nodes[static_cast<std::size_t>(p)] : nullptr;
    };
    for (std::size_t id = 0; id < g.values.size(); ++id) {
      if (g.values[id].dims.size() != 3) continue;
      const Node* r = made_by(static_cast<int>(id), OpKind::Reshape);
      const Node* t = r ? made_by(r->in[0], OpKind::Transpose) : nullptr;
      const Node* mm = t ? made_by(t->in[0], OpKind::MatMul) : nullptr;
      if (!mm || mm->in.size() != 2 || g.val(mm->in[1]).is_const) continue;
      foreign.insert(static_cast<int>(id));
      todo.push_back(static_cast<int>(id));
    }
  };
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    if (is_output(g, v)) return false;
    for (int ci : g.consumers(v)) {
      if (nodes.count(ci) || closers.count(ci)) continue;
      const Node& m = g.nodes[static_cast<std::size_t>(ci)];
      if (perm_is(m, {0, 3, 1, 2})) {
        closers.insert(ci);
        continue;
      }
      const bool view = m.op == OpKind::Reshape || m.op == OpKind::Transpose || m.op == OpKind::Gather;
      if (view && g.val(v).dims.size() == 3) {  // an exit into an attention's views
        if (!left) attention_returns();
        left = true;
        continue;
      }
      // Maps [1, H, W, C], and [N, T, C] rows of pixels (a window
      // partition's, canonicalize_pixels.cpp), channels last.
      const std::size_t rank = m.out.size() == 1 ? g.val(m.out[0]).dims.size() : 0;
      bool ok = rank == 4 || rank == 3;
      switch (m.op) {
        case OpKind::ReduceMean:
          ok = ok && over_last_axis(m, "axes", -2, true, rank) && attr_i(m, "keepdims", 1) == 1;
          break;
        case OpKind::LayerNormalization:
          ok = ok && over_last_axis(m, "axis", -1, false, rank);
          break;
        case OpKind::Concat:  // a pixel gather
          ok = ok && !m.gather.empty();
          break;
        case OpKind::MatMul: {
          if (m.in.size() != 2 || m.in[1] < 0) return false;
          const Value& b = g.val(m.in[1]);
          ok = ok && m.in[0] == v && b.is_const && b.dims.size() == 2 && b.dims[0] == g.val(v).dims.back();
          break;
        }
        case OpKind::Sub: case OpKind::Pow: case OpKind::Add: case OpKind::Sqrt: case OpKind::Div: case OpKind::Mul:
        case OpKind::Erf: case OpKind::Relu: case OpKind::Sigmoid: case OpKind::Tanh:
          break;
        default:
          ok = false;
      }
      if (!ok) return false;
      // Every other input lies in the region or is a constant along the
      // last axis; one from outside keeps the node pending.
      bool ready = true;
      for (std::size_t k = 0; k < m.in.size(); ++k) {
        const int id = m.in[k];
        if (id < 0 || values.count(id) || foreign.count(id) || (m.op == OpKind::MatMul && k == 1)) continue;
        const Value& o = g.val(id);
        if (o.is_const) {
          // Per channel of this node's output (a Linear changes the count).
          if (!last_axis_const(o, g.val(m.out[0]).dims.back())) return false;
          continue;
        }
        const int p = g.producer(id);
        if (o.dims.size() == 3 && p >= 0 &&
            (g.nodes[static_cast<std::size_t>(p)].op == OpKind::Reshape ||
             g.nodes[static_cast<std::size_t>(p)].op == OpKind::Transpose)) {
          foreign.insert(id);  // an attention's rows coming back
          continue;
        }
        ready = false;
      }
      if (!ready) {
        pending.insert(ci);
        continue;
      }
      pending.erase(ci);
      nodes.insert(ci);
      values.insert(m.out[0]);
      todo.push_back(m.out[0]);
    }
  }
  return pending.empty() && !closers.empty();
}

// [.., C] constant -> [1, C, 1, 1], per channel of a C x H x W map.
int channel_const(Graph& g, int id) {
  const Value& v = g.val(id);
  if (v.data.size() == 1) return id;
  Value c;
  c.name = v.name + ".channels";
  c.is_const = true;
  c.data = v.data;
  c.dims = {1, static_cast<std::int64_t>(v.data.size()), 1, 1};
  c.shape.c = static_cast<std::int64_t>(v.data.size());
  return g.add_value(std::move(c));
}

// Channels a constant scales on a C x H x W map: 1 for one value, C for
// dims [C, 1, 1] or [1, C, 1, 1]; 0 when it broadcasts any other way (a
// [C] constant runs along W).
std::int64_t per_channel(const Value& v) {
  if (!v.is_const) return 0;
  if (v.data.size() == 1) return 1;
  std::vector<std::int64_t> d = v.dims;
  while (d.size() > 3 && d.front() == 1) d.erase(d.begin());
  return d.size() == 3 && d[1] == 1 && d[2] == 1 ? d[0] : 0;
}

void to_channels_first(Graph& g, int id) {
  Value& v = g.val(id);
  if (v.dims.size() < 3) return;  // rows already
  if (v.dims.size() == 3) v.dims = {v.dims[0] * v.dims[1], v.dims[2]};  // rows of pixels: [N x T, C]
  else v.dims = {v.dims[0], v.dims[3], v.dims[1], v.dims[2]};
  v.shape = shape_of_dims(v.dims, v.name);
}

void convert_region(Graph& g, std::size_t opener) {
  Node& t = g.nodes[opener];
  if (t.in.empty() || t.out.empty() || g.val(t.in[0]).dims.size() != 4) return;
  std::set<int> nodes, values, closers, foreign;
  if (!collect_region(g, t.out[0], nodes, values, closers, foreign)) return;
  for (int id : values)
    if (id != t.out[0]) to_channels_first(g, id);
  for (int id : foreign) to_channels_first(g, id);
  for (int ni : nodes) {
    Node& m = g.nodes[static_cast<std::size_t>(ni)];
    if (m.op == OpKind::ReduceMean) m.ints["axes"] = {1};
    if (m.op == OpKind::LayerNormalization) m.ints["axis"] = {1};
    if (m.op == OpKind::MatMul) {
      // y[k] = sum_c x[c] B[c][k]: a 1x1 Conv of weights W[k][c] = B[c][k].
      const Value& b = g.val(m.in[1]);
      const std::int64_t Cin = b.dims[0], K = b.dims[1];
      Value w;
      w.name = b.name + ".conv";
      w.is_const = true;
      w.dims = {K, Cin, 1, 1};
      w.data.resize(b.data.size());
      for (std::int64_t c = 0; c < Cin; ++c)
        for (std::int64_t k = 0; k < K; ++k)
          w.data[static_cast<std::size_t>(k * Cin + c)] = b.data[static_cast<std::size_t>(c * K + k)];
      const int wid = g.add_value(std::move(w));
      m.op = OpKind::Conv;
      m.in = {m.in[0], wid};
      m.ints.clear();
      continue;
    }
    for (int& id : m.in)
      if (id >= 0 && !values.count(id) && g.val(id).is_const) id = channel_const(g, id);
  }
  for (int ci : closers) {
    Node& c = g.nodes[static_cast<std::size_t>(ci)];
    replace_uses(g, c.out[0], c.in[0]);
    c.out.clear();
  }
  replace_uses(g, t.out[0], t.in[0]);
  t.out.clear();
}

const Node* producer_of(const Graph& g, int v, OpKind op) {
  if (v < 0) return nullptr;
  const int p = g.producer(v);
  if (p < 0) return nullptr;
  const Node& n = g.nodes[static_cast<std::size_t>(p)];
  return n.op == op ? &n : nullptr;
}

bool scalar_is(const Graph& g, int v, double want, double tol) {
  if (v < 0) return false;
  const Value& c = g.val(v);
  return c.is_const && c.data.size() == 1 && std::fabs(double(c.data[0]) - want) <= tol;
}

// The other input of a binary node `n` than `v`, or -1.
int other_input(const Node& n, int v) {
  if (n.in.size() != 2) return -1;
  return n.in[0] == v ? n.in[1] : n.in[1] == v ? n.in[0] : -1;
}

bool reduces_channels(const Node* n) {
  if (!n) return false;
  const auto it = n->ints.find("axes");
  const auto kd = n->ints.find("keepdims");
  return it != n->ints.end() && it->second == std::vector<std::int64_t>{1} && (kd == n->ints.end() || kd->second[0] == 1);
}

// The decomposed LayerNorm ending in Div(d, Sqrt(...)) at node `div`; on a
// match the Div becomes the LayerNormalization (gamma 1, beta 0 until the
// affine part folds in) and the rest is dropped as dead code.
void fold_decomposed_layer_norm(Graph& g, Node& div) {
  if (div.in.size() != 2 || div.in[0] < 0 || div.in[1] < 0) return;
  const int d = div.in[0];
  const Node* sq = producer_of(g, div.in[1], OpKind::Sqrt);
  if (!sq) return;
  const Node* add = producer_of(g, sq->in[0], OpKind::Add);
  if (!add) return;
  if (add->in.size() != 2 || add->in[0] < 0 || add->in[1] < 0) return;
  int var = add->in[0], epsv = add->in[1];
  if (g.val(var).is_const) std::swap(var, epsv);
  if (!g.val(epsv).is_const || g.val(epsv).data.size() != 1) return;
  const Node* m2 = producer_of(g, var, OpKind::ReduceMean);
  if (!reduces_channels(m2)) return;
  const Node* pw = producer_of(g, m2->in[0], OpKind::Pow);
  const Node* mul = producer_of(g, m2->in[0], OpKind::Mul);
  const bool squared = (pw && pw->in[0] == d && scalar_is(g, pw->in[1], 2.0, 0.0)) ||
                       (mul && mul->in.size() == 2 && mul->in[0] == d && mul->in[1] == d);
  if (!squared) return;
  const Node* sub = producer_of(g, d, OpKind::Sub);
  if (!sub || sub->in.size() != 2 || sub->in[0] < 0) return;
  const int x = sub->in[0];
  const Node* m1 = producer_of(g, sub->in[1], OpKind::ReduceMean);
  if (!reduces_channels(m1) || m1->in[0] != x || g.val(x).is_const) return;
  const float eps = g.val(epsv).data[0];
  div.op = OpKind::LayerNormalization;
  div.in = {x};
  div.ints.clear();
  div.ints["axis"] = {1};
  div.floats.clear();
  div.floats["epsilon"] = eps;
}

// gamma and beta of a LayerNormalization whose only reader multiplies or
// adds a per-channel constant: they join the node (its inputs 1 and 2).
void fold_affine(Graph& g, std::size_t li) {
  for (int pass = 0; pass < 2; ++pass) {
    Node& ln = g.nodes[li];
    const std::int64_t C = g.val(ln.out[0]).shape.c;
    const int r = sole_consumer(g, ln.out[0]);
    if (r < 0) return;
    Node& m = g.nodes[static_cast<std::size_t>(r)];
    if (m.op != OpKind::Mul && m.op != OpKind::Add) return;
    const int k = other_input(m, ln.out[0]);
    if (k < 0 || !g.val(k).is_const) return;
    const auto& kd = g.val(k).data;
    const std::int64_t pc = per_channel(g.val(k));
    if (pc != 1 && pc != C) return;
    std::vector<float> gamma(static_cast<std::size_t>(C), 1.f), beta(static_cast<std::size_t>(C), 0.f);
    if (ln.in.size() > 1 && ln.in[1] >= 0) gamma = g.val(ln.in[1]).data;
    if (ln.in.size() > 2 && ln.in[2] >= 0) beta = g.val(ln.in[2]).data;
    for (std::size_t c = 0; c < gamma.size(); ++c) {
      const float v = kd[kd.size() == 1 ? 0 : c];
      if (m.op == OpKind::Mul) {
        gamma[c] *= v;
        beta[c] *= v;
      } else {
        beta[c] += v;
      }
    }
    const auto make = [&](const char* what, std::vector<float> data) {
      Value c;
      c.name = ln.name + what;
      c.is_const = true;
      c.dims = {C};
      c.data = std::move(data);
      c.shape.c = C;
      return g.add_value(std::move(c));
    };
    const int gid = make(".gamma", std::move(gamma));
    const int bid = make(".beta", std::move(beta));
    Node& l2 = g.nodes[li];
    l2.in = {l2.in[0], gid, bid};
    l2.out = m.out;
    g.nodes[static_cast<std::size_t>(r)].out.clear();
  }
}

// ONNX's LayerNormalization over the channels (axis 1 of the map after the
// region's rewrite, or the last axis of a [T, C] matrix: a transformer's
// tokens): scale and optional bias become gamma and beta.
void check_layer_norm(Graph& g, Node& n) {
  if (n.in.empty() || n.in[0] < 0 || g.val(n.in[0]).is_const)
    throw CompileError("node '" + n.name + "': LayerNormalization needs an activation as its input");
  const Value& x = g.val(n.in[0]);
  const auto axis = attr_i(n, "axis", -1);
  const bool rows = x.dims.size() == 2 && (axis == 1 || axis == -1);
  if (!rows && (x.dims.size() != 4 || axis != 1))
    throw CompileError("node '" + n.name + "': LayerNormalization is supported over the channels of a map "
                       "(axis -1 of the NHWC view PyTorch permutes to) or the last axis of a [T, C] matrix");
  const std::int64_t C = x.shape.c;
  for (std::size_t k = 1; k < n.in.size(); ++k) {
    if (n.in[k] < 0) continue;
    const Value& v = g.val(n.in[k]);
    if (!v.is_const || static_cast<std::int64_t>(v.data.size()) != C)
      throw CompileError("node '" + n.name + "': LayerNormalization's " + (k == 1 ? "scale" : "bias") +
                         " must be a constant of " + std::to_string(C) + " values");
  }
  // gamma 1 and beta 0 where the model has none (a decomposed LayerNorm
  // without its affine part, ONNX's optional bias): every later pass reads
  // inputs 1 and 2.
  n.in.resize(3, -1);
  for (std::size_t k = 1; k < 3; ++k) {
    if (n.in[k] >= 0) continue;
    Value v;
    v.name = n.name + (k == 1 ? ".gamma" : ".beta");
    v.is_const = true;
    v.dims = {C};
    v.data.assign(static_cast<std::size_t>(C), k == 1 ? 1.f : 0.f);
    v.shape.c = C;
    n.in[k] = g.add_value(std::move(v));
  }
  if (n.floats.count("epsilon") == 0) n.floats["epsilon"] = 1e-5f;
  if (!(n.floats["epsilon"] >= 0) || !std::isfinite(n.floats["epsilon"]))
    throw CompileError("node '" + n.name + "': LayerNormalization's epsilon must be finite and not negative");
}

// GELU as PyTorch exports it (approximate='none'): x * 0.5 * (1 + erf(x / sqrt 2)).
void fold_gelu(Graph& g, Node& half) {
  if (half.op != OpKind::Mul || half.in.size() != 2) return;
  int prod = half.in[0];
  if (!scalar_is(g, half.in[1], 0.5, 1e-6)) {
    prod = half.in[1];
    if (!scalar_is(g, half.in[0], 0.5, 1e-6)) return;
  }
  const Node* mul = producer_of(g, prod, OpKind::Mul);
  if (!mul || mul->in.size() != 2 || sole_consumer(g, prod) < 0) return;
  for (int side = 0; side < 2; ++side) {
    const int x = mul->in[static_cast<std::size_t>(side)], one_plus = mul->in[static_cast<std::size_t>(1 - side)];
    const Node* add = producer_of(g, one_plus, OpKind::Add);
    if (!add || add->in.size() != 2) continue;
    int e = add->in[0], one = add->in[1];
    if (e < 0 || one < 0 || x < 0) continue;
    if (g.val(e).is_const) std::swap(e, one);
    if (!scalar_is(g, one, 1.0, 0.0)) continue;
    const Node* erf = producer_of(g, e, OpKind::Erf);
    if (!erf) continue;
    const Node* scale = producer_of(g, erf->in[0], OpKind::Div);
    bool ok = scale && scale->in[0] == x && scalar_is(g, scale->in[1], std::sqrt(2.0), 1e-5);
    if (!ok) {
      scale = producer_of(g, erf->in[0], OpKind::Mul);
      ok = scale && other_input(*scale, x) >= 0 && scalar_is(g, other_input(*scale, x), 1 / std::sqrt(2.0), 1e-6);
    }
    if (!ok || g.val(x).is_const) continue;
    half.op = OpKind::Gelu;
    half.in = {x};
    half.ints.clear();
    half.floats.clear();
    return;
  }
}

// Mul or Add of a Conv's output (its only reader) by one constant per
// output channel (or one for all): the weights and bias absorb it
// (ConvNeXt's layer scale, a Linear layer's bias after its MatMul).
void fold_conv_affine(Graph& g, Node& m) {
  if ((m.op != OpKind::Mul && m.op != OpKind::Add) || m.in.size() != 2) return;
  for (int side = 0; side < 2; ++side) {
    const int y = m.in[static_cast<std::size_t>(side)], k = m.in[static_cast<std::size_t>(1 - side)];
    if (y < 0 || k < 0) continue;
    const int p = g.producer(y);
    if (p < 0 || !g.val(k).is_const || sole_consumer(g, y) < 0) continue;
    Node& conv = g.nodes[static_cast<std::size_t>(p)];
    if (conv.op != OpKind::Conv || conv.act != Act::none) continue;
    const std::int64_t N = g.val(y).shape.c;
    const Value& kv = g.val(k);
    std::int64_t pc = per_channel(kv);
    // A [T, C] matrix's channels are its last axis: a bias [C] (or [1, C])
    // after nn.MultiheadAttention's in_proj MatMul.
    std::vector<std::int64_t> kd = kv.dims;
    while (kd.size() > 1 && kd.front() == 1) kd.erase(kd.begin());
    if (pc == 0 && g.val(y).dims.size() == 2 && kd == std::vector<std::int64_t>{N}) pc = N;
    if (pc != 1 && pc != N) continue;
    const auto at = [&](std::int64_t c) { return kv.data[kv.data.size() == 1 ? 0 : static_cast<std::size_t>(c)]; };
    Value w = g.val(conv.in[1]);
    Value b = g.val(conv.in[2]);
    w.name += m.op == OpKind::Mul ? ".scaled" : "";
    b.name += ".folded";
    const std::size_t per = w.data.size() / static_cast<std::size_t>(N);
    for (std::int64_t c = 0; c < N; ++c) {
      if (m.op == OpKind::Mul) {
        for (std::size_t i = 0; i < per; ++i) w.data[static_cast<std::size_t>(c) * per + i] *= at(c);
        b.data[static_cast<std::size_t>(c)] *= at(c);
      } else {
        b.data[static_cast<std::size_t>(c)] += at(c);
      }
    }
    const int wid = m.op == OpKind::Mul ? g.add_value(std::move(w)) : conv.in[1];
    const int bid = g.add_value(std::move(b));
    Node& c2 = g.nodes[static_cast<std::size_t>(p)];
    c2.in[1] = wid;
    c2.in[2] = bid;
    c2.out = m.out;
    m.out.clear();
    return;
  }
}

}  // namespace

void channels_last_regions(Graph& g) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!g.nodes[i].out.empty() && perm_is(g.nodes[i], {0, 2, 3, 1})) convert_region(g, i);
  g.remove_dead_nodes();
}

void fold_norm_patterns(Graph& g) {
  for (auto& n : g.nodes)
    if (!n.out.empty() && n.op == OpKind::Div) fold_decomposed_layer_norm(g, n);
  for (auto& n : g.nodes)
    if (!n.out.empty()) fold_gelu(g, n);
  g.remove_dead_nodes();
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].op == OpKind::LayerNormalization) {
      check_layer_norm(g, g.nodes[i]);
      fold_affine(g, i);
    }
  g.remove_dead_nodes();
  // A Linear's bias (an Add after its MatMul) and the layer scale after it
  // (a Mul): one pass in graph order folds a Conv's Add, then its Mul.
  for (auto& n : g.nodes)
    if (!n.out.empty()) fold_conv_affine(g, n);
  g.remove_dead_nodes();
}

}  // namespace vp::cc::canon
