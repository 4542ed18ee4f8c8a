// Input bits per layer (vp-cc --input-bits): the precision of a Conv's
// inputs as its crossbars read them. An MVM drives its rows one input bit
// at a time (docs/chip-model.md), so its time and its conversions grow
// with the bits; a layer whose result barely moves when its inputs lose
// their low bits can take fewer, and a sensitive one keeps all 8.
//
// With b bits, s = 8 - b: every input code x is read as x' = x / 2^s,
// rounded and clamped to b bits signed (127 would round to 2^(b-1)). The
// sum then counts units of 2^s, so the bias is rounded to those units and
// the requantization shift is s shorter:
//   (sum(w x') + round(bias / 2^s)) * M >> (S - s).
// The golden model computes exactly that (golden_model.cpp); the chip
// shifts and clamps each window in its scratchpad (vsra, vclamp) and fires
// its MVMs with b input bits (emit_conv.cpp).
#include <set>
#include <string>
#include <utility>

#include "int_arith.h"
#include "vp/cc/passes.h"

namespace vp::cc {

void set_input_bits(Graph& g, const std::vector<std::pair<int, std::vector<std::string>>>& widths) {
  std::set<const Node*> named;
  for (const auto& [bits, layers] : widths) {
    const int s = 8 - bits;
    for (Node* n : named_convs(g, layers, "--input-bits")) {
      if (!named.insert(n).second)
        throw CompileError("--input-bits: node '" + n->name + "' is named by two --input-bits options");
      n->input_bits = bits;
      if (s == 0) continue;
      for (const std::int32_t sh : n->q.shift)
        if (sh < s)
          throw CompileError("--input-bits " + std::to_string(bits) + ": node '" + n->name +
                             "' has a requantization shift of " + std::to_string(sh) + ", shorter than the " +
                             std::to_string(s) + " input bits dropped");
      for (std::int32_t& sh : n->q.shift) sh -= s;
      // Rounded as vsra and vrq round (int_arith.h).
      for (std::int32_t& b : n->q.bias) b = static_cast<std::int32_t>(round_shift(b, s));
    }
  }
}

}  // namespace vp::cc
