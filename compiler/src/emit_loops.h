// The loops every layer's code is built from (emit_layers.cpp,
// emit_conv.cpp): pixel and row loops over a core's share of an output map,
// window gathers, line buffers and the small helpers they share.
//
// Register use inside a layer: r1..r9 constants of the layer, r10..r14
// temporaries, r20/r23 the row and column counters, r21/r22/r26 row bases and
// r24/r25/r27 the current pixel of up to three tensors; r16..r19, r30, r31
// belong to the row hand-over (emit_sync.cpp); r28, r29 are a MatMul's
// (emit_matmul.cpp). Rows ahead (RowsAhead) take r13 and r14 at a row's
// top, before its body, and a Conv with grouped lanes keeps its residual
// row's half in r15 (a single lane's output buffers take turns in it).
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "emit_context.h"
#include "schedule_cost.h"

namespace vp::cc::emit {


struct Ptr {
  std::int64_t base, step_w, step_h;
  bool row_local = false;  // restarts at base on every row (a line buffer): share_loop does not move it
  std::int64_t image_stride = 0;  // bytes between images (a stream's host areas): base moves with the image
  // A ring of rows (Buffer::ring_rows): the pointer stays in [ring_lo,
  // ring_lo + ring_bytes), row h at row h mod the ring's rows.
  std::int64_t ring_lo = 0, ring_bytes = 0;
  // A buffer whose address the program learns when it runs (an input read
  // in place): the scratchpad word holding it, and the address `base` is
  // counted from (base - indirect_origin is the offset into the buffer).
  std::int64_t indirect_word = -1, indirect_origin = 0;
};
// p over value v, wrapping in v's ring if it has one (past its border rows).
inline Ptr over(Ptr p, const Value& v) {
  if (v.buf.ring_rows > 0) {
    p.ring_lo = v.buf.ring_lo(v.shape);
    p.ring_bytes = v.buf.ring_rows * v.buf.row(v.shape);
  }
  return p;
}
// Pointers of a pixel loop: the running one per pixel (kCur) and the row's
// start (kRow). Past the fourth they take registers the other loops' bodies
// use (r6-r9, r11-r14); only a Concat's body, which keeps to r1-r5 and r10,
// walks more than four (emit_concat_pixels).
inline constexpr int kCur[8] = {24, 25, 27, 28, 6, 8, 11, 13};
inline constexpr int kRow[8] = {21, 22, 26, 29, 7, 9, 12, 14};

inline std::string r(int i) { return "r" + std::to_string(i); }

// for oh < OH: { row(); for ow < OW: body(); } pointers advance by step_w
// per pixel and step_h per row.
// The hook runs at the start of every row of a loop of `rows` rows, `hstep`
// output rows apart, `cols` pixels each (r20 counts the rows down from `rows`).
using RowHook = std::function<void(std::int64_t cols, std::int64_t rows, std::int64_t hstep)>;
// Rows ahead: a line buffer in two halves. Row 0's tokens are taken and its
// rows loaded before the loop; at the top of each row but the last the next
// row's tokens are taken and `load_next(cols, hstep)` brings its rows into
// the other half (its address in r14, the next row's first input row in
// r13, the current half at the buffer pointer's row register), so the
// loads run while this row computes instead of before it. The pointer's
// row register swaps halves at each row's end.
struct RowsAhead {
  int ptr = -1;                // index of the line buffer's pointer in the loop's pointers
  std::int64_t a = 0, b = 0;   // the two halves
  std::function<void(std::int64_t cols, std::int64_t hstep)> load_next;
  // More buffers in two halves, each walked by a register of its own that
  // holds the current half: set to `a` before the loop, swapped at each
  // row's end. `first(cols)` loads row 0 into their first halves.
  struct Swap {
    int reg;
    std::int64_t a, b;
  };
  std::vector<Swap> swaps;
  std::function<void(std::int64_t cols)> first;
  // The row's end held back: each row's DMA wait and tokens (and the next
  // row's tokens and loads) go once the next row's first MVMs are fired
  // (Ctx::row_mid), so that the row's last stores complete under them
  // instead of before them; the last row's end after the loop. Only for a
  // body that calls Ctx::row_mid (emit_conv).
  bool late = false;
};
// Rows are steps of the row hand-over (emit_sync.cpp): each waits for the
// input rows it reads and, once its pixels are stored, tells their readers.
// h0 is the output row of the first iteration, each next one `hstep` rows on.
// A body takes the number of pixels it computes at once (lanes, emit_conv)
// or none (one pixel).
// A body in two halves, software-pipelined along a row (emit_conv):
// fire(s, k) assembles the windows of a group of k pixels into buffer set s
// and fires their MVMs; finish(s, k, moved) completes a group from set s,
// `moved` when the pointers are already one group on. The row runs
// fire(0), then fire(j % 2) finish((j - 1) % 2) for every next group, then
// the last finish: each group's vector work and stores overlap the next
// group's MVMs (the crossbars and the vector unit are separate units; the
// scoreboard orders the two buffer sets).
template <class Fire, class Finish>
struct Pipelined {
  Fire fire;
  Finish finish;
};
template <class T>
struct is_pipelined : std::false_type {};
template <class Fire, class Finish>
struct is_pipelined<Pipelined<Fire, Finish>> : std::true_type {};

template <class Body>
inline void run_body(Body& body, int k) {
  if constexpr (std::is_invocable_v<Body&, int>)
    body(k);
  else
    body();
}

// A row address in register `reg` past p's ring's last row: back to its
// first (r16 a temporary).
inline void wrap_ring(Ctx& e, int c, int reg, const Ptr& p) {
  if (!p.ring_bytes) return;
  const std::string in = e.label(c, "ring");
  e.li(c, 16, p.ring_lo + p.ring_bytes);
  e.ins(c, "blt " + r(reg) + ", r16, " + in);
  e.ins(c, "addi " + r(reg) + ", " + r(reg) + ", " + std::to_string(-p.ring_bytes));
  e.put_label(c, in);
}

template <class Body>
inline void pixel_loop(Ctx& e, int c, std::int64_t h0, std::int64_t OH, std::int64_t OW, const std::vector<Ptr>& p,
                Body body, const RowHook& row = {}, std::int64_t hstep = 1, int lanes = 1, std::int64_t w0 = -1,
                std::int64_t width = -1, const RowsAhead* ahead = nullptr) {
  e.sync_rows(c, h0, OH, hstep, w0, w0 + OW, width);
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (p[k].ring_bytes && p[k].step_h * hstep > p[k].ring_bytes)
      throw CompileError("emit: a row step of " + std::to_string(p[k].step_h * hstep) + " bytes passes a ring of " +
                         std::to_string(p[k].ring_bytes));
    e.li(c, kRow[k], p[k].ring_bytes ? p[k].ring_lo + (p[k].base - p[k].ring_lo) % p[k].ring_bytes : p[k].base);
    if (p[k].indirect_word >= 0) {
      e.li(c, 16, p[k].indirect_word);
      e.ins(c, "ld " + r(kRow[k]) + ", r16, 0");
      e.li(c, 16, p[k].base - p[k].indirect_origin);
      e.ins(c, "add " + r(kRow[k]) + ", " + r(kRow[k]) + ", r16");
    }
    if (p[k].image_stride && e.batch > 1) {
      e.li(c, 16, e.image_word(c));
      e.ins(c, "ld r16, r16, 0");
      e.ins(c, "muli r16, r16, " + std::to_string(p[k].image_stride));
      e.ins(c, "add " + r(kRow[k]) + ", " + r(kRow[k]) + ", r16");
    }
  }
  e.li(c, 20, OH);
  const bool pre = ahead && row && OH > 1;
  if (pre) {  // row 0's tokens and rows before the loop
    for (const RowsAhead::Swap& s : ahead->swaps) e.li(c, s.reg, s.a);
    e.sync_pre(c);
    for (std::size_t k = 0; k < p.size(); ++k) e.ins(c, "add " + r(kCur[k]) + ", " + r(kRow[k]) + ", r0");
    row(OW, OH, hstep);
    if (ahead->first) ahead->first(OW);
  }
  const std::string rows = e.label(c, "row");
  e.put_label(c, rows);
  if (!pre) e.sync_pre(c);
  // Groups of `lanes` pixels, then the rest of the row at once.
  const std::int64_t groups = OW / lanes, rest = OW % lanes;
  if (!is_pipelined<Body>::value && groups > 0) e.li(c, 23, groups);
  for (std::size_t k = 0; k < p.size(); ++k) e.ins(c, "add " + r(kCur[k]) + ", " + r(kRow[k]) + ", r0");
  // The next row's tokens and rows, unless this is the last row.
  auto next_rows = [&] {
    const std::string last = e.label(c, "lastrow");
    e.li(c, 10, 1);
    e.ins(c, "beq r20, r10, " + last);
    e.sync_pre(c);
    e.ins(c, "addi r13, " + r(kRow[0]) + ", " + std::to_string(p[0].step_h * hstep));
    wrap_ring(e, c, 13, p[0]);
    e.li(c, 16, ahead->a ^ ahead->b);
    e.ins(c, "xor r14, " + r(kRow[static_cast<std::size_t>(ahead->ptr)]) + ", r16");
    ahead->load_next(OW, hstep);
    e.put_label(c, last);
  };
  auto row_done = [&] {
    e.sync_post(c);
    if (e.row_end) e.row_end(c);
  };
  const bool late = pre && ahead->late;
  // Held back: the row before's end (but on the first row), then the next
  // row's tokens and rows.
  auto mid = [&] {
    const std::string first = e.label(c, "heldend");
    e.li(c, 10, OH);
    e.ins(c, "beq r20, r10, " + first);
    row_done();
    e.put_label(c, first);
    next_rows();
  };
  if (pre && !late) {
    next_rows();
  } else if (row && !pre) {
    row(OW, OH, hstep);
    if (ahead && ahead->first) {  // a run of one row: its buffers' first halves all the same
      for (const RowsAhead::Swap& s : ahead->swaps) e.li(c, s.reg, s.a);
      ahead->first(OW);
    }
  }
  auto advance = [&] {
    for (std::size_t k = 0; k < p.size(); ++k)
      if (p[k].step_w)
        e.ins(c, "addi " + r(kCur[k]) + ", " + r(kCur[k]) + ", " + std::to_string(p[k].step_w * lanes));
  };
  if constexpr (is_pipelined<Body>::value) {
    // Groups of `lanes` pixels: fire(0); pairs of (fire(1), finish(0),
    // fire(0), finish(1)); the odd one; the last finish (all a group on:
    // moved = true). A partial last group runs alone, not moved.
    if (groups > 0) {
      body.fire(0, lanes);
      if (late) mid();
      advance();
      const std::int64_t more = groups - 1;
      if (more >= 2) {
        e.li(c, 23, more / 2);
        const std::string cols = e.label(c, "col");
        e.put_label(c, cols);
        body.fire(1, lanes);
        body.finish(0, lanes, true);
        advance();
        body.fire(0, lanes);
        body.finish(1, lanes, true);
        advance();
        e.ins(c, "dbnz r23, " + cols);
      }
      if (more % 2) {
        body.fire(1, lanes);
        body.finish(0, lanes, true);
        advance();
        body.finish(1, lanes, true);
      } else {
        body.finish(0, lanes, true);
      }
    }
    if (rest > 0) {
      body.fire(0, static_cast<int>(rest));
      if (late && groups == 0) mid();
      body.finish(0, static_cast<int>(rest), false);
    }
  } else {
    std::int64_t looped = groups;
    if (late) {  // the row's first group (or its only part) calls mid
      bool called = false;
      e.row_mid = [&] {
        mid();
        called = true;
      };
      run_body(body, groups > 0 ? lanes : static_cast<int>(rest));
      e.row_mid = nullptr;
      if (!called) throw CompileError("emit: a row loop with late row ends whose body never reached its row's end");
      if (groups > 0) {
        advance();
        --looped;
      }
    }
    if (looped > 0) {
      if (looped != groups) e.li(c, 23, looped);
      const std::string cols = e.label(c, "col");
      e.put_label(c, cols);
      run_body(body, lanes);
      advance();
      e.ins(c, "dbnz r23, " + cols);
    }
    if (rest > 0 && !(late && groups == 0)) run_body(body, static_cast<int>(rest));
  }
  if (!late) row_done();
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (!p[k].step_h) continue;
    e.ins(c, "addi " + r(kRow[k]) + ", " + r(kRow[k]) + ", " + std::to_string(p[k].step_h * hstep));
    wrap_ring(e, c, kRow[k], p[k]);
  }
  if (pre) {
    e.li(c, 16, ahead->a ^ ahead->b);
    e.ins(c, "xor " + r(kRow[static_cast<std::size_t>(ahead->ptr)]) + ", " + r(kRow[static_cast<std::size_t>(ahead->ptr)]) + ", r16");
    for (const RowsAhead::Swap& s : ahead->swaps) {
      e.li(c, 16, s.a ^ s.b);
      e.ins(c, "xor " + r(s.reg) + ", " + r(s.reg) + ", r16");
    }
  }
  e.ins(c, "dbnz r20, " + rows);
  if (late) row_done();
}

// The share of copy r of R (emit_conv) or of the r-th of R cores of an
// OH x OW map, chosen so that all copies work down the map at once and rows
// complete in order (a reader of row h waits for about h rows' worth of one
// copy's part, not for a whole copy's block of rows): the columns are cut
// into S strips of at least Graph::min_strip pixels (fewer, wider strips keep the
// windows' overlap and the hand-over's tokens small), and each strip's rows
// are dealt to R/S copies in turn (copies past S * (R/S) get nothing).
template <class Body>
inline void share_loop(Ctx& e, int c, std::int64_t OH, std::int64_t OW, int r, int R, const std::vector<Ptr>& p, Body body,
                const RowHook& row = {}, int lanes = 1, const RowsAhead* ahead = nullptr) {
  // The runs of copy r (share_runs, which the cost model's bytes walk too).
  for (const ShareRun& run : share_runs(OH, OW, r, R, e.g.min_strip)) {
    std::vector<Ptr> q = p;
    for (Ptr& x : q)
      if (!x.row_local) x.base += run.h * x.step_h + run.w * x.step_w;
    pixel_loop(e, c, run.h, run.rows, run.cols, q, body, row, run.hstep, lanes, run.w, OW, ahead);
  }
}

// Index of core c among the node's cores (its share of the work).
inline int share_of(const Node& n, int c) {
  return static_cast<int>(std::find(n.cores.begin(), n.cores.end(), c) - n.cores.begin());
}

// Each segment of a window, from register `src` + gofs to scratch dst +
// lofs, with `copy` (operands r11 destination, r10 source, r12 length).
inline void copy_segments(Ctx& e, int c, int src, std::int64_t dst, const std::vector<Segment>& segs,
                          const std::string& copy) {
  for (const auto& s : segs) {
    e.ins(c, "addi r10, " + r(src) + ", " + std::to_string(s.gofs));
    e.li(c, 11, dst + s.lofs);
    e.li(c, 12, s.len);
    e.ins(c, copy);
  }
}

// DMA the window at global address in register `src` into scratch `dst`.
inline void gather(Ctx& e, int c, int src, std::int64_t dst, const std::vector<Segment>& segs) {
  copy_segments(e, c, src, dst, segs, "dma.gl r11, r10, r12");
}

inline void clamp_out(Ctx& e, int c, const Node& n, int reg_buf, int reg_n) {
  if (n.q.lo == -128 && n.q.hi == 127) return;
  if (n.q.lo == 0 && n.q.hi == 127)
    e.ins(c, "vrelu " + r(reg_buf) + ", " + r(reg_buf) + ", " + r(reg_n) + ", i8");
  else
    e.ins(c, "vclamp " + r(reg_buf) + ", " + r(reg_buf) + ", " + r(reg_n) + ", " + std::to_string(n.q.lo) + ", " +
                 std::to_string(n.q.hi) + ", i8");
}

inline std::int64_t mask_of(int n) { return (std::int64_t{1} << n) - 1; }

// Origin (top-left window pixel, may be in the border) of output (0, 0), in
// the buffer of the image the code being emitted works on (Ctx::addr).
inline std::int64_t window_origin(const Ctx& e, const Value& in, const ConvGeom& g) {
  return e.addr(in) + (in.buf.pad - g.pt) * in.buf.row(in.shape) + (in.buf.pad - g.pl) * in.shape.c;
}
inline std::int64_t interior(const Ctx& e, const Value& v) {
  return e.addr(v) + std::int64_t{v.buf.pad} * v.buf.row(v.shape) + std::int64_t{v.buf.pad} * v.shape.c;
}

// Largest chunk of a channels-last row (W pixels of C) that divides it and
// keeps `per_elem` scratch bytes per element under the budget.
inline std::int64_t row_chunk(const Ctx& e, std::int64_t W, std::int64_t C, std::int64_t per_elem, const std::string& who) {
  const std::int64_t budget = e.t.spad_bytes / 2 / per_elem;
  for (std::int64_t d = W; d >= 1; --d)
    if (W % d == 0 && d * C <= budget) return d * C;
  for (std::int64_t d = C; d >= 1; --d)
    if (C % d == 0 && d <= budget && d >= 16) return d;
  throw CompileError("node '" + who + "': no chunk of its rows fits the scratchpad");
}



// A core's line buffer for a convolution: kh rows of the input, each the
// span the widest output row of the share reads, at a fixed stride.
struct LineBuffer {
  std::int64_t at = -1;       // scratchpad address, -1: gather windows from global memory
  std::int64_t stride = 0;    // bytes between buffered rows
  std::int64_t C = 0, sw = 1;
  ConvGeom geom;
  // An input held as a ring of rows (Buffer::ring_rows) whose windows span
  // rows or a border: the loop's row pointer walks the map as if it were
  // held whole, and each row load finds where the ring holds its row
  // (ring_address). 0: the rows are where the pointer says.
  std::int64_t ring_lo = 0, ring_bytes = 0, map_bytes = 0;
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
inline LineBuffer line_buffer(Ctx& e, int c, const Node& n, const Value& in, const Value& out) {
  LineBuffer lb;
  lb.C = in.shape.c;
  lb.sw = n.geom.sw;
  lb.geom = n.geom;
  if (!use_line_buffer(n.geom, in.shape, out.shape, e.t.spad_bytes, nullptr)) return lb;
  lb.stride = (lb.span(out.shape.w) + 7) / 8 * 8;
  lb.at = e.scratch(c, lb.stride * n.geom.kh);
  if (in.buf.ring_rows > 0 && (n.geom.kh > 1 || in.buf.pad > 0)) {
    lb.ring_lo = in.buf.ring_lo(in.shape);
    lb.ring_bytes = in.buf.ring_rows * in.buf.row(in.shape);
    lb.map_bytes = in.shape.h * in.buf.row(in.shape);
  }
  return lb;
}

// A row address in register `reg`, counted as if the map were held whole
// with its border rows, to where lb's ring holds it (r16 a temporary): a
// top border row is where it is, a bottom one below the ring's last row
// (the ring's height divides the map's, so the map's last row is the
// ring's), a row of the map at its row modulo the ring's rows. At most
// height / ring rows - 1 steps back, a handful of instructions beside the
// DMA they address.
inline void ring_address(Ctx& e, int c, int reg, const LineBuffer& lb) {
  if (!lb.ring_bytes) return;
  const std::string done = e.label(c, "rdone"), in_map = e.label(c, "rmap"), wrap = e.label(c, "rwrap");
  e.li(c, 16, lb.ring_lo);
  e.ins(c, "blt " + r(reg) + ", r16, " + done);
  e.li(c, 16, lb.ring_lo + lb.map_bytes);
  e.ins(c, "blt " + r(reg) + ", r16, " + in_map);
  e.li(c, 16, lb.map_bytes - lb.ring_bytes);
  e.ins(c, "sub " + r(reg) + ", " + r(reg) + ", r16");
  e.ins(c, "jmp " + done);
  e.put_label(c, in_map);
  e.li(c, 16, lb.ring_lo + lb.ring_bytes);
  e.put_label(c, wrap);
  e.ins(c, "blt " + r(reg) + ", r16, " + done);
  e.ins(c, "addi " + r(reg) + ", " + r(reg) + ", " + std::to_string(-lb.ring_bytes));
  e.ins(c, "jmp " + wrap);
  e.put_label(c, done);
}

// The row hook that fills the line buffer: `load(cols, y0)` brings rows
// y0 .. kh - 1 of the current output row's windows (their first row at
// register r21, the span `cols` pixels read) into the buffer. When the loop
// walks consecutive output rows (hstep 1) and windows overlap (sh < kh, no
// dilation), every row after the first keeps the kh - sh rows it shares
// with the previous one: one vmov moves them to the top of the buffer and
// only sh rows are loaded.
using RowLoad = std::function<void(std::int64_t cols, int y0)>;
inline RowHook line_rows(Ctx& e, int c, const Node& n, const LineBuffer& lb, RowLoad load) {
  return [&e, c, &n, lb, load](std::int64_t cols, std::int64_t rows, std::int64_t hstep) {
    const int kh = n.geom.kh, sh = n.geom.sh;
    if (hstep != 1 || rows < 2 || sh >= kh || n.geom.dh != 1) return load(cols, 0);
    const std::string full = e.label(c, "lbfull"), done = e.label(c, "lbdone");
    e.li(c, 10, rows);
    e.ins(c, "beq r20, r10, " + full);
    const int keep = kh - sh;
    e.li(c, 10, lb.at + sh * lb.stride);
    e.li(c, 11, lb.at);
    e.li(c, 12, keep * lb.stride);
    e.ins(c, "vmov r11, r10, r12, i8");
    load(cols, keep);
    e.ins(c, "jmp " + done);
    e.put_label(c, full);
    load(cols, 0);
    e.put_label(c, done);
  };
}
// Each row by its own DMA from memory.
inline RowHook line_rows(Ctx& e, int c, const Node& n, const LineBuffer& lb, std::int64_t row) {
  return line_rows(e, c, n, lb, [&e, c, &n, lb, row](std::int64_t cols, int y0) {
    e.li(c, 12, lb.span(cols));
    for (int y = y0; y < n.geom.kh; ++y) {
      e.ins(c, "addi r10, r21, " + std::to_string(std::int64_t{y} * n.geom.dh * row));
      ring_address(e, c, 10, lb);
      e.li(c, 11, lb.at + y * lb.stride);
      e.ins(c, "dma.gl r11, r10, r12");
    }
  });
}

// RowsAhead::load_next for a line buffer whose rows come by their own DMA:
// with consecutive rows and overlapping windows the kh - sh rows the next
// row shares move from this half (the pointer's row register `cur`) to the
// top of the other, and sh rows are loaded under them.
inline std::function<void(std::int64_t, std::int64_t)> line_rows_next(Ctx& e, int c, const Node& n, const LineBuffer& lb,
                                                                      std::int64_t row, int cur) {
  return [&e, c, &n, lb, row, cur](std::int64_t cols, std::int64_t hstep) {
    const int kh = n.geom.kh, sh = n.geom.sh;
    int y0 = 0;
    if (hstep == 1 && sh < kh && n.geom.dh == 1) {
      y0 = kh - sh;
      e.ins(c, "addi r10, " + r(cur) + ", " + std::to_string(sh * lb.stride));
      e.ins(c, "add r11, r14, r0");
      e.li(c, 12, y0 * lb.stride);
      e.ins(c, "vmov r11, r10, r12, i8");
    }
    e.li(c, 12, lb.span(cols));
    for (int y = y0; y < kh; ++y) {
      e.ins(c, "addi r10, r13, " + std::to_string(std::int64_t{y} * n.geom.dh * row));
      ring_address(e, c, 10, lb);
      e.ins(c, "addi r11, r14, " + std::to_string(y * lb.stride));
      e.ins(c, "dma.gl r11, r10, r12");
    }
  };
}

// Rows ahead for a line buffer its own CU loads, walked by the loop's
// pointer `ptr`: its second half, when the graph loads rows ahead and the
// scratchpad has room for it beside kAheadSlack bytes (the layer's end and
// a stream's copies still take some). Returns whether `ahead` is set up.
inline constexpr std::int64_t kAheadSlack = 1024;
inline bool line_rows_ahead(Ctx& e, int c, const Node& n, const LineBuffer& lb, std::int64_t row, std::size_t ptr,
                            RowsAhead& ahead) {
  if (!e.g.rows_ahead || lb.at < 0 || lb.stride * n.geom.kh + kAheadSlack > e.scratch_free(c)) return false;
  ahead.ptr = static_cast<int>(ptr);
  ahead.a = lb.at;
  ahead.b = e.scratch(c, lb.stride * n.geom.kh);
  ahead.load_next = line_rows_next(e, c, n, lb, row, kRow[ptr]);
  return true;
}

// The current pixel's window from the line buffer (walked by register
// `reg`) into scratch `dst`.
inline void line_window(Ctx& e, int c, int reg, std::int64_t dst, const std::vector<Segment>& segs) {
  copy_segments(e, c, reg, dst, segs, "vmov r11, r10, r12, i8");
}


}  // namespace vp::cc::emit
