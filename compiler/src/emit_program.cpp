// Emit: the model object as assembly plus the crossbar weight image.
//
// Schedule: row-pipelined and weight-stationary. Every layer's output goes
// to global memory; there is no barrier between layers: each row of a
// core's share waits only for the input rows it reads, which their writers
// announce with token messages as they store them (emit_sync.cpp), so a
// layer starts while the layers before it are still running. Each core runs
// its layers in program order. Within a layer the CUs of a Conv copy
// work in parallel on disjoint output channels (and exchange partial sums
// when a column tile spans CUs), and the copies (replicas) on disjoint
// shares of the output pixels; other operators share rows or pixels among
// their cores the same way.
//
// Output: `.core c, u` text per CU, `.data local` parameters, one `.xbar`
// cell program per crossbar (levels from WeightEncoding, the chip's own
// encoder) included from the image with `.incbin`, `.layer` names, and the
// `.input` / `.output` bindings.
#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "emit_context.h"
#include "int_arith.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/crossbar/weight_encoding.h"
#include "vp/isa/isa.h"

namespace vp::cc {
namespace emit {

}  // namespace emit

namespace {

std::string base_name(const std::string& p) {
  const auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

// Cell levels of every crossbar of every Conv (the op_crossbar operator),
// appended to the image; the .xbar directives that include them go to `cells`.
// IR-drop pre-distortion (vp-cc --ir-drop-compensate): the crossbar reads
// cell (r, c) at hw::ir_drop_factor(r, c) of its conductance, a factor the
// compiler knows from the chip's wire resistance. A weight is stored as
// u = w + offset (offset slices) or w (differential pairs) over the columns
// of its slices; programming round(u / f) instead, f the factor averaged
// over those columns, makes the read about u again. Clamped to the weight's
// range (a weight whose u / f passes 255 keeps part of its drop). The
// golden model stays the network's: on a chip without IR drop the factor
// is 1 and nothing changes. Every tile starts at row 0 and column 0 of its
// crossbar, so one table of f per (row, weight column) serves them all.
std::vector<double> weight_read_factors(const Target& t, const Target::Format& fmt) {
  const int cpw = t.cols_per_weight(fmt), lcols = t.lcols(fmt);
  std::vector<double> f(static_cast<std::size_t>(t.rows) * static_cast<std::size_t>(lcols), 0.0);
  for (int r = 0; r < t.rows; ++r)
    for (int j = 0; j < lcols; ++j) {
      double& v = f[static_cast<std::size_t>(r) * static_cast<std::size_t>(lcols) + static_cast<std::size_t>(j)];
      for (int c = j * cpw; c < (j + 1) * cpw; ++c) v += hw::ir_drop_factor(t.ir_drop_ohm_per_cell, t.g_max_us, t.rows, r, c);
      v /= cpw;
    }
  return f;
}

std::int32_t pre_distorted(std::int32_t w, double f, const hw::WeightEncoding& enc) {
  if (f <= 0) return w;
  const std::int64_t offset = enc.offset();
  const auto u = static_cast<std::int64_t>(std::llround(static_cast<double>(w + offset) / f));
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(u - offset, enc.min_weight(), enc.max_weight()));
}

std::int64_t write_image(const Graph& g, const Target& t, std::ofstream& img, std::ostringstream& cells,
                         const std::string& image_name, bool ir_drop_compensate) {
  std::int64_t offset = 0;
  for (const Node& n : g.nodes) {
    if (!op_has(n.op, op_crossbar)) continue;
    // The layer's own weight format (weight_format.cpp).
    const Target::Format fmt = xbar_format(n, t);
    const hw::WeightEncoding enc(crossbar_config(t, fmt));
    const int lcols = t.lcols(fmt);
    const std::vector<double> factors = ir_drop_compensate ? weight_read_factors(t, fmt) : std::vector<double>{};
    const ConvGeom& geo = n.geom;
    const int Cin = static_cast<int>(g.val(n.in[0]).shape.c), N = static_cast<int>(g.val(n.out[0]).shape.c);
    const int Cg = Cin / geo.group, Ng = N / geo.group;
    // Copies of the layer program the same levels: encoded once, included
    // again by every copy's crossbar.
    std::map<std::pair<int, int>, std::pair<std::int64_t, std::size_t>> encoded;
    for (const ColumnTile& ct : n.tiles) {
      const int width = ct.ci1 - ct.ci0;
      for (const auto& part : ct.parts)
        for (int lx = 0; lx < part.crossbars(); ++lx) {
          // Lane lx / row_tiles of the part holds the same levels as lane 0.
          const int x = lx % part.row_tiles, xbar = part.crossbar(lx);
          const int pcols = ct.ncols * t.cols_per_weight(fmt);
          // Redundant copies of the rows (ColumnTile::redundant) hold the
          // levels of the first copy's row tile.
          const int logical = (part.row_tile0 + x) % ct.row_tiles_once(t.rows);
          const auto key = std::make_pair(ct.n0, logical);
          if (const auto it = encoded.find(key); it != encoded.end()) {
            cells << ".xbar " << t.cluster_of(part.core) << ", " << t.cu_of(part.core) << ", " << xbar
                  << ", 0, 0, " << t.rows << ", " << pcols << "\n    .incbin \"" << image_name << "\", "
                  << it->second.first << ", " << it->second.second << "\n";
            continue;
          }
          const std::int64_t k0 = std::int64_t{logical} * t.rows;
          // Rows past K are programmed too (weight 0): the patch feeds them 0,
          // and a fully programmed crossbar keeps the MVM on its exact path.
          const int used = static_cast<int>(std::min<std::int64_t>(t.rows, ct.k - k0));
          const int rows = t.rows;
          std::vector<std::int32_t> w(static_cast<std::size_t>(rows) * static_cast<std::size_t>(ct.ncols), 0);
          for (int rr = 0; rr < used; ++rr) {
            const std::int64_t kr = k0 + rr;
            const int pos = static_cast<int>(kr / width), ch = ct.ci0 + static_cast<int>(kr % width);
            const int ky = pos / geo.kw, kx = pos % geo.kw;
            for (int j = 0; j < ct.ncols; ++j) {
              const int oc = ct.n0 + j, grp = oc / Ng;
              if (ch / Cg != grp) continue;  // other group: weight 0
              const std::int32_t wq = n.q.w[static_cast<std::size_t>(((oc * Cg + (ch - grp * Cg)) * geo.kh + ky) * geo.kw + kx)];
              w[static_cast<std::size_t>(rr * ct.ncols + j)] =
                  factors.empty() ? wq
                                  : pre_distorted(wq, factors[static_cast<std::size_t>(rr * lcols + j)], enc);
            }
          }
          const auto levels = enc.encode(w, rows, ct.ncols);
          img.write(reinterpret_cast<const char*>(levels.data()), static_cast<std::streamsize>(levels.size()));
          encoded[key] = {offset, levels.size()};
          cells << ".xbar " << t.cluster_of(part.core) << ", " << t.cu_of(part.core) << ", " << xbar
                << ", 0, 0, " << rows << ", " << pcols << "\n    .incbin \"" << image_name << "\", " << offset << ", "
                << levels.size() << "\n";
          offset += static_cast<std::int64_t>(levels.size());
        }
    }
  }
  return offset;
}

std::string dims_list(const Value& v, int batch) {
  // The chip's channels-last view: [1, H, W, C] for feature maps, [B, K] for
  // matrices; a stream of `batch` images leads with it.
  if (v.dims.size() == 4)
    return std::to_string(batch) + ", " + std::to_string(v.shape.h) + ", " + std::to_string(v.shape.w) + ", " +
           std::to_string(v.shape.c);
  std::vector<std::int64_t> d = v.dims;
  if (d.empty()) d.push_back(v.shape.numel());
  if (batch > 1) {
    if (d.size() >= 2 && d[0] == 1) d[0] = batch;
    else d.insert(d.begin(), batch);
  }
  std::string s;
  for (auto x : d) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

namespace {

// The layers in program order on an emit context: the first pass records
// the row steps, the second (with e.plan set) emits the hand-over too.
// Returns the layers' ids and names.
std::vector<std::pair<int, std::string>> emit_layers_in_order(emit::Ctx& e, const std::set<int>& active) {
  const Graph& g = e.g;
  std::vector<std::pair<int, std::string>> layers;
  std::map<int, int> writer;  // value id -> layer that writes it
  // `wait` on every unit that has a wait bit: a core's next layer may read
  // what this one stored.
  uint32_t all_units = 0;
  for (int u = 0; u < isa::kUnitCount; ++u) all_units |= isa::wait_bit(static_cast<isa::Unit>(u));
  const std::string wait_all = "wait " + std::to_string(all_units);
  // Only a layer's own cores mark it: a trace charges each core's time,
  // waiting for input rows included, to the layer it is in.
  auto begin_layer = [&](const std::string& name, const std::vector<int>& cores, int out,
                         std::vector<emit::Ctx::Input> inputs) {
    ++e.layer;
    if (e.node >= 0) e.node_layer[e.node] = e.layer;
    e.out_width = out >= 0 ? g.val(out).shape.w : 0;
    if (!e.odd) layers.emplace_back(e.layer, name);
    e.layer_out[e.layer] = out;
    e.inputs = std::move(inputs);
    e.writes = true;
    if (out >= 0) writer[out] = e.layer;
    for (int c : cores) {
      e.ins(c, "layer " + std::to_string(e.layer));
      e.sync_begin(c);
      e.release_take(c);
      e.reuse_take(c);
    }
  };
  auto end_layer = [&](const std::vector<int>& cores) {
    for (int c : cores) {
      e.ins(c, wait_all);
      e.release_give(c);
      e.reuse_give(c);
    }
    e.node = -1;
  };
  auto rows = [&](int v) -> std::vector<emit::Ctx::Input> {
    const auto it = writer.find(v);
    if (it == writer.end()) return {};  // a constant or an input the host wrote
    return {{it->second, [](std::int64_t h) { return std::make_pair(h, h); }, g.val(v).shape.w, {}}};
  };
  auto window = [&](int v, const ConvGeom& geo) -> std::vector<emit::Ctx::Input> {
    auto in = rows(v);
    const std::int64_t H = g.val(v).shape.h, W = g.val(v).shape.w;
    for (auto& i : in) {
      i.rows = [H, geo](std::int64_t h) {
        const std::int64_t top = h * geo.sh - geo.pt;
        return std::make_pair(std::max<std::int64_t>(0, top), std::min(H - 1, top + std::int64_t{geo.kh - 1} * geo.dh));
      };
      // The columns the windows of output columns [w0, w1) cover.
      i.cols = [W, geo](std::int64_t w0, std::int64_t w1) {
        return window_columns(w0, w1, geo.kw, geo.sw, geo.dw, geo.pl, W);
      };
    }
    return in;
  };
  // Rows of a copy shared among up to 16 cores (each is a DMA in and out):
  // in a stream those of its neighbours (stream_copy_cores), else any
  // (copy_cores_of chooses which).
  auto copy_cores = [&](const Value& v, const std::vector<int>& near) {
    std::vector<int> cores = stream_copy_cores(g, e.t, v, g.batch > 1 ? near : std::vector<int>{});
    if (cores.empty()) cores = copy_cores_of(g, e.t, v, std::vector<int>(active.begin(), active.end()));
    return cores;
  };
  // Each pad layer's core reads its input's pointer word once, before its
  // first image (emit_input_copy).
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.val(g.inputs[i]);
    if (g.input_plain[i] == v.buf.addr || g.input_pointer.at(i) < 0) continue;
    for (int c : copy_cores(v, g.consumers(g.inputs[i]))) {
      const std::int64_t word = e.state_word(c);
      e.input_pointer_words[{g.input_pointer[i], c}] = word;
      e.li(c, 10, word);
      e.li(c, 11, g.input_pointer[i]);
      e.li(c, 12, 4);
      e.ins(c, "dma.gl r10, r11, r12");
    }
  }
  for (int c : active) e.image_loop_begin(c);
  const int first_layer = e.layer;
  // Every layer once: the image loop's body (twice with second buffers,
  // the even image's then the odd one's, under the same layer ids).
  auto body = [&] {
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const Value& v = g.val(g.inputs[i]);
      if (g.input_plain[i] == v.buf.addr) continue;
      const std::vector<int> cores = copy_cores(v, g.consumers(g.inputs[i]));
      begin_layer("pad:" + v.name, cores, g.inputs[i], {});
      emit::emit_input_copy(e, cores, v, g.input_plain[i], g.input_pointer.at(i));
      end_layer(cores);
    }
    for (const Node& n : g.nodes) {
      if (n.fused) continue;  // computed by the Conv that feeds it (emit_conv)
      std::vector<emit::Ctx::Input> in;
      int out = n.out[0];
      switch (n.op) {
        case OpKind::Conv:
          // A reader handed its rows (handed_rows.h) hears of them from the
          // writer's slot, not the row hand-over.
          if (n.handed_from < 0) in = window(n.in[0], n.geom);
          out = stored_value(g, n);
          if (const Node* add = fused_residual(g, n))
            for (auto& i : rows(add->in[add->in[1] == n.out[0] ? 0 : 1])) in.push_back(i);
          break;
        case OpKind::MaxPool:
        case OpKind::AveragePool: in = window(n.in[0], n.geom); break;
        case OpKind::Mul:
          in = rows(n.in[0]);
          for (auto& i : rows(n.in[1])) {  // a per-channel gate is its one row
            if (g.val(n.in[1]).shape.h == 1 && g.val(n.in[0]).shape.h > 1)
              i.rows = [](std::int64_t) { return std::make_pair(std::int64_t{0}, std::int64_t{0}); };
            in.push_back(i);
          }
          break;
        case OpKind::MatMul: {  // of two activations: row m of A, every row of B (rows 0..m when causal)
          in = rows(n.in[0]);
          const std::int64_t H = g.val(n.in[1]).shape.h;
          const bool causal = n.causal && emit::matmul_rows_as_needed(g, n);
          // Inside windows: the block of B's rows of output row h's window.
          const std::int64_t W = std::max(1, n.windows), per = g.val(n.out[0]).shape.h / W, block = H / W;
          for (auto& i : rows(n.in[1])) {
            i.rows = [H, causal, W, per, block](std::int64_t h) {
              if (W > 1) return std::make_pair(h / per * block, h / per * block + block - 1);
              return std::make_pair(std::int64_t{0}, causal ? std::min(h, H - 1) : H - 1);
            };
            in.push_back(i);
          }
          break;
        }
        case OpKind::Concat:
          if (!n.gather.empty()) {  // output row h: the input rows its pixels come from
            const Value& x = g.val(n.in[0]);
            const Shape& y = g.val(n.out[0]).shape;
            const std::int64_t per_row = y.w * (y.c / x.shape.c), XW = x.shape.w;
            const std::vector<std::int64_t>* table = &n.gather;
            for (auto& i : rows(n.in[0])) {
              i.rows = [table, per_row, XW](std::int64_t h) {
                std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
                for (std::int64_t k = h * per_row; k < (h + 1) * per_row; ++k) {
                  lo = std::min(lo, (*table)[static_cast<std::size_t>(k)] / XW);
                  hi = std::max(hi, (*table)[static_cast<std::size_t>(k)] / XW);
                }
                return std::make_pair(lo, hi);
              };
              in.push_back(i);
            }
            break;
          }
          if (n.concat_rows) {  // output row h is pixel h - off of the input whose rows hold it
            std::int64_t off = 0;
            for (int v : n.in) {
              const std::int64_t P = g.val(v).shape.h * g.val(v).shape.w, W = g.val(v).shape.w;
              for (auto& i : rows(v)) {
                i.rows = [off, P, W](std::int64_t h) {
                  if (h < off || h >= off + P) return std::make_pair(std::int64_t{1}, std::int64_t{0});  // none
                  return std::make_pair((h - off) / W, (h - off) / W);
                };
                in.push_back(i);
              }
              off += P;
            }
            break;
          }
          for (int v : n.in)
            for (auto& i : rows(v)) in.push_back(i);
          break;
        default:
          for (int v : n.in)
            for (auto& i : rows(v)) in.push_back(i);
      }
      e.node = static_cast<int>(&n - g.nodes.data());
      begin_layer(n.name, n.cores, out, std::move(in));
      switch (n.op) {
        case OpKind::Conv: emit::emit_conv(e, n); break;
        case OpKind::MaxPool:
        case OpKind::AveragePool: emit::emit_pool(e, n); break;
        case OpKind::GlobalAveragePool: emit::emit_global_pool(e, n); break;
        case OpKind::Add: emit::emit_add(e, n); break;
        case OpKind::Relu:
        case OpKind::Clip: emit::emit_unary(e, n); break;
        case OpKind::Mul:
          if (!g.val(n.in[1]).is_const) {
            emit::emit_mul(e, n);
            break;
          }
          emit::emit_rescale(e, n);
          break;
        case OpKind::Concat:
          if (!n.gather.empty()) emit::emit_gather(e, n);
          else if (n.concat_rows) emit::emit_concat_rows(e, n);
          else emit::emit_rescale(e, n);
          break;
        case OpKind::LayerNormalization: emit::emit_layer_norm(e, n); break;
        case OpKind::Softmax: emit::emit_softmax(e, n); break;
        case OpKind::MatMul: emit::emit_matmul(e, n); break;
        default:
          if (op_has(n.op, op_table)) {  // a table (operators.def): emit_unary's vlut
            emit::emit_unary(e, n);
            break;
          }
          // not a chip operator (operators.def): canonicalize removes it
          throw CompileError("emit: node '" + n.name + "' has op " + op_name(n.op));
      }
      end_layer(n.cores);
    }
    for (std::size_t i = 0; i < g.output_area.size(); ++i) {
      const Value& v = g.val(g.outputs[i]);
      const std::vector<int> cores = copy_cores(v, output_writer(g, i));
      begin_layer("out:" + v.name, cores, -1, rows(g.outputs[i]));
      emit::emit_output_copy(e, cores, v, g.output_area[i]);
      end_layer(cores);
    }
  };
  body();
  if (e.twin) {
    for (int c : active) e.image_loop_mid(c);
    e.odd = true;
    e.layer = first_layer;
    body();
    e.odd = false;
  }
  for (int c : active) {
    e.image_loop_end(c);
    e.ins(c, "halt");
  }
  return layers;
}

}  // namespace

// Crossbars of a CU (ascending) as (base, mask) pairs of an xadc or xfmt:
// masks of up to 16 crossbars, each from the lowest not yet covered.
static std::vector<std::pair<int, unsigned>> crossbar_masks(const std::vector<int>& xbars) {
  std::vector<std::pair<int, unsigned>> out;
  for (std::size_t i = 0; i < xbars.size();) {
    const int base = xbars[i];
    unsigned mask = 0;
    for (; i < xbars.size() && xbars[i] < base + 16; ++i) mask |= 1u << (xbars[i] - base);
    out.emplace_back(base, mask);
  }
  return out;
}

// The xadc lines that set core c's calibrated ADC ranges before its first
// instruction.
static std::string adc_range_lines(const std::map<int, int>& ranges, const Target& t, int core) {
  std::map<int, std::vector<int>> by_range;  // range -> crossbars of this core
  const int first = core * t.xbars_per_cu;
  for (auto it = ranges.lower_bound(first); it != ranges.end() && it->first < first + t.xbars_per_cu; ++it)
    by_range[it->second].push_back(it->first - first);
  std::ostringstream out;
  for (const auto& [range, xbars] : by_range)
    for (const auto& [base, mask] : crossbar_masks(xbars))
      out << "    xadc " << base << ", 0x" << std::hex << mask << std::dec << ", " << range
          << "    ; calibrated ADC range: LSB " << (1LL << (range - 1)) << "\n";
  return out.str();
}

// The xfmt lines that set the weight format of core c's crossbars whose
// layer has one other than the chip's (weight_format.cpp).
static std::string format_lines(const Graph& g, const Target& t, int core) {
  std::map<std::pair<int, bool>, std::set<int>> by_format;  // (bits, differential) -> crossbars of this core
  for (const Node& n : g.nodes) {
    if (!op_has(n.op, op_crossbar)) continue;
    const Target::Format fmt = xbar_format(n, t);
    if (fmt == t.format()) continue;
    for (const ColumnTile& ct : n.tiles)
      for (const auto& part : ct.parts)
        if (part.core == core)
          for (int k = 0; k < part.crossbars(); ++k) by_format[{fmt.weight_bits, fmt.differential}].insert(part.crossbar(k));
  }
  std::ostringstream out;
  for (const auto& [fmt, set] : by_format)
    for (const auto& [base, mask] : crossbar_masks(std::vector<int>(set.begin(), set.end())))
      out << "    xfmt " << base << ", 0x" << std::hex << mask << std::dec << ", " << fmt.first << ", "
          << (fmt.second ? "diff" : "offset") << "    ; the layer's weight format\n";
  return out.str();
}

namespace {
std::string preload_data(const Value& v) {
  const std::int64_t H = v.shape.h, W = v.shape.w, C = v.shape.c, pad = v.buf.pad;
  std::vector<std::int8_t> bytes;
  bytes.reserve(static_cast<std::size_t>(v.buf.bytes(v.shape)));
  for (std::int64_t y = -pad; y < H + pad; ++y)
    for (std::int64_t x = -pad; x < W + pad; ++x)
      for (std::int64_t c = 0; c < C; ++c)
        bytes.push_back(y < 0 || y >= H || x < 0 || x >= W ? static_cast<std::int8_t>(v.buf.fill)
                                                           : v.codes[static_cast<std::size_t>((c * H + y) * W + x)]);
  std::ostringstream os;
  os << "; preloaded '" << v.name << "': int8, scale " << v.scale << "\n.data global, " << v.buf.addr;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    os << (i % 32 == 0 ? "\n    .byte " : ", ") << static_cast<int>(bytes[i]);
  os << "\n";
  return os.str();
}
}  // namespace

EmitResult emit_program(const Graph& g, const Target& t, const EmitOptions& opt) {
  // Which cores take part anywhere.
  std::set<int> active;
  for (const Node& n : g.nodes) active.insert(n.cores.begin(), n.cores.end());
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    // (a stream copies its inputs on the CUs that read them: copy_cores)
    if (g.batch == 1 && g.input_plain[i] != g.val(g.inputs[i]).buf.addr) active.insert(0);
  if (active.empty()) throw CompileError("emit: the model has no operators");
  const int count = static_cast<int>(active.size());

  emit::Ctx dry(g, t);
  emit_layers_in_order(dry, active);
  std::vector<ReuseOrder> reuse;
  for (const auto& [r, w] : g.reuse_after) {
    const auto ri = dry.node_layer.find(r), wi = dry.node_layer.find(w);
    if (ri == dry.node_layer.end() || wi == dry.node_layer.end() || ri->second >= wi->second)
      throw CompileError("emit: SRAM reuse between nodes " + std::to_string(r) + " and " + std::to_string(w) +
                         " that are not two layers in program order");
    reuse.push_back({ri->second, wi->second, g.nodes[static_cast<std::size_t>(r)].cores,
                     g.nodes[static_cast<std::size_t>(w)].cores});
  }
  // The values held as rings of rows, by the layer that writes each (a
  // Conv's, or the Add it computes).
  std::map<int, std::pair<std::int64_t, std::int64_t>> rings;
  for (const auto& [node, layer] : dry.node_layer) {
    const Node& n = g.nodes[static_cast<std::size_t>(node)];
    const Value& v = g.val(stored_value(g, n));
    if (v.buf.ring_rows > 0) rings[layer] = {v.buf.ring_rows, v.shape.h};
  }
  if (!rings.empty() && opt.image_releases)
    throw CompileError("emit: rings of rows need row releases (--stream-release rows)");
  // A stream whose tensors have second buffers (plan_memory) runs its image
  // loop twice over, even and odd images; the releases of those tensors
  // wait for the reads of two images back. When the doubled code does not
  // fit a core's instruction memory or scratchpad, the second buffers go
  // unused and the program is emitted once over.
  bool twin = false;
  if (g.batch > 1 && !opt.image_releases)
    for (const Value& v : g.values) twin = twin || v.buf.alt >= 0;
  auto plan_for = [&](bool tw) {
    std::set<int> twins;
    for (const auto& [layer, out] : dry.layer_out)
      if (tw && out >= 0 && g.val(out).buf.alt >= 0) twins.insert(layer);
    return plan_sync(dry.steps, g.batch > 1, reuse, opt.image_releases, rings, twins);
  };
  SyncPlan plan = plan_for(twin);
  // Cores whose parameters and a layer's scratch do not fit take their
  // hand-over tables from global memory, a layer's at a time (a core shared
  // by many layers held all their tables at once), and the program is
  // emitted again.
  auto pass = [&](const std::set<int>& tables_in_memory) {
    auto ctx = std::make_unique<emit::Ctx>(g, t);
    ctx->plan = &plan;
    ctx->twin = twin;
    ctx->tables_in_memory = tables_in_memory;
    ctx->global_data_at = (g.gmem_used + 63) / 64 * 64;
    auto order = emit_layers_in_order(*ctx, active);
    if (ctx->steps != dry.steps) throw CompileError("emit: the two passes disagree on the row steps");
    return std::make_pair(std::move(ctx), std::move(order));
  };
  auto emit_all = [&] {
    auto made = pass(opt.tables_in_memory ? active : std::set<int>{});
    std::set<int> overflow;
    for (const auto& [c, code] : made.first->cores)
      if (code.scratch_top > code.param_bottom) overflow.insert(c);
    if (!overflow.empty() && !opt.tables_in_memory) made = pass(overflow);
    return made;
  };
  // A core's crossbar settings (weight formats, ADC ranges) lead its text.
  auto settings = [&](int c) { return format_lines(g, t, c) + adc_range_lines(opt.adc_ranges, t, c); };
  auto instructions = [](const emit::CoreCode& code, const std::string& lines) {
    return code.instructions + static_cast<std::int64_t>(std::count(lines.begin(), lines.end(), '\n'));
  };
  auto [ctx, layers] = emit_all();
  if (twin) {
    bool fits = true;
    for (const auto& [c, code] : ctx->cores)
      fits = fits && code.scratch_top <= code.param_bottom && instructions(code, settings(c)) <= t.imem_instructions;
    if (!fits) {
      twin = false;
      plan = plan_for(false);
      std::tie(ctx, layers) = emit_all();
    }
  }
  emit::Ctx& e = *ctx;
  if (e.global_data_at > t.gmem_bytes)
    throw CompileError("activations and hand-over tables need " + std::to_string(e.global_data_at) +
                       " bytes of global memory, chip '" + t.name + "' has " + std::to_string(t.gmem_bytes));

  EmitResult res;
  res.cores_used = count;
  res.twin_buffers = twin;
  res.row_tokens = plan.tokens;
  res.node_tokens.assign(g.nodes.size(), 0);
  for (const auto& [node, layer] : dry.node_layer)
    for (int c : g.nodes[static_cast<std::size_t>(node)].cores) {
      const auto it = plan.core_tokens.find({layer, c});
      if (it != plan.core_tokens.end())
        res.node_tokens[static_cast<std::size_t>(node)] = std::max(res.node_tokens[static_cast<std::size_t>(node)], it->second);
    }
  std::string image_path = opt.image_path;
  if (image_path.empty()) {
    image_path = opt.asm_path;
    const auto dot = image_path.find_last_of('.');
    const auto slash = image_path.find_last_of('/');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) image_path.resize(dot);
    image_path += ".xbar";
  }
  std::ofstream img(image_path, std::ios::binary);
  if (!img) throw CompileError("cannot write '" + image_path + "'");
  std::ostringstream cells;
  res.image_bytes = write_image(g, t, img, cells, base_name(image_path), opt.ir_drop_compensate);

  std::ofstream out(opt.asm_path);
  if (!out) throw CompileError("cannot write '" + opt.asm_path + "'");
  out << "; " << g.name << ": compiled by vp-cc for chip '" << t.name << "'\n";
  out << "; row-pipelined, weight-stationary, replicated; activations int8 channels-last in global memory\n";
  out << ".chip clusters=" << t.clusters << ", cus=" << t.cus_per_cluster << ", xbars=" << t.xbars_per_cu
      << ", rows=" << t.rows << ", cols=" << t.cols << ", cell_bits=" << t.cell_bits << "\n";
  for (const auto& [id, name] : layers) out << ".layer " << id << ", \"" << name << "\"\n";
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.val(g.inputs[i]);
    out << "; input '" << v.name << "': int8, scale " << v.scale << ", zero point 0, at " << g.input_plain[i] << "\n";
    if (opt.io_directives)
      out << ".input \"" << v.name << "\", " << g.input_plain[i] << ", " << v.shape.numel() * g.batch << ", \"int8\", "
          << dims_list(v, g.batch)
          << (g.input_pointer[i] >= 0 ? ", indirect=" + std::to_string(g.input_pointer[i]) : "") << "\n";
  }
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const Value& v = g.val(g.outputs[i]);
    out << "; output '" << v.name << "': int8, scale " << v.scale << ", zero point 0, at " << g.output_addr(i)
        << (g.host_softmax[i] ? ", host applies Softmax" : "") << "\n";
    if (opt.io_directives)
      out << ".output \"" << v.name << "\", " << g.output_addr(i) << ", " << v.shape.numel() * g.batch << ", \"int8\", "
          << dims_list(v, g.batch) << "\n";
  }
  // Borders that must read -128 (max pooling over signed values).
  for (const Value& v : g.values)
    if (!v.is_const && !v.preload && v.buf.addr >= 0 && v.buf.fill != 0)
      for (const std::int64_t at : {v.buf.addr, twin ? v.buf.alt : -1})
        if (at >= 0)
          out << ".data global, " << at << "\n    .space " << v.buf.bytes(v.shape) << ", " << (v.buf.fill & 0xff) << "\n";
  // Preloaded maps (a position embedding, a class token): their codes
  // channels-last in their buffers, borders included.
  for (const Value& v : g.values)
    if (v.preload && v.buf.addr >= 0) out << preload_data(v);
  // The words graph inputs are read through (Graph::input_pointer): at the
  // binding, until the firmware points one at an element's bytes.
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    if (g.input_pointer.at(i) >= 0)
      out << ".data global, " << g.input_pointer[i] << "\n    .word " << g.input_plain[i] << "\n";
  out << e.global_data.str();
  for (auto& [c, code] : e.cores) {
    if (code.scratch_top > code.param_bottom)
      throw CompileError("core " + std::to_string(c) + ": scratch buffers (" + std::to_string(code.scratch_top) +
                         " bytes) and parameters (" + std::to_string(t.spad_bytes - code.param_bottom) +
                         " bytes) exceed the " + std::to_string(t.spad_bytes) + "-byte scratchpad");
    if (code.instructions > t.imem_instructions)
      throw CompileError("core " + std::to_string(c) + ": " + std::to_string(code.instructions) +
                         " instructions exceed the instruction memory (" + std::to_string(t.imem_instructions) + ")");
    const std::string ranges = settings(c);
    const std::int64_t total = instructions(code, ranges);
    if (total > t.imem_instructions)
      throw CompileError("core " + std::to_string(c) + ": " + std::to_string(total) +
                         " instructions exceed the instruction memory (" + std::to_string(t.imem_instructions) + ")");
    out << "\n.core " << t.cluster_of(c) << ", " << t.cu_of(c) << "\n" << ranges << code.text.str() << code.data.str();
    res.instructions += total;
  }
  out << "\n; cell programs\n" << cells.str();
  if (!out) throw CompileError("error writing '" + opt.asm_path + "'");
  return res;
}

}  // namespace vp::cc
