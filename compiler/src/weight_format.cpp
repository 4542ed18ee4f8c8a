// Weight formats per layer (vp-cc --weight-bits, --encoding): the bits of a
// Conv's weights and the signed encoding of its crossbars.
//
// A crossbar of 2^cell_bits levels holds a b-bit weight in ceil(b /
// cell_bits) slices, twice that as a differential pair, so its logical
// columns are cols / slices (/ 2). Fewer weight bits put more output
// channels on a crossbar (fewer crossbars for a wide layer, less to
// program) at the cost of a coarser weight; quantize rounds the layer's
// weights to +-(2^(b-1) - 1) per output channel, and the golden model
// computes with those integers. The encoding changes no number the golden
// model computes: offset slices store w + 2^(b-1), so the offset's
// programming error reaches every weight, and the back end subtracts
// 2^(b-1) x the inputs' sum; differential pairs store max(w, 0) and
// max(-w, 0) on two column sets, each cell carrying only its own error,
// in twice the columns. A layer whose format is not the chip's
// (xbar.weight_bits, xbar.signed_encoding) has its crossbars set by xfmt
// at the start of its cores' programs (emit_program.cpp).
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "vp/cc/passes.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/mvm_timing.h"

namespace vp::cc {

void set_weight_bits(Graph& g, const Target& t, const std::vector<std::pair<int, std::vector<std::string>>>& widths) {
  // A chip whose weights are narrower than the network's 8 bits gets its
  // own width everywhere (its crossbars cannot hold more).
  for (Node& n : g.nodes)
    if (n.op == OpKind::Conv) n.weight_bits = std::min(8, t.weight_bits);
  std::set<const Node*> named;
  for (const auto& [bits, layers] : widths)
    for (Node* n : named_convs(g, layers, "--weight-bits")) {
      if (!named.insert(n).second)
        throw CompileError("--weight-bits: node '" + n->name + "' is named by two --weight-bits options");
      n->weight_bits = bits;
      n->xbar_weight_bits = bits;
    }
}

void set_encoding(Graph& g, const std::vector<std::pair<bool, std::vector<std::string>>>& encodings) {
  std::set<const Node*> named;
  for (const auto& [differential, layers] : encodings)
    for (Node* n : named_convs(g, layers, "--encoding")) {
      if (!named.insert(n).second)
        throw CompileError("--encoding: node '" + n->name + "' is named by two --encoding options");
      n->differential = differential ? 1 : 0;
    }
}

bool parse_layer_encoding(const std::string& text, std::vector<std::string>& layers) {
  const std::string word = text.substr(0, text.find(':'));
  if (word != "offset" && word != "differential")
    throw CompileError("--encoding '" + text + "': expected offset or differential, then optionally :LAYER,LAYER,...");
  layers = layer_names_after_colon("--encoding", text);
  return word == "differential";
}

Target::Format xbar_format(const Node& n, const Target& t) {
  return {n.xbar_weight_bits > 0 ? n.xbar_weight_bits : t.weight_bits,
          n.differential < 0 ? t.differential : n.differential == 1};
}

hw::CrossbarConfig crossbar_config(const Target& t, const Target::Format& f) {
  hw::CrossbarConfig cfg;
  cfg.rows = t.rows;
  cfg.cols = t.cols;
  cfg.cell_bits = t.cell_bits;
  cfg.weight_bits = f.weight_bits;
  cfg.signed_encoding = f.differential ? hw::SignedEncoding::differential : hw::SignedEncoding::offset_slices;
  // What an MVM's time depends on besides the shape (hw::MvmTiming).
  cfg.dac_bits = t.dac_bits;
  cfg.dac_rows_per_step = t.dac_rows_per_step;
  cfg.adc_columns_per_adc = t.timing.adc_columns_per_adc;
  return cfg;
}

hw::MvmTimingConfig mvm_timing_config(const Target& t) {
  const Target::Timing& m = t.timing;
  hw::MvmTimingConfig c;
  c.clock_mhz = m.chip_clock_mhz;
  c.dac_latency_ns = m.dac_latency_ns;
  c.read_ns = m.xbar_read_ns;
  c.sample_hold_ns = m.xbar_sample_hold_ns;
  c.adc_conversion_ns = m.adc_conversion_ns;
  c.shift_add_ns = m.xbar_shift_add_ns;
  c.pipelined = m.xbar_pipelined;
  c.back_pipelined = m.adc_pipelined;
  return c;
}

}  // namespace vp::cc
