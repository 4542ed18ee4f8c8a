// LayerNormalization over the channels of each pixel (ConvNeXt's, a
// transformer's): the vector unit sums, the scalar unit divides by the
// channel count and takes the reciprocal square root (rsqrt), the vector
// unit scales and requantizes. The golden model (golden_model.cpp) follows
// the same steps; quantize.cpp chooses the constants (QuantParams::Norm).
#include "emit_loops.h"

namespace vp::cc::emit {

void emit_layer_norm(Ctx& e, const Node& n) {
  const Value& x = e.g.val(n.in[0]);
  const Value& y = e.g.val(n.out[0]);
  const std::int64_t C = y.shape.c;
  const auto& p = n.q.norm;
  if (19 * C > e.t.spad_bytes / 2)
    throw CompileError("node '" + n.name + "': a pixel of " + std::to_string(C) + " channels does not fit the scratchpad");
  std::vector<std::int32_t> rq;
  std::vector<std::int8_t> beta;
  for (std::int64_t c = 0; c < C; ++c) {
    const auto k = static_cast<std::size_t>(c);
    rq.push_back(n.q.mult[k]);
    rq.push_back(n.q.shift[k]);
    beta.push_back(static_cast<std::int8_t>(n.q.bias[k]));
  }
  for (int c : n.cores) {
    e.scratch_reset(c);
    const std::int64_t X = e.scratch(c, C), X32 = e.scratch(c, 4 * C), SQ = e.scratch(c, 4 * C), SUM = e.scratch(c, 4),
                       O = e.scratch(c, C);
    e.li(c, 1, X);
    e.li(c, 2, std::int64_t{1} << p.frac);
    e.li(c, 3, X32);
    e.li(c, 4, SUM);
    e.li(c, 5, SQ);
    e.li(c, 6, C);
    e.li(c, 7, O);
    e.li(c, 8, e.words(c, rq));
    e.li(c, 9, 1);
    e.li(c, 13, e.bytes(c, beta));
    share_loop(e, c, y.shape.h, y.shape.w, share_of(n, c), n.replicas,
               {{interior(e, x), C, x.buf.row(x.shape)}, {interior(e, y), C, y.buf.row(y.shape)}}, [&] {
                 e.ins(c, "dma.gl r1, r24, r6");
                 e.ins(c, "vwiden r3, r1, r6");
                 // The mean in 2^-frac steps: sum * round(2^23 / C) >> (23 - frac).
                 e.ins(c, "vpsum r4, r3, r9, r6, r9, i32");
                 e.ins(c, "ld r10, r4, 0");
                 e.ins(c, "muli r10, r10, " + std::to_string(p.mean_mult));
                 e.ins(c, "addi r10, r10, " + std::to_string(std::int64_t{1} << (p.mean_shift - 1)));
                 e.ins(c, "srai r10, r10, " + std::to_string(p.mean_shift));
                 e.ins(c, "sub r10, r0, r10");
                 e.ins(c, "vmuls r3, r3, r2, r6, i32");
                 e.ins(c, "vadds r3, r3, r10, r6, i32");
                 // 1 / sqrt of the sum of squares (plus epsilon in the same units).
                 e.ins(c, "vmul r5, r3, r3, r6, i32");
                 e.ins(c, "vpsum r4, r5, r9, r6, r9, i32");
                 e.ins(c, "ld r10, r4, 0");
                 e.ins(c, "addi r10, r10, " + std::to_string(p.eps));
                 e.ins(c, "rsqrt r10, r10");
                 e.ins(c, "vmuls r3, r3, r10, r6, i32");
                 e.ins(c, "vrq r7, r3, r6, r8, 0");
                 e.ins(c, "vadd r7, r7, r13, r6, i8");
                 e.ins(c, "dma.lg r25, r7, r6");
               });
  }
}

}  // namespace vp::cc::emit
