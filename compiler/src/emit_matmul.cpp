// MatMul of two activations on the vector unit (an attention's q @ k^T and
// scores @ v; canonicalize_attention.cpp gives the layouts): no weights to
// program, so the digital path computes it. Every core of the layer first
// takes all of B (each output row reads every row of it) into its
// scratchpad as int32, once, at its first row; beside a causal Softmax
// (Node::causal) output row m needs B's rows 0..m only, so each row takes
// the rows it lacks, and waits for no more (the row hand-over asks for
// them alone); then per output row m:
//   trans_b (B is [N][heads][K], keys): A's row widened, and for each n one
//     vmul of the whole row by B's row n (every head at once), then a vpsum
//     of each head's K products into the output's int32 sums (causal: the
//     sums cleared, then n up to m only: the later scores are 0);
//   plain (B is [K][heads][N], values): for each head and k, A's code
//     (ldb) times B's row k of that head (vmuls) added into the head's N
//     sums (vadd) (causal: k up to m only: the later probabilities are 0);
// then one vrqs with the product's (M, S) and the row's store. Exact int32
// sums, the golden model's (golden_model.cpp).
#include "emit_loops.h"

namespace vp::cc::emit {

bool matmul_rows_as_needed(const Graph& g, const Node& n) {
  const Value& a = g.val(n.in[0]);
  const Value& b = g.val(n.in[1]);
  const Value& y = g.val(n.out[0]);
  // Row m's last B row is found from the row pointer of A (keys: B's rows
  // are as long as A's) or of the output (values: as long as its rows),
  // which needs rows without borders.
  return n.causal && a.buf.pad == 0 && b.buf.pad == 0 && y.buf.pad == 0 && y.shape.w == 1 && a.shape.w == 1 &&
         b.shape.w == 1 && (n.trans_b ? a.shape.c == b.shape.c : y.shape.c == b.shape.c);
}

namespace {

// r1..r10 of both forms: A's row (int8, int32), its length, the products,
// K or N, 1, the sums, the output row, its length, the flag word (cleared).
void set_registers(Ctx& e, int c, const std::vector<std::int64_t>& r) {
  for (std::size_t i = 0; i < r.size(); ++i) e.li(c, static_cast<int>(i) + 1, r[i]);
  e.ins(c, "st r0, r10, 0");
}

// The scores of one key row for every head: a vpsum of each head's K
// products (from r4) into its sums (from r12, N apart).
void head_sums(Ctx& e, int c, const std::string& loop, std::int64_t heads, std::int64_t K, std::int64_t N) {
  e.ins(c, "add r10, r4, r0");
  e.ins(c, "add r13, r12, r0");
  e.li(c, 15, heads);
  e.put_label(c, loop);
  e.ins(c, "vpsum r13, r10, r6, r5, r6, i32");
  e.ins(c, "addi r10, r10, " + std::to_string(4 * K));
  e.ins(c, "addi r13, r13, " + std::to_string(4 * N));
  e.ins(c, "dbnz r15, " + loop);
}

// Scratchpad bytes of a core computing `groups`-th of the heads: B held as
// int32 (groups 1 only) or as int8 codes widened row by row.
std::int64_t matmul_need(const Graph& g, const Node& n, int groups, bool b_int8) {
  const Value& a = g.val(n.in[0]);
  const Value& b = g.val(n.in[1]);
  const Value& y = g.val(n.out[0]);
  const std::int64_t CA = a.shape.c / groups, CB = b.shape.c / groups, CY = y.shape.c / groups,
                     N = y.shape.c / n.heads, rows = b.shape.h / std::max(1, n.windows);
  if (!b_int8) return std::max(CA, CB) + 4 * CA + 4 * rows * CB + 4 * std::max(CA, N) + 4 * CY + CY + 8;
  return std::max(CA, CB) + 4 * CA + rows * CB + 4 * CB + 4 * std::max(CA, N) + 4 * CY + CY + 8;
}

}  // namespace

}  // namespace vp::cc::emit

namespace vp::cc {

int matmul_head_groups(const Graph& g, const Node& n, const Target& t) {
  // Inside windows B is taken window by window, as int8 codes.
  if (n.windows <= 1 && emit::matmul_need(g, n, 1, false) <= t.spad_bytes / 2) return 1;
  if (emit::matmul_rows_as_needed(g, n)) return 0;  // a causal product takes B's rows as it goes: whole rows
  for (int groups = 1; groups <= n.heads; ++groups)
    if (n.heads % groups == 0 && emit::matmul_need(g, n, groups, true) <= t.spad_bytes / 2) return groups;
  return 0;
}

bool matmul_b_as_int8(const Graph& g, const Node& n, const Target& t) {
  return matmul_head_groups(g, n, t) > 0 && (n.windows > 1 || emit::matmul_need(g, n, 1, false) > t.spad_bytes / 2);
}

}  // namespace vp::cc

namespace vp::cc::emit {
namespace {

// A product whose B does not fit as int32: the heads in `groups` groups,
// core s of the layer computing group s mod groups of its share s / groups
// of the rows (several cores write parts of one output row; a reader waits
// for all of them). Each core keeps its group's columns of B as int8 codes
// and widens a row of them before each use; otherwise the loops are those
// of emit_matmul.
void emit_matmul_head_groups(Ctx& e, const Node& n, int groups) {
  const Value& a = e.g.val(n.in[0]);
  const Value& b = e.g.val(n.in[1]);
  const Value& y = e.g.val(n.out[0]);
  // Inside windows (Node::windows) each window's rows take B's block of
  // `rows` rows, loaded at the window's first row; otherwise one window.
  const std::int64_t W = std::max(1, n.windows), per = y.shape.h / W;
  const std::int64_t hg = n.heads / groups, K = a.shape.c / n.heads, N = y.shape.c / n.heads, rows = b.shape.h / W,
                     CA = hg * K, CB = b.shape.c / groups, CY = hg * N;
  const int sharers = n.replicas / groups;
  for (int c : n.cores) {
    const int s = share_of(n, c), group = s % groups, share = s / groups;
    if (share >= sharers) continue;  // a core past the last whole set of groups
    const std::int64_t a_off = group * CA, b_off = group * CB, y_off = group * CY;
    e.scratch_reset(c);
    const std::int64_t A8 = e.scratch(c, std::max(CA, CB)), A32 = e.scratch(c, 4 * CA), B8 = e.scratch(c, rows * CB),
                       BW = e.scratch(c, 4 * CB), T32 = e.scratch(c, 4 * std::max(CA, N)), ACC = e.scratch(c, 4 * CY),
                       O = e.scratch(c, CY), FLAG = e.scratch(c, 8);
    set_registers(e, c, {A8, A32, CA, T32, n.trans_b ? K : N, 1, ACC, O, CY, FLAG});
    e.li(c, 28, BW);
    // The group's columns of every row of B (of the window's block), at the first row.
    std::int64_t block = 0;
    const RowHook load_b = [&e, c, &b, rows, CB, b_off, B8, FLAG, &block](std::int64_t, std::int64_t, std::int64_t) {
      const std::string skip = e.label(c, "bready"), loop = e.label(c, "bload");
      e.li(c, 10, FLAG);
      e.ins(c, "ld r11, r10, 0");
      e.ins(c, "bne r11, r0, " + skip);
      e.li(c, 11, interior(e, b) + b_off + block * rows * b.buf.row(b.shape));
      e.li(c, 12, B8);
      e.li(c, 14, rows);
      e.li(c, 15, CB);
      e.put_label(c, loop);
      e.ins(c, "dma.gl r12, r11, r15");
      e.ins(c, "addi r11, r11, " + std::to_string(b.buf.row(b.shape)));
      e.ins(c, "addi r12, r12, " + std::to_string(CB));
      e.ins(c, "dbnz r14, " + loop);
      e.ins(c, "st r6, r10, 0");
      e.put_label(c, skip);
    };
    const std::vector<Ptr> ptrs{{interior(e, a), a.shape.c, a.buf.row(a.shape)},
                                {interior(e, y), y.shape.c, y.buf.row(y.shape)}};
    const auto body = [&] {
      e.ins(c, "addi r10, r24, " + std::to_string(a_off));
      e.ins(c, "dma.gl r1, r10, r3");
      if (n.trans_b) {
        e.ins(c, "vwiden r2, r1, r3");
        e.li(c, 11, B8);
        e.li(c, 12, ACC);
        e.li(c, 14, rows);
        const std::string rows_loop = e.label(c, "mrow"), heads_loop = e.label(c, "mhead");
        e.put_label(c, rows_loop);
        e.ins(c, "vwiden r28, r11, r3");
        e.ins(c, "vmul r4, r2, r28, r3, i32");
        head_sums(e, c, heads_loop, hg, K, rows);
        e.ins(c, "addi r11, r11, " + std::to_string(CB));
        e.ins(c, "addi r12, r12, 4");
        e.ins(c, "dbnz r14, " + rows_loop);
      } else {
        e.ins(c, "vfill r7, r0, r9, i32");
        e.li(c, 11, A8);
        e.li(c, 12, ACC);
        e.li(c, 29, B8);
        e.li(c, 14, hg);
        const std::string heads_loop = e.label(c, "mhead"), k_loop = e.label(c, "mk");
        e.put_label(c, heads_loop);
        e.ins(c, "add r13, r29, r0");
        e.li(c, 15, K);
        e.put_label(c, k_loop);
        e.ins(c, "ldb r10, r11, 0");
        e.ins(c, "vwiden r28, r13, r5");
        e.ins(c, "vmuls r4, r28, r10, r5, i32");
        e.ins(c, "vadd r12, r12, r4, r5, i32");
        e.ins(c, "addi r11, r11, 1");
        e.ins(c, "addi r13, r13, " + std::to_string(CB));
        e.ins(c, "dbnz r15, " + k_loop);
        e.ins(c, "addi r12, r12, " + std::to_string(4 * N));
        e.ins(c, "addi r29, r29, " + std::to_string(N));
        e.ins(c, "dbnz r14, " + heads_loop);
      }
      e.li(c, 10, n.q.mult[0]);
      e.ins(c, "vrqs r8, r7, r9, r10, " + std::to_string(n.q.shift[0]) + ", 0");
      e.ins(c, "addi r10, r25, " + std::to_string(y_off));
      e.ins(c, "dma.lg r10, r8, r9");
    };
    if (W == 1) {
      share_loop(e, c, y.shape.h, y.shape.w, share, sharers, ptrs, body, load_b);
      continue;
    }
    // The core's share of the windows, each its rows' loop after B's block
    // is taken again (the flag word cleared).
    for (block = W * share / sharers; block < W * (share + 1) / sharers; ++block) {
      e.li(c, 10, FLAG);
      e.ins(c, "st r0, r10, 0");
      std::vector<Ptr> q = ptrs;
      for (Ptr& x : q) x.base += block * per * x.step_h;
      pixel_loop(e, c, block * per, per, y.shape.w, q, body, load_b);
    }
  }
}

}  // namespace

void emit_matmul(Ctx& e, const Node& n) {
  const Value& a = e.g.val(n.in[0]);
  const Value& b = e.g.val(n.in[1]);
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t h = n.heads, K = a.shape.c / h, N = y.shape.c / h, rows = b.shape.h, CA = a.shape.c,
                     CB = b.shape.c, CY = y.shape.c;
  const std::int64_t need = matmul_need(e.g, n, 1, false);
  const int groups = matmul_head_groups(e.g, n, e.t);
  if (n.windows > 1 && matmul_head_groups(e.g, n, e.t) == 0)
    throw CompileError("node '" + n.name + "': MatMul of two activations inside windows: no group of its heads fits a " +
                       "window's rows of its second operand in the scratchpad");
  if (matmul_b_as_int8(e.g, n, e.t)) {
    if (n.replicas < groups)
      throw CompileError("node '" + n.name + "': MatMul of two activations in " + std::to_string(groups) +
                         " groups of heads has " + std::to_string(n.replicas) + " cores");
    return emit_matmul_head_groups(e, n, groups);
  }
  if (need > e.t.spad_bytes / 2)
    throw CompileError("node '" + n.name + "': MatMul of two activations needs " + std::to_string(need) +
                       " scratchpad bytes (all of its second operand as int32" +
                       (matmul_rows_as_needed(e.g, n) ? ", its rows taken as the causal mask allows" : "") +
                       "); at most " + std::to_string(e.t.spad_bytes / 2) +
                       " are free, and no group of its heads fits with the operand as int8");
  for (int c : n.cores) {
    e.scratch_reset(c);
    const std::int64_t A8 = e.scratch(c, std::max(CA, CB)), A32 = e.scratch(c, 4 * CA), B32 = e.scratch(c, 4 * rows * CB),
                       T32 = e.scratch(c, 4 * std::max(CA, N)), ACC = e.scratch(c, 4 * CY), O = e.scratch(c, CY),
                       FLAG = e.scratch(c, 8);
    set_registers(e, c, {A8, A32, CA, T32, n.trans_b ? K : N, 1, ACC, O, CY, FLAG});
    const bool as_needed = matmul_rows_as_needed(e.g, n);
    if (as_needed) {  // FLAG: the next B row's address in memory, then in the scratchpad
      e.li(c, 11, interior(e, b));
      e.ins(c, "st r11, r10, 0");
      e.li(c, 11, B32);
      e.ins(c, "st r11, r10, 4");
    }
    // B's rows up to this row's last (row pointer - its base + B's base).
    const RowHook take_b = [&e, c, &n, &a, &b, &y, CB, A8, FLAG](std::int64_t, std::int64_t, std::int64_t) {
      const std::string loop = e.label(c, "btake"), done = e.label(c, "bdone");
      e.li(c, 12, n.trans_b ? interior(e, a) : interior(e, y));
      e.ins(c, std::string("sub r12, ") + (n.trans_b ? "r24" : "r25") + ", r12");
      e.ins(c, "addi r12, r12, " + std::to_string(interior(e, b)));
      e.li(c, 10, FLAG);
      e.ins(c, "ld r11, r10, 0");
      e.ins(c, "ld r13, r10, 4");
      e.li(c, 14, A8);
      e.li(c, 15, CB);
      e.put_label(c, loop);
      e.ins(c, "blt r12, r11, " + done);
      e.ins(c, "dma.gl r14, r11, r15");
      e.ins(c, "vwiden r13, r14, r15");
      e.ins(c, "addi r11, r11, " + std::to_string(CB));
      e.ins(c, "addi r13, r13, " + std::to_string(4 * CB));
      e.ins(c, "jmp " + loop);
      e.put_label(c, done);
      e.ins(c, "st r11, r10, 0");
      e.ins(c, "st r13, r10, 4");
    };
    // All of B, at the first row (after its wait for B's rows).
    const RowHook load_b = [&e, c, &b, rows, CB, A8, B32, FLAG](std::int64_t, std::int64_t, std::int64_t) {
      const std::string skip = e.label(c, "bready"), loop = e.label(c, "bload");
      e.li(c, 10, FLAG);
      e.ins(c, "ld r11, r10, 0");
      e.ins(c, "bne r11, r0, " + skip);
      e.li(c, 11, interior(e, b));
      e.li(c, 12, A8);
      e.li(c, 13, B32);
      e.li(c, 14, rows);
      e.li(c, 15, CB);
      e.put_label(c, loop);
      e.ins(c, "dma.gl r12, r11, r15");
      e.ins(c, "vwiden r13, r12, r15");
      e.ins(c, "addi r11, r11, " + std::to_string(b.buf.row(b.shape)));
      e.ins(c, "addi r13, r13, " + std::to_string(4 * CB));
      e.ins(c, "dbnz r14, " + loop);
      e.ins(c, "st r6, r10, 0");
      e.put_label(c, skip);
    };
    const std::vector<Ptr> ptrs{{interior(e, a), CA, a.buf.row(a.shape)}, {interior(e, y), CY, y.buf.row(y.shape)}};
    share_loop(e, c, y.shape.h, y.shape.w, share_of(n, c), n.replicas, ptrs, [&] {
      e.ins(c, "dma.gl r1, r24, r3");
      if (n.trans_b) {
        e.ins(c, "vwiden r2, r1, r3");
        e.li(c, 11, B32);
        e.li(c, 12, ACC);
        if (as_needed) {  // n up to m: B's rows taken so far; the later sums 0
          e.ins(c, "vfill r7, r0, r9, i32");
          e.li(c, 14, FLAG);
          e.ins(c, "ld r14, r14, 4");
        } else {
          e.li(c, 14, N);
        }
        const std::string rows_loop = e.label(c, "mrow"), heads_loop = e.label(c, "mhead");
        e.put_label(c, rows_loop);
        e.ins(c, "vmul r4, r2, r11, r3, i32");
        head_sums(e, c, heads_loop, h, K, N);
        e.ins(c, "addi r11, r11, " + std::to_string(4 * CB));
        e.ins(c, "addi r12, r12, 4");
        e.ins(c, as_needed ? "blt r11, r14, " + rows_loop : "dbnz r14, " + rows_loop);
      } else {
        // Per head, k up to K (or, causal, up to m: the value rows taken so
        // far; the later probabilities are 0 codes and add nothing).
        e.ins(c, "vfill r7, r0, r9, i32");
        if (as_needed) {  // r29: the taken rows' end less ACC (a head's end: its sums + r29); r28: its first probability
          e.li(c, 14, FLAG);
          e.ins(c, "ld r29, r14, 4");
          e.ins(c, "addi r29, r29, " + std::to_string(-ACC));
          e.li(c, 28, A8);
        } else {
          e.li(c, 11, A8);
        }
        e.li(c, 12, ACC);
        e.li(c, 14, h);
        const std::string heads_loop = e.label(c, "mhead"), k_loop = e.label(c, "mk");
        e.put_label(c, heads_loop);
        e.ins(c, "addi r13, r12, " + std::to_string(B32 - ACC));
        if (as_needed) {
          e.ins(c, "add r15, r12, r29");
          e.ins(c, "add r11, r28, r0");
        } else {
          e.li(c, 15, K);
        }
        e.put_label(c, k_loop);
        e.ins(c, "ldb r10, r11, 0");
        e.ins(c, "vmuls r4, r13, r10, r5, i32");
        e.ins(c, "vadd r12, r12, r4, r5, i32");
        e.ins(c, "addi r11, r11, 1");
        e.ins(c, "addi r13, r13, " + std::to_string(4 * CB));
        e.ins(c, as_needed ? "blt r13, r15, " + k_loop : "dbnz r15, " + k_loop);
        if (as_needed) e.ins(c, "addi r28, r28, " + std::to_string(K));
        e.ins(c, "addi r12, r12, " + std::to_string(4 * N));
        e.ins(c, "dbnz r14, " + heads_loop);
      }
      e.li(c, 10, n.q.mult[0]);
      e.ins(c, "vrqs r8, r7, r9, r10, " + std::to_string(n.q.shift[0]) + ", 0");
      e.ins(c, "dma.lg r25, r8, r9");
    }, as_needed ? take_b : load_b);
  }
}

}  // namespace vp::cc::emit
