// The row hand-over's critical path row by row (schedule_cost.h, row_times).
//
// overlapped_times follows each layer by its first and last row and a pace
// it inherits from its writers, as if every writer delivered its rows
// evenly; a layer whose writers speed up once the layers before them are
// done (ResNet-50's layer3 and layer4 after conv1 and layer1: 13 k cycles a
// row at layer3's end against 22 k at its start) was then estimated up to
// 15 % late. Here every output row has its own time: it is done one row
// step after the later of the input rows its windows read and the row its
// copy computed before it. With contiguous blocks of pixels each copy is
// followed through its rows: the copy that ends row k may have begun in
// it, while another, begun in row k - 1, computes its part of row k only
// after its part of row k - 1.
#include <algorithm>

#include "schedule_cost.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

// The last row of input v (H rows) that output row k of n (OH rows) reads.
std::int64_t row_needed(const Graph& g, const Node& n, int v, bool window, std::int64_t k, std::int64_t OH) {
  const Value& x = g.val(v);
  const std::int64_t H = std::max<std::int64_t>(1, x.shape.h);
  std::int64_t need = 0;
  if (window) {
    need = k * n.geom.sh - n.geom.pt + std::int64_t{n.geom.kh - 1} * n.geom.dh;
  } else if (n.op == OpKind::MatMul && v == n.in[1] && n.windows > 1) {
    const std::int64_t block = k * n.windows / OH;  // the window's block of B
    need = (block + 1) * H / n.windows - 1;
  } else if (n.op == OpKind::GlobalAveragePool || (n.op == OpKind::MatMul && v == n.in[1] && !n.causal)) {
    need = H - 1;                  // every row
  } else if (!n.gather.empty()) {  // a pixel gather: the input rows its row's pixels come from
    const Shape& o = g.val(n.out[0]).shape;
    const std::int64_t per_row = o.w * (o.c / std::max<std::int64_t>(1, x.shape.c));
    const std::int64_t XW = std::max<std::int64_t>(1, x.shape.w), end = static_cast<std::int64_t>(n.gather.size());
    for (std::int64_t p = k * per_row; p < std::min(end, (k + 1) * per_row); ++p)
      need = std::max(need, n.gather[static_cast<std::size_t>(p)] / XW);
  } else {  // the rows under this one, in proportion
    need = ((k + 1) * H + OH - 1) / OH - 1;
  }
  return std::clamp<std::int64_t>(need, 0, H - 1);
}

// An Add, Relu, Clip or table operator walks its share a row at a time
// (emit_add, emit_unary: share_loop over the map's rows as units), so its
// copies deal whole rows, not strips of columns.
bool walks_rows(const Node& n) {
  switch (n.op) {
    case OpKind::Add:
    case OpKind::Relu:
    case OpKind::Clip: return true;
    case OpKind::Conv:
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::Mul:
    case OpKind::Concat:
    case OpKind::LayerNormalization:
    case OpKind::Softmax:
    case OpKind::MatMul: return false;
    default: return op_has(n.op, op_table);
  }
}

// The row a copy of n computed before output row k (-1: none), as
// share_loop deals rows (share_runs) in strips: each strip's rows go to its
// row groups in turn, rows_at_once apart. (Contiguous blocks of pixels are
// followed copy by copy in row_times.) A MatMul inside windows
// (window_sharers > 0) walks whole windows.
std::int64_t row_before(const Graph& g, const Node& n, std::int64_t k, int window_sharers) {
  const Shape& o = g.val(n.out[0]).shape;
  if (n.windows > 1 && window_sharers > 0) {
    // Whole windows per core (emit_matmul_head_groups): blocks of
    // windows * s / sharers, each window's rows in order.
    const std::int64_t W = n.windows, per = std::max<std::int64_t>(1, o.h / W), b = k / per;
    if (k % per) return k - 1;
    const auto owner = [&](std::int64_t w) {
      std::int64_t s = w * window_sharers / W;
      while (s + 1 < window_sharers && W * (s + 1) / window_sharers <= w) ++s;
      while (s > 0 && W * s / window_sharers > w) --s;
      return s;
    };
    return b > 0 && owner(b - 1) == owner(b) ? k - 1 : -1;
  }
  const std::int64_t OW = walks_rows(n) ? 1 : std::max<std::int64_t>(1, o.w), R = std::max(1, n.replicas);
  const std::int64_t S = std::max<std::int64_t>(1, std::min<std::int64_t>(R, OW / g.min_strip));
  return k - std::max<std::int64_t>(1, std::min(o.h, R / S));
}

}  // namespace

std::vector<int> storers(const Graph& g) {
  std::vector<int> storer(g.values.size(), -1);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.fused) continue;
    storer[static_cast<std::size_t>(stored_value(g, n))] = static_cast<int>(i);
  }
  return storer;
}

std::vector<std::pair<int, bool>> row_inputs(const Graph& g, const Node& n) {
  std::vector<std::pair<int, bool>> ins;
  ins.emplace_back(n.in[0], op_has(n.op, op_window));
  if (n.op != OpKind::Conv)
    for (std::size_t k = 1; k < n.in.size(); ++k) ins.emplace_back(n.in[k], false);
  if (const Node* add = fused_residual(g, n)) ins.emplace_back(add->in[add->in[0] == n.out[0] ? 1 : 0], false);
  return ins;
}

RowTimes row_times(const Graph& g, const StagePrices& p) {
  const std::size_t N = g.nodes.size();
  RowTimes rt(N);
  std::vector<std::vector<double>> done(N);  // per node, when each output row is done
  const std::vector<int> storer = storers(g);
  for (std::size_t i = 0; i < N; ++i) {
    const Node& n = g.nodes[i];
    if (n.fused) continue;
    const std::int64_t OH = std::max<std::int64_t>(1, g.val(n.out[0]).shape.h);
    const std::vector<std::pair<int, bool>> ins = row_inputs(g, n);
    // When the input rows output row k reads are there.
    std::vector<double> in(static_cast<std::size_t>(OH), 0.0);
    for (std::int64_t k = 0; k < OH; ++k) {
      double ready = 0.0;
      for (const auto& [v, window] : ins) {
        if (v < 0) continue;  // an optional input left out
        const int w = storer[static_cast<std::size_t>(v)];
        if (w < 0) {  // a constant or a graph input: there from the start, or at its pad layer's pace
          const std::size_t at = static_cast<std::size_t>(v);
          const double pace = at < p.input_step.size() ? p.input_step[at] : 0.0;
          if (pace > 0) ready = std::max(ready, static_cast<double>(row_needed(g, n, v, window, k, OH) + 1) * pace);
          continue;
        }
        const std::vector<double>& rows = done[static_cast<std::size_t>(w)];
        const std::int64_t r =
            std::min<std::int64_t>(row_needed(g, n, v, window, k, OH), static_cast<std::int64_t>(rows.size()) - 1);
        ready = std::max(ready, rows[static_cast<std::size_t>(r)]);
      }
      in[static_cast<std::size_t>(k)] = ready;
    }
    std::vector<double>& rows = done[i];
    rows.assign(static_cast<std::size_t>(OH), 0.0);
    const int sharers = i < p.window_sharers.size() ? p.window_sharers[i] : 0;
    const Shape& o = g.val(n.out[0]).shape;
    const std::int64_t OW = walks_rows(n) ? 1 : std::max<std::int64_t>(1, o.w);
    const int R = std::max(1, n.replicas);
    if (!(n.windows > 1 && sharers > 0) && OH < kStripRows * R) {
      // Contiguous blocks of pixels (share_runs): a copy computes the parts
      // of its block row after row, each after the part before and after
      // its own inputs, so a block across two rows ends its second part
      // after its first however early the second's inputs come (tiny_cnn's
      // stem: 9 pixels on rows of 32, one MVM round a part). A step is a row
      // of the widest share (CostModel::stage: its groups of lanes a row); a
      // part takes its groups' share of it.
      const std::int64_t P = OH * OW, lanes = std::max(1, n.lanes);
      const std::int64_t width = std::min(OW, (P + R - 1) / R);
      const double per_step = static_cast<double>((width + lanes - 1) / lanes);
      for (int r = 0; r < R; ++r) {
        const std::int64_t lo = P * r / R, hi = P * (r + 1) / R;
        double end = 0.0;
        for (std::int64_t k = lo / OW; k <= (hi - 1) / OW && k < OH; ++k) {
          const std::int64_t px = std::min(hi, (k + 1) * OW) - std::max(lo, k * OW);
          const double part = std::min(1.0, static_cast<double>((px + lanes - 1) / lanes) / per_step);
          end = std::max(end, in[static_cast<std::size_t>(k)]) + p.step[i] * part;
          rows[static_cast<std::size_t>(k)] = std::max(rows[static_cast<std::size_t>(k)], end);
        }
      }
    } else {
      for (std::int64_t k = 0; k < OH; ++k) {
        const std::int64_t before = row_before(g, n, k, sharers);
        const double ready = std::max(before >= 0 ? rows[static_cast<std::size_t>(before)] : 0.0,
                                      in[static_cast<std::size_t>(k)]);
        rows[static_cast<std::size_t>(k)] = ready + p.step[i];
      }
    }
    rt.step[i] = p.step[i];
    rt.first[i] = *std::min_element(rows.begin(), rows.end());
    rt.last[i] = *std::max_element(rows.begin(), rows.end());
    rt.total = std::max(rt.total, rt.last[i]);
  }
  return rt;
}

}  // namespace vp::cc
