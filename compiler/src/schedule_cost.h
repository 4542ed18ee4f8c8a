// The schedule's cost model: what one layer costs on the chip at the
// parameter table's default timing, as emit_layers.cpp lays it out. The map
// stage chooses replicas with it and --report prints it.
//
// A layer's copies run in parallel, each over its share of the output
// pixels; inside a copy every CU fires one MVM group per pixel. A pixel on a
// CU costs its window (vmov from the line buffer, or one DMA per contiguous
// run from global memory when the rows do not fit), its MVM groups and the
// vector work, one after the other (in-order issue: the vector work waits
// for the MVM); the store overlaps the next pixel. A CU holding `lanes`
// copies of its load assembles `lanes` windows, fires their MVMs at once
// and then requantizes and stores each: the MVM time is paid once per
// group of lanes. Each output row of a
// share first loads its kh input rows. Every byte a layer reads or writes crosses the mesh port of
// the global memory, so a layer also takes at least bytes / port bandwidth,
// however many copies share it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

// Whether a window operator (Conv, pooling) reads its windows from a line
// buffer of kh input rows per output row: when the rows fit half the
// scratchpad, the windows run along rows (not a kernel as wide as the map),
// and the rows bring no more bytes from global memory than gathering every
// window would. `span` gets the bytes of one buffered row.
bool use_line_buffer(const ConvGeom& g, const Shape& in, const Shape& out, std::int64_t spad_bytes, std::int64_t* span);

// How share_loop (emit_loops.h) cuts an OH x OW map among R copies: with at
// least kStripRows rows per copy, S strips of at least kMinStrip columns
// and each strip's rows dealt to R / S copies; else contiguous blocks.
// The narrowest strip is Graph::min_strip, chosen by map_crossbars: for one
// image kMinStrip, 2 pixels (a row step is one strip's pixels, and a reader
// waits about one row step of every layer before it, so narrow strips
// shorten a single inference: ResNet-50 1,219,634 -> 1,183,338 cycles,
// ResNet-18 630,126 -> 535,111 against strips of 4); for a stream of
// images kMinStripStream, 4 (each strip's line buffer reads the windows'
// overlap again, and a stream is paced by the bytes it moves: ResNet-50 at
// batch 16 771,448 cycles per inference with 4, 800,897 with 2).
inline constexpr std::int64_t kMinStrip = 2, kMinStripStream = 4, kStripRows = 2;
struct Share {
  std::int64_t rows = 0;    // output rows (or partial rows) the largest share touches
  std::int64_t width = 0;   // pixels of its widest row
  std::int64_t pixels = 0;  // pixels of the largest share
};
Share share_of_map(std::int64_t OH, std::int64_t OW, int R, std::int64_t min_strip = kMinStrip);
// Rows a mapped node computes at once: with strips, each strip's rows are
// dealt to R / S copies in turn, so R / S rows progress together; with
// blocks, one.
std::int64_t rows_at_once(const Graph& g, const Node& n);

// The runs of output rows copy r of R walks (emit_loops.h's share_loop, and
// CostModel::memory's bytes): `rows` rows from row h, `hstep` apart, `cols`
// pixels from column w. A few rows per copy: contiguous blocks
// [P*r/R, P*(r+1)/R) of the P pixels (partial rows included), which keep the
// rows per copy, and with them the row loads and hand-over steps, fewest.
// Else strips of whole rows: S strips of the width, each row group of a
// strip taking every R/S-th row.
struct ShareRun {
  std::int64_t h = 0, w = 0, rows = 0, cols = 0, hstep = 1;
};
std::vector<ShareRun> share_runs(std::int64_t OH, std::int64_t OW, int r, int R, std::int64_t min_strip);

struct LayerCost {
  std::int64_t pixel_cycles = 0;   // one output pixel (or row for row-wise operators) on one CU, its MVMs aside
  std::int64_t group_cycles = 0;   // the MVM groups of `lanes` pixels fired at once
  int lanes = 1;                   // pixels a CU computes at once (copies of its load side by side)
  std::int64_t row_cycles = 0;     // once per output row of a share (line buffer loads)
  // A line buffer as emit_loops.h's line_rows loads it: each row of the
  // strip's span, kh of them for a share's first row and sh for each next
  // one when its rows are consecutive (the rest stay in the buffer). The
  // bytes (memory()) always count it so; the stage time only where
  // line_in_stage (poolings): a Conv keeps charging kh rows of the whole
  // output row's span per row, which stands in for the mesh's contention
  // in the copy choice (docs/compiler.md, "Cost model").
  std::int64_t line_kh = 0, line_sh = 0, span_fixed = 0, span_per_pixel = 0;
  bool line_in_stage = true;
  std::int64_t line_readers = 0;  // CUs of a copy that each load the rows (a split copy's)
  std::int64_t other_bytes = 0;   // gmem_bytes besides the line buffer's rows (outputs, residuals)
  std::int64_t row_units = 1;      // units per output row
  // Pixels per output row when the units are pixels dealt one by one
  // (row_units 1) on a map wider than one: the emitter still deals and
  // hands over whole rows of the map (share_loop), so a step of the row
  // hand-over is one of those rows (0: row_units).
  std::int64_t map_width = 0;
  // A MatMul inside windows (Node::windows > 1): its cores take whole
  // windows (emit_matmul_head_groups), each of `head_groups` cores one
  // group of the heads of the same windows, so a core's share is whole
  // windows of units / windows rows, not an even part of the rows.
  std::int64_t windows = 0;
  int head_groups = 1;
  std::int64_t units = 0;          // pixels (or rows) the layer computes
  std::int64_t gmem_bytes = 0;     // bytes read and written in memory, each output row's kh line rows charged whole (stage())
  std::int64_t moved_bytes = -1;   // memory()'s bytes where they differ from gmem_bytes and no line buffer counts them
  std::int64_t mvms_per_unit = 0;  // MVM groups per pixel per copy (the slowest CU's)
  std::int64_t mvm = 0;            // one MVM at the layer's input bits (0: at 8 bits)
  // Software pipelining (emit_conv, a CU of its own): a group's windows and
  // MVMs go before the vector work and stores of the group before, so per
  // group the core takes the longer of the MVMs and the vector unit's work
  // (the next windows and this group's requantization; a fused Add's
  // residual comes in under the MVMs). stage() counts it for one lane.
  bool overlap = false;
  std::int64_t fill_cycles = 0;    // the window's part of pixel_cycles
  std::int64_t vector_cycles = 0;  // the part after the MVM (requantization, Add, store)
  // The DMAs a core issues, each one packet on the mesh (packets()): per
  // unit (pixel, or row for row-wise operators), and per output channel
  // group stored (a Conv's stores and fused residuals: one per pixel, or
  // one per group of lanes when the core holds every channel).
  std::vector<std::int64_t> unit_dmas;
  std::int64_t store_cols = 0;
  int stores_per_pixel = 0;
  bool all_channels = false;
  // Rows ahead (Graph::rows_ahead; emit_loops.h, RowsAhead): the line
  // buffer's rows of each next row, and with grouped lanes a fused Add's
  // residual row, load while the row before computes. loaded_stage() then
  // takes the longer of the loads and the work after the first row's loads
  // (ahead_in_stage); the copy choice's prices keep them in turn.
  bool ahead = false, ahead_in_stage = false;
  // A unit's store the DMA engine carries out under the next unit's load
  // and work (emit_norm, emit_matmul, emit_softmax: the store is the
  // unit's last instruction and nothing waits for it): the estimate's
  // stage (stores_in_stage off) leaves it out; the copy choice keeps it.
  std::int64_t store_behind = 0;
  bool stores_in_stage = true;
  std::int64_t residual_cols = 0;  // a fused Add's channels per pixel (0: none)
  // A unit as the code runs it where the copy choice keeps a coarser price
  // (a pixel gather's runs, each a load and a store): the estimate's stage
  // (loaded_stage) takes it. 0: pixel_cycles.
  std::int64_t loaded_pixel_cycles = 0;
  // The same layer priced with every DMA CostModel::kLatencyProbe cycles
  // longer (conv(), other()): price() takes from the difference how many
  // DMA latencies the loaded stage waits out one after the other, which the
  // report reprices at the routes the placement gives (contended_times).
  std::vector<LayerCost> longer_latency;
};

// A core's DMA packets per inference (the largest share's): how many, and
// the mean of their flits and of their flits squared, as the mesh counts
// flits (a header and noc.link_bits per flit).
struct Packets {
  double count = 0, flits = 0, flits_sq = 0, bytes = 0;
};

// The critical path of the row hand-over with one layer per CU (report.cpp):
// per node, when its first and its last output row are done (cycles after
// the start) and its row step; total is the last row of all. Fused nodes
// keep 0.
// A row hand-over message costs its core one pass of the table loop that
// sends or takes it (ld, addi, send or recv, dbnz: emit_sync.cpp).
inline constexpr std::int64_t kTokenCycles = 6;
// A node's stage and row step with the messages of its busiest core
// (Node::sync_tokens, known after emission; 0 before).
double stage_with_tokens(const Node& n);
double step_with_tokens(const Node& n);

struct RowTimes {
  RowTimes() = default;
  explicit RowTimes(std::size_t nodes) : first(nodes, 0), last(nodes, 0), step(nodes, 0) {}
  std::vector<double> first, last, step;
  double total = 0;
};
// Per node, the stage and row step a critical path is taken with.
struct StagePrices {
  std::vector<double> stage, step;
  // Per node: the cores that deal a MatMul's windows among them (its
  // copies over its head groups), 0 for any other node (row_before).
  std::vector<int> window_sharers;
  // Per value: the cycles between rows of a graph input that a pad layer
  // copies into its bordered buffer (the report's estimate, pad_row_steps
  // in contended_times.cpp), 0 (or absent) for a value there from the start.
  std::vector<double> input_step;
};
// The copy choice's prices with the messages (stage_with_tokens): what
// plan_memory's liveness reads.
StagePrices choice_prices(const Graph& g);
RowTimes overlapped_times(const Graph& g, const StagePrices& p);
inline RowTimes overlapped_times(const Graph& g) { return overlapped_times(g, choice_prices(g)); }
// The same path row by row (row_times.cpp): every output row done one step
// after the later of the input rows it reads and its copy's row before.
RowTimes row_times(const Graph& g, const StagePrices& p);
// Per value, the node whose cores store it (a fused Add's output: its
// Conv's), -1 for graph inputs and constants.
std::vector<int> storers(const Graph& g);
// The values a node's rows wait for: its first input (through windows when
// the operator has them), the others of a non-Conv, a fused Add's residual.
std::vector<std::pair<int, bool>> row_inputs(const Graph& g, const Node& n);
// One layer per CU (the pipeline placement): no CU holds two layers.
bool layers_overlap(const Graph& g);
// The report's times per layer: with the layers overlapped, the critical
// path with the waits at busy links and ports (contended_times.h; without a
// target, overlapped_times at the copy choice's prices); else the stages one
// after the other (CUs shared by layers).
RowTimes estimated_times(const Graph& g, const Target* t = nullptr);

class CostModel {
 public:
  // min_strip: the narrowest strip of a share (Graph::min_strip).
  // rows_as_loaded: a Conv's line buffer priced as it is loaded, as a
  // pooling's is (LayerCost::line_in_stage).
  explicit CostModel(const Target& t, std::int64_t min_strip = kMinStrip, bool rows_as_loaded = false);
  std::int64_t mvm_cycles() const { return mvm_; }
  // Stage time of a layer with `copies` copies (Conv) or cores (the rest).
  std::int64_t stage(const LayerCost& c, int copies) const;
  // One row of the largest share: a step of the row hand-over. A reader
  // waits for about one step of each layer before it, so with the layers
  // overlapped an inference takes about the slowest stage plus one step of
  // every other layer.
  std::int64_t step(const LayerCost& c, int copies) const;
  // The same with a Conv's line buffer priced as line_rows loads it, the
  // bytes memory() counts (line_in_stage), for the report's estimate: the
  // copy choice keeps the whole-row charge, which stands in for the
  // contention the estimate prices apart (contended_times).
  std::int64_t loaded_stage(LayerCost c, int copies) const {
    c.line_in_stage = true;
    c.ahead_in_stage = c.ahead;
    c.stores_in_stage = false;
    if (c.loaded_pixel_cycles > 0) c.pixel_cycles = c.loaded_pixel_cycles;
    return stage(c, copies);
  }
  std::int64_t loaded_step(LayerCost c, int copies) const {
    c.line_in_stage = true;
    return step(c, copies);
  }
  // A stage time `st` over the rows of the map the largest share walks
  // (map_width): the step the row hand-over's critical path takes
  // (row_times), which follows the map's rows. The copy choice keeps
  // step()'s rows of units.
  std::int64_t map_row_step(const LayerCost& c, int copies, std::int64_t st) const;
  // The largest share of `copies` copies over the units' rows (share_of_map),
  // or over whole windows.
  Share share(const LayerCost& c, int copies, std::int64_t width) const;
  // Bytes the layer's cores move to and from memory per inference with
  // `copies` copies (Node::memory_bytes): gmem_bytes, with a line buffer's
  // rows counted as they are loaded.
  std::int64_t memory(const LayerCost& c, int copies) const;
  Packets packets(const LayerCost& c, int copies) const;
  // Sets n's prices with `copies` copies: stage, step, memory bytes, the
  // loaded stage and step, the packets, and (with_bound) the MVM bound.
  void price(Node& n, const LayerCost& c, int copies, bool with_bound) const;
  // The analytic floor: MVMs per crossbar x MVM cycles, all copies at once.
  std::int64_t bound(const LayerCost& c, int copies) const;
  // Per inference outside the layers: the firmware copies the inputs in
  // (bytes of each), starts every core that has a program (a layer's cores
  // start up to one loop pass per core after the first) and copies the
  // outputs out.
  std::int64_t start(std::int64_t cores, const std::vector<std::int64_t>& input_bytes = {},
                     const std::vector<std::int64_t>& output_bytes = {}) const;
  // The firmware's cstart loop: cycles from one core's start to the next's.
  static std::int64_t start_per_core();
  // One DMA of `bytes` between global memory and a scratchpad.
  std::int64_t dma(std::int64_t bytes) const;
  // The part of a DMA's latency its route sets, in chip cycles: the request
  // and the answer each cross `hops` mesh hops, and a share `remote` of the
  // transfers enters and leaves the mesh at two ports each way (a cluster's
  // own SRAM granules stay on its bus). dma() prices every transfer at
  // kMeanHops and remote 1 (priced_route_latency).
  double route_latency(double hops, double remote) const;
  double priced_route_latency() const;
  // Cycles added to every DMA when a layer is priced a second time
  // (LayerCost::longer_latency).
  static constexpr std::int64_t kLatencyProbe = 64;
  // The flits of `bytes` on the target's links, headers not counted.
  std::int64_t flits(std::int64_t bytes) const { return (bytes * 8 + t_.noc_link_bits - 1) / t_.noc_link_bits; }
  std::int64_t vec(std::int64_t elems) const;
  // Global memory traffic floor: every byte crosses the memory's mesh port.
  std::int64_t port(std::int64_t bytes) const;
  // The same for bytes of values in global memory proper (not the SRAMs'
  // window), which all cross the memory controller's router.
  std::int64_t dram_port(std::int64_t bytes) const;

  // Per operator; `groups` = MVM groups one CU fires per pixel, `cols` the
  // channels that CU stores, `gathering_cus` the CUs of one copy (each
  // gathers its own window).
  LayerCost conv(const Graph& g, const Node& n, int groups, int cols, int gathering_cus) const;
  LayerCost other(const Graph& g, const Node& n) const;

 private:
  const Target& t_;
  std::int64_t mvm_ = 0;
  std::int64_t mvm_bits_[9] = {};  // one MVM with 1..8 input bits (Node::input_bits)
  double port_bytes_per_cycle_ = 8;
  std::int64_t line_rows_loaded(const LayerCost& c, int copies, const Share& sh) const;
  bool window_ = false;  // activations in the cluster SRAMs (see the constructor)
  std::int64_t min_strip_ = kMinStrip;
  bool rows_as_loaded_ = false;
  std::int64_t latency_extra_ = 0;  // kLatencyProbe in the copy that prices longer_latency
  CostModel probe() const {
    CostModel m = *this;
    m.latency_extra_ = kLatencyProbe;
    return m;
  }
};

}  // namespace vp::cc
