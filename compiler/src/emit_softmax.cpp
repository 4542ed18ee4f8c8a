// Softmax over runs of channels of each pixel (a classifier's scores inside
// a graph, an attention's rows, one run per head): the vector unit finds
// each run's largest code, subtracts it in int32, narrows the difference to
// int8 (halved when the input's step is fine, softmax_shift), reads the
// exponentials from a table and sums them; the scalar unit takes the sum's reciprocal (recip);
// vrqs scales every exponential by it into output codes of step 1/127. A
// causal mask is a table of rows in the scratchpad (127 where a channel
// counts, -128 where it is masked) that vmin applies before the maximum and
// after the subtraction, so a masked channel's exponential is the table's 0.
// A mask input (a Swin window's, Value::softmax_mask) is the same per pixel,
// read from its preloaded map beside the pixel's scores.
// The golden model runs the same steps (softmax_int.h).
#include "emit_loops.h"
#include "softmax_int.h"

namespace vp::cc::emit {

void emit_softmax(Ctx& e, const Node& n) {
  const Value& x = e.g.val(n.in[0]);
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t C = y.shape.c, G = n.group > 0 ? n.group : C, runs = C / G;
  if (C % G != 0) throw CompileError("node '" + n.name + "': Softmax runs of " + std::to_string(G) + " do not divide " + std::to_string(C) + " channels");
  if ((n.in.size() > 1 ? 11 : 10) * C + 8 > e.t.spad_bytes / 2)
    throw CompileError("node '" + n.name + "': a pixel of " + std::to_string(C) + " channels does not fit the scratchpad");
  // The mask of each pixel row: channel j of a run counts in row t when j <= t.
  std::vector<std::int8_t> mask;
  if (n.causal)
    for (std::int64_t t = 0; t < y.shape.h; ++t)
      for (std::int64_t ch = 0; ch < C; ++ch) mask.push_back(ch % G <= t ? 127 : -128);
  const Value* mask_in = n.in.size() > 1 ? &e.g.val(n.in[1]) : nullptr;
  const bool masked = n.causal || mask_in;
  for (int c : n.cores) {
    e.scratch_reset(c);
    const std::int64_t X = e.scratch(c, C), X32 = e.scratch(c, 4 * C), E32 = e.scratch(c, 4 * C), O = e.scratch(c, C),
                       W = e.scratch(c, 8), MK = mask_in ? e.scratch(c, C) : 0;
    e.li(c, 1, X);
    e.li(c, 2, O);
    e.li(c, 3, C);
    e.li(c, 4, G);
    e.li(c, 5, e.bytes(c, n.q.lut));
    e.li(c, 6, 1);
    e.li(c, 7, E32);
    e.li(c, 8, W);
    e.li(c, 9, X32);
    std::vector<Ptr> ptrs{{interior(e, x), C, x.buf.row(x.shape)}, {interior(e, y), C, y.buf.row(y.shape)}};
    if (n.causal) ptrs.push_back({e.bytes(c, mask), 0, C});
    if (mask_in) {
      ptrs.push_back({interior(e, *mask_in), C, mask_in->buf.row(mask_in->shape)});
      e.li(c, 15, MK);
    }
    const std::string m_reg = mask_in ? "r15" : "r27";
    share_loop(e, c, y.shape.h, y.shape.w, share_of(n, c), n.replicas, ptrs, [&] {
      e.ins(c, "dma.gl r1, r24, r3");
      if (mask_in) e.ins(c, "dma.gl r15, r27, r3");
      if (masked) e.ins(c, "vmin r1, r1, " + m_reg + ", r3, i8");
      e.ins(c, "vwiden r9, r1, r3");
      // Each run less its maximum, in int32.
      e.li(c, 12, X);
      e.li(c, 13, X32);
      e.li(c, 14, runs);
      const std::string max_loop = e.label(c, "smax");
      e.put_label(c, max_loop);
      e.ins(c, "vpmax r8, r12, r6, r4, r6, i8");
      e.ins(c, "ldb r10, r8, 0");
      e.ins(c, "sub r10, r0, r10");
      e.ins(c, "vadds r13, r13, r10, r4, i32");
      e.ins(c, "addi r12, r12, " + std::to_string(G));
      e.ins(c, "addi r13, r13, " + std::to_string(4 * G));
      e.ins(c, "dbnz r14, " + max_loop);
      // Narrowed to int8 (halved first when the step is fine).
      e.ins(c, "vrqs r1, r9, r3, r6, " + std::to_string(n.q.shift[0]) + ", 0");
      if (masked) e.ins(c, "vmin r1, r1, " + m_reg + ", r3, i8");
      e.ins(c, "vlut r1, r1, r3, r5");
      e.ins(c, "vwiden r7, r1, r3");
      // Each run's exponentials over their sum.
      e.li(c, 12, X);
      e.li(c, 13, E32);
      e.li(c, 11, O);
      e.li(c, 14, runs);
      const std::string sum_loop = e.label(c, "ssum");
      e.put_label(c, sum_loop);
      e.ins(c, "vpsum r8, r12, r6, r4, r6, i8");
      e.ins(c, "ld r10, r8, 0");
      e.ins(c, "recip r10, r10");
      e.ins(c, "muli r10, r10, 127");
      e.ins(c, "vrqs r11, r13, r4, r10, " + std::to_string(kSoftmaxShift) + ", 0");
      e.ins(c, "addi r12, r12, " + std::to_string(G));
      e.ins(c, "addi r13, r13, " + std::to_string(4 * G));
      e.ins(c, "addi r11, r11, " + std::to_string(G));
      e.ins(c, "dbnz r14, " + sum_loop);
      e.ins(c, "dma.lg r25, r2, r3");
    });
  }
}

}  // namespace vp::cc::emit
