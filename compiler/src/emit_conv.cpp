// A convolution's code (Conv, and Gemm/MatMul/BatchNormalization as
// canonicalize made them Conv): per core, its share of the output pixels,
// each window into a patch, the MVM groups of its column tiles, partial
// sums from helper cores, bias, requantization, activation and a fused
// residual Add, then the store.
#include <algorithm>

#include "emit_loops.h"
#include "handed_rows.h"
#include "shared_loads.h"

namespace vp::cc::emit {

namespace {

// How many times larger the Conv's sums are than one read of one copy:
// averaged reads (average_reads.cpp) times redundant copies (redundancy.cpp).
int sum_factor(const Node& n) { return n.reads * n.redundancy; }

// log2 of sum_factor: added to the requantization shifts.
int read_shift(const Node& n) {
  int a = 0;
  while ((1 << a) < sum_factor(n)) ++a;
  if (n.q.shift.empty() || *std::max_element(n.q.shift.begin(), n.q.shift.end()) + a > 62)
    throw CompileError("node '" + n.name + "': " + std::to_string(n.reads) + " averaged reads of " +
                       std::to_string(n.redundancy) + " redundant copies need a requantization shift above 62");
  return a;
}

// A window just assembled at `at`: its codes shifted to the layer's input
// bits (input_bits.cpp), then, for redundant copies of the tile's rows
// (redundancy.cpp), the first copy's patch repeated behind it.
void finish_patch(Ctx& e, int c, const Node& n, std::int64_t at, const ColumnTile& ct, int R) {
  if (ct.redundant == 1 && n.input_bits == 8) return;
  const std::int64_t once = std::int64_t{ct.row_tiles_once(R)} * R;
  e.li(c, 10, at);
  e.li(c, 12, once);
  if (n.input_bits < 8) {
    const int top = (1 << (n.input_bits - 1)) - 1;
    e.ins(c, "vsra r10, r10, r12, " + std::to_string(8 - n.input_bits) + ", i8");
    e.ins(c, "vclamp r10, r10, r12, " + std::to_string(-top - 1) + ", " + std::to_string(top) + ", i8");
  }
  for (int j = 1; j < ct.redundant; ++j) {
    e.li(c, 11, at + j * once);
    e.ins(c, "vmov r11, r10, r12, i8");
  }
}

// One MVM (`line` without its acc field) fired n.reads times: the first
// sets the sums, the others add to them.
void fire_reads(Ctx& e, int c, const Node& n, const std::string& line) {
  for (int k = 0; k < n.reads; ++k) e.ins(c, line + (k == 0 ? ", 0" : ", 1"));
}

}  // namespace

void emit_conv(Ctx& e, const Node& n) {
  const Value& in = e.g.val(n.in[0]);
  // With a fused residual Add the pixels go to the Add's output; with a
  // fused table activation, each pixel's codes through the table to the
  // table's output.
  const Node* add = fused_residual(e.g, n);
  const Node* table = n.fused_next >= 0 && !add ? &e.g.nodes[static_cast<std::size_t>(n.fused_next)] : nullptr;
  const Value& out = e.g.val(stored_value(e.g, n));
  const int mine_side = add && add->in[1] == n.out[0] ? 1 : 0;  // which Add input this Conv is
  const Value* other = add ? &e.g.val(add->in[static_cast<std::size_t>(1 - mine_side)]) : nullptr;
  const std::int64_t C = in.shape.c, row = in.buf.row(in.shape), Cout = out.shape.c;
  const int L = e.t.lcols(xbar_format(n, e.t)), R = e.t.rows;
  const Ptr pin = over({window_origin(e, in, n.geom), n.geom.sw * C, n.geom.sh * row}, in);
  const Ptr pout = over({interior(e, out), Cout, out.buf.row(out.shape)}, out);
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
    // Lanes: copies of this CU's load side by side; lane q fires its MVMs on
    // crossbars xbar0 + q * lane_xbars for the q-th of `lanes` consecutive
    // pixels (map_crossbars.cpp). Owners of whole tiles only.
    const int lanes = split || helper ? 1 : mine[0]->parts[0].lanes;
    const int lane_xbars = mine[0]->parts[0].lane_xbars;
    // Patch buffers, one per distinct input-channel range and lane, zeroed
    // once so rows past K read 0.
    std::vector<std::vector<std::int64_t>> patch(static_cast<std::size_t>(lanes), std::vector<std::int64_t>(mine.size()));
    std::vector<std::vector<Segment>> segs(mine.size());
    e.li(c, 9, 0);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      std::size_t same = i;
      for (std::size_t j = 0; j < i; ++j)
        if (mine[j]->ci0 == mine[i]->ci0 && mine[j]->ci1 == mine[i]->ci1) same = j;
      if (same != i) {
        for (auto& lp : patch) lp[i] = lp[same];
        continue;
      }
      const std::int64_t rt = mine[i]->row_tiles(R);
      segs[i] = window_segments(n.geom, C, row, mine[i]->ci0, mine[i]->ci1);
      for (auto& lp : patch) {
        lp[i] = e.scratch(c, rt * R);
        e.li(c, 10, lp[i]);
        e.li(c, 11, rt * R);
        e.ins(c, "vfill r10, r9, r11, i8");
      }
    }
    const std::int64_t ncols = [&] {
      std::int64_t s = 0;
      for (auto* ct : mine) s += ct->ncols;
      return s;
    }();
    std::vector<std::int64_t> acc(static_cast<std::size_t>(lanes));
    for (auto& a : acc) a = e.scratch(c, static_cast<std::int64_t>(mine.size()) * L * 4);
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
    const std::size_t lb_ptr = ptrs.size();
    if (lb.at >= 0) {
      ptrs.push_back({lb.at, n.geom.sw * C, 0, true});
      rows_in = shares_loads(n, c)      ? shared_line_rows(e, c, n, lb, row)
                : n.handed_from >= 0 ? handed_line_rows(e, c, n, lb)
                                     : line_rows(e, c, n, lb, row);
      // Its row loads find the ring's rows (ring_address): the pointer walks
      // the map as if held whole.
      if (lb.ring_bytes) ptrs[0].ring_lo = ptrs[0].ring_bytes = 0;
    }
    shared_loads_begin(e, c, n);
    if (lb.at >= 0) hand_in_begin(e, c, n);
    // Lane q's window is q pixels to the right of the current pixel; `slot`
    // picks the patch buffer (set x lanes + lane when software-pipelined).
    auto fill_patch = [&](std::size_t i, int q, std::size_t slot) {
      const std::int64_t dx = std::int64_t{q} * n.geom.sw * C;
      std::vector<Segment> moved = lb.at < 0 ? segs[i] : lb.segments(mine[i]->ci0, mine[i]->ci1);
      for (Segment& sg : moved) sg.gofs += dx;
      if (lb.at < 0) {
        gather(e, c, kCur[0], patch[slot][i], moved);
      } else {
        line_window(e, c, lb_reg, patch[slot][i], moved);
      }
      finish_patch(e, c, n, patch[slot][i], *mine[i], R);
    };
    if (helper) {
      e.writes = false;  // its partial sums go to the owner, which stores the pixels
      e.li(c, 8, split->parts[0].core);
      share_loop(e, c, out.shape.h, out.shape.w, copy, n.replicas, ptrs, [&] {
        fill_patch(0, 0, 0);
        e.li(c, 1, acc[0]);
        e.li(c, 14, patch[0][0] + std::int64_t{helper->row_tile0} * R);
        fire_reads(e, c, n, "mvm r1, r14, " + std::to_string(helper->xbar0) + ", " +
                                std::to_string(mask_of(helper->row_tiles)) + ", " + std::to_string(n.input_bits) + ", 32, sum");
        e.ins(c, "send r1, r6, r8, " + std::to_string(e.tag()));
      }, rows_in);
      shared_loads_end(e, c, n);
      e.writes = true;
      continue;
    }
    // Owner: bias, requantization pairs, output buffers.
    std::vector<std::int32_t> bias, rq;
    // Averaged reads and redundant copies: the sums are sum_factor x larger.
    const int extra_shift = read_shift(n);
    for (auto* ct : mine)
      for (int k = ct->n0; k < ct->n0 + ct->ncols; ++k) {
        bias.push_back(n.q.bias[static_cast<std::size_t>(k)] * sum_factor(n));
        rq.push_back(n.q.mult[static_cast<std::size_t>(k)]);
        rq.push_back(n.q.shift[static_cast<std::size_t>(k)] + extra_shift);
      }
    const std::int64_t bias_at = e.words(c, bias), rq_at = e.words(c, rq);
    const std::int64_t lut_at = table ? e.bytes(c, table->q.lut) : -1;
    // When the CU computes every channel, its lanes' pixels are consecutive
    // in the output (and in the residual input): the buffers sit side by
    // side and one DMA moves a whole group.
    const bool grouped = lanes > 1 && ncols == Cout && mine[0]->n0 == 0;
    int res_reg = -1;
    std::size_t res_ptr = 0;
    // Rows this core hands to a reader's copy (handed_rows.h): set just
    // before the share loop, read by the stores.
    HandOut hand;
    // Rows ahead with the residual's row in two halves too (grouped lanes:
    // the row's pixels, every channel, in one DMA with the next row's
    // rows); r15 holds the current half (free with lanes: only a single
    // lane's output buffers use it).
    bool res_ahead = false;
    if (add) {
      res_ptr = ptrs.size();
      res_reg = kCur[ptrs.size()];
      ptrs.push_back(over({interior(e, *other), Cout, other->buf.row(other->shape)}, *other));
    }
    const std::int64_t part = split ? e.scratch(c, std::int64_t{L} * 4) : 0;
    std::vector<std::int64_t> res32(static_cast<std::size_t>(lanes));
    for (std::size_t q = 0; add && q < res32.size(); ++q) res32[q] = e.scratch(c, 4 * ncols);
    // Software pipelining (a CU that runs only this layer, the scratchpad
    // holding two sets of buffers): group j's windows and MVMs (set j % 2)
    // go before group j - 1's vector work and stores (emit_loops.h,
    // Pipelined), so the MVMs of one group overlap the requantization,
    // residual Add and stores of the one before, and the next windows are
    // assembled while the MVMs run; a fused Add's residual channels come in
    // before the MVMs. Without it, a single lane has two output buffers in
    // turn so the store overlaps the next pixel. Only for one lane: with
    // lanes the group's MVMs already overlap its windows' assembly on the
    // other lanes, and pipelining them measured slower (ResNet-50 at batch
    // 16: 774,642 cycles per inference against 762,667; ResNet-18 511,303
    // against 505,125 at batch 1).
    bool pipe = lanes == 1;
    for (const Node& m : e.g.nodes)
      if (&m != &n && std::find(m.cores.begin(), m.cores.end(), c) != m.cores.end()) pipe = false;
    {
      // Still to allocate: the second set's patches and accumulators, and
      // both sets' output (and residual) buffers.
      std::int64_t more = 0;
      for (std::size_t i = 0; i < mine.size(); ++i)
        if (!segs[i].empty()) more += lanes * ((mine[i]->row_tiles(R) * R + 7) / 8 * 8);
      more += lanes * ((static_cast<std::int64_t>(mine.size()) * L * 4 + 7) / 8 * 8);
      more += 2 * (add ? 2 : 1) * ((lanes * ncols + 7) / 8 * 8);
      // (kPipeSlack: the words the layer's end and a stream's copies still take.)
      constexpr std::int64_t kPipeSlack = 512;
      pipe = pipe && more + kPipeSlack <= e.scratch_free(c);
    }
    const int sets = pipe ? 2 : 1;
    for (int st = 1; st < sets; ++st) {
      // A second set of patch buffers (zeroed as the first) and accumulators.
      for (int q = 0; q < lanes; ++q) {
        std::vector<std::int64_t> lp(mine.size());
        for (std::size_t i = 0; i < mine.size(); ++i) {
          std::size_t same = i;
          for (std::size_t k = 0; k < i; ++k)
            if (patch[static_cast<std::size_t>(q)][k] == patch[static_cast<std::size_t>(q)][i]) same = k;
          if (same != i) {
            lp[i] = lp[same];
            continue;
          }
          const std::int64_t rt = mine[i]->row_tiles(R);
          lp[i] = e.scratch(c, rt * R);
          e.li(c, 10, lp[i]);
          e.li(c, 11, rt * R);
          e.ins(c, "vfill r10, r9, r11, i8");
        }
        patch.push_back(lp);
        acc.push_back(e.scratch(c, static_cast<std::int64_t>(mine.size()) * L * 4));
      }
    }
    // Per set: the output and residual buffers of its lanes, side by side.
    std::vector<std::int64_t> outb_all(static_cast<std::size_t>(sets)), res_all(outb_all.size(), 0);
    for (int st = 0; st < sets; ++st) {
      outb_all[static_cast<std::size_t>(st)] = e.scratch(c, lanes * ncols);
      if (add) res_all[static_cast<std::size_t>(st)] = e.scratch(c, lanes * ncols);
    }
    const std::int64_t outb2 = !pipe && lanes == 1 ? e.scratch(c, ncols) : 0;
    if (!pipe && lanes == 1) e.li(c, 15, outb_all[0] ^ outb2);
    e.li(c, 1, acc[0]);
    e.li(c, 2, ncols);
    e.li(c, 3, bias_at);
    e.li(c, 4, outb_all[0]);
    e.li(c, 5, rq_at);
    e.li(c, 7, part);
    bool one_group = !split && mine.size() <= 16;
    for (std::size_t i = 0; i < mine.size(); ++i) one_group = one_group && mine[i]->row_tiles(R) == 1 && patch[0][i] == patch[0][0] &&
                  mine[i]->parts[0].xbar0 == mine[0]->parts[0].xbar0 + static_cast<int>(i);
    // Lane q of a group of k in buffer set st: its windows, the residual's
    // channels of its pixel, its MVMs.
    auto fire = [&](int q, int k, int st) {
      const std::size_t slot = static_cast<std::size_t>(st * lanes + q);
      const std::int64_t res_at = add ? res_all[static_cast<std::size_t>(st)] + std::int64_t{q} * ncols : 0;
      for (std::size_t i = 0; i < mine.size(); ++i)
        if (!segs[i].empty()) fill_patch(i, q, slot);
      if (add && grouped && q == 0 && !res_ahead) {
        e.li(c, 11, res_at);
        e.li(c, 12, k * ncols);
        e.ins(c, "dma.gl r11, " + r(res_reg) + ", r12");
      } else if (add && (lanes > 1 || pipe) && !grouped) {
        e.ins(c, "addi r10, " + r(res_reg) + ", " + std::to_string(mine[0]->n0 + std::int64_t{q} * Cout));
        e.li(c, 11, res_at);
        e.ins(c, "dma.gl r11, r10, r2");
      }
      const int xshift = q * lane_xbars;
      if (one_group) {
        e.li(c, 13, acc[slot]);
        e.li(c, 14, patch[slot][0]);
        fire_reads(e, c, n, "mvm r13, r14, " + std::to_string(mine[0]->parts[0].xbar0 + xshift) + ", " +
                                std::to_string(mask_of(static_cast<int>(mine.size()))) + ", " + std::to_string(n.input_bits) + ", 32, concat");
      } else {
        for (std::size_t i = 0; i < mine.size(); ++i) {
          const auto& p0 = mine[i]->parts[0];
          e.li(c, 13, acc[slot] + static_cast<std::int64_t>(i) * L * 4);
          e.li(c, 14, patch[slot][i]);
          fire_reads(e, c, n, "mvm r13, r14, " + std::to_string(p0.xbar0 + xshift) + ", " +
                                  std::to_string(mask_of(p0.row_tiles)) + ", " + std::to_string(n.input_bits) + ", 32, sum");
        }
      }
    };
    // Lane q of set st once its MVMs are done: partial sums of a split tile,
    // bias, requantization, activation, the fused Add, the store. `back`:
    // the pointers are already a group of `lanes` pixels on.
    auto finish = [&](int q, int st, std::int64_t back) {
      const std::size_t slot = static_cast<std::size_t>(st * lanes + q);
      const std::int64_t outb = outb_all[static_cast<std::size_t>(st)] + std::int64_t{q} * ncols;
      if (lanes > 1 || pipe) {
        e.li(c, 1, acc[slot]);
        e.li(c, 4, outb);
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
      if (table) {
        e.li(c, 12, lut_at);
        e.ins(c, "vlut r4, r4, r2, r12");
      }
      if (add) {
        // The Add as emit_add computes it: both inputs widened, scaled by
        // their multipliers, summed, requantized, clamped.
        if (lanes == 1 && !pipe) {
          e.ins(c, "addi r10, " + r(res_reg) + ", " + std::to_string(mine[0]->n0));
          e.li(c, 11, res_all[0]);
          e.ins(c, "dma.gl r11, r10, r2");
        } else if (res_ahead) {
          e.ins(c, "sub r11, " + r(res_reg) + ", " + r(kRow[res_ptr]));
          e.ins(c, "add r11, r11, r15");
          e.ins(c, "addi r11, r11, " + std::to_string(std::int64_t{q} * ncols));
        } else {
          e.li(c, 11, res_all[static_cast<std::size_t>(st)] + std::int64_t{q} * ncols);
        }
        e.li(c, 13, res32[static_cast<std::size_t>(q)]);
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
      if (grouped) return;
      e.ins(c, "addi r10, r25, " + std::to_string(mine[0]->n0 + std::int64_t{q} * Cout - back));
      e.ins(c, "dma.lg r10, r4, r2");
      hand_out_store(e, c, hand, 4, 2, std::int64_t{q} * Cout - back);
      if (lanes == 1 && !pipe) e.ins(c, "xor r4, r4, r15");
    };
    // A whole group's stores in one DMA (grouped lanes).
    auto store_group = [&](int k, int st, std::int64_t back) {
      if (!grouped) return;
      e.li(c, 11, outb_all[static_cast<std::size_t>(st)]);
      e.li(c, 12, k * ncols);
      if (back) {
        e.ins(c, "addi r10, r25, " + std::to_string(-back));
        e.ins(c, "dma.lg r10, r11, r12");
      } else {
        e.ins(c, "dma.lg r25, r11, r12");
      }
      hand_out_store(e, c, hand, 11, 12, -back);
    };
    // Rows ahead (emit_loops.h): the line buffer's second half, when the
    // scratchpad still has room for it.
    RowsAhead ahead;
    const RowsAhead* ahead_p = nullptr;
    if (!shares_loads(n, c) && n.handed_from < 0 && line_rows_ahead(e, c, n, lb, row, lb_ptr, ahead)) {
      ahead_p = &ahead;
      ahead.late = e.g.late_row_ends;
      std::int64_t widest = 0;
      for (const ShareRun& run : share_runs(out.shape.h, out.shape.w, copy, n.replicas, e.g.min_strip))
        widest = std::max(widest, run.cols);
      const std::int64_t half = widest * Cout;
      if (add && grouped && 2 * half + kAheadSlack <= e.scratch_free(c)) {
        res_ahead = true;
        const RowsAhead::Swap rb{15, e.scratch(c, half), e.scratch(c, half)};
        ahead.swaps.push_back(rb);
        const Ptr rp = ptrs[res_ptr];
        const int row_reg = kRow[res_ptr];
        ahead.first = [&e, c, rb, row_reg, Cout](std::int64_t cols) {
          e.li(c, 11, rb.a);
          e.li(c, 12, cols * Cout);
          e.ins(c, "dma.gl r11, " + r(row_reg) + ", r12");
        };
        ahead.load_next = [&e, c, rb, row_reg, Cout, rp, lines = ahead.load_next](std::int64_t cols, std::int64_t hstep) {
          lines(cols, hstep);
          e.ins(c, "addi r10, " + r(row_reg) + ", " + std::to_string(rp.step_h * hstep));
          wrap_ring(e, c, 10, rp);
          e.li(c, 16, rb.a ^ rb.b);
          e.ins(c, "xor r11, r15, r16");
          e.li(c, 12, cols * Cout);
          e.ins(c, "dma.gl r11, r10, r12");
        };
      }
    }
    hand = hand_out_begin(e, c, n);
    if (hand.reader >= 0 && (ncols != Cout || mine[0]->n0 != 0))
      throw CompileError("emit: node '" + n.name + "' hands its rows from a core that does not store every channel");
    // A group of k pixels: every lane's MVMs first, so they run at once
    // (cu.xbar.concurrent_mvm), then each lane's vector work.
    if (pipe) {
      const std::int64_t back = Cout * lanes;
      share_loop(e, c, out.shape.h, out.shape.w, copy, n.replicas, ptrs,
                 Pipelined<std::function<void(int, int)>, std::function<void(int, int, bool)>>{
                     [&](int st, int k) {
                       for (int q = 0; q < k; ++q) fire(q, k, st);
                     },
                     [&](int st, int k, bool moved) {
                       for (int q = 0; q < k; ++q) finish(q, st, moved ? back : 0);
                       store_group(k, st, moved ? back : 0);
                     }},
                 rows_in, lanes, ahead_p);
      hand_out_end(e, c, hand);
      shared_loads_end(e, c, n);
      continue;
    }
    share_loop(
        e, c, out.shape.h, out.shape.w, copy, n.replicas, ptrs,
        [&](int k) {
          for (int q = 0; q < k; ++q) fire(q, k, 0);
          if (e.row_mid) e.row_mid();
          for (int q = 0; q < k; ++q) finish(q, 0, 0);
          store_group(k, 0, 0);
        },
        rows_in, lanes, ahead_p);
    hand_out_end(e, c, hand);
    shared_loads_end(e, c, n);
  }
}


}  // namespace vp::cc::emit
