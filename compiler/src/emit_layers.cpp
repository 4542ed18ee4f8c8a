// Per-operator code, one function per operator class; convolutions are in
// emit_conv.cpp, the loops and registers all of them share in emit_loops.h.
// Every layer loops over output pixels with dbnz (unrolled only over the
// lanes of a convolution); activations stream between memory and the
// scratchpad by DMA, and each row waits only for the input rows it reads
// (emit_sync.cpp).
#include <algorithm>

#include "emit_loops.h"
#include "pixel_gather.h"

namespace vp::cc::emit {

std::vector<Segment> window_segments(const ConvGeom& geom, std::int64_t C, std::int64_t row, int ci0, int ci1) {
  std::vector<Segment> segs;
  const std::int64_t len = ci1 - ci0;
  for (int y = 0; y < geom.kh; ++y)
    for (int x = 0; x < geom.kw; ++x) {
      const Segment s{std::int64_t{y} * geom.dh * row + std::int64_t{x} * geom.dw * C + ci0,
                      (std::int64_t{y} * geom.kw + x) * len, len};
      if (!segs.empty() && segs.back().gofs + segs.back().len == s.gofs && segs.back().lofs + segs.back().len == s.lofs)
        segs.back().len += len;
      else
        segs.push_back(s);
    }
  return segs;
}

void emit_pool(Ctx& e, const Node& n) {
  const Value& in = e.g.val(n.in[0]);
  const Value& out = e.g.val(n.out[0]);
  const std::int64_t C = in.shape.c, row = in.buf.row(in.shape);
  for (int c : n.cores) {
    const bool max = n.op == OpKind::MaxPool;
    e.scratch_reset(c);
    const std::int64_t k = std::int64_t{n.geom.kh} * n.geom.kw;
    const std::int64_t win = e.scratch(c, k * C), outb = e.scratch(c, C), outb2 = e.scratch(c, C),
                       acc = max ? 0 : e.scratch(c, 4 * C);
    const auto segs = window_segments(n.geom, C, row, 0, static_cast<int>(C));
    // Line buffer as for a convolution (emit_conv), when it fits.
    const LineBuffer lb = line_buffer(e, c, n, in, out);
    e.li(c, 1, win);
    e.li(c, 2, C);
    e.li(c, 3, k);
    e.li(c, 4, outb);
    e.li(c, 5, acc);
    e.li(c, 15, outb ^ outb2);
    if (!max) e.li(c, 9, n.q.mult[0]);
    const Ptr pin{window_origin(e, in, n.geom), n.geom.sw * C, n.geom.sh * row};
    const Ptr pout{interior(e, out), C, out.buf.row(out.shape)};
    std::vector<Ptr> ptrs{pin, pout};
    RowHook rows_in;
    if (lb.at >= 0) {
      ptrs.push_back({lb.at, n.geom.sw * C, 0, true});
      rows_in = line_rows(e, c, n, lb, row);
    }
    const auto lsegs = lb.segments(0, C);
    // Rows ahead (emit_loops.h), as a convolution's.
    RowsAhead ahead;
    const RowsAhead* ahead_p = line_rows_ahead(e, c, n, lb, row, 2, ahead) ? &ahead : nullptr;
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
    }, rows_in, 1, ahead_p);
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
  pixel_loop(e, c, 0, in.shape.h, 1, {{interior(e, in), 0, in.buf.row(in.shape)}}, [&] {
    e.ins(c, "dma.gl r1, r24, r7");
    e.ins(c, "vpsum r4, r1, r2, r3, r2, i8");
    e.ins(c, "vadd r5, r5, r4, r2, i32");
  });
  e.writes = true;
  for (auto& i : e.inputs) i.rows = [](std::int64_t) { return std::make_pair(std::int64_t{0}, std::int64_t{-1}); };
  e.sync_rows(c, 0, 1);
  e.sync_pre(c);
  e.ins(c, "vrqs r6, r5, r2, r9, " + std::to_string(n.q.shift[0]) + ", 0");
  e.li(c, 10, interior(e, out));
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
               {{interior(e, a), 0, a.buf.row(a.shape)}, {interior(e, b), 0, b.buf.row(b.shape)},
                {interior(e, y), 0, y.buf.row(y.shape)}},
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

// Mul of two activations, pixel by pixel: the second is a map of the same
// shape, or one value per channel (a squeeze-excitation gate) that every
// pixel reads again, so its pointer does not move.
void emit_mul(Ctx& e, const Node& n) {
  const Value& a = e.g.val(n.in[0]);
  const Value& b = e.g.val(n.in[1]);
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t C = y.shape.c;
  const bool gate = !(b.shape == a.shape);
  if (11 * C > e.t.spad_bytes / 2)
    throw CompileError("node '" + n.name + "': a pixel of " + std::to_string(C) + " channels does not fit the scratchpad");
  for (int c : n.cores) {
    e.scratch_reset(c);
    const std::int64_t A = e.scratch(c, C), B = e.scratch(c, C), A32 = e.scratch(c, 4 * C), B32 = e.scratch(c, 4 * C),
                       O = e.scratch(c, C);
    e.li(c, 1, A);
    e.li(c, 2, B);
    e.li(c, 3, A32);
    e.li(c, 4, B32);
    e.li(c, 5, O);
    e.li(c, 6, C);
    e.li(c, 7, n.q.mult[0]);
    // A gate (one vector for the whole map, a squeeze-and-excitation
    // scale) is the same at every pixel: it comes in and is widened once
    // per row, after the row's tokens (its one row is handed over like
    // any other), not at every pixel.
    const RowHook load_gate = [&](std::int64_t, std::int64_t, std::int64_t) {
      e.ins(c, "dma.gl r2, r25, r6");
      e.ins(c, "vwiden r4, r2, r6");
    };
    share_loop(e, c, y.shape.h, y.shape.w, share_of(n, c), n.replicas,
               {{interior(e, a), C, a.buf.row(a.shape)},
                {interior(e, b), gate ? 0 : C, gate ? 0 : b.buf.row(b.shape)},
                {interior(e, y), C, y.buf.row(y.shape)}},
               [&] {
                 e.ins(c, "dma.gl r1, r24, r6");
                 if (!gate) e.ins(c, "dma.gl r2, r25, r6");
                 e.ins(c, "vwiden r3, r1, r6");
                 if (!gate) e.ins(c, "vwiden r4, r2, r6");
                 e.ins(c, "vmul r3, r3, r4, r6, i32");
                 e.ins(c, "vrqs r5, r3, r6, r7, " + std::to_string(n.q.shift[0]) + ", 0");
                 e.ins(c, "dma.lg r27, r5, r6");
               },
               gate ? load_gate : RowHook{});
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
               {{interior(e, x), 0, x.buf.row(x.shape)}, {interior(e, y), 0, y.buf.row(y.shape)}},
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

namespace {
// A Concat of up to seven inputs (kCur's eight pointers: the inputs and the
// output) walks its share once, each pixel taking every input's channels in
// turn: output row h is whole after one step, so its readers start on it
// then. One pass per input (emit_rescale's general form) completes a row
// only in the last pass: ShuffleNet's channel shuffle after each Concat
// waited for the first pass over the whole map.
void emit_concat_pixels(Ctx& e, const Node& n) {
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t Cy = y.shape.c;
  for (int c : n.cores) {
    e.scratch_reset(c);
    std::vector<Ptr> ptrs;
    std::vector<std::int64_t> bufs;
    for (int v : n.in) {
      const Value& x = e.g.val(v);
      ptrs.push_back({interior(e, x), x.shape.c, x.buf.row(x.shape)});
      // Buffers of its own per input: one input's load does not wait for
      // the stores of the one before.
      bufs.push_back(e.scratch(c, x.shape.c));
      bufs.push_back(e.scratch(c, 4 * x.shape.c));
      bufs.push_back(e.scratch(c, x.shape.c));
    }
    ptrs.push_back({interior(e, y), Cy, y.buf.row(y.shape)});
    const int out_ptr = kCur[n.in.size()];
    share_loop(e, c, y.shape.h, y.shape.w, share_of(n, c), n.replicas, ptrs, [&] {
      // Every input's load first, so their transfers are in flight at once
      // (the DMA engine keeps several; the vector work waits for each
      // buffer's own), then each input's requantization and store.
      for (std::size_t k = 0; k < n.in.size(); ++k) {
        e.li(c, 1, bufs[3 * k]);
        e.li(c, 2, e.g.val(n.in[k]).shape.c);
        e.ins(c, "dma.gl r1, " + r(kCur[k]) + ", r2");
      }
      std::int64_t coff = 0;
      for (std::size_t k = 0; k < n.in.size(); ++k) {
        const std::int64_t C = e.g.val(n.in[k]).shape.c;
        e.li(c, 1, bufs[3 * k]);
        e.li(c, 2, C);
        e.li(c, 3, bufs[3 * k + 1]);
        e.li(c, 4, bufs[3 * k + 2]);
        e.li(c, 5, n.q.mult[k]);
        e.ins(c, "vwiden r3, r1, r2");
        e.ins(c, "vrqs r4, r3, r2, r5, " + std::to_string(n.q.shift[k]) + ", 0");
        e.ins(c, "addi r10, " + r(out_ptr) + ", " + std::to_string(coff));
        e.ins(c, "dma.lg r10, r4, r2");
        coff += C;
      }
    });
  }
}
}  // namespace

void emit_rescale(Ctx& e, const Node& n) {
  const Value& y = e.g.val(n.out[0]);
  if (n.op == OpKind::Concat && n.in.size() < std::size(kCur)) return emit_concat_pixels(e, n);
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
      // One (M, S) for the whole input (a Concat's input, a Mul by a
      // scalar): vrqs with M in a register, no parameters in the scratchpad
      // (a DenseNet core holds many Concats); per-channel pairs: vrq.
      const bool one = n.op == OpKind::Concat || n.q.mult.size() == 1;
      const std::size_t i1 = n.op == OpKind::Concat ? k : 0;
      std::vector<std::int32_t> rq;
      for (std::int64_t ch = 0; ch < C && !one; ++ch) {
        rq.push_back(n.q.mult[static_cast<std::size_t>(ch)]);
        rq.push_back(n.q.shift[static_cast<std::size_t>(ch)]);
      }
      e.li(c, 1, in);
      e.li(c, 2, C);
      e.li(c, 3, x32);
      e.li(c, 4, o);
      e.li(c, 5, one ? n.q.mult[i1] : e.words(c, rq));
      share_loop(e, c, y.shape.h, y.shape.w, share_of(n, c), n.replicas,
                 {{interior(e, x), C, x.buf.row(x.shape)}, {interior(e, y) + coff, Cy, y.buf.row(y.shape)}},
                 [&] {
                   e.ins(c, "dma.gl r1, r24, r2");
                   e.ins(c, "vwiden r3, r1, r2");
                   if (one)
                     e.ins(c, "vrqs r4, r3, r2, r5, " + std::to_string(n.q.shift[i1]) + ", 0");
                   else
                     e.ins(c, "vrq r4, r3, r2, r5, 0");
                   e.ins(c, "dma.lg r25, r4, r2");
                 });
      coff += C;
    }
  }
}

// Concat along the rows of [T, C] matrices: input k's pixels, in order, are
// output rows off_k .. off_k + P_k - 1, requantized by its own (M, S); each
// core takes its share of every input's pixels.
void emit_concat_rows(Ctx& e, const Node& n) {
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t C = y.shape.c;
  if (y.buf.pad)
    throw CompileError("node '" + n.name + "' (Concat along the rows): its output is read by a padded window; not supported");
  const int R = std::max(1, n.replicas);
  for (int c : n.cores) {
    std::int64_t off = 0;
    for (std::size_t k = 0; k < n.in.size(); ++k) {
      const Value& x = e.g.val(n.in[k]);
      const std::int64_t P = x.shape.h * x.shape.w;
      if (x.buf.pad)
        throw CompileError("node '" + n.name + "' (Concat along the rows): input '" + x.name +
                           "' is read by a padded window too; not supported");
      e.scratch_reset(c);
      const std::int64_t in = e.scratch(c, C), x32 = e.scratch(c, 4 * C), o = e.scratch(c, C);
      e.li(c, 1, in);
      e.li(c, 2, C);
      e.li(c, 3, x32);
      e.li(c, 4, o);
      e.li(c, 5, n.q.mult[k]);
      const std::int64_t s = share_of(n, c), i0 = P * s / R, i1 = P * (s + 1) / R;
      if (i1 > i0)
        pixel_loop(e, c, off + i0, i1 - i0, 1, {{interior(e, x) + i0 * C, C, C}, {interior(e, y) + (off + i0) * C, C, C}}, [&] {
          e.ins(c, "dma.gl r1, r24, r2");
          e.ins(c, "vwiden r3, r1, r2");
          e.ins(c, "vrqs r4, r3, r2, r5, " + std::to_string(n.q.shift[k]) + ", 0");
          e.ins(c, "dma.lg r25, r4, r2");
        });
      off += P;
    }
  }
}

namespace {
// The rows of an H x W x C tensor copied from `from` to `to` through the
// scratchpad, shared among `cores`.
void copy_rows(Ctx& e, const std::vector<int>& cores, const Value& v, const Ptr& from, const Ptr& to,
               std::int64_t from_pointer = -1) {
  const std::int64_t C = v.shape.c, W = v.shape.w;
  const int R = static_cast<int>(cores.size());
  for (int r = 0; r < R; ++r) {
    const int c = cores[static_cast<std::size_t>(r)];
    e.scratch_reset(c);
    const std::int64_t E = row_chunk(e, W, C, 1, v.name);
    const std::int64_t buf = e.scratch(c, E);
    Ptr src = from;
    if (from_pointer >= 0) {  // the source's address, as the global word at from_pointer said at the start
      src.indirect_word = e.input_pointer_words.at({from_pointer, c});
      src.indirect_origin = from.base;
    }
    e.li(c, 1, buf);
    e.li(c, 6, E);
    share_loop(e, c, v.shape.h, 1, r, R, {src, to}, [&] {
      for (std::int64_t off = 0; off < W * C; off += E) {
        e.ins(c, "addi r10, r24, " + std::to_string(off));
        e.ins(c, "dma.gl r1, r10, r6");
        e.ins(c, "addi r11, r25, " + std::to_string(off));
        e.ins(c, "dma.lg r11, r1, r6");
      }
    });
  }
}
}  // namespace

void emit_input_copy(Ctx& e, const std::vector<int>& cores, const Value& v, std::int64_t plain, std::int64_t pointer) {
  // The host's plain rows (image by image in a stream) into the bordered
  // buffer, from where the pointer word says they are (the element's area
  // when the firmware binds the input, the binding itself otherwise).
  Ptr from{plain, 0, v.shape.w * v.shape.c};
  from.image_stride = v.shape.numel();
  copy_rows(e, cores, v, from, {interior(e, v), 0, v.buf.row(v.shape)}, pointer);
}

void emit_output_copy(Ctx& e, const std::vector<int>& cores, const Value& v, std::int64_t area) {
  // A stream's output, image by image, into the area the host reads.
  Ptr to{area, 0, v.shape.w * v.shape.c};
  to.image_stride = v.shape.numel();
  copy_rows(e, cores, v, {e.addr(v), 0, v.buf.row(v.shape)}, to);
}

}  // namespace vp::cc::emit

namespace vp::cc::emit {

// A pixel gather (Node::gather): each run of consecutive input pixels
// (in one input row, or across rows when the input has no border) that lands on consecutive output bytes is one DMA into
// the scratchpad and one out. The cores take contiguous blocks of output
// rows. When every output row of a core is one run (a window partition's
// [windows x 49, C] rows, one pixel each), its rows are a loop over a table
// of (source, rows) pairs in the scratchpad, one pair per stretch of rows
// that read consecutive input bytes (a window's row of 7 pixels); otherwise
// the rows are loops over blocks of rows whose runs move by one stride from
// row to row (a reverse partition's 7 map rows per row of windows).
void emit_gather(Ctx& e, const Node& n) {
  const Value& x = e.g.val(n.in[0]);
  const Value& y = e.g.val(n.out[0]);
  if (y.buf.pad)
    throw CompileError("node '" + n.name + "' (pixel gather): its output is read by a padded window; not supported");
  const std::int64_t C = x.shape.c, m = y.shape.c / C, W = y.shape.w, H = y.shape.h;
  const std::int64_t xrow = x.buf.row(x.shape), yrow = y.buf.row(y.shape);
  const int R = std::max(1, n.replicas);
  struct Run {
    std::int64_t src, dst, len;  // bytes: input address, offset in the output row, length
  };
  for (int c : n.cores) {
    const std::int64_t s = share_of(n, c), h0 = H * s / R, h1 = H * (s + 1) / R;
    if (h1 <= h0) continue;
    e.scratch_reset(c);
    const std::int64_t limit = std::max<std::int64_t>(C, e.scratch_free(c) / 2 / C * C);
    std::vector<std::vector<Run>> runs(static_cast<std::size_t>(h1 - h0));
    for (std::int64_t h = h0; h < h1; ++h) {
      const std::int64_t k0 = h * W * m;
      for (const GatherRun& r : gather_runs(n, k0, k0 + W * m, x.shape.w, x.buf.pad != 0, limit / C))
        runs[static_cast<std::size_t>(h - h0)].push_back(
            {interior(e, x) + (r.src / x.shape.w) * xrow + (r.src % x.shape.w) * C, (r.k - k0) * C, r.len * C});
    }
    const std::int64_t row_bytes = W * m * C;
    const bool one_run = std::all_of(runs.begin(), runs.end(), [&](const std::vector<Run>& r) {
      return r.size() == 1 && r[0].len == row_bytes;
    });
    const std::int64_t buf = e.scratch(c, one_run ? row_bytes : limit);
    e.li(c, 1, buf);
    // One output row inside a loop counted by `counter`: wait for its input
    // rows, copy its runs (`pattern`, sources relative to the row's first,
    // r24; outputs to its row, r25; with `direct` the one run is the whole
    // row at r24 and r25, its length in r12 already), tell its readers, move
    // both pointers on.
    const auto row_loop = [&](int counter, const std::vector<Run>& pattern, std::int64_t stride, bool direct) {
      const std::string label = e.label(c, direct ? "grow" : "grows");
      e.put_label(c, label);
      e.sync_pre(c);
      if (direct) {
        e.ins(c, "dma.gl r1, r24, r12");
        e.ins(c, "dma.lg r25, r1, r12");
      }
      for (std::size_t j = 0; !direct && j < pattern.size(); ++j) {
        e.ins(c, "addi r10, r24, " + std::to_string(pattern[j].src - pattern[0].src));
        e.ins(c, "addi r11, r25, " + std::to_string(pattern[j].dst));
        e.li(c, 12, pattern[j].len);
        e.ins(c, "dma.gl r1, r10, r12");
        e.ins(c, "dma.lg r11, r1, r12");
      }
      e.sync_post(c);
      e.ins(c, "addi r24, r24, " + std::to_string(stride));
      e.ins(c, "addi r25, r25, " + std::to_string(yrow));
      e.ins(c, "dbnz r" + std::to_string(counter) + ", " + label);
    };
    if (!one_run) {
      // Rows whose runs are the previous row's moved by one stride (a
      // reverse partition's rows inside a row of windows): one loop each.
      const auto same_shape = [&](std::size_t a, std::size_t b, std::int64_t stride) {
        const auto& ra = runs[a];
        const auto& rb = runs[b];
        if (ra.size() != rb.size()) return false;
        for (std::size_t j = 0; j < ra.size(); ++j)
          if (rb[j].len != ra[j].len || rb[j].dst != ra[j].dst || rb[j].src - ra[j].src != stride) return false;
        return true;
      };
      for (std::size_t b0 = 0; b0 < runs.size();) {
        const std::int64_t stride = b0 + 1 < runs.size() ? runs[b0 + 1][0].src - runs[b0][0].src : 0;
        std::size_t b1 = b0 + 1;
        while (b1 < runs.size() && same_shape(b1 - 1, b1, stride)) ++b1;
        const std::int64_t h = h0 + static_cast<std::int64_t>(b0), count = static_cast<std::int64_t>(b1 - b0);
        e.sync_rows(c, h, count);
        e.li(c, 24, runs[b0][0].src);
        e.li(c, 25, interior(e, y) + h * yrow);
        e.li(c, 20, count);
        row_loop(20, runs[b0], stride, false);
        b0 = b1;
      }
      continue;
    }
    // (source, rows) per stretch of rows reading consecutive bytes.
    std::vector<std::pair<std::int64_t, std::int64_t>> stretches;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::int64_t src = runs[i][0].src;
      if (!stretches.empty() && stretches.back().first + stretches.back().second * row_bytes == src) {
        ++stretches.back().second;
        continue;
      }
      stretches.emplace_back(src, 1);
    }
    std::vector<std::int32_t> table;  // addresses as the 32-bit words the registers hold
    for (const auto& [src, count] : stretches) {
      table.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(src)));
      table.push_back(static_cast<std::int32_t>(count));
    }
    e.sync_rows(c, h0, h1 - h0);
    e.li(c, 12, row_bytes);
    e.li(c, 27, e.words(c, table));
    e.li(c, 25, interior(e, y) + h0 * yrow);
    e.li(c, 20, static_cast<std::int64_t>(table.size() / 2));
    const std::string outer = e.label(c, "gstretch");
    e.put_label(c, outer);
    e.ins(c, "ld r24, r27, 0");
    e.ins(c, "ld r23, r27, 4");
    row_loop(23, runs[0], row_bytes, true);
    e.ins(c, "addi r27, r27, 8");
    e.ins(c, "dbnz r20, " + outer);
  }
}

}  // namespace vp::cc::emit
