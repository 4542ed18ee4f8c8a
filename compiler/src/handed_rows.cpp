// Handed rows (handed_rows.h).
#include "handed_rows.h"

#include <algorithm>
#include <string>

#include "schedule_cost.h"
#include "vp/cc/passes.h"
#include "vp/isa/isa.h"

namespace vp::cc {

int hand_source(const Graph& g, const Node& q, const Target& t) {
  const ConvGeom& k = q.geom;
  if (q.op != OpKind::Conv || q.fused || q.fused_next >= 0 || q.in.empty()) return -1;
  if (k.kh != 1 || k.kw != 1 || k.sh != 1 || k.sw != 1 || k.dh != 1 || k.dw != 1 || k.group != 1 ||
      k.pt || k.pl || k.pb || k.pr)
    return -1;
  const Value& x = g.val(q.in[0]);
  const Shape& y = g.val(q.out[0]).shape;
  if (x.shape.h != y.h || x.shape.w != y.w || !use_line_buffer(k, x.shape, y, t.spad_bytes, nullptr)) return -1;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& p = g.nodes[i];
    if (p.op != OpKind::Conv || p.fused || &p == &q || stored_value(g, p) != q.in[0]) continue;
    return fused_residual(g, p) ? static_cast<int>(i) : -1;
  }
  return -1;
}

std::int64_t hand_slot_bytes(const Graph& g, const Node& q, int copy) {
  const Shape& y = g.val(q.out[0]).shape;
  std::int64_t widest = 0;
  for (const ShareRun& run : share_runs(y.h, y.w, copy, q.replicas, g.min_strip)) widest = std::max(widest, run.cols);
  return 2 * ((widest * g.val(q.in[0]).shape.c + 7) / 8 * 8);
}

namespace emit {
namespace {

// One word (its value unused) to or from `peer` (kHandTag is the shared
// loads' tag, which `messages` sends on).
void message(Ctx& e, int c, const char* op, int peer, std::int64_t word) { messages(e, c, op, {peer}, word); }

// The current half, in `word`, turned to the other (r10, r11, r16).
void turn(Ctx& e, int c, std::int64_t word, std::int64_t a, std::int64_t b) {
  e.li(c, 16, word);
  e.ins(c, "ld r10, r16, 0");
  e.li(c, 11, a ^ b);
  e.ins(c, "xor r10, r10, r11");
  e.ins(c, "st r10, r16, 0");
}

void set_half(Ctx& e, int c, std::int64_t word, std::int64_t half) {
  e.li(c, 10, half);
  e.li(c, 16, word);
  e.ins(c, "st r10, r16, 0");
}

}  // namespace

void hand_in_begin(Ctx& e, int c, const Node& q) {
  if (q.handed_from < 0) return;
  const int r = copy_of(q, c);
  const Node& p = e.g.nodes[static_cast<std::size_t>(q.handed_from)];
  const int writer = copy_cores(p, r).front();
  const std::int64_t word = e.words(c, {0});
  message(e, c, "send", writer, word);
  message(e, c, "send", writer, word);
}

RowHook handed_line_rows(Ctx& e, int c, const Node& q, const LineBuffer& lb) {
  const int r = copy_of(q, c);
  const Node& p = e.g.nodes[static_cast<std::size_t>(q.handed_from)];
  const int writer = copy_cores(p, r).front();
  const std::int64_t a = q.hand_slot[static_cast<std::size_t>(r)];
  const std::int64_t b = a + hand_slot_bytes(e.g, q, r) / 2;
  const std::int64_t word = e.words(c, {0}), half_word = e.state_word(c);
  set_half(e, c, half_word, a);
  const std::string wait_dma = "wait " + std::to_string(isa::wait_bit(isa::Unit::Dma));
  return line_rows(e, c, q, lb, [&e, c, lb, writer, a, b, word, half_word, wait_dma](std::int64_t cols, int) {
    message(e, c, "recv", writer, word);
    e.li(c, 16, half_word);
    e.ins(c, "ld r10, r16, 0");
    e.li(c, 11, lb.at);
    e.li(c, 12, lb.span(cols));
    e.ins(c, "dma.sl r11, r10, r12");
    // The copy out of the half must be done before the writer may fill it again.
    e.ins(c, wait_dma);
    message(e, c, "send", writer, word);
    turn(e, c, half_word, a, b);
  });
}

HandOut hand_out_begin(Ctx& e, int c, const Node& p) {
  HandOut h;
  const auto self = static_cast<int>(&p - e.g.nodes.data());
  const int r = copy_of(p, c);
  for (const Node& q : e.g.nodes) {
    if (q.handed_from != self || r < 0 || copy_cores(p, r).front() != c) continue;
    h.reader = copy_cores(q, r).front();
    h.a = q.hand_slot[static_cast<std::size_t>(r)];
    h.b = h.a + hand_slot_bytes(e.g, q, r) / 2;
  }
  if (h.reader < 0) return h;
  h.half_word = e.state_word(c);
  const std::int64_t word = e.words(c, {0});
  message(e, c, "recv", h.reader, word);
  set_half(e, c, h.half_word, h.a);
  const std::string wait_dma = "wait " + std::to_string(isa::wait_bit(isa::Unit::Dma));
  e.row_end = [&e, h, word, wait_dma](int core) {
    // The row's pixels must be in the half before the reader hears of them.
    e.ins(core, wait_dma);
    message(e, core, "send", h.reader, word);
    message(e, core, "recv", h.reader, word);
    turn(e, core, h.half_word, h.a, h.b);
  };
  return h;
}

void hand_out_store(Ctx& e, int c, const HandOut& h, int from, int bytes_reg, std::int64_t offset) {
  if (h.reader < 0) return;
  // The pixels' place in the row: the output pointer (r25) less the row's
  // first pixel (r22), in the current half.
  e.li(c, 16, h.half_word);
  e.ins(c, "ld r16, r16, 0");
  e.ins(c, "sub r10, r25, r22");
  e.ins(c, "add r10, r10, r16");
  if (offset) e.ins(c, "addi r10, r10, " + std::to_string(offset));
  e.ins(c, "dma.ls r10, r" + std::to_string(from) + ", r" + std::to_string(bytes_reg));
}

void hand_out_end(Ctx& e, int c, const HandOut& h) {
  if (h.reader < 0) return;
  e.row_end = nullptr;
  message(e, c, "recv", h.reader, e.words(c, {0}));
}

}  // namespace emit
}  // namespace vp::cc
