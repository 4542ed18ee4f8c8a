// GELU's tanh form, 0.5·x·(1 + tanh(sqrt(2/pi)·(x + 0.044715·x^3))), as
// GPT-2 and BERT write it and as torch exports nn.GELU(approximate='tanh'):
// a dozen Mul, Add, Pow and one Tanh whose order and grouping change with
// the writer (0.5·x first or last, x^3 as Pow or as x·x·x). Rather than one
// pattern per spelling, the expression around each Tanh is taken whole
// (every elementwise node whose inputs are x, scalar constants or the
// expression's own values), evaluated at sample points, and replaced by one
// Gelu table of the tanh form when it agrees with the formula everywhere.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "canonicalize_util.h"
#include "vp/cc/passes.h"

namespace vp::cc::canon {
namespace {

bool elementwise(OpKind op) {
  return op == OpKind::Mul || op == OpKind::Add || op == OpKind::Sub || op == OpKind::Div || op == OpKind::Pow ||
         op == OpKind::Tanh;
}

bool scalar_const(const Graph& g, int v) { return v >= 0 && g.val(v).is_const && g.val(v).data.size() == 1; }

double gelu_tanh(double x) {
  const double k = std::sqrt(2.0 / 3.14159265358979323846);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// The one activation the expression under `v` reads, walking up through
// elementwise nodes and scalar constants; -1 when there is not exactly one.
int leaf_of(const Graph& g, int v, std::set<int>& seen) {
  if (scalar_const(g, v)) return -2;  // a constant: no leaf
  const int p = g.producer(v);
  if (p < 0 || !elementwise(g.nodes[static_cast<std::size_t>(p)].op)) return v;
  if (!seen.insert(v).second) return -3;  // visited: the same leaf as before
  int leaf = -2;
  for (const int in : g.nodes[static_cast<std::size_t>(p)].in) {
    const int l = leaf_of(g, in, seen);
    if (l == -1) return -1;
    if (l < 0) continue;
    if (leaf >= 0 && leaf != l) return -1;
    leaf = l;
  }
  return leaf;
}

double apply(OpKind op, double a, double b) {
  switch (op) {
    case OpKind::Mul: return a * b;
    case OpKind::Add: return a + b;
    case OpKind::Sub: return a - b;
    case OpKind::Div: return a / b;
    case OpKind::Pow: return std::pow(a, b);
    default: return std::tanh(a);
  }
}

// Replaces the expression around Tanh node `t` by a Gelu of its input when
// it is GELU's tanh form.
void try_fold(Graph& g, std::size_t t) {
  std::set<int> seen;
  const int x = leaf_of(g, g.nodes[t].in[0], seen);
  if (x < 0 || g.val(x).is_const) return;
  // The expression: nodes after x's producer all of whose inputs are x,
  // scalar constants or values of the expression.
  std::set<int> values{x};
  std::vector<std::size_t> region;
  const int px = g.producer(x);
  for (std::size_t i = px < 0 ? 0 : static_cast<std::size_t>(px) + 1; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.out.empty() || !elementwise(n.op)) continue;
    bool inside = !n.in.empty();
    bool reads_expression = false;
    for (const int in : n.in) {
      if (values.count(in)) reads_expression = true;
      else if (!scalar_const(g, in)) inside = false;
    }
    if (!inside || !reads_expression) continue;
    region.push_back(i);
    values.insert(n.out[0]);
  }
  // Exactly one value of the expression is read outside it: its result.
  int result = -1;
  bool has_tanh = false;
  for (const std::size_t i : region) {
    const Node& n = g.nodes[i];
    has_tanh = has_tanh || i == t;
    bool outside = is_output(g, n.out[0]);
    for (const int r : g.consumers(n.out[0])) {
      const auto it = std::find(region.begin(), region.end(), static_cast<std::size_t>(r));
      if (it == region.end()) outside = true;
    }
    if (!outside) continue;
    if (result >= 0) return;
    result = static_cast<int>(i);
  }
  if (result < 0 || !has_tanh) return;
  // Evaluated at points across the tables' range.
  for (const double s : {-6.0, -3.5, -2.0, -1.0, -0.5, -0.1, 0.0, 0.3, 0.8, 1.5, 2.5, 4.0, 7.0}) {
    std::map<int, double> at{{x, s}};
    for (const std::size_t i : region) {
      const Node& n = g.nodes[i];
      const auto val = [&](int v) { return scalar_const(g, v) ? double(g.val(v).data[0]) : at.at(v); };
      at[n.out[0]] = apply(n.op, val(n.in[0]), n.in.size() > 1 ? val(n.in[1]) : 0.0);
    }
    const double got = at.at(g.nodes[static_cast<std::size_t>(result)].out[0]), want = gelu_tanh(s);
    if (!(std::fabs(got - want) <= 1e-4 * (1.0 + std::fabs(want)))) return;
  }
  Node& r = g.nodes[static_cast<std::size_t>(result)];
  r.op = OpKind::Gelu;
  r.in = {x};
  r.ints.clear();
  r.floats.clear();
  r.ints["approximate_tanh"] = {1};
  for (const std::size_t i : region)
    if (static_cast<int>(i) != result) g.nodes[i].out.clear();
}

}  // namespace

void fold_gelu_tanh(Graph& g) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].op == OpKind::Tanh && !g.nodes[i].out.empty() && !g.nodes[i].in.empty()) try_fold(g, i);
  g.remove_dead_nodes();
}

}  // namespace vp::cc::canon
