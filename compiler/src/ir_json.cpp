// --dump-ir: the graph after a stage as JSON, like the Gemini flow's
// Frontend IR (layers, ops, types, quantization) and Scheduler IR
// (placements, addresses). Weights are summarized, never dumped.
#include <algorithm>
#include <nlohmann/json.hpp>

#include <cmath>

#include "schedule_cost.h"
#include "vp/cc/passes.h"

namespace vp::cc {

std::string ir_json(const Graph& g, const std::string& stage, const Target* target) {
  using nlohmann::json;
  json j;
  // The cost model's times per layer, once the map has set the stages.
  bool mapped = false;
  for (const Node& n : g.nodes) mapped = mapped || n.stage_cycles > 0;
  const RowTimes rt = mapped ? estimated_times(g, target) : RowTimes{};
  j["stage"] = stage;
  j["model"] = g.name;
  j["opset"] = g.opset;
  auto value = [&](int id) {
    const Value& v = g.val(id);
    json o{{"name", v.name}, {"shape_chw", {v.shape.c, v.shape.h, v.shape.w}}};
    if (v.scale > 0) o["scale"] = v.scale;
    if (v.nonneg) o["nonneg"] = true;
    if (v.preload) o["preloaded"] = true;  // a constant map in the program's data
    if (v.buf.addr >= 0) o["buffer"] = {{"addr", v.buf.addr}, {"pad", v.buf.pad}, {"fill", v.buf.fill}};
    if (v.buf.addr >= 0 && v.buf.pitch > 0) o["buffer"]["pitch"] = v.buf.pitch;
    if (v.buf.addr >= 0 && v.buf.ring_rows > 0) o["buffer"]["ring_rows"] = v.buf.ring_rows;
    if (v.buf.addr >= 0 && v.buf.alt >= 0) o["buffer"]["alt"] = v.buf.alt;
    return o;
  };
  for (int i : g.inputs) j["inputs"].push_back(value(i));
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    json o = value(g.outputs[i]);
    if (i < g.host_softmax.size() && g.host_softmax[i]) o["host_softmax"] = true;
    j["outputs"].push_back(o);
  }
  j["nodes"] = json::array();
  for (const Node& n : g.nodes) {
    json o{{"name", n.name}, {"op", op_name(n.op)}};
    for (int i : n.in) {
      if (i < 0) continue;
      const Value& v = g.val(i);
      if (v.is_const) o["constants"].push_back({{"name", v.name}, {"dims", v.dims}});
      else o["inputs"].push_back(value(i));
    }
    for (int i : n.out) o["outputs"].push_back(value(i));
    if (op_has(n.op, op_window)) {
      const ConvGeom& c = n.geom;
      o["kernel"] = {c.kh, c.kw};
      o["strides"] = {c.sh, c.sw};
      o["dilations"] = {c.dh, c.dw};
      o["pads"] = {c.pt, c.pl, c.pb, c.pr};
      o["group"] = c.group;
    }
    if (n.act != Act::none) o["activation"] = n.act == Act::relu ? "relu" : "clip";
    if (n.act == Act::clip) o["clip"] = {n.clip_lo, n.clip_hi};
    if (n.times_input) o["times_input"] = true;  // the table computes x * f(x)
    if (n.op == OpKind::Softmax) {  // runs of channels, the causal mask, the difference's shift
      o["run"] = n.group;
      if (n.causal) o["causal"] = true;
      if (!n.q.shift.empty()) o["difference_shift"] = n.q.shift[0];
    }
    if (n.concat_rows) o["concat_rows"] = true;  // along the rows of [T, C] matrices
    if (!n.gather.empty()) o["gather_pixels"] = n.gather.size();  // runs of the input's channels, one per input pixel
    if (n.op == OpKind::MatMul) {  // of two activations (canonicalize_attention.cpp)
      o["heads"] = n.heads;
      o["trans_b"] = n.trans_b;
      o["alpha"] = n.alpha;
      if (n.causal) o["causal"] = true;  // rows 0..m of B for output row m
    }
    if (!n.q.mult.empty() || !n.q.w.empty()) {
      json q;
      if (!n.q.w.empty()) q["weights_int8"] = n.q.w.size();
      if (!n.q.bias.empty()) q["bias_int32"] = n.q.bias.size();
      q["requant"] = json::array();
      // One shift may serve several multipliers (a residual Add scales both
      // inputs by the same power of two).
      for (std::size_t i = 0; i < n.q.mult.size() && i < 8; ++i)
        q["requant"].push_back({n.q.mult[i], n.q.shift.size() == 1 ? n.q.shift[0] : n.q.shift.at(i)});
      if (n.q.mult.size() > 8) q["requant_total"] = n.q.mult.size();
      q["clamp"] = {n.q.lo, n.q.hi};
      o["quant"] = q;
    }
    for (const auto& ct : n.tiles) {
      json t{{"channels", {ct.n0, ct.n0 + ct.ncols}}, {"input_channels", {ct.ci0, ct.ci1}}, {"k", ct.k}};
      if (n.replicas > 1) t["copy"] = ct.copy;
      if (ct.redundant > 1) t["redundant"] = ct.redundant;
      for (const auto& p : ct.parts)
      {
        json part{{"core", p.core}, {"xbar0", p.xbar0}, {"row_tile0", p.row_tile0}, {"row_tiles", p.row_tiles}};
        if (p.lanes > 1) {
          part["lanes"] = p.lanes;
          part["lane_xbars"] = p.lane_xbars;
        }
        t["parts"].push_back(part);
      }
      o["tiles"].push_back(t);
    }
    if (!n.cores.empty()) o["cores"] = n.cores;
    if (n.op == OpKind::Conv && n.weight_bits != 8) o["weight_bits"] = n.weight_bits;
    if (n.xbar_weight_bits > 0) o["xbar_weight_bits"] = n.xbar_weight_bits;
    if (n.differential >= 0) o["signed_encoding"] = n.differential ? "differential" : "offset_slices";
    if (n.fused) o["computed_by_producer"] = true;
    if (n.fused_next >= 0)
      o[fused_residual(g, n) ? "fused_add" : "fused_table"] = g.nodes[static_cast<std::size_t>(n.fused_next)].name;
    if (!n.cores.empty()) {
      o["replicas"] = n.replicas;
      if (n.lanes > 1) o["lanes"] = n.lanes;
      if (n.reads > 1) o["reads"] = n.reads;
      if (n.redundancy > 1) o["redundancy"] = n.redundancy;
      if (n.input_bits < 8) o["input_bits"] = n.input_bits;
      // Copies sharing their row loads (shared_loads.h): from 4-mapped on,
      // which copies will; from 5-planned on, each one's slot in its
      // cluster's SRAM (-1: none, its CUs load their own rows).
      if (std::find(n.share_copy.begin(), n.share_copy.end(), true) != n.share_copy.end()) {
        o["shared_loads"] = std::vector<bool>(n.share_copy.begin(), n.share_copy.end());
        if (!n.staging.empty()) o["staging_offsets"] = n.staging;
      }
      o["stage_cycles"] = n.stage_cycles;
      // Bytes its cores move to and from memory per inference, as the cost
      // model counts them (the report's memory floor and mesh terms).
      if (n.memory_bytes > 0) o["memory_bytes"] = n.memory_bytes;
      if (n.bound_cycles) o["mvm_bound_cycles"] = n.bound_cycles;
      const std::size_t i = static_cast<std::size_t>(&n - g.nodes.data());
      if (mapped && !n.fused) {  // cycles after the layers start (report.cpp)
        o["est_first_row_cycles"] = std::llround(rt.first[i]);
        o["est_last_row_cycles"] = std::llround(rt.last[i]);
        if (n.sync_tokens) o["sync_tokens"] = n.sync_tokens;  // its busiest core's, sent and taken
      }
    }
    j["nodes"].push_back(o);
  }
  return j.dump(1);
}

}  // namespace vp::cc
