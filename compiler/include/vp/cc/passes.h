// The stages of vp-cc, each a pass over the one Graph (graph.h), in order:
//
//   import_onnx -> canonicalize -> quantize (calibrated by run_fp32)
//   -> map_crossbars -> plan_memory -> emit_program
//
// run_golden is the bit-exact integer model of what the emitted program
// computes; run_fp32 is the floating-point reference the quantizer calibrates
// with and the tests measure quantization error against.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::hw {
struct CrossbarConfig;
struct MvmTimingConfig;
}

namespace vp::cc {

// A dense tensor, C x H x W (batch 1), row-major.
template <typename T>
struct Tensor {
  Shape shape;
  std::vector<T> data;
};
using FTensor = Tensor<float>;
using QTensor = Tensor<std::int8_t>;

// ONNX row-major data of a value <-> its C x H x W tensor. They differ only
// for a 2-D [B, K] with B > 1, whose ONNX order is H x C.
template <typename T>
Tensor<T> from_onnx_order(const Value& v, const std::vector<T>& data) {
  Tensor<T> t;
  t.shape = v.shape;
  t.data = data;
  if (v.dims.size() == 2 && v.shape.h > 1)
    for (std::int64_t h = 0; h < v.shape.h; ++h)
      for (std::int64_t c = 0; c < v.shape.c; ++c)
        t.data[static_cast<std::size_t>(c * v.shape.h + h)] = data[static_cast<std::size_t>(h * v.shape.c + c)];
  return t;
}
template <typename T>
std::vector<T> to_onnx_order(const Value& v, const Tensor<T>& t) {
  std::vector<T> d = t.data;
  if (v.dims.size() == 2 && v.shape.h > 1)
    for (std::int64_t h = 0; h < v.shape.h; ++h)
      for (std::int64_t c = 0; c < v.shape.c; ++c)
        d[static_cast<std::size_t>(h * v.shape.c + c)] = t.data[static_cast<std::size_t>(c * v.shape.h + h)];
  return d;
}

// Groups of heads a MatMul of two activations is computed in
// (emit_matmul.cpp): 1 when all of B fits a core's scratchpad as int32,
// else the fewest groups (a divisor of the heads) whose columns of B fit as
// int8, a core each at the least; 0 when none does.
int matmul_head_groups(const Graph& g, const Node& n, const Target& t);
// Whether that MatMul keeps B as int8 codes, widening a row before each use.
bool matmul_b_as_int8(const Graph& g, const Node& n, const Target& t);

// ---- parse -------------------------------------------------------------------
Graph import_onnx(const std::string& path);
Graph import_onnx_bytes(const std::string& bytes, const std::string& name);

// ---- canonicalize: Identity dropped, BN folded, Gemm/MatMul as Conv,
// activations fused, Flatten/Reshape absorbed or aliased --------------------------
void canonicalize(Graph& g);

// ---- FP32 reference -------------------------------------------------------------
// Runs the canonical graph; returns every value's tensor (index = value id),
// empty for constants.
std::vector<FTensor> run_fp32_all(const Graph& g, const std::vector<FTensor>& inputs);
std::vector<FTensor> run_fp32(const Graph& g, const std::vector<FTensor>& inputs);
// The same run handing each value to `visit` as it is computed (the inputs
// first, then each node's output in node order) and freeing every tensor no
// later node reads: what calibration needs, in a fraction of the memory.
// `packed` (pack_fp32_weights of the same graph) saves repacking the
// convolution weights on every run.
using Fp32Weights = std::vector<std::vector<float>>;
void run_fp32_visit(const Graph& g, const std::vector<FTensor>& inputs,
                    const std::function<void(int value_id, const FTensor&)>& visit,
                    const Fp32Weights* packed = nullptr);
// Every Conv node's weights in conv_fp32's layout (index: node), packed on
// up to `threads` host threads.
Fp32Weights pack_fp32_weights(const Graph& g, unsigned threads = 1);

// ---- quantize -------------------------------------------------------------------
// Default calibration when no --calib files are given: kDefaultCalibInputs
// inputs drawn from N(0, 1) with a fixed seed (the range of inputs normalized
// by mean and standard deviation, as ImageNet models expect).
inline constexpr int kDefaultCalibInputs = 4;
std::vector<std::vector<FTensor>> default_calibration(const Graph& g, int count = kDefaultCalibInputs,
                                                      std::uint64_t seed = 20261122);
// percentile < 100: each activation's range is that percentile of |x| on a
// calibration input (the largest over inputs) instead of its maximum; values
// beyond it saturate.
// The calibration inputs run on up to `threads` host threads (0: one per
// core, at most 8); each input's ranges are its own and are merged in input
// order, so the result does not depend on the count.
void quantize(Graph& g, const std::vector<std::vector<FTensor>>& calib, double percentile = 100.0,
              unsigned threads = 0);

// Float input -> the int8 tensor the chip reads (round(x / scale), saturated).
QTensor quantize_input(const Graph& g, int input_index, const FTensor& x);
FTensor dequantize(const Graph& g, int value_id, const QTensor& q);

// ---- golden model ---------------------------------------------------------------
// Large convolutions split their output channels over up to `threads` host
// threads (0: one per core, at most 8); integer sums, so the same bytes.
std::vector<QTensor> run_golden(const Graph& g, const std::vector<QTensor>& inputs, unsigned threads = 1);
// Every value's tensor (index = value id), empty for constants.
std::vector<QTensor> run_golden_all(const Graph& g, const std::vector<QTensor>& inputs, unsigned threads = 1);

// ---- map, plan, emit --------------------------------------------------------------
// replicate: kReplicateAuto lets the cost model choose each layer's copies
// (schedule_cost.h); N >= 1 gives every layer up to N copies (1: none), as
// many as fit the chip.
inline constexpr int kReplicateAuto = 0;
struct MapOptions {
  int replicate = kReplicateAuto;
  // One layer per CU, all layers at once (map_crossbars.cpp), when one copy
  // of every layer fits the CUs; false: CUs shared by the layers.
  bool pipeline = true;
  // Copies of a load side by side on its CU (pipeline placement): 0 = as
  // many as fit and shorten the stage, N = at most N (1: none).
  int lanes = 0;
  // Images per start (--batch): a stream takes wider strips (Graph::min_strip).
  int batch = 1;
  // A stream's buffers released per row (--stream-release rows): it may
  // hold values as rings of rows (plan_memory).
  bool row_releases = true;
  // The copies of a line-buffered Conv that span several CUs in one
  // cluster each, sharing their row loads (--shared-loads on, Node::share_copy).
  bool shared_loads = true;
  // The copy choice prices a Conv's line buffer at kh rows of the whole
  // output row's span per row (false) or as it is loaded (true;
  // --copy-prices, schedule_cost.h).
  bool rows_as_loaded = false;
  // A 1x1 Conv's copies paired with those of the Conv that stores its
  // input, each pair in one cluster, the rows handed over through its SRAM
  // (--hand-rows, Node::handed_from; the driver chooses).
  bool hand_rows = false;
};
void map_crossbars(Graph& g, const Target& t, const MapOptions& opt = {});
// Residual Adds computed by the Conv that produces one of their inputs
// (Node::fused_next), which map_crossbars does first.
void fuse_adds(Graph& g);
// Table activations (operators.def's op_table) computed by the Conv that
// produces their input, when it has no other reader and no residual Add
// (Node::fused_next), which map_crossbars does after fuse_adds.
void fuse_tables(Graph& g);
// The residual Add a Conv computes after itself, or nullptr (none, or a
// table activation).
inline const Node* fused_residual(const Graph& g, const Node& n) {
  if (n.fused_next < 0) return nullptr;
  const Node& f = g.nodes[static_cast<std::size_t>(n.fused_next)];
  return f.op == OpKind::Add ? &f : nullptr;
}
// The value n's cores store: the output of the node it computes after
// itself (Node::fused_next), else its own.
inline int stored_value(const Graph& g, const Node& n) {
  return n.fused_next >= 0 ? g.nodes[static_cast<std::size_t>(n.fused_next)].out[0] : n.out[0];
}
// What each node asks of a chip before replication (map_crossbars' tiles
// and CU loads of one copy): crossbars, and the cost model's stage time
// with that one copy. Zero for nodes without crossbar weights.
struct LayerDemand {
  std::int64_t crossbars = 0;
  std::int64_t stage_cycles = 0;
};
std::vector<LayerDemand> layer_demands(const Graph& g, const Target& t);
// Per node, the stretch of the pipeline it runs in (the copy choice counts
// the slowest stage of each): 0 at the inputs, one more past each
// reduction of a map to one pixel (a global pooling), whose readers start
// only once the map's last row is in.
std::vector<int> node_segments(const Graph& g);
// "auto", "none" or a count N >= 1 (--replicate); CompileError otherwise.
int parse_replicate(const std::string& text);
// "auto" (0) or a count N >= 1 (--lanes); CompileError otherwise.
int parse_lanes(const std::string& text);
// "N" or "N:LAYER,LAYER,..." (`option`: --average-reads, --redundancy): N a
// power of two from 1 to 16, the layers Conv node names as --report lists
// them; CompileError naming the option otherwise.
int parse_layer_count(const std::string& option, const std::string& text, std::vector<std::string>& layers);
// The same with N from lo to hi, a power of two only when asked.
int parse_layer_value(const std::string& option, const std::string& text, int lo, int hi, bool power_of_two,
                      std::vector<std::string>& layers);
// The LAYER,LAYER,... after the first ':' of `text` (none without one);
// CompileError naming `option` for an empty name.
std::vector<std::string> layer_names_after_colon(const std::string& option, const std::string& text);
// "offset|differential[:LAYER,...]" (--encoding): true for differential.
bool parse_layer_encoding(const std::string& text, std::vector<std::string>& layers);
inline int parse_average_reads(const std::string& text, std::vector<std::string>& layers) {
  return parse_layer_count("--average-reads", text, layers);
}
// The Convs named (every Conv when `layers` is empty); CompileError naming
// `option` and a layer that is not a Conv of the graph.
std::vector<Node*> named_convs(Graph& g, const std::vector<std::string>& layers, const std::string& option);
// Sets Node::reads of the Convs named (every Conv when `layers` is empty);
// CompileError naming a layer that is not a Conv of the graph.
void set_average_reads(Graph& g, int reads, const std::vector<std::string>& layers);
// Input bits per layer (vp-cc --input-bits, input_bits.cpp): for each
// (bits, layers), the named Convs (every Conv when `layers` is empty) read
// their inputs with `bits` of the 8: the golden model and the chip round
// every input code to units of 2^(8 - bits) (a rounding shift, clamped),
// the bias and requantization shift follow. Runs after quantize, before
// anything computes a golden output. CompileError for a layer that is not
// a Conv, is named twice, or whose shift is shorter than the bits dropped.
void set_input_bits(Graph& g, const std::vector<std::pair<int, std::vector<std::string>>>& widths);
// Weight formats per layer (weight_format.cpp). set_weight_bits, before
// quantize: every Conv's weights get min(8, xbar.weight_bits) bits, those
// named by a (bits, layers) pair `bits` (2..12) and crossbars of that width.
// set_encoding: the named Convs' crossbars hold differential pairs (true)
// or offset slices. CompileError for a layer that is not a Conv or is
// named twice.
void set_weight_bits(Graph& g, const Target& t, const std::vector<std::pair<int, std::vector<std::string>>>& widths);
void set_encoding(Graph& g, const std::vector<std::pair<bool, std::vector<std::string>>>& encodings);
// The format of a Conv's crossbars: its own where set, else the chip's.
Target::Format xbar_format(const Node& n, const Target& t);
// The crossbar model's configuration of a crossbar of format f (its shape
// and cells the target's), for encoding weights and pricing MVMs.
hw::CrossbarConfig crossbar_config(const Target& t, const Target::Format& f);
// The target's MVM timing, as the platform's crossbars take it (hw::MvmTiming).
hw::MvmTimingConfig mvm_timing_config(const Target& t);
// Sets Node::redundancy of the Convs named (every Conv when `layers` is
// empty), as set_average_reads (redundancy.cpp).
void set_redundancy(Graph& g, int copies, const std::vector<std::string>& layers);
// Whether every activation plan_memory would put in the SRAMs' window fits
// it at once (a stream reuses no range): each stored value with its border,
// none that must read -128 (those stay in global memory); with `rings`, the
// values a stream may hold as rings of rows at their rings' size (they
// depend on the nodes' copies). map_crossbars spreads a stream's layers
// over the clusters when they do.
bool activations_fit_sram(const Graph& g, const Target& t, bool rings = false);
void plan_memory(Graph& g, const Target& t);
// Whether graph input i gets a plain buffer beside its own, which its pad
// layer fills from the host's rows read through a pointer word
// (Graph::input_pointer): in a stream, or when a window reading it pads.
// Known before plan_memory runs (the estimate of the copy choice asks).
bool input_has_pad_layer(const Graph& g, std::size_t i);
// The cores that copy a stream's graph input into its bordered buffer, or
// a graph output into the host's area: up to 16 (one a row) of the cores
// of the layers in `near` (node ids: the input's readers, the output's
// writer), so that a copy runs beside its neighbours in the pipeline, not
// on a core busy at the other end of it. Empty when they have no cores.
// Chosen among them by copy_cores_of.
std::vector<int> stream_copy_cores(const Graph& g, const Target& t, const Value& v, const std::vector<int>& near);
// Up to 16 (one a row of v) of `pool`: a copy's cores each send every reader
// of their rows a token, and the CUs of a cluster share one port to its
// router. For one image, one core of each cluster before a second of any
// (of the pipeline's tail when the copy is long, else of its head); in a
// stream, at most half of them in one cluster, the lowest clusters first.
std::vector<int> copy_cores_of(const Graph& g, const Target& t, const Value& v, const std::vector<int>& pool);
// The node that stores graph output i (the Conv that computes its fused
// Add or table), alone in the list; empty for an output no node writes.
std::vector<int> output_writer(const Graph& g, std::size_t i);

struct EmitOptions {
  std::string asm_path;        // model.asm
  std::string image_path;      // model.xbar (default: asm path with .xbar)
  bool io_directives = true;   // .input / .output lines
  // Calibrated ADC range per chip-wide crossbar (adc_ranges_from_profile):
  // each core sets its crossbars' ranges with xadc before its first layer.
  std::map<int, int> adc_ranges;
  // Pre-distort every programmed weight against the target's IR drop
  // (vp-cc --ir-drop-compensate, emit_program.cpp's write_image).
  bool ir_drop_compensate = false;
  // Every core's row hand-over tables in global memory, each layer's loaded
  // into its scratch at its start (vp-cc --handover-tables memory); else
  // only on cores whose parameters would not fit (auto).
  bool tables_in_memory = false;
  // A stream's buffers released per layer and image (vp-cc --stream-release
  // images) instead of per row (row_release.h).
  bool image_releases = false;
};
struct EmitResult {
  std::int64_t instructions = 0;   // static instruction count over all cores
  std::int64_t image_bytes = 0;
  int cores_used = 0;
  std::int64_t row_tokens = 0;     // row hand-over messages per inference
  // Per node: the messages its busiest core sends and takes (Node::sync_tokens).
  std::vector<std::int64_t> node_tokens;
  // The program runs a stream's image loop twice over, its tensors' second
  // buffers (Buffer::alt) holding the odd images.
  bool twin_buffers = false;
};
EmitResult emit_program(const Graph& g, const Target& t, const EmitOptions& opt);

// ---- partition over chips (partition_chips.cpp) ------------------------------------
// One chip's run of consecutive nodes [first, last) and the values that
// cross into it (graph inputs for the first) and out of it (graph outputs
// for the last), in the order of its .input/.output bindings.
struct ChipPart {
  int first = 0, last = 0;
  std::vector<int> inputs, outputs;  // value ids of the whole graph
  std::int64_t crossbars = 0;        // one copy of each layer
  std::int64_t work = 0;             // sum of crossbars x stage cycles (the balance)
};
// A value carried over the link: output `output` of chip `from` becomes
// input `input` of chip `to`.
struct ChipRoute {
  int value = 0;
  int from = 0, output = 0, to = 0, input = 0;
  std::int64_t bytes = 0;
};
struct Partition {
  std::vector<ChipPart> parts;
  std::vector<ChipRoute> routes;
};
// Cuts a quantized graph into `chips` parts balanced by the cost model,
// each fitting one chip `t`; CompileError when no such cut exists. With
// `refine`, the cuts found by balancing work are then moved to lower the
// largest part's estimated time per image (each part mapped with those
// options and estimated as one chip's program: its critical path and its
// firmware's copies of what crosses the link), which is what paces a batch
// flowing through the chips.
Partition partition_chips(const Graph& g, const Target& t, int chips, const MapOptions* refine = nullptr);
// Convs (group 1) whose one copy needs more than `limit` crossbars become
// slices of their output channels and a Concat, so that the partition can
// spread one layer over chips (split_layers.cpp); returns how many.
int split_wide_layers(Graph& g, const Target& t, std::int64_t limit);
// Part `chip` as a graph of its own, ready to map, plan and emit.
Graph chip_graph(const Graph& g, const Partition& p, int chip);

// The system file vp-run --system reads: the chips, their programs (file
// names beside it), the link, each part's layers and the routes.
std::string system_json(const Graph& g, const Partition& p, const std::vector<std::string>& programs,
                        const std::string& chip, const std::string& link);
// The partition as --report prints it before each chip's layer table.
std::string partition_report(const Graph& g, const Partition& p, const Target& t);

// ---- ADC ranges from a calibration run (adc_ranges.cpp) ------------------------------
// Largest xadc range code (an LSB of 2^30).
inline constexpr int kMaxAdcRangeCode = 31;
// The finest range (1 = LSB 1) whose top code, 2^adc_bits - 1 LSBs, covers
// max_column_sum x headroom.
int adc_range_for(double max_column_sum, int adc_bits, double headroom);
// Chip-wide crossbar -> range for every crossbar of a vp-run --adc-profile
// file; throws CompileError naming the file and field on a malformed
// profile or one of another chip.
std::map<int, int> adc_ranges_from_profile(const std::string& path, const Target& t, double headroom);
// The same from the profile's text; `path` names it in errors.
std::map<int, int> adc_ranges_from_profile_text(const std::string& text, const std::string& path, const Target& t,
                                                double headroom);

// ---- reports ----------------------------------------------------------------------
std::string ir_json(const Graph& g, const std::string& stage, const Target* t = nullptr);
std::string layer_report(const Graph& g, const Target& t);
// The report's estimate of one inference of a mapped graph: the critical
// path of the row hand-over with the waits at busy links and ports, or the
// memory floor when every layer's traffic at once takes longer (or the sum
// of the stages on shared CUs), plus the firmware's copies and starts.
// `waits` false: the path at the copy choice's prices, without the waits
// (what partition_chips weighs cuts with, before addresses and messages
// are known).
std::int64_t estimate_cycles(const Graph& g, const Target& t, bool waits = true);
// Per inference: estimate_cycles, or for a stream of Graph::batch images the
// first image's and batch - 1 periods over batch (the report's stream line).
std::int64_t inference_estimate_cycles(const Graph& g, const Target& t);

// Bytes of a channels-last tensor as the chip stores it (no border) and back.
std::vector<std::int8_t> to_hwc(const QTensor& t);
QTensor from_hwc(const Shape& s, const std::vector<std::int8_t>& bytes);

}  // namespace vp::cc
