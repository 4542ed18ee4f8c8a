// Plan: a global-memory buffer for every activation, channels-last with a
// border wide enough for every window that reads it (the largest pad of its
// consumers). The border holds 0, what zero-point-0 padding means, or -128
// for a max pooling over values that may be negative. Graph inputs that need
// a border get a second, plain buffer that the .input binding names; the
// program's first layer copies it in.
#include <algorithm>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "handed_rows.h"
#include "schedule_cost.h"
#include "shared_loads.h"
#include "vp/cc/passes.h"

namespace vp::cc {

namespace {

// Per cluster, the mesh hops a byte of value `id` travels if it lives in
// that cluster's SRAM: its writer's cores and each reader's, weighted by how
// often they move it (a window reads a row kh/sh times, the others once),
// each layer's weight spread over its cores.
std::vector<double> cluster_cost(const Graph& g, const Target& t, int id) {
  std::vector<std::pair<const Node*, double>> users;
  auto node_storing = [&](int n) {
    // A fused Add is computed and stored by its Conv.
    for (const Node& m : g.nodes)
      if (m.fused_next == n) return &m;
    return &g.nodes[static_cast<std::size_t>(n)];
  };
  if (const int p = g.producer(id); p >= 0) users.emplace_back(node_storing(p), 1.0);
  for (int c : g.consumers(id)) {
    const Node& n = g.nodes[static_cast<std::size_t>(c)];
    const double reads = op_has(n.op, op_window) && n.in[0] == id ? static_cast<double>(n.geom.kh) / n.geom.sh : 1.0;
    users.emplace_back(n.fused ? node_storing(c) : &n, reads);
  }
  std::vector<double> cost(static_cast<std::size_t>(t.clusters), 0.0);
  for (const auto& [n, w] : users) {
    if (n->cores.empty()) continue;
    const double each = w / static_cast<double>(n->cores.size());
    for (int k = 0; k < t.clusters; ++k)
      for (int c : n->cores) cost[static_cast<std::size_t>(k)] += each * t.hops(c, k * t.cus_per_cluster);
  }
  return cost;
}

// The SRAM window: granule i of sram_interleave_bytes lives in cluster
// i mod clusters. A value takes the free 64-byte-aligned range whose bytes
// sit in the clusters cheapest for it (cluster_cost), the lowest address
// among equals; with a granule as large as a cluster's SRAM that is the
// SRAM next to its layers, with small granules every range costs about the
// same and this is the first free one.
// The border the window readers of value `id` need: the widest of their
// pads, zeros for Convs and average poolings, -128 for a max pooling over
// values that may be negative.
struct Border {
  int pad = 0;
  bool zero = false, neg = false;
};
Border border_of(const Graph& g, int id) {
  Border b;
  const Value& v = g.val(id);
  for (int c : g.consumers(id)) {
    const Node& n = g.nodes[static_cast<std::size_t>(c)];
    if (!op_has(n.op, op_window) || n.in[0] != id) continue;
    const int p = std::max({n.geom.pt, n.geom.pl, n.geom.pb, n.geom.pr});
    if (p == 0) continue;
    b.pad = std::max(b.pad, p);
    (n.op == OpKind::MaxPool && !v.nonneg ? b.neg : b.zero) = true;
  }
  return b;
}

// The rows a stream may hold of value `id` as a ring, or 0. Only where every
// address of it is a row pointer that walks down the map (emit_loops.h's
// pixel loop, which wraps it) or a line buffer's row load (which finds
// each row in the ring: LineBuffer::ring_bytes): written by a Conv (or the
// Add it computes), read by 1x1 Convs, residual Adds computed by their
// Conv, and Convs and poolings that load their windows' rows into a line
// buffer; a border of zeros (fill -128 stays in global memory) keeps its
// rows apart, above and below the ring. A reader of row h then needs no
// row past its window's, so a ring of R rows holds every row still to be
// read once the writer is R rows ahead. R divides the height (row h of
// every image in one place), is at least a quarter of it and 12 rows, and
// no copy steps over a whole ring in one row step, windows' rows counted.
std::int64_t ring_rows_of(const Graph& g, const Target& t, int id) {
  const Value& v = g.val(id);
  if ((v.buf.pad && !g.bordered_rings) || v.buf.fill || v.preload || v.is_const || v.shape.h < 2) return 0;
  if (std::find(g.inputs.begin(), g.inputs.end(), id) != g.inputs.end() ||
      std::find(g.outputs.begin(), g.outputs.end(), id) != g.outputs.end())
    return 0;
  int step = 1;  // rows a row step of any copy moves on, at most
  bool written = false;
  for (const Node& n : g.nodes) {
    if (std::find(n.out.begin(), n.out.end(), id) == n.out.end()) continue;
    const bool conv = n.op == OpKind::Conv && n.fused_next < 0;
    const bool add = n.op == OpKind::Add && n.fused;
    if (!conv && !add) return 0;
    const Node& w = add ? *std::find_if(g.nodes.begin(), g.nodes.end(), [&](const Node& m) {
      return m.fused_next == static_cast<int>(&n - g.nodes.data());
    }) : n;
    step = std::max(step, w.replicas);
    written = true;
  }
  if (!written) return 0;
  for (int c : g.consumers(id)) {
    const Node& m = g.nodes[static_cast<std::size_t>(c)];
    if (m.op == OpKind::Conv && m.in[0] == id && m.geom.kh == 1 && m.geom.kw == 1 && m.geom.dh == 1) {
      step = std::max(step, m.geom.sh * m.replicas);
    } else if ((m.op == OpKind::Conv || m.op == OpKind::MaxPool || m.op == OpKind::AveragePool) && m.in[0] == id &&
               m.geom.dh == 1 && use_line_buffer(m.geom, v.shape, g.val(m.out[0]).shape, t.spad_bytes, nullptr)) {
      step = std::max<int>(step, m.geom.kh + m.geom.sh * m.replicas);
    } else if (m.op == OpKind::Add && m.fused) {
      const auto conv = std::find_if(g.nodes.begin(), g.nodes.end(),
                                     [&](const Node& k) { return k.fused_next == c; });
      if (conv == g.nodes.end() || conv->out[0] == id) return 0;
      step = std::max(step, conv->replicas);
    } else {
      return 0;
    }
  }
  const std::int64_t H = v.shape.h;
  for (std::int64_t r = std::max<std::int64_t>({12, (H + 3) / 4, step}); r < H; ++r)
    if (H % r == 0) return r;
  return 0;
}

class SramPlacer {
 public:
  SramPlacer(const Target& t, std::int64_t window) : t_(t), free_{{0, window}} {}

  // Start of the chosen range, or -1 when no free range holds `bytes`.
  // `granule_aligned`: only starts on a granule's boundary (a value at a
  // granule's pitch, each row in a granule of its own).
  std::int64_t place(std::int64_t bytes, const std::vector<double>& cost, bool granule_aligned = false) {
    const std::int64_t G = std::max<std::int64_t>(64, t_.sram_interleave_bytes);
    std::vector<std::pair<std::int64_t, double>> starts;  // (address, cost), by address
    double cheapest = 0;
    for (const auto& [lo, hi] : free_) {
      if (hi - lo < bytes) continue;
      // Candidate starts: the range's start and every granule boundary in it.
      for (std::int64_t a = granule_aligned ? (lo + G - 1) / G * G : lo; a + bytes <= hi; a = (a / G + 1) * G) {
        double c = 0;
        for (std::int64_t x = a; x < a + bytes;) {
          const std::int64_t end = std::min(a + bytes, (x / G + 1) * G);
          c += static_cast<double>(end - x) * cost[static_cast<std::size_t>((x / G) % t_.clusters)];
          x = end;
        }
        if (starts.empty() || c < cheapest) cheapest = c;
        starts.emplace_back(a, c);
      }
    }
    // Within kSlack of the cheapest is as good: the lowest such address
    // packs the window (small granules make every range cost about the same,
    // and chasing a fraction of a hop would only scatter the free space).
    for (const auto& [a, c] : starts)
      if (c <= cheapest * (1 + kSlack) + 1e-9) {
        take(a, a + bytes);
        return a;
      }
    return -1;
  }

  // Local offset in cluster `cl`'s SRAM of `bytes` on consecutive granules
  // of that SRAM, from its top down (the values placed after it fill the
  // window from the bottom), or -1 when no such run is free.
  std::int64_t place_local(int cl, std::int64_t bytes) {
    const std::int64_t G = std::max<std::int64_t>(64, t_.sram_interleave_bytes);
    const std::int64_t k = (bytes + G - 1) / G, per = t_.sram_bytes / G;
    auto window_at = [&](std::int64_t local) { return (local * t_.clusters + cl) * G; };
    for (std::int64_t j = per - k; j >= 0; --j) {
      bool free = true;
      for (std::int64_t i = 0; i < k && free; ++i) free = is_free(window_at(j + i), window_at(j + i) + G);
      if (!free) continue;
      for (std::int64_t i = 0; i < k; ++i) take(window_at(j + i), window_at(j + i) + G);
      return j * G;
    }
    return -1;
  }

 private:
  bool is_free(std::int64_t lo, std::int64_t hi) const {
    for (const auto& [a, b] : free_)
      if (a <= lo && hi <= b) return true;
    return false;
  }
  void take(std::int64_t lo, std::int64_t hi) {
    for (std::size_t i = 0; i < free_.size(); ++i) {
      const auto [a, b] = free_[i];
      if (lo < a || hi > b) continue;
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
      if (hi < b) free_.insert(free_.begin() + static_cast<std::ptrdiff_t>(i), {hi, b});
      if (a < lo) free_.insert(free_.begin() + static_cast<std::ptrdiff_t>(i), {a, lo});
      return;
    }
  }
  static constexpr double kSlack = 0.05;
  const Target& t_;
  std::vector<std::pair<std::int64_t, std::int64_t>> free_;  // [lo, hi), sorted
};

// Whether every core runs one layer (the pipeline placement).
bool one_layer_per_cu(const Graph& g) {
  std::set<int> seen;
  for (const Node& n : g.nodes)
    for (int c : n.cores)
      if (!seen.insert(c).second) return false;
  return true;
}

// The node whose cores store value `id` (the Conv that computes a fused
// Add), or -1 for graph inputs and constants.
int storer_of(const Graph& g, int id) {
  const int p = g.producer(id);
  if (p < 0) return -1;
  for (std::size_t k = 0; k < g.nodes.size(); ++k)
    if (g.nodes[k].fused_next == p) return static_cast<int>(k);
  return p;
}

// The nodes whose cores read value `id`, and the one that stores it: what
// must be finished before another value may take its buffer.
std::vector<int> users_of(const Graph& g, int id) {
  std::set<int> u;
  for (int c : g.consumers(id)) {
    const Node& n = g.nodes[static_cast<std::size_t>(c)];
    u.insert(n.fused ? storer_of(g, n.out[0]) : c);
  }
  if (const int w = storer_of(g, id); w >= 0) u.insert(w);
  return {u.begin(), u.end()};
}

// SRAM reused for one image. The layers overlap, so no buffer is dead by
// program order alone; but a layer far down the pipeline starts its first
// row long after the first layers have finished (on ResNet-50 layer3's last
// blocks and layer4 start when conv1, the max pooling and layer1 are done).
// A value that did not fit the SRAMs takes, when the cost model's critical
// path (overlapped_times) says so, a range whose values are all finished
// (their readers and writer past their last rows) before its writer's first
// row starts; the writer then waits for a release from each core of those
// layers (Graph::reuse_after), so a wrong estimate costs time, never bytes.
// Only values without a border (a reused range holds old bytes, not the
// border's zeros) take a range, and only ranges without a border are taken,
// with one layer per CU. Values left without a range stay
// in global memory.
// `held`: window ranges kept by others (the shared loads' slots).
void reuse_sram(Graph& g, const Target& t, const std::vector<int>& order, std::int64_t window_bytes,
                const std::vector<std::pair<std::int64_t, std::int64_t>>& held, std::int64_t& on_chip) {
  const RowTimes rt = overlapped_times(g);
  constexpr double kNever = std::numeric_limits<double>::infinity();
  struct Range {
    std::int64_t lo, hi;
    double free_at;          // when its value is finished (-inf: a free gap)
    std::vector<int> users;  // nodes whose cores must have finished
  };
  auto range_of = [&](int id, std::int64_t lo, std::int64_t hi) {
    Range r{lo, hi, -kNever, users_of(g, id)};
    // A border is written once, when the program is loaded (the SRAMs start
    // at zero): a range holding one is never reused, or the next start of
    // the program (the firmware's next batch element) would read the
    // bytes of the value that took it as the border.
    if (r.users.empty() || g.val(id).buf.pad > 0) r.free_at = kNever;
    for (int u : r.users) r.free_at = std::max(r.free_at, rt.last[static_cast<std::size_t>(u)]);
    return r;
  };
  // The window by address: the values placed so far and the free gaps.
  std::vector<Range> map;
  {
    std::vector<Range> placed;
    for (std::size_t id = 0; id < g.values.size(); ++id) {
      const Value& v = g.values[id];
      if (v.is_const || v.buf.addr < t.sram_global_base) continue;
      const std::int64_t lo = v.buf.addr - t.sram_global_base;
      placed.push_back(range_of(static_cast<int>(id), lo, lo + (v.buf.bytes(v.shape) + 63) / 64 * 64));
    }
    for (const auto& [lo, hi] : held) placed.push_back({lo, hi, kNever, {}});
    std::sort(placed.begin(), placed.end(), [](const Range& a, const Range& b) { return a.lo < b.lo; });
    std::int64_t at = 0;
    for (Range& r : placed) {
      if (r.lo > at) map.push_back({at, r.lo, -kNever, {}});
      at = std::max(at, r.hi);
      map.push_back(std::move(r));
    }
    if (at < window_bytes) map.push_back({at, window_bytes, -kNever, {}});
  }
  std::set<std::pair<int, int>> pairs;
  for (int id : order) {
    Value& v = g.val(id);
    if (v.buf.addr >= 0 || v.buf.pad) continue;
    const int w = storer_of(g, id);
    if (w < 0) continue;
    const double birth = rt.first[static_cast<std::size_t>(w)] - rt.step[static_cast<std::size_t>(w)];
    const std::int64_t bytes = (v.buf.bytes(v.shape) + 63) / 64 * 64;
    // Of the starts whose ranges up to `bytes` are all finished before
    // `birth` by layers earlier in program order, the one finished soonest
    // (the most slack).
    std::size_t best = map.size();
    double best_free = kNever;
    for (std::size_t i = 0; i < map.size(); ++i) {
      if (map[i].lo + bytes > window_bytes) break;
      double latest = -kNever;
      bool ok = true;
      for (std::size_t j = i; ok && j < map.size() && map[j].lo < map[i].lo + bytes; ++j) {
        ok = map[j].free_at <= birth;
        for (int u : map[j].users) ok = ok && u < w;
        latest = std::max(latest, map[j].free_at);
      }
      if (ok && latest < best_free) {
        best = i;
        best_free = latest;
      }
    }
    if (best == map.size()) continue;
    const std::int64_t lo = map[best].lo, hi = lo + bytes;
    std::vector<Range> next;
    for (Range& r : map) {
      if (r.hi <= lo || r.lo >= hi) {
        next.push_back(std::move(r));
        continue;
      }
      for (int u : r.users) pairs.insert({u, w});
      if (r.lo == lo) next.push_back(range_of(id, lo, hi));
      if (r.hi > hi) next.push_back({hi, r.hi, r.free_at, r.users});
    }
    map = std::move(next);
    v.buf.addr = t.sram_global_base + lo;
    on_chip += bytes;
  }
  g.reuse_after.assign(pairs.begin(), pairs.end());
}

}  // namespace

bool input_has_pad_layer(const Graph& g, std::size_t i) {
  return g.batch > 1 || border_of(g, g.inputs.at(i)).pad > 0;
}

// Whether node n walks the maps it reads and writes row by row, each row
// from its row pointer and the next a Buffer::row() further: a node of
// these kinds may take a map with a granule's pitch. A Concat along the
// rows, a MatMul, a normalization or a gather walk a map as one run of
// pixels or of rows of another shape.
bool walks_rows_by_pitch(const Node& n) {
  if (!n.gather.empty()) return false;
  switch (n.op) {
    case OpKind::Conv:
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Relu:
    case OpKind::Clip: return true;
    case OpKind::Concat: return !n.concat_rows;
    default: return op_has(n.op, op_table);
  }
}

// Value `id`'s pitch in the SRAM window: a granule, when its padded rows
// each fit one and it would otherwise lie in under half the SRAMs its rows
// could spread over (every reader's loads through those few SRAMs'
// ports: act_cnn's 5 KB maps in two granules, read by 86 copies at once),
// and every node on it walks it by rows; else 0.
std::int64_t granule_pitch(const Graph& g, const Target& t, int id, std::int64_t ring) {
  const Value& v = g.val(id);
  const std::int64_t G = t.sram_interleave_bytes;
  if (G <= 0 || ring > 0 || v.preload || v.is_const) return 0;
  const std::int64_t row = v.buf.wp(v.shape) * v.shape.c, rows = v.buf.hp(v.shape);
  if (row <= 0 || row > G) return 0;
  const std::int64_t plain = (rows * row + G - 1) / G + 1, pitched = std::min<std::int64_t>(rows, t.clusters);
  if (pitched < 2 * plain) return 0;
  // Not what the host writes or reads: a graph input only as the bordered
  // buffer its pad layer copies the host's rows into (emit_input_copy).
  if (std::find(g.outputs.begin(), g.outputs.end(), id) != g.outputs.end()) return 0;
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    if (g.inputs[i] == id && !input_has_pad_layer(g, i)) return 0;
  for (const Node& n : g.nodes) {
    const bool on = std::find(n.in.begin(), n.in.end(), id) != n.in.end() ||
                    std::find(n.out.begin(), n.out.end(), id) != n.out.end();
    if (on && !walks_rows_by_pitch(n)) return 0;
  }
  return G;
}

void plan_memory(Graph& g, const Target& t) {
  if (g.batch < 1) throw CompileError("batch " + std::to_string(g.batch) + ": expected 1 or more images per start");
  for (auto& v : g.values) v.buf = Buffer{};
  g.input_plain.assign(g.inputs.size(), -1);
  g.input_pointer.assign(g.inputs.size(), -1);
  // Borders.
  for (std::size_t id = 0; id < g.values.size(); ++id) {
    Value& v = g.values[id];
    if (v.is_const) continue;
    const Border b = border_of(g, static_cast<int>(id));
    if (b.zero && b.neg)
      throw CompileError("tensor '" + v.name +
                         "' is padded both for a convolution (0) and for a max pooling over negative values (-128)");
    v.buf.pad = std::max(v.buf.pad, b.pad);
    v.buf.fill = b.neg ? -128 : 0;
  }
  // Addresses. First the cluster SRAMs' global window (when the chip maps
  // it): the activations that cross the memory port most per byte, so their
  // traffic spreads over the mesh instead of the one port of global memory.
  // Graph outputs and the inputs the host writes stay in global memory, as
  // do borders that must read -128 (the loader fills those) and the outputs
  // of Convs whose Add computes them (never stored); for one image, ranges
  // of the window whose values are finished are reused (reuse_sram). Then
  // a bump allocator in global memory, 64-byte aligned, nothing reused (the
  // layers overlap: a buffer's readers may still run when a later layer
  // writes).
  const std::int64_t window_bytes = std::int64_t{t.clusters} * t.sram_bytes;
  const bool window = t.sram_global_base > 0 && t.sram_global_base + window_bytes <= (std::int64_t{1} << 32);
  std::vector<bool> in_gmem_only(g.values.size(), false);
  // (With a stream of images the host reads the output areas instead.)
  if (g.batch == 1)
    for (int o : g.outputs) in_gmem_only[static_cast<std::size_t>(o)] = true;
  for (const auto& n : g.nodes)
    if (n.fused_next >= 0) in_gmem_only[static_cast<std::size_t>(n.out[0])] = true;
  std::vector<std::pair<double, int>> candidates;  // (reads per byte written, value)
  auto consider = [&](int id) {
    const Value& v = g.val(id);
    if (!window || in_gmem_only[static_cast<std::size_t>(id)] || v.buf.fill != 0) return;
    double reads = 1;  // its own store
    for (int c : g.consumers(id)) {
      const Node& n = g.nodes[static_cast<std::size_t>(c)];
      reads += op_has(n.op, op_window) && n.in[0] == id ? static_cast<double>(n.geom.kh) / n.geom.sh : 1.0;
    }
    candidates.emplace_back(reads, id);
  };
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    if (g.val(g.inputs[i]).buf.pad || g.batch > 1) consider(g.inputs[i]);
  for (const auto& n : g.nodes)
    for (int o : n.out) consider(o);
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  SramPlacer placer(t, window_bytes);
  std::int64_t on_chip = 0;
  // The shared loads' slots (shared_loads.h), before the values: each in
  // the SRAM of its copy's cluster; without the window every SRAM is theirs.
  std::vector<std::int64_t> local_top(static_cast<std::size_t>(t.clusters), 0);
  std::vector<std::pair<std::int64_t, std::int64_t>> slots;  // their window ranges
  // A slot of `bytes` in cluster cl's SRAM: its offset there, or -1.
  const auto slot_in = [&](int cl, std::int64_t bytes) -> std::int64_t {
    if (window) {
      const std::int64_t at = placer.place_local(cl, bytes);
      const std::int64_t G = std::max<std::int64_t>(64, t.sram_interleave_bytes);
      for (std::int64_t x = at; at >= 0 && x < at + bytes; x += G) {
        const std::int64_t lo = (x / G * t.clusters + cl) * G;
        slots.emplace_back(lo, lo + G);
        on_chip += G;
      }
      return at;
    }
    std::int64_t& top = local_top[static_cast<std::size_t>(cl)];
    if (top + bytes > t.sram_bytes) return -1;
    const std::int64_t at = top;
    top += (bytes + 63) / 64 * 64;
    return at;
  };
  for (Node& n : g.nodes) {
    n.staging.assign(n.share_copy.size(), -1);
    for (std::size_t r = 0; r < n.share_copy.size(); ++r)
      if (n.share_copy[r])
        n.staging[r] = slot_in(t.cluster_of(copy_cores(n, static_cast<int>(r)).front()), staging_bytes(g, n, t));
  }
  // The handed rows' slots (handed_rows.h), in the SRAM of each pair's
  // cluster as the shared loads' are; a reader whose slots do not all fit
  // loads its rows over the mesh.
  for (Node& n : g.nodes) {
    n.hand_slot.assign(n.handed_from >= 0 ? static_cast<std::size_t>(n.replicas) : 0, -1);
    for (int r = 0; r < static_cast<int>(n.hand_slot.size()); ++r) {
      const std::int64_t at = n.hand_slot[static_cast<std::size_t>(r)] =
          slot_in(t.cluster_of(copy_cores(n, r).front()), hand_slot_bytes(g, n, r));
      if (at < 0) {
        n.handed_from = -1;
        break;
      }
    }
    if (n.handed_from < 0) n.hand_slot.clear();
  }
  // For one image with one layer per CU: values without a border whose
  // writer starts after the first values are finished are left to
  // reuse_sram (below), so the window goes first to the values born before
  // anything dies (ResNet-50: 1,065,304 cycles with reuse only for what
  // did not fit, 836,735 so).
  std::vector<bool> later(g.values.size(), false);
  const bool reuse = window && g.batch == 1 && one_layer_per_cu(g);
  if (reuse) {
    const RowTimes rt = overlapped_times(g);
    double earliest = std::numeric_limits<double>::infinity();
    for (const auto& [reads, id] : candidates) {
      double f = -1;
      for (int u : users_of(g, id)) f = std::max(f, rt.last[static_cast<std::size_t>(u)]);
      if (f >= 0) earliest = std::min(earliest, f);
    }
    for (const auto& [reads, id] : candidates) {
      const int w = storer_of(g, id);
      if (w >= 0 && !g.val(id).buf.pad && rt.first[static_cast<std::size_t>(w)] - rt.step[static_cast<std::size_t>(w)] >= earliest)
        later[static_cast<std::size_t>(id)] = true;
    }
  }
  // A stream whose activations do not all fit holds the values that allow
  // it as rings of rows (ring_rows_of): a fraction of their bytes.
  const bool rings = window && g.batch > 1 && g.row_releases && !activations_fit_sram(g, t);
  // Granule pitches, when the window holds every candidate so with room to
  // spare (a stream's second buffers counted): small maps, so only a small
  // model's; a large model keeps its window for its maps' bytes.
  std::vector<std::int64_t> pitch(g.values.size(), 0);
  if (window && g.row_pitch) {
    std::int64_t demand = 0;
    for (const auto& [reads, id] : candidates) {
      const Value& v = g.val(id);
      const std::int64_t ring = rings ? ring_rows_of(g, t, id) : 0;
      const std::int64_t p = granule_pitch(g, t, id, ring);
      pitch[static_cast<std::size_t>(id)] = p;
      const std::int64_t held = p > 0 ? v.buf.hp(v.shape) * p : v.buf.held(v.shape, ring);
      demand += (g.batch > 1 ? 2 : 1) * held;
    }
    if (4 * demand > 3 * window_bytes) std::fill(pitch.begin(), pitch.end(), 0);
  }
  for (const auto& [reads, id] : candidates) {
    Value& v = g.val(id);
    const std::int64_t ring = rings ? ring_rows_of(g, t, id) : 0;
    if (v.buf.addr >= 0 || later[static_cast<std::size_t>(id)]) continue;
    v.buf.pitch = pitch[static_cast<std::size_t>(id)];
    std::int64_t at = -1;
    if (v.buf.pitch > 0) {
      at = placer.place(v.buf.bytes(v.shape), cluster_cost(g, t, id), true);
      if (at < 0) v.buf.pitch = 0;
    }
    const std::int64_t bytes = (v.buf.held(v.shape, ring) + 63) / 64 * 64;
    if (at < 0) at = placer.place(bytes, cluster_cost(g, t, id));
    if (at < 0) continue;
    v.buf.addr = t.sram_global_base + at;
    v.buf.ring_rows = ring;
    on_chip += bytes;
  }
  // A stream's second buffers (Buffer::alt): every value a layer stores,
  // but rings (their release is within the image) and the outputs of Convs
  // whose Add computes them (never stored). In the SRAM window, smallest
  // first, where the window still has room after every first buffer (a
  // small map has few rows, so its writer and readers are the most tightly
  // bound by one buffer); a value in global memory has its second there.
  std::vector<bool> twin(g.values.size(), false);
  if (g.batch > 1 && g.row_releases && g.twin_buffers) {
    std::vector<bool> stored(g.values.size(), false);
    for (int i : g.inputs) stored[static_cast<std::size_t>(i)] = true;
    for (const Node& n : g.nodes)
      for (int o : n.out) stored[static_cast<std::size_t>(o)] = true;
    std::vector<std::pair<std::int64_t, int>> by_size;
    for (std::size_t id = 0; id < g.values.size(); ++id) {
      const Value& v = g.values[id];
      if (!stored[id] || v.is_const || v.preload || v.buf.ring_rows > 0 || in_gmem_only[id]) continue;
      twin[id] = true;
      if (v.buf.addr >= 0) by_size.emplace_back(v.buf.bytes(v.shape), static_cast<int>(id));
    }
    std::stable_sort(by_size.begin(), by_size.end());
    for (const auto& [bytes, id] : by_size) {
      Value& v = g.val(id);
      const std::int64_t at = placer.place((bytes + 63) / 64 * 64, cluster_cost(g, t, id), v.buf.pitch > 0);
      if (at < 0) {
        twin[static_cast<std::size_t>(id)] = false;
        continue;
      }
      v.buf.alt = t.sram_global_base + at;
      on_chip += (bytes + 63) / 64 * 64;
    }
  }
  g.reuse_after.clear();
  if (reuse) {
    std::vector<int> order;
    for (const auto& [reads, id] : candidates) order.push_back(id);
    reuse_sram(g, t, order, window_bytes, slots, on_chip);
  }
  g.sram_used = on_chip;
  std::int64_t top = 0;
  auto alloc = [&](std::int64_t bytes) {
    const std::int64_t a = top;
    top = (top + bytes + 63) / 64 * 64;
    return a;
  };
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    Value& v = g.val(g.inputs[i]);
    if (v.buf.addr < 0) {
      v.buf.addr = alloc(v.buf.bytes(v.shape));
      if (twin[static_cast<std::size_t>(g.inputs[i])]) v.buf.alt = alloc(v.buf.bytes(v.shape));
    }
    // A stream of images: the host writes them all before the start, and
    // the first layer copies each in when the pipeline is ready for it.
    g.input_plain[i] = input_has_pad_layer(g, i) ? alloc(v.shape.numel() * g.batch) : v.buf.addr;
    // Its pad layer reads the host's rows through a pointer word.
    if (g.input_plain[i] != v.buf.addr) g.input_pointer[i] = alloc(64);
  }
  for (auto& n : g.nodes)
    for (int o : n.out) {
      Value& v = g.val(o);
      if (v.buf.addr >= 0) continue;
      v.buf.addr = alloc(v.buf.bytes(v.shape));
      if (twin[static_cast<std::size_t>(o)]) v.buf.alt = alloc(v.buf.bytes(v.shape));
    }
  // Preloaded maps: in global memory, where the program's data puts them.
  for (Value& v : g.values)
    if (v.preload && !g.consumers(static_cast<int>(&v - g.values.data())).empty())
      v.buf.addr = alloc(v.buf.bytes(v.shape));
  g.output_area.clear();
  if (g.batch > 1)
    for (int o : g.outputs) g.output_area.push_back(alloc(g.val(o).shape.numel() * g.batch));
  for (int o : g.outputs)
    if (g.val(o).buf.pad)
      throw CompileError("graph output '" + g.val(o).name + "' is also read by a padded window; not supported");
  if (top > t.gmem_bytes)
    throw CompileError("activations need " + std::to_string(top) + " bytes of global memory, chip '" + t.name +
                       "' has " + std::to_string(t.gmem_bytes));
  g.gmem_used = top;
}

bool activations_fit_sram(const Graph& g, const Target& t, bool rings) {
  const std::int64_t window = std::int64_t{t.clusters} * t.sram_bytes;
  if (t.sram_global_base <= 0 || t.sram_global_base + window > (std::int64_t{1} << 32)) return false;
  std::vector<bool> stored(g.values.size(), false);
  for (int i : g.inputs) stored[static_cast<std::size_t>(i)] = true;
  for (const Node& n : g.nodes)
    for (int o : n.out) stored[static_cast<std::size_t>(o)] = n.fused_next < 0;
  std::int64_t bytes = 0;
  for (std::size_t id = 0; id < g.values.size(); ++id) {
    const Value& v = g.values[id];
    if (!stored[id] || v.is_const) continue;
    const Border b = border_of(g, static_cast<int>(id));
    if (b.neg) return false;
    const std::int64_t ring = rings ? ring_rows_of(g, t, static_cast<int>(id)) : 0;
    bytes += ((ring ? ring + 2 * b.pad : v.shape.h + 2 * b.pad) * (v.shape.w + 2 * b.pad) * v.shape.c + 63) / 64 * 64;
  }
  return bytes <= window;
}

}  // namespace vp::cc
