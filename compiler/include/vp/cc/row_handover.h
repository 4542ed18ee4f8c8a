// Row hand-over between layers: which token messages the cores of a
// row-pipelined program exchange (compiler/src/emit_sync.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace vp::cc {

// Layers run without a chip-wide barrier: a core starts a row of its share
// as soon as the rows it reads exist. Every row iteration of a pixel loop is a step; a step that
// writes output rows tells the cores that read them with a token message, and
// a step waits for the tokens of the rows it reads. The first emit pass
// records the steps, plan_sync() turns them into per-core tables, the second
// pass emits the table-driven code.
// Columns of a step: all of them unless its loop walks a strip or block of
// the map's columns (share_loop); then a writer waits only for, and hands
// rows only to, the cores whose columns meet its own.
inline constexpr std::int64_t kAllColumns = INT64_MAX;
struct NeedRow {
  int writer;             // layer that writes the tensor
  std::int64_t lo, hi;    // rows a step reads (lo > hi: none)
  std::int64_t clo = 0, chi = kAllColumns;  // the columns it reads of them
};
struct SyncStep {
  std::int64_t row = 0;  // output row of the step
  bool writes = true;    // writes its output pixels (a partial-sum helper does not)
  std::vector<NeedRow> needs;  // per input of the layer, in order
  std::int64_t c0 = 0, c1 = kAllColumns;  // the columns [c0, c1) of the row it writes
  bool operator==(const SyncStep& o) const {
    if (row != o.row || writes != o.writes || needs.size() != o.needs.size() || c0 != o.c0 || c1 != o.c1)
      return false;
    for (std::size_t i = 0; i < needs.size(); ++i)
      if (needs[i].writer != o.needs[i].writer || needs[i].lo != o.needs[i].lo || needs[i].hi != o.needs[i].hi ||
          needs[i].clo != o.needs[i].clo || needs[i].chi != o.needs[i].chi)
        return false;
    return true;
  }
};
// The tables of one (layer, core): per step and per input stream with any
// token for this core, the count then the source cores (pre); per writing
// step and per reading stream with any token from this core, the count then
// the destination cores (post). One tag per stream.
// In a stream with row releases (row_release.h) the last pre streams are
// the releases a writer takes and the last post streams those a reader
// sends, one entry of pre_cross / post_cross each: the images back whose
// rows it releases, 1 for the last image's (none taken in the first image,
// none sent after the last), 2 for a value in two buffers (Buffer::alt:
// none taken in the first two images, none sent after the last two), 0 for
// a ring's rows of the same image (never skipped). Post
// entries of a step that writes nothing hold only the releases.
struct SyncTable {
  std::vector<std::int32_t> pre, post;
  std::vector<int> pre_tags, post_tags;
  std::vector<char> pre_cross, post_cross;
};
// A stream of images (vp-cc --batch) reuses every buffer for every image.
// By default a writer core writes a row of the next image once every core
// that reads that row has read it (row releases, row_release.h). With
// image releases (vp-cc --stream-release images) it may begin a layer's
// next image only once each core that reads rows it writes has finished
// reading this image's: the reader sends a release at the end of its layer
// (every image but the last), the writer takes it at the start of its layer
// (every image but the first). Releases have their own tags, never a row
// stream's on the same core pair.
struct Release {
  int peer = 0, tag = 0;
  bool operator==(const Release& o) const { return peer == o.peer && tag == o.tag; }
};
struct SyncPlan {
  std::map<std::pair<int, int>, SyncTable> tables;  // (layer, core)
  std::int64_t tokens = 0;                           // messages per inference
  std::map<std::pair<int, int>, std::int64_t> core_tokens;  // (layer, core) -> messages it sends and takes
  // (writer layer, core) -> releases to take, in the readers' layer order;
  // (reader layer, core) -> releases to send, in the writers' layer order.
  std::map<std::pair<int, int>, std::vector<Release>> release_take, release_give;
  std::int64_t releases = 0;                         // messages per image after the first (row or image releases)
  // SRAM reused for one image: (reader layer, core) -> releases to send at
  // its end; (writer layer, core) -> releases to take at its start.
  std::map<std::pair<int, int>, std::vector<Release>> reuse_give, reuse_take;
};
// SRAM reused for one image: every core of `writer` (a layer id) takes, at
// its start, a release from every core of `reader` (an earlier layer),
// sent when that core has finished it. Tags never a row stream's on the
// same core pair.
struct ReuseOrder {
  int reader = 0, writer = 0;
  std::vector<int> reader_cores, writer_cores;
};

// The input columns [lo, hi] the windows of output columns [w0, w1) read
// along a row: kernel kw, stride sw, dilation dw, left pad pl, over an input
// `width` wide (clipped to it: padding is nobody's to write).
std::pair<std::int64_t, std::int64_t> window_columns(std::int64_t w0, std::int64_t w1, int kw, int sw, int dw, int pl,
                                                     std::int64_t width);

// The tables for the steps a first emit pass recorded (layer ids are the
// program order); with `stream` also the releases between images, per row
// or, with `image_releases`, per layer and image.
// `rings`: writer layer -> (ring rows, map height) of the tensors held as
// rings of rows (row_release.h); `twins`: writer layers whose tensor has
// two buffers (Buffer::alt).
SyncPlan plan_sync(const std::map<std::pair<int, int>, std::vector<SyncStep>>& steps, bool stream = false,
                   const std::vector<ReuseOrder>& reuse = {}, bool image_releases = false,
                   const std::map<int, std::pair<std::int64_t, std::int64_t>>& rings = {},
                   const std::set<int>& twins = {});

}  // namespace vp::cc
