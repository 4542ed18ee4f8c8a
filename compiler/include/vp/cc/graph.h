// The one graph IR every vp-cc stage reads and annotates.
//
// Parse fills values and nodes from ONNX; canonicalize rewrites nodes into
// the few chip operators (role `chip` in operators.def); quantize adds scales
// and integer parameters; map adds crossbar placements; plan adds
// global-memory buffers. Each stage only adds or rewrites, so a JSON dump
// after any stage shows everything known so far (ir_json.cpp).
//
// Activations have batch 1 and are seen as C x H x W; a 2-D tensor [B, K]
// is C = K, H = B, W = 1, which in the chip's channels-last layout (HWC) is
// exactly its row-major bytes.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/cc/operators.h"

namespace vp::cc {

// Any error the compiler reports to its user: unsupported operators, models
// too large for the chip, malformed files.
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Shape {
  std::int64_t c = 1, h = 1, w = 1;
  std::int64_t numel() const { return c * h * w; }
  bool operator==(const Shape& o) const { return c == o.c && h == o.h && w == o.w; }
};

// Where an activation lives on the chip: channels-last with a border of
// `pad` pixels on every side holding `fill`, so convolution windows never
// need bounds checks (plan_memory.cpp).
struct Buffer {
  std::int64_t addr = -1;  // global memory byte address of the padded tensor
  int pad = 0;
  int fill = 0;            // border value (0, or -128 for max pooling)
  // A stream's ring (plan_memory): only this many rows are held, row h at
  // row h mod ring_rows of the buffer (ring_rows divides the height); a
  // writer overwrites a row once its readers have read the row ring_rows
  // before it (row_release.h). 0: the whole map. A bordered ring keeps its
  // `pad` border rows apart, above and below the ring's rows, never
  // written: [pad rows][ring_rows rows][pad rows].
  std::int64_t ring_rows = 0;
  // A stream's second buffer of the value (plan_memory), -1: none. Images
  // alternate between the two (even ones in `addr`, odd ones here), so a
  // writer may write image i + 1 while its readers still read image i, and
  // waits only for their reads of image i - 1 (row_release.h). The border,
  // if any, is the same in both.
  std::int64_t alt = -1;
  // Bytes from one row to the next (plan_memory), 0: the padded row's own
  // bytes. A small map in the SRAM window gets a granule's pitch, so each
  // row lies in its own cluster's SRAM and its readers' loads spread over
  // many SRAMs' ports instead of the one or two its bytes would fill.
  std::int64_t pitch = 0;
  std::int64_t wp(const Shape& s) const { return s.w + 2 * pad; }
  std::int64_t hp(const Shape& s) const { return s.h + 2 * pad; }
  std::int64_t row(const Shape& s) const { return pitch > 0 ? pitch : wp(s) * s.c; }
  std::int64_t bytes(const Shape& s) const { return hp(s) * row(s); }
  // The bytes the buffer takes as a ring of `rows` rows (its border rows
  // too), or with rows 0 the map.
  std::int64_t held(const Shape& s, std::int64_t rows) const { return rows > 0 ? (rows + 2 * pad) * row(s) : bytes(s); }
  std::int64_t held(const Shape& s) const { return held(s, ring_rows); }
  // Where a ring's row 0 is: past its top border rows.
  std::int64_t ring_lo(const Shape& s) const { return addr + (ring_rows > 0 ? pad * row(s) : 0); }
};

struct Value {
  std::string name;
  std::vector<std::int64_t> dims;  // ONNX dims (after shape inference)
  Shape shape;                     // activation view (batch 1)
  bool is_const = false;
  std::vector<float> data;         // constant contents, row-major over dims
  double scale = 0;                // int8 step after quantize (zero point 0)
  bool nonneg = false;             // quantized values are known to be >= 0
  // A constant map read as an activation (a vision transformer's position
  // embedding and class token): not a parameter (is_const is false), no
  // node writes it; `data` holds it in ONNX order, quantize its int8 codes
  // (C x H x W, as every tensor of the interpreters), and the program
  // preloads them into its global-memory buffer (emit_program.cpp).
  bool preload = false;
  std::vector<std::int8_t> codes;
  // A Softmax's mask (canonicalize_attention.cpp): a preloaded map whose
  // codes, set with it, are 127 where a channel counts and -128 where it is
  // masked (data holds the same numbers); quantize keeps them.
  bool softmax_mask = false;
  Buffer buf;                      // after plan_memory
};

enum class Act { none, relu, clip };

struct ConvGeom {
  int kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  int pt = 0, pl = 0, pb = 0, pr = 0;
  int group = 1;
};

// Integer parameters of a node after quantize; which fields are used depends
// on the op (see quantize.cpp and golden_model.cpp, which read them the same
// way the emitted code does).
struct QuantParams {
  std::vector<std::int16_t> w;       // Conv: [oc][ic/group][kh][kw], Node::weight_bits wide
  std::vector<std::int32_t> bias;    // Conv: per output channel
  std::vector<std::int32_t> mult;    // requant multipliers (per channel or one)
  std::vector<std::int32_t> shift;   // requant shifts
  std::vector<std::int8_t> lut;      // op_table operators: 256 entries, code -128 first
  int lo = -128, hi = 127;           // output clamp (fused activation)
  // LayerNormalization, per pixel over its C channels (quantize.cpp; the
  // golden model and emit_norm.cpp compute it the same way): codes x scaled
  // by 2^frac, mean m = (sum(x) * mean_mult + 2^(mean_shift - 1)) >>
  // mean_shift, d = x * 2^frac - m, r = rsqrt(sum(d^2) + eps), then per
  // channel sat8(sat8((d * r * mult + round) >> shift) + bias) (bias: beta's
  // codes).
  struct Norm {
    int frac = 0, mean_shift = 0;
    std::int32_t mean_mult = 0, eps = 0;
  } norm;
  // Softmax: lut holds the exponentials, lut[k] = round(127 * exp((k - 128)
  // * s_x)) for a code difference k - 128 <= 0 from the row's maximum, 0 at
  // -128 (a masked score, or one 128 steps or more below the maximum); the
  // output step is 1/127, each code round(127 * e / sum(e)) with the sum's
  // reciprocal from recip (softmax.h).
};

// One block of a weight matrix on one crossbar (map_crossbars.cpp).
struct XbarTile {
  int core = 0;          // chip-wide core (cluster * cus_per_cluster + cu)
  int xbar = 0;          // crossbar within the CU
  int row0 = 0, rows = 0;   // rows of the tile's K range it holds
  int n0 = 0, ncols = 0;    // output channels (logical columns)
  std::int64_t image_offset = 0;  // its cell levels in the weight image
};

// A column tile: output channels [n0, n0+ncols), their K rows split over one
// or more cores (the first is the owner, the others send partial sums).
struct ColumnTile {
  int n0 = 0, ncols = 0;
  int ci0 = 0, ci1 = 0;        // input channels the patch gathers
  std::int64_t k = 0;          // patch length: kh * kw * (ci1 - ci0)
  // `lanes` copies of the part side by side on its CU: lane p's crossbars
  // start at xbar0 + p * lane_xbars, and the CU fires the lanes' MVMs on
  // `lanes` consecutive pixels at once (cu.xbar.concurrent_mvm).
  struct Part {
    int core; int xbar0; int row_tile0; int row_tiles; int lanes = 1; int lane_xbars = 0;
    // Its crossbars, k = 0 .. row_tiles x lanes - 1: row tile k mod
    // row_tiles of lane k / row_tiles.
    int crossbars() const { return row_tiles * lanes; }
    int crossbar(int k) const { return xbar0 + k / row_tiles * lane_xbars + k % row_tiles; }
  };
  std::vector<Part> parts;     // parts[0] is the owner
  int copy = 0;                // which replica of the layer's weights (map_crossbars.cpp)
  // Redundant copies of its rows (vp-cc --redundancy, redundancy.cpp): the
  // tile's crossbars hold `redundant` copies of its K rows, each a whole
  // number of row tiles (row tile x holds rows of x mod row_tiles_once()),
  // and the patch is repeated to match, so one `sum` MVM adds the copies.
  int redundant = 1;
  int row_tiles_once(int rows) const { return static_cast<int>((k + rows - 1) / rows); }
  int row_tiles(int rows) const { return redundant * row_tiles_once(rows); }
};

// Node::ints["auto_pad"] after parse (NOTSET leaves no entry).
inline constexpr std::int64_t kAutoPadSameUpper = 1, kAutoPadSameLower = 2, kAutoPadValid = 3;

struct Node {
  std::string name;
  OpKind op = OpKind::Identity;  // operators.def; canonicalize turns to_conv kinds into Conv
  std::vector<int> in, out;    // value ids
  std::map<std::string, std::vector<std::int64_t>> ints;  // raw ONNX int attributes
  std::map<std::string, float> floats;                    // raw ONNX float attributes
  // Canonical fields.
  ConvGeom geom;               // Conv, MaxPool, AveragePool
  Act act = Act::none;         // activation fused into Conv / Add
  // An op_table node that also absorbed the Mul of its result by its own
  // input (canonicalize: Mul(x, Sigmoid(x)) is SiLU, Mul(x, HardSigmoid(x))
  // HardSwish): its table computes x * f(x).
  bool times_input = false;
  // Softmax (emit_softmax.cpp): over each run of `group` consecutive
  // channels of a pixel (0: all C of them); `causal`: in pixel row t only the
  // first t + 1 channels of each run count, the others give 0 (a causal
  // mask's Add of -inf above the diagonal, canonicalize_attention.cpp).
  std::int64_t group = 0;
  bool causal = false;
  // MatMul of two activations (canonicalize_attention.cpp, emit_matmul.cpp):
  // `heads` independent products. A is stored [M][heads][K] (C = heads * K,
  // H = M); B is [N][heads][K] with trans_b (a key matrix read transposed),
  // else [K][heads][N]; the output [M][heads][N]. alpha scales the product
  // (an attention's 1 / sqrt(d) folded in). `causal` (set beside a causal
  // Softmax): output row m reads rows 0..m of B only, so it starts as soon
  // as they exist; with trans_b (the scores) its outputs n > m are 0 (the
  // Softmax masks them), without (scores x values) A's codes k > m are 0.
  int heads = 1;
  // A MatMul of two activations inside windows (a Swin transformer's
  // attention): the output's and A's rows, and B's, are `windows` equal
  // blocks, and output row m reads only B's block m / (rows per block).
  int windows = 1;
  bool trans_b = false;
  float alpha = 1.f;
  float clip_lo = 0, clip_hi = 0;
  int layer_id = 0;            // trace layer number after schedule
  QuantParams q;
  std::vector<ColumnTile> tiles;  // Conv after map
  std::vector<int> cores;         // cores that execute this node
  // Schedule (map_crossbars.cpp, schedule_cost.h): copies of the weights
  // (Conv) or cores sharing the work (other operators); copy r computes its
  // share of the output pixels (share_loop in emit_layers.cpp). The cost model's stage
  // time and the analytic bound (MVMs per crossbar x MVM cycles).
  int replicas = 1;
  int lanes = 1;
  // Shared loads (map_crossbars.cpp, plan_memory.cpp, emit_shared_loads.cpp):
  // a line-buffered Conv whose copy r spans several CUs of one cluster has
  // share_copy[r] set; its first CU brings each step's input rows into a
  // slot of that cluster's SRAM (dma.gs) and every CU of the copy takes them
  // from there (dma.sl), so the rows cross the mesh once per copy instead of
  // once per CU. staging[r] is the slot's byte offset in the cluster's SRAM
  // (plan_memory; -1: none, each CU loads its own rows).
  std::vector<bool> share_copy;
  std::vector<std::int64_t> staging;
  // Handed rows (handed_rows.h): a 1x1 Conv whose input the Conv
  // handed_from (a node index) stores, copy r of each on CUs of one
  // cluster. That Conv's copy r also writes each row of its share into a
  // slot of the cluster's SRAM (dma.ls), and this one's copy r takes it
  // from there (dma.sl) instead of over the mesh. hand_slot[r] is the
  // slot's byte offset in that SRAM (two rows of the share; plan_memory).
  // -1: none, each row comes from the value in memory.
  int handed_from = -1;
  std::vector<std::int64_t> hand_slot;
  // MVM reads averaged per pixel (vp-cc --average-reads, a Conv): every
  // group fires `reads` times into the same sums (a power of two), bias
  // and requantization shift scaled to match, so an exact crossbar gives
  // the same bytes and a noisy one averages its read noise.
  int reads = 1;  // copies per CU of a Conv's loads (ColumnTile::Part::lanes)
  // Redundant copies of a Conv's weights on crossbars of their own, their
  // column sums added (vp-cc --redundancy, redundancy.cpp; a power of two,
  // bias and shift scaled as for reads): the copies' programming errors
  // (verify residual, relaxation, stuck cells) and read noise average.
  int redundancy = 1;
  // Bits of each input code the Conv's MVMs read (vp-cc --input-bits,
  // input_bits.cpp): the DAC steps per MVM. Below 8 the codes are shifted
  // right by 8 - input_bits first, rounded and clamped (golden model and
  // chip alike).
  int input_bits = 8;
  // Bits of the Conv's weights (vp-cc --weight-bits, weight_format.cpp):
  // quantize rounds them to +-(2^(weight_bits-1) - 1). xbar_weight_bits is
  // the format of its crossbars (0: the chip's xbar.weight_bits), and
  // differential their signed encoding (-1: the chip's; --encoding); a
  // format other than the chip's is set by xfmt before the layer runs.
  int weight_bits = 8;
  int xbar_weight_bits = 0;
  int differential = -1;
  std::int64_t stage_cycles = 0, bound_cycles = 0;
  // Bytes the node moves between the CUs and memory per inference (global
  // memory or the SRAMs' window; the cost model's CostModel::memory()):
  // with every layer at once they share the memory's ports (report.cpp).
  std::int64_t memory_bytes = 0;
  std::int64_t step_cycles = 0;  // one row step of the largest share (CostModel::step)
  // The stage and step with every line buffer priced as it is loaded
  // (CostModel::loaded_stage): the report's estimate starts from them.
  std::int64_t loaded_stage_cycles = 0, loaded_step_cycles = 0;
  // How much the loaded stage grows per cycle of DMA latency: the latencies
  // its busiest core waits out one after the other (CostModel::price).
  double path_latencies = 0;
  // The emitter loads the node's rows ahead (Graph::rows_ahead, a line
  // buffer its own CU loads): each row takes the next row's tokens first,
  // so it waits for one more of its writers' rows (row_times, report.cpp).
  bool rows_ahead = false;
  // The DMAs one core of the node issues per inference, each a packet on
  // the mesh (CostModel::packets): how many, their mean flits and mean
  // squared flits and mean bytes, for the waits behind other packets
  // (contended_times.h).
  double dma_packets = 0, packet_flits = 0, packet_flits_sq = 0, packet_bytes = 0;

  // Row hand-over messages the node's busiest core sends and takes per
  // inference, known once the program is emitted (EmitResult::node_tokens):
  // each costs that core a pass of its table loop (report.cpp).
  std::int64_t sync_tokens = 0;
  // A Conv whose only reader is a residual Add (fuse_adds) or, without one,
  // a table activation (fuse_tables) computes it per pixel and stores its
  // output instead of its own: fused_next is that node's index, and the
  // node is `fused` (no layer of its own).
  int fused_next = -1;
  bool fused = false;
  // A Concat along the rows of [T, C] matrices (a class token before the
  // patches): each input's pixels, in order, follow the previous input's
  // (an input may be a map of h x w pixels, the patches' own).
  bool concat_rows = false;
  // A pixel gather (a Concat of one input, canonicalize_pixels.cpp): the
  // output, as runs of C values (C: the input's channels), takes run k from
  // input pixel gather[k]; a window partition, a cyclic shift, a patch
  // merging's strided pixels side by side in the channels.
  std::vector<std::int64_t> gather;
};

struct Graph {
  std::string name;
  std::vector<Value> values;
  std::vector<Node> nodes;     // topological order
  std::vector<int> inputs, outputs;
  // Graph outputs whose Softmax canonicalize removed: the chip produces the
  // class scores, the host applies Softmax when it dequantizes them.
  std::vector<bool> host_softmax;
  // The ONNX graph's own name and dims of each output, as imported: what
  // vp-cc publishes (io.json, the .output bindings) even when canonicalize
  // makes a graph output an alias of another value (a Flatten after
  // GlobalAveragePool: the chip's value is [1, C, 1, 1], the graph's [1, C]).
  std::vector<std::string> output_names;
  std::vector<std::vector<std::int64_t>> output_dims;
  // plan_memory: plain (borderless) buffer of each graph input, what the
  // .input binding names; equals the value's buffer when it has no border.
  std::vector<std::int64_t> input_plain;
  // Per graph input with a plain buffer of its own: the global word through
  // which its pad layer reads the host's rows (the .input's indirect=; the
  // firmware points it at the element's bytes), else -1 (plan_memory).
  std::vector<std::int64_t> input_pointer;
  // Images per start (vp-cc --batch): the program streams this many images
  // through its pipeline. The .input/.output bindings then hold them all,
  // back to back (leading dimension `batch`); with batch > 1 every graph
  // input gets its own plain area, and every graph output an area
  // (output_area) the program copies each image's result into.
  int batch = 1;
  // The narrowest column strip a copy's share of a map takes (share_loop,
  // emit_loops.h; share_of_map, schedule_cost.h): map_crossbars sets it.
  std::int64_t min_strip = 2;
  // A stream's buffers released per row (vp-cc --stream-release rows, the
  // default): only then may plan_memory hold values as rings of rows.
  bool row_releases = true;
  // Rings of rows also for values with a border or read by windows of
  // several rows (vp-cc --rings; plan_memory's ring_rows_of), not only for
  // those read row by row without one.
  bool bordered_rings = true;
  // A stream's values in two buffers where they fit (vp-cc --stream-buffers
  // 2, the default; Buffer::alt): plan_memory gives the second ones.
  bool twin_buffers = true;
  // Rows ahead (vp-cc --rows-ahead; emit_loops.h, RowsAhead): a Conv whose
  // line buffer is loaded by its own CU takes the next row's tokens and
  // loads its rows while the current row computes. Set before mapping: the
  // cost model prices the loads beside the row's work.
  bool rows_ahead = false;
  // Late row ends (vp-cc --late-row-ends; emit_loops.h, RowsAhead::late):
  // read by the emitter only; the cost model prices rows as before.
  bool late_row_ends = false;
  // Small maps in the SRAM window at a granule's pitch (vp-cc --row-pitch;
  // plan_memory, Buffer::pitch).
  bool row_pitch = false;
  std::vector<std::int64_t> output_area;
  // Where the host finds graph output i: its area, or the value's buffer.
  std::int64_t output_addr(std::size_t i) const {
    return i < output_area.size() ? output_area[i] : val(outputs.at(i)).buf.addr;
  }
  std::int64_t gmem_used = 0;
  std::int64_t sram_used = 0;  // bytes of activations in the cluster SRAMs' global window
  // SRAM reused for one image (plan_memory.cpp): (node, later node) pairs
  // where the later node stores into SRAM the first node reads last. Every
  // core of the later node starts only once every core of the first one has
  // finished (a release message from each, emit_sync.cpp).
  std::vector<std::pair<int, int>> reuse_after;
  int opset = 0;

  int add_value(Value v) {
    values.push_back(std::move(v));
    return static_cast<int>(values.size()) - 1;
  }
  Value& val(int id) { return values.at(static_cast<std::size_t>(id)); }
  const Value& val(int id) const { return values.at(static_cast<std::size_t>(id)); }
  // Nodes reading value `id`.
  std::vector<int> consumers(int id) const;
  // Node writing value `id`, or -1 for graph inputs and constants.
  int producer(int id) const;
  // Drops nodes whose outputs nobody reads (and that are not graph outputs).
  void remove_dead_nodes();
  // A new constant: `id`'s rows [r0, r1) of its first dimension (its output
  // channels, for a weight or bias), named with `suffix`; `id` itself when it
  // holds one value for every row.
  int constant_rows(int id, std::int64_t r0, std::int64_t r1, const std::string& suffix);
};

// Activation view of ONNX dims: [1,C,H,W] -> C,H,W; [B,K] -> C=K, H=B; [K] -> C=K.
Shape shape_of_dims(const std::vector<std::int64_t>& dims, const std::string& name);

}  // namespace vp::cc
