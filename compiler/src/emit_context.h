// Shared state of the emit stage: one text per core, scratchpad allocation,
// and small helpers that print instructions. emit_program.cpp drives the
// layers; emit_layers.cpp writes each operator's per-core code.
//
// Scratchpad of a core: parameters that live for the whole program (biases,
// requantization pairs, LUTs) are allocated from the top down; each layer's
// working buffers start at 0 and are reused by the next layer. The two must
// not meet (checked at the end).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "vp/cc/passes.h"
#include "vp/cc/row_handover.h"

namespace vp::cc::emit {

struct CoreCode {
  std::ostringstream text;
  std::ostringstream data;
  std::int64_t param_bottom = 0;   // lowest parameter byte
  std::int64_t scratch_top = 0;    // highest scratch byte used by any layer
  std::int64_t instructions = 0;
  int labels = 0;
};

class Ctx {
 public:
  Ctx(const Graph& g, const Target& t);
  const Graph& g;
  const Target& t;
  std::map<int, CoreCode> cores;
  int layer = 0;   // current layer id
  // Partial sums between the cores of one layer: both sides run the layers
  // in the same order, so one tag keeps them apart from the row tokens (1..255).
  int tag() const { return 0; }

  // Row hand-over (see SyncStep). The current layer's inputs: the layer that
  // writes each and the rows [lo, hi] an output row reads.
  struct Input {
    int writer;
    std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t)> rows;
    // The input's width; with a loop over the map's columns, an input as
    // wide as the output is read at the pixel's own columns.
    std::int64_t width = -1;
    // Else its columns [lo, hi] that output columns [w0, w1) read (a window).
    std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t, std::int64_t)> cols;
  };
  std::int64_t out_width = 0;  // the current layer's output width (the map its share_loop walks)
  std::vector<Input> inputs;
  bool writes = true;                       // the loops being emitted write the layer's output
  std::map<std::pair<int, int>, std::vector<SyncStep>> steps;  // (layer, core)
  const SyncPlan* plan = nullptr;           // second pass: the tables to emit
  // Steps first_row, first_row + hstep, ... (`rows` of them) of core c's current loop.
  // With w0 >= 0, the loop walks columns [w0, w1) of a map `width` wide.
  void sync_rows(int c, std::int64_t first_row, std::int64_t rows, std::int64_t hstep = 1, std::int64_t w0 = -1,
                 std::int64_t w1 = -1, std::int64_t width = -1);
  // At the layer's start on core c: table and token registers.
  void sync_begin(int c);
  // Cores whose hand-over tables live in global memory rather than among
  // their parameters: each layer's are loaded into the bottom of its scratch
  // at the layer's start (a core shared by many layers would otherwise hold
  // all their tables at once). The data goes to global memory from
  // `global_data_at` upwards, its directives to `global_data`.
  std::set<int> tables_in_memory;
  std::int64_t global_data_at = 0;
  std::ostringstream global_data;
  // At a row's start: wait for the rows it reads; at its end: tell the readers.
  void sync_pre(int c);
  void sync_post(int c);
  // Run at every row step's end after sync_post, while set (handed rows:
  // the writer's token and mark, handed_rows.h).
  std::function<void(int c)> row_end;
  // Set by pixel_loop while it emits a row's first group when the row's
  // end is held back (RowsAhead::late): a body with MVMs calls it once
  // their groups are fired, before their vector work and stores.
  std::function<void()> row_mid;

  // A stream of images (Graph::batch > 1): each core's program loops over
  // them; image_word(c) is the scratchpad word holding the current image.
  int batch = 1;
  std::int64_t image_word(int c);
  // (Graph::input_pointer, core) -> the core's state word holding what the
  // pointer word said at the start (it does not change within a start).
  std::map<std::pair<std::int64_t, int>, std::int64_t> input_pointer_words;
  // At a layer's start on core c, after sync_begin: from the second image
  // on, wait for the readers of this layer's output to release the last
  // image's rows. At its end, after its loads: release the writers of what
  // it read (but for the last image).
  void release_take(int c);
  void release_give(int c);
  // SRAM reused for one image (Graph::reuse_after): the node being emitted
  // (-1 for copies), the layer each node became; at a layer's start on core
  // c, wait for every core of the layers whose SRAM it writes over to have
  // finished them; at its end, tell the later writers of its SRAM.
  int node = -1;
  std::map<int, int> node_layer;
  void reuse_take(int c);
  void reuse_give(int c);
  // Around every core's whole program: the image loop.
  void image_loop_begin(int c);
  void image_loop_end(int c);
  // A stream whose tensors have second buffers (Buffer::alt) runs each
  // core's program twice per pass of its image loop, the even image then
  // the odd one (emit_program.cpp): image_loop_mid between the two. The
  // second copy is emitted with `odd` set: addr() gives the second buffers,
  // it records no row steps (the first copy's stand), and it is given the
  // first copy's parameters when it asks for the same ones in the same
  // order (words, bytes), so the scratchpad holds them once.
  bool twin = false, odd = false;
  void image_loop_mid(int c);
  std::int64_t addr(const Value& v) const { return twin && odd && v.buf.alt >= 0 ? v.buf.alt : v.buf.addr; }
  // The value each layer stores (-1: none), as begin_layer was told.
  std::map<int, int> layer_out;

  CoreCode& core(int c);
  // Persistent parameter block (4-byte words or bytes) in core c's scratchpad.
  std::int64_t words(int c, const std::vector<std::int32_t>& w);
  std::int64_t bytes(int c, const std::vector<std::int8_t>& b);
  // A word the program itself writes (the image counter, a token buffer),
  // never given to another request: not replayed.
  std::int64_t state_word(int c);
  // Scratch buffers of the current layer on core c: call scratch_reset first.
  // They start above the layer's hand-over tables when those are loaded
  // into the scratch (tables_in_memory).
  void scratch_reset(int c) { scratch_next_[c] = scratch_floor_[c]; }
  std::int64_t scratch(int c, std::int64_t n);
  // Bytes between the current layer's scratch buffers and the parameters.
  std::int64_t scratch_free(int c) { return core(c).param_bottom - scratch_next_[c]; }
  std::string label(int c, const std::string& base);
  // One instruction line ("li r1, 5") appended to core c.
  void ins(int c, const std::string& line);
  void li(int c, int r, std::int64_t v);
  void put_label(int c, const std::string& l);

 private:
  void releases(int c, bool take);
  void reuses(int c, bool take);
  std::map<int, std::int64_t> scratch_next_, scratch_floor_;
  std::map<int, std::int64_t> image_word_, release_buf_;
  // Per core, for the current layer (sync_begin): the word that saves the
  // table pointer while an indirect table's list is walked, 0 when the
  // pre (first) or post (second) table is inline.
  std::map<int, std::pair<std::int64_t, std::int64_t>> table_save_;
  std::map<int, std::string> image_label_, image_done_;
  // Twin image loop: the first copy's parameter requests per core (kind and
  // contents, address) and how many the second copy has made.
  std::int64_t replayed(int c, const std::string& key);
  void remember(int c, std::string key, std::int64_t at);
  std::map<int, std::vector<std::pair<std::string, std::int64_t>>> params_;
  std::map<int, std::size_t> replay_at_;
  std::map<std::pair<int, int>, std::int64_t> memory_tables_;  // (layer, core) -> its tables in global memory
};

// `.word` lines of w, 16 to a line.
void word_lines(std::ostream& os, const std::vector<std::int32_t>& w);

// A contiguous gather from global memory: offset from the window's origin
// pixel, offset in the scratchpad buffer, length.
struct Segment {
  std::int64_t gofs, lofs, len;
};
// Window of kh x kw positions over channels [ci0, ci1) of a channels-last
// tensor of C channels and `row` bytes from one row to the next; runs
// merged when contiguous.
std::vector<Segment> window_segments(const ConvGeom& geom, std::int64_t C, std::int64_t row, int ci0, int ci1);

// Per-layer code of each operator.
void emit_conv(Ctx& e, const Node& n);
void emit_pool(Ctx& e, const Node& n);
void emit_global_pool(Ctx& e, const Node& n);
void emit_add(Ctx& e, const Node& n);
void emit_mul(Ctx& e, const Node& n);
void emit_unary(Ctx& e, const Node& n);      // Relu, Clip, the op_table operators (vlut)
void emit_rescale(Ctx& e, const Node& n);    // Mul by a constant, Concat
void emit_concat_rows(Ctx& e, const Node& n);  // Concat along the rows of [T, C] matrices
void emit_gather(Ctx& e, const Node& n);       // a pixel gather (Node::gather)
void emit_layer_norm(Ctx& e, const Node& n);  // emit_norm.cpp
void emit_softmax(Ctx& e, const Node& n);     // emit_softmax.cpp
void emit_matmul(Ctx& e, const Node& n);      // emit_matmul.cpp: of two activations
// A causal MatMul loads B's rows as its rows need them (no borders around
// its tensors); else all of B at its first row.
bool matmul_rows_as_needed(const Graph& g, const Node& n);
// Rows of a graph input shared among `cores`, from where the global word at
// `pointer` says the host's rows are (Graph::input_pointer; -1: at
// plain_addr).
void emit_input_copy(Ctx& e, const std::vector<int>& cores, const Value& v, std::int64_t plain_addr,
                     std::int64_t pointer = -1);
// A stream's graph output: each image's rows into its place in the output area.
void emit_output_copy(Ctx& e, const std::vector<int>& cores, const Value& v, std::int64_t area);

}  // namespace vp::cc::emit
