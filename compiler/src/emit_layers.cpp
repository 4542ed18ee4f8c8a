// Per-operator code, one function per operator class. Every layer loops over
// output pixels with dbnz (never unrolled per pixel); activations stream
// between global memory and the scratchpad by DMA, and each row waits only
// for the input rows it reads (emit_sync.cpp).
//
// Register use inside a layer: r1..r9 constants of the layer, r10..r14
// temporaries, r20/r23 the row and column counters, r21/r22/r26 row bases and
// r24/r25/r27 the current pixel of up to three tensors; r16..r19, r30, r31
// belong to the row hand-over (emit_sync.cpp).
#include <algorithm>
#include <functional>

#include "emit_context.h"
#include "schedule_cost.h"

namespace vp::cc::emit {
namespace {

struct Ptr {
  std::int64_t base, step_w, step_h;
  bool row_local = false;  // restarts at base on every row (a line buffer): share_loop does not move it
};
constexpr int kCur[4] = {24, 25, 27, 28};
constexpr int kRow[4] = {21, 22, 26, 29};

std::string r(int i) { return "r" + std::to_string(i); }

// for oh < OH: { row(); for ow < OW: body(); } pointers advance by step_w
// per pixel and step_h per row.
using RowHook = std::function<void(std::int64_t OW)>;
// Rows are steps of the row hand-over (emit_sync.cpp): each waits for the
// input rows it reads and, once its pixels are stored, tells their readers.
// h0 is the output row of the first iteration, each next one `hstep` rows on.
template <class Body>
void pixel_loop(Ctx& e, int c, std::int64_t h0, std::int64_t OH, std::int64_t OW, const std::vector<Ptr>& p,
                Body body, const RowHook& row = {}, std::int64_t hstep = 1) {
  e.sync_rows(c, h0, OH, hstep);
  for (std::size_t k = 0; k < p.size(); ++k) e.li(c, kRow[k], p[k].base);
  e.li(c, 20, OH);
  const std::string rows = e.label(c, "row");
  e.put_label(c, rows);
  e.sync_pre(c);
  e.li(c, 23, OW);
  for (std::size_t k = 0; k < p.size(); ++k) e.ins(c, "add " + r(kCur[k]) + ", " + r(kRow[k]) + ", r0");
  if (row) row(OW);
  const std::string cols = e.label(c, "col");
  e.put_label(c, cols);
  body();
  for (std::size_t k = 0; k < p.size(); ++k)
    if (p[k].step_w) e.ins(c, "addi " + r(kCur[k]) + ", " + r(kCur[k]) + ", " + std::to_string(p[k].step_w));
  e.ins(c, "dbnz r23, " + cols);
  e.sync_post(c);
  for (std::size_t k = 0; k < p.size(); ++k)
    if (p[k].step_h)
      e.ins(c, "addi " + r(kRow[k]) + ", " + r(kRow[k]) + ", " + std::to_string(p[k].step_h * hstep));
  e.ins(c, "dbnz r20, " + rows);
}

// The share of copy r of R (emit_conv) or of the r-th of R cores of an
// OH x OW map, chosen so that all copies work down the map at once and rows
// complete in order (a reader of row h waits for about h rows' worth of one
// copy's part, not for a whole copy's block of rows): the columns are cut
// into S strips of at least kMinStrip pixels (fewer, wider strips keep the
// windows' overlap and the hand-over's tokens small), and each strip's rows
// are dealt to R/S copies in turn (copies past S * (R/S) get nothing).
constexpr std::int64_t kMinStrip = 8, kStripRows = 2;
template <class Body>
void share_loop(Ctx& e, int c, std::int64_t OH, std::int64_t OW, int r, int R, const std::vector<Ptr>& p, Body body,
                const RowHook& row = {}) {
  if (OH * OW < kStripRows * OW * R) {
    // A few rows per copy: contiguous blocks [P*r/R, P*(r+1)/R) of pixels
    // (partial rows included) keep the rows per copy, and with them the row
    // loads and hand-over steps, fewest.
    const std::int64_t P = OH * OW, i0 = P * r / R, i1 = P * (r + 1) / R;
    auto seg = [&](std::int64_t h, std::int64_t w, std::int64_t rows, std::int64_t cols) {
      if (rows <= 0 || cols <= 0) return;
      std::vector<Ptr> q = p;
      for (Ptr& x : q)
        if (!x.row_local) x.base += h * x.step_h + w * x.step_w;
      pixel_loop(e, c, h, rows, cols, q, body, row);
    };
    std::int64_t h0 = i0 / OW, w0 = i0 % OW;
    const std::int64_t h1 = i1 / OW, w1 = i1 % OW;
    if (h0 == h1) return seg(h0, w0, 1, w1 - w0);
    if (w0 > 0) {
      seg(h0, w0, 1, OW - w0);
      ++h0;
    }
    seg(h0, 0, h1 - h0, OW);
    seg(h1, 0, 1, w1);
    return;
  }
  const std::int64_t S = std::max<std::int64_t>(1, std::min<std::int64_t>(R, OW / kMinStrip));
  const std::int64_t groups = R / S, strip = r % S, group = r / S;
  if (group >= groups) return;
  const std::int64_t w0 = OW * strip / S, w1 = OW * (strip + 1) / S;
  const std::int64_t rows = (OH - group + groups - 1) / groups;
  if (rows <= 0 || w1 <= w0) return;
  std::vector<Ptr> q = p;
  for (Ptr& x : q)
    if (!x.row_local) x.base += group * x.step_h + w0 * x.step_w;
  pixel_loop(e, c, group, rows, w1 - w0, q, body, row, groups);
}

// Index of core c among the node's cores (its share of the work).
int share_of(const Node& n, int c) {
  return static_cast<int>(std::find(n.cores.begin(), n.cores.end(), c) - n.cores.begin());
}

// DMA the window at global address in register `src` into scratch `dst`.
void gather(Ctx& e, int c, int src, std::int64_t dst, const std::vector<Segment>& segs) {
  for (const auto& s : segs) {
    e.ins(c, "addi r10, " + r(src) + ", " + std::to_string(s.gofs));
    e.li(c, 11, dst + s.lofs);
    e.li(c, 12, s.len);
    e.ins(c, "dma.gl r11, r10, r12");
  }
}

void clamp_out(Ctx& e, int c, const Node& n, int reg_buf, int reg_n) {
  if (n.q.lo == -128 && n.q.hi == 127) return;
  if (n.q.lo == 0 && n.q.hi == 127)
    e.ins(c, "vrelu " + r(reg_buf) + ", " + r(reg_buf) + ", " + r(reg_n) + ", i8");
  else
    e.ins(c, "vclamp " + r(reg_buf) + ", " + r(reg_buf) + ", " + r(reg_n) + ", " + std::to_string(n.q.lo) + ", " +
                 std::to_string(n.q.hi) + ", i8");
}

std::int64_t mask_of(int n) { return (std::int64_t{1} << n) - 1; }

// Origin (top-left window pixel, may be in the border) of output (0, 0).
std::int64_t window_origin(const Value& in, const ConvGeom& g) {
  const std::int64_t wp = in.buf.wp(in.shape), C = in.shape.c;
  return in.buf.addr + ((in.buf.pad - g.pt) * wp + (in.buf.pad - g.pl)) * C;
}
std::int64_t interior(const Value& v) {
  return v.buf.addr + (std::int64_t{v.buf.pad} * v.buf.wp(v.shape) + v.buf.pad) * v.shape.c;
}

// Largest chunk of a channels-last row (W pixels of C) that divides it and
// keeps `per_elem` scratch bytes per element under the budget.
std::int64_t row_chunk(const Ctx& e, std::int64_t W, std::int64_t C, std::int64_t per_elem, const std::string& who) {
  const std::int64_t budget = e.t.spad_bytes / 2 / per_elem;
  for (std::int64_t d = W; d >= 1; --d)
    if (W % d == 0 && d * C <= budget) return d * C;
  for (std::int64_t d = C; d >= 1; --d)
    if (C % d == 0 && d <= budget && d >= 16) return d;
  throw CompileError("node '" + who + "': no chunk of its rows fits the scratchpad");
}

}  // namespace

std::vector<Segment> window_segments(const ConvGeom& geom, std::int64_t C, std::int64_t wp, int ci0, int ci1) {
  std::vector<Segment> segs;
  const std::int64_t len = ci1 - ci0;
  for (int y = 0; y < geom.kh; ++y)
    for (int x = 0; x < geom.kw; ++x) {
      const Segment s{(std::int64_t{y} * geom.dh * wp + std::int64_t{x} * geom.dw) * C + ci0,
                      (std::int64_t{y} * geom.kw + x) * len, len};
      if (!segs.empty() && segs.back().gofs + segs.back().len == s.gofs && segs.back().lofs + segs.back().len == s.lofs)
        segs.back().len += len;
      else
        segs.push_back(s);
    }
  return segs;
}

namespace {

// A core's line buffer for a convolution: kh rows of the input, each the
// span the widest output row of the share reads, at a fixed stride.
struct LineBuffer {
  std::int64_t at = -1;       // scratchpad address, -1: gather windows from global memory
  std::int64_t stride = 0;    // bytes between buffered rows
  std::int64_t C = 0, sw = 1;
  ConvGeom geom;
  // Bytes of one input row that `cols` consecutive output pixels read.
  std::int64_t span(std::int64_t cols) const { return ((cols - 1) * sw + std::int64_t{geom.kw - 1} * geom.dw + 1) * C; }
  // The window of a column tile in the buffer (gofs from the current pixel's
  // column in row 0) and in the patch.
  std::vector<Segment> segments(std::int64_t ci0, std::int64_t ci1) const {
    std::vector<Segment> segs;
    const std::int64_t len = ci1 - ci0;
    for (int y = 0; y < geom.kh; ++y)
      for (int x = 0; x < geom.kw; ++x) {
        const Segment s{y * stride + std::int64_t{x} * geom.dw * C + ci0, (std::int64_t{y} * geom.kw + x) * len, len};
        if (x > 0 && segs.back().gofs + segs.back().len == s.gofs && segs.back().lofs + segs.back().len == s.lofs)
          segs.back().len += len;
        else
          segs.push_back(s);
      }
    return segs;
  }
};

// Used when the cost model's use_line_buffer() says so.
LineBuffer line_buffer(Ctx& e, int c, const Node& n, const Value& in, const Value& out) {
  LineBuffer lb;
  lb.C = in.shape.c;
  lb.sw = n.geom.sw;
  lb.geom = n.geom;
  if (!use_line_buffer(n.geom, in.shape, out.shape, e.t.spad_bytes, nullptr)) return lb;
  lb.stride = (lb.span(out.shape.w) + 7) / 8 * 8;
  lb.at = e.scratch(c, lb.stride * n.geom.kh);
  return lb;
}

// The row hook that fills the line buffer: kh DMAs from the row of the
// current output row's first window (register r21).
RowHook line_rows(Ctx& e, int c, const Node& n, const LineBuffer& lb, std::int64_t wp) {
  return [&e, c, &n, lb, wp](std::int64_t cols) {
    e.li(c, 12, lb.span(cols));
    for (int y = 0; y < n.geom.kh; ++y) {
      e.ins(c, "addi r10, r21, " + std::to_string(std::int64_t{y} * n.geom.dh * wp * lb.C));
      e.li(c, 11, lb.at + y * lb.stride);
      e.ins(c, "dma.gl r11, r10, r12");
    }
  };
}

// The current pixel's window from the line buffer (walked by register
// `reg`) into scratch `dst`.
void line_window(Ctx& e, int c, int reg, std::int64_t dst, const std::vector<Segment>& segs) {
  for (const Segment& s : segs) {
    e.ins(c, "addi r10, " + r(reg) + ", " + std::to_string(s.gofs));
    e.li(c, 11, dst + s.lofs);
    e.li(c, 12, s.len);
    e.ins(c, "vmov r11, r10, r12, i8");
  }
}

}  // namespace

void emit_conv(Ctx& e, const Node& n) {
  const Value& in = e.g.val(n.in[0]);
  // With a fused residual Add the pixels go to the Add's output.
  const Node* add = n.fused_add >= 0 ? &e.g.nodes[static_cast<std::size_t>(n.fused_add)] : nullptr;
  const Value& out = e.g.val(add ? add->out[0] : n.out[0]);
  const int mine_side = add && add->in[1] == n.out[0] ? 1 : 0;  // which Add input this Conv is
  const Value* other = add ? &e.g.val(add->in[static_cast<std::size_t>(1 - mine_side)]) : nullptr;
  const std::int64_t C = in.shape.c, wp = in.buf.wp(in.shape), Cout = out.shape.c;
  const int L = e.t.lcols(), R = e.t.rows;
  const Ptr pin{window_origin(in, n.geom), n.geom.sw * C, n.geom.sh * wp * C};
  const Ptr pout{interior(out), Cout, out.buf.wp(out.shape) * Cout};
  for (int c : n.cores) {
    e.scratch_reset(c);
    // This core's role: whole tiles it owns, the first part of a split tile
    // (owner, receives partial sums) or a later part (helper, sends them).
    std::vector<const ColumnTile*> whole;
    const ColumnTile* split = nullptr;
    const ColumnTile::Part* helper = nullptr;
    int copy = 0;
    for (const auto& ct : n.tiles)
      for (const auto& p : ct.parts)
        if (p.core == c) copy = ct.copy;
    for (const auto& ct : n.tiles) {
      if (ct.parts.size() == 1 && ct.parts[0].core == c) whole.push_back(&ct);
      if (ct.parts.size() > 1 && ct.parts[0].core == c) split = &ct;
      for (std::size_t p = 1; p < ct.parts.size(); ++p)
        if (ct.parts[p].core == c) {
          split = &ct;
          helper = &ct.parts[p];
        }
    }
    std::vector<const ColumnTile*> mine = split ? std::vector<const ColumnTile*>{split} : whole;
    // Patch buffers, one per distinct input-channel range, zeroed once so
    // rows past K read 0.
    std::vector<std::int64_t> patch(mine.size());
    std::vector<std::vector<Segment>> segs(mine.size());
    e.li(c, 9, 0);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      std::size_t same = i;
      for (std::size_t j = 0; j < i; ++j)
        if (mine[j]->ci0 == mine[i]->ci0 && mine[j]->ci1 == mine[i]->ci1) same = j;
      if (same != i) {
        patch[i] = patch[same];
        continue;
      }
      const std::int64_t rt = (mine[i]->k + R - 1) / R;
      patch[i] = e.scratch(c, rt * R);
      segs[i] = window_segments(n.geom, C, wp, mine[i]->ci0, mine[i]->ci1);
      e.li(c, 10, patch[i]);
      e.li(c, 11, rt * R);
      e.ins(c, "vfill r10, r9, r11, i8");
    }
    const std::int64_t ncols = [&] {
      std::int64_t s = 0;
      for (auto* ct : mine) s += ct->ncols;
      return s;
    }();
    const std::int64_t acc = e.scratch(c, static_cast<std::int64_t>(mine.size()) * L * 4);
    e.li(c, 6, std::int64_t{L} * 4);
    // Line buffer: at the start of each output row (of this core's share)
    // the kh input rows its windows cover come in with one DMA each; the
    // windows are then assembled in the scratchpad (vmov) instead of one
    // DMA per window row and pixel. The last pointer register walks the buffer.
    const LineBuffer lb = line_buffer(e, c, n, in, out);
    std::vector<Ptr> ptrs{pin};
    if (!helper) ptrs.push_back(pout);
    RowHook rows_in;
    const int lb_reg = kCur[ptrs.size()];
    if (lb.at >= 0) {
      ptrs.push_back({lb.at, n.geom.sw * C, 0, true});
      rows_in = line_rows(e, c, n, lb, wp);
    }
    auto fill_patch = [&](std::size_t i) {
      if (lb.at < 0) return gather(e, c, kCur[0], patch[i], segs[i]);
      line_window(e, c, lb_reg, patch[i], lb.segments(mine[i]->ci0, mine[i]->ci1));
    };
    if (helper) {
      e.writes = false;  // its partial sums go to the owner, which stores the pixels
      e.li(c, 8, split->parts[0].core);
      share_loop(e, c, out.shape.h, out.shape.w, copy, n.replicas, ptrs, [&] {
        fill_patch(0);
        e.li(c, 1, acc);
        e.li(c, 14, patch[0] + std::int64_t{helper->row_tile0} * R);
        e.ins(c, "mvm r1, r14, " + std::to_string(helper->xbar0) + ", " + std::to_string(mask_of(helper->row_tiles)) +
                     ", 8, 32, sum, 0");
        e.ins(c, "send r1, r6, r8, " + std::to_string(e.tag()));
      }, rows_in);
      e.writes = true;
      continue;
    }
    // Owner: bias, requantization pairs, output buffer.
    std::vector<std::int32_t> bias, rq;
    for (auto* ct : mine)
      for (int k = ct->n0; k < ct->n0 + ct->ncols; ++k) {
        bias.push_back(n.q.bias[static_cast<std::size_t>(k)]);
        rq.push_back(n.q.mult[static_cast<std::size_t>(k)]);
        rq.push_back(n.q.shift[static_cast<std::size_t>(k)]);
      }
    const std::int64_t bias_at = e.words(c, bias), rq_at = e.words(c, rq);
    const std::int64_t outb = e.scratch(c, ncols), outb2 = e.scratch(c, ncols);
    e.li(c, 15, outb ^ outb2);
    const std::int64_t res = add ? e.scratch(c, ncols) : 0, res32 = add ? e.scratch(c, 4 * ncols) : 0;
    int res_reg = -1;
    if (add) {
      res_reg = kCur[ptrs.size()];
      ptrs.push_back({interior(*other), Cout, other->buf.wp(other->shape) * Cout});
    }
    const std::int64_t part = split ? e.scratch(c, std::int64_t{L} * 4) : 0;
    e.li(c, 1, acc);
    e.li(c, 2, ncols);
    e.li(c, 3, bias_at);
    e.li(c, 4, outb);
    e.li(c, 5, rq_at);
    e.li(c, 7, part);
    bool one_group = !split && mine.size() <= 16;
    for (std::size_t i = 0; i < mine.size(); ++i) one_group = one_group && mine[i]->k <= R && patch[i] == patch[0] &&
                  mine[i]->parts[0].xbar0 == mine[0]->parts[0].xbar0 + static_cast<int>(i);
    share_loop(e, c, out.shape.h, out.shape.w, copy, n.replicas, ptrs, [&] {
      for (std::size_t i = 0; i < mine.size(); ++i)
        if (!segs[i].empty()) fill_patch(i);
      if (one_group) {
        e.li(c, 14, patch[0]);
        e.ins(c, "mvm r1, r14, " + std::to_string(mine[0]->parts[0].xbar0) + ", " +
                     std::to_string(mask_of(static_cast<int>(mine.size()))) + ", 8, 32, concat, 0");
      } else {
        for (std::size_t i = 0; i < mine.size(); ++i) {
          const auto& p0 = mine[i]->parts[0];
          e.li(c, 13, acc + static_cast<std::int64_t>(i) * L * 4);
          e.li(c, 14, patch[i]);
          e.ins(c, "mvm r13, r14, " + std::to_string(p0.xbar0) + ", " + std::to_string(mask_of(p0.row_tiles)) +
                       ", 8, 32, sum, 0");
        }
      }
      if (split) {
        e.li(c, 12, L);
        for (std::size_t p = 1; p < split->parts.size(); ++p) {
          e.li(c, 8, split->parts[p].core);
          e.ins(c, "recv r7, r6, r8, " + std::to_string(e.tag()));
          e.ins(c, "vadd r1, r1, r7, r12, i32");
        }
      }
      e.ins(c, "vadd r1, r1, r3, r2, i32");
      e.ins(c, "vrq r4, r1, r2, r5, 0");
      clamp_out(e, c, n, 4, 2);
      if (add) {
        // The Add as emit_add computes it: both inputs widened, scaled by
        // their multipliers, summed, requantized, clamped.
        e.ins(c, "addi r10, " + r(res_reg) + ", " + std::to_string(mine[0]->n0));
        e.li(c, 11, res);
        e.ins(c, "dma.gl r11, r10, r2");
        e.li(c, 13, res32);
        e.ins(c, "vwiden r1, r4, r2");
        e.ins(c, "vwiden r13, r11, r2");
        e.li(c, 12, add->q.mult[static_cast<std::size_t>(mine_side)]);
        e.ins(c, "vmuls r1, r1, r12, r2, i32");
        e.li(c, 12, add->q.mult[static_cast<std::size_t>(1 - mine_side)]);
        e.ins(c, "vmuls r13, r13, r12, r2, i32");
        e.ins(c, "vadd r1, r1, r13, r2, i32");
        e.li(c, 12, 1);
        e.ins(c, "vrqs r4, r1, r2, r12, " + std::to_string(add->q.shift[0]) + ", 0");
        clamp_out(e, c, *add, 4, 2);
      }
      e.ins(c, "addi r10, r25, " + std::to_string(mine[0]->n0));
      e.ins(c, "dma.lg r10, r4, r2");
      // Two output buffers in turn: the store overlaps the next pixel.
      e.ins(c, "xor r4, r4, r15");
    }, rows_in);
  }
}

void emit_pool(Ctx& e, const Node& n) {
  const Value& in = e.g.val(n.in[0]);
  const Value& out = e.g.val(n.out[0]);
  const std::int64_t C = in.shape.c, wp = in.buf.wp(in.shape);
  for (int c : n.cores) {
    const bool max = n.op == OpKind::MaxPool;
    e.scratch_reset(c);
    const std::int64_t k = std::int64_t{n.geom.kh} * n.geom.kw;
    const std::int64_t win = e.scratch(c, k * C), outb = e.scratch(c, C), outb2 = e.scratch(c, C),
                       acc = max ? 0 : e.scratch(c, 4 * C);
    const auto segs = window_segments(n.geom, C, wp, 0, static_cast<int>(C));
    // Line buffer as for a convolution (emit_conv), when it fits.
    const LineBuffer lb = line_buffer(e, c, n, in, out);
    e.li(c, 1, win);
    e.li(c, 2, C);
    e.li(c, 3, k);
    e.li(c, 4, outb);
    e.li(c, 5, acc);
    e.li(c, 15, outb ^ outb2);
    if (!max) e.li(c, 9, n.q.mult[0]);
    const Ptr pin{window_origin(in, n.geom), n.geom.sw * C, n.geom.sh * wp * C};
    const Ptr pout{interior(out), C, out.buf.wp(out.shape) * C};
    std::vector<Ptr> ptrs{pin, pout};
    RowHook rows_in;
    if (lb.at >= 0) {
      ptrs.push_back({lb.at, n.geom.sw * C, 0, true});
      rows_in = line_rows(e, c, n, lb, wp);
    }
    const auto lsegs = lb.segments(0, C);
    share_loop(e, c, out.shape.h, out.shape.w, share_of(n, c), n.replicas, ptrs, [&] {
      if (lb.at >= 0) line_window(e, c, kCur[2], win, lsegs);
      else gather(e, c, kCur[0], win, segs);
      if (max) {
        e.ins(c, "vpmax r4, r1, r2, r3, r2, i8");
      } else {
        e.ins(c, "vpsum r5, r1, r2, r3, r2, i8");
        e.ins(c, "vrqs r4, r5, r2, r9, " + std::to_string(n.q.shift[0]) + ", 0");
      }
      e.ins(c, "dma.lg r25, r4, r2");
      e.ins(c, "xor r4, r4, r15");
    }, rows_in);
  }
}

void emit_global_pool(Ctx& e, const Node& n) {
  const Value& in = e.g.val(n.in[0]);
  const Value& out = e.g.val(n.out[0]);
  const std::int64_t C = in.shape.c, W = in.shape.w;
  const int c = n.cores[0];
  e.scratch_reset(c);
  if (W * C + 9 * C > e.t.spad_bytes / 2)
    throw CompileError("node '" + n.name + "': a " + std::to_string(W) + "x" + std::to_string(C) +
                       " row does not fit the scratchpad");
  const std::int64_t row = e.scratch(c, W * C), tmp = e.scratch(c, 4 * C), acc = e.scratch(c, 4 * C),
                     outb = e.scratch(c, C);
  e.li(c, 1, row);
  e.li(c, 2, C);
  e.li(c, 3, W);
  e.li(c, 4, tmp);
  e.li(c, 5, acc);
  e.li(c, 6, outb);
  e.li(c, 7, W * C);
  e.li(c, 9, n.q.mult[0]);
  e.ins(c, "vfill r5, r0, r2, i32");
  // The loop's steps are the input rows, read one by one; the output is one
  // more step, after the loop, that reads nothing new.
  e.writes = false;
  pixel_loop(e, c, 0, in.shape.h, 1, {{interior(in), 0, in.buf.wp(in.shape) * C}}, [&] {
    e.ins(c, "dma.gl r1, r24, r7");
    e.ins(c, "vpsum r4, r1, r2, r3, r2, i8");
    e.ins(c, "vadd r5, r5, r4, r2, i32");
  });
  e.writes = true;
  for (auto& i : e.inputs) i.rows = [](std::int64_t) { return std::make_pair(std::int64_t{0}, std::int64_t{-1}); };
  e.sync_rows(c, 0, 1);
  e.sync_pre(c);
  e.ins(c, "vrqs r6, r5, r2, r9, " + std::to_string(n.q.shift[0]) + ", 0");
  e.li(c, 10, interior(out));
  e.ins(c, "dma.lg r10, r6, r2");
  e.sync_post(c);
}

void emit_add(Ctx& e, const Node& n) {
  const Value& a = e.g.val(n.in[0]);
  const Value& b = e.g.val(n.in[1]);
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t C = y.shape.c, W = y.shape.w;
  for (int c : n.cores) {
    e.scratch_reset(c);
    const std::int64_t E = row_chunk(e, W, C, 11, n.name);
    const std::int64_t A = e.scratch(c, E), B = e.scratch(c, E), A32 = e.scratch(c, 4 * E), B32 = e.scratch(c, 4 * E),
                       O = e.scratch(c, E);
    e.li(c, 1, A);
    e.li(c, 2, B);
    e.li(c, 3, A32);
    e.li(c, 4, B32);
    e.li(c, 5, O);
    e.li(c, 6, E);
    e.li(c, 7, n.q.mult[0]);
    e.li(c, 8, n.q.mult[1]);
    e.li(c, 9, 1);
    share_loop(e, c, y.shape.h, 1, share_of(n, c), n.replicas,
               {{interior(a), 0, a.buf.wp(a.shape) * C}, {interior(b), 0, b.buf.wp(b.shape) * C},
                {interior(y), 0, y.buf.wp(y.shape) * C}},
               [&] {
                 for (std::int64_t off = 0; off < W * C; off += E) {
                   e.ins(c, "addi r10, r24, " + std::to_string(off));
                   e.ins(c, "dma.gl r1, r10, r6");
                   e.ins(c, "addi r11, r25, " + std::to_string(off));
                   e.ins(c, "dma.gl r2, r11, r6");
                   e.ins(c, "vwiden r3, r1, r6");
                   e.ins(c, "vwiden r4, r2, r6");
                   e.ins(c, "vmuls r3, r3, r7, r6, i32");
                   e.ins(c, "vmuls r4, r4, r8, r6, i32");
                   e.ins(c, "vadd r3, r3, r4, r6, i32");
                   e.ins(c, "vrqs r5, r3, r6, r9, " + std::to_string(n.q.shift[0]) + ", 0");
                   clamp_out(e, c, n, 5, 6);
                   e.ins(c, "addi r12, r27, " + std::to_string(off));
                   e.ins(c, "dma.lg r12, r5, r6");
                 }
               });
  }
}

void emit_unary(Ctx& e, const Node& n) {
  const Value& x = e.g.val(n.in[0]);
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t C = y.shape.c, W = y.shape.w;
  for (int c : n.cores) {
    e.scratch_reset(c);
    const std::int64_t E = row_chunk(e, W, C, 1, n.name);
    const std::int64_t buf = e.scratch(c, E);
    e.li(c, 1, buf);
    e.li(c, 6, E);
    if (op_has(n.op, op_table)) e.li(c, 2, e.bytes(c, n.q.lut));
    share_loop(e, c, y.shape.h, 1, share_of(n, c), n.replicas,
               {{interior(x), 0, x.buf.wp(x.shape) * C}, {interior(y), 0, y.buf.wp(y.shape) * C}},
               [&] {
                 for (std::int64_t off = 0; off < W * C; off += E) {
                   e.ins(c, "addi r10, r24, " + std::to_string(off));
                   e.ins(c, "dma.gl r1, r10, r6");
                   if (op_has(n.op, op_table)) e.ins(c, "vlut r1, r1, r6, r2");
                   else clamp_out(e, c, n, 1, 6);
                   e.ins(c, "addi r11, r25, " + std::to_string(off));
                   e.ins(c, "dma.lg r11, r1, r6");
                 }
               });
  }
}

void emit_rescale(Ctx& e, const Node& n) {
  const Value& y = e.g.val(n.out[0]);
  for (int c : n.cores) {
    const std::int64_t Cy = y.shape.c;
    // Mul: one input, per-channel pairs; Concat: each input at its channel
    // offset with its own (M, S).
    const std::size_t inputs = n.op == OpKind::Concat ? n.in.size() : 1;
    std::int64_t coff = 0;
    for (std::size_t k = 0; k < inputs; ++k) {
      const Value& x = e.g.val(n.in[k]);
      const std::int64_t C = x.shape.c;
      e.scratch_reset(c);
      const std::int64_t in = e.scratch(c, C), x32 = e.scratch(c, 4 * C), o = e.scratch(c, C);
      std::vector<std::int32_t> rq;
      for (std::int64_t ch = 0; ch < C; ++ch) {
        const std::size_t i = n.op == OpKind::Concat ? k : (n.q.mult.size() == 1 ? 0 : static_cast<std::size_t>(ch));
        rq.push_back(n.q.mult[i]);
        rq.push_back(n.q.shift[i]);
      }
      e.li(c, 1, in);
      e.li(c, 2, C);
      e.li(c, 3, x32);
      e.li(c, 4, o);
      e.li(c, 5, e.words(c, rq));
      share_loop(e, c, y.shape.h, y.shape.w, share_of(n, c), n.replicas,
                 {{interior(x), C, x.buf.wp(x.shape) * C}, {interior(y) + coff, Cy, y.buf.wp(y.shape) * Cy}},
                 [&] {
                   e.ins(c, "dma.gl r1, r24, r2");
                   e.ins(c, "vwiden r3, r1, r2");
                   e.ins(c, "vrq r4, r3, r2, r5, 0");
                   e.ins(c, "dma.lg r25, r4, r2");
                 });
      coff += C;
    }
  }
}

void emit_input_copy(Ctx& e, const std::vector<int>& cores, const Value& v, std::int64_t plain) {
  const std::int64_t C = v.shape.c, W = v.shape.w;
  const int R = static_cast<int>(cores.size());
  for (int r = 0; r < R; ++r) {
    const int c = cores[static_cast<std::size_t>(r)];
    e.scratch_reset(c);
    const std::int64_t E = row_chunk(e, W, C, 1, v.name);
    const std::int64_t buf = e.scratch(c, E);
    e.li(c, 1, buf);
    e.li(c, 6, E);
    share_loop(e, c, v.shape.h, 1, r, R, {{plain, 0, W * C}, {interior(v), 0, v.buf.wp(v.shape) * C}}, [&] {
      for (std::int64_t off = 0; off < W * C; off += E) {
        e.ins(c, "addi r10, r24, " + std::to_string(off));
        e.ins(c, "dma.gl r1, r10, r6");
        e.ins(c, "addi r11, r25, " + std::to_string(off));
        e.ins(c, "dma.lg r11, r1, r6");
      }
    });
  }
}

}  // namespace vp::cc::emit
