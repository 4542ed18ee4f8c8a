// Row releases of a stream of images (plan_sync with stream = true): a
// writer core may write a row of image i + 1 once every core that reads
// that row of image i has finished reading it, instead of once they have
// finished the whole of image i. A reader sends a token back to a writer
// after each of its steps that a writer step waits for; the writer takes,
// before each step, the tokens of the reader steps that read the rows (and
// columns) it is about to write over. The first image waits for none and
// the last image sends none.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "vp/cc/row_handover.h"

namespace vp::cc {

struct RowRelease {
  int writer = 0, reader = 0;  // layers: the tokens go from the reader's cores to the writer's
  int tag = 0;
  // Reads of the last image (taken from the second image on, sent up to the
  // one before the last), or, in a ring, of this image's row ring_rows up.
  bool cross = true;
  // Images back whose reads a cross release waits for: 1, or 2 when the
  // writer's value has two buffers (the writer of image i + 1 overwrites
  // image i - 1's rows).
  int depth = 1;
  // Writer core p -> per step of (writer, p): the reader cores to take a
  // token from before it (one entry per token, in order).
  std::map<int, std::vector<std::vector<int>>> takes;
  // Reader core q -> per step of (reader, q): the writer cores to send a
  // token to after it.
  std::map<int, std::vector<std::vector<int>>> gives;
  std::map<std::pair<int, int>, std::int64_t> pair_tokens;  // (q, p) -> tokens per image
};

// The row releases of every (writer, reader) pair of layers whose cores
// hand rows over, each on a tag that no other stream in the same direction
// between the same two cores uses (`taken`: (sender, receiver) -> tags in
// use; the releases' own are added). Throws CompileError when a pair has no
// tag left.
// `rings`: writer layer -> (rows of its ring, height of its map) for the
// tensors held as rings of rows (Buffer::ring_rows): a writer step of row h
// waits for the reads of row h - rows of the same image, or, for h < rows,
// of row h - rows + height of the last image.
// `twins`: writer layers whose value has two buffers (their releases have depth 2).
std::vector<RowRelease> plan_row_releases(const std::map<std::pair<int, int>, std::vector<SyncStep>>& steps,
                                          std::map<std::pair<int, int>, std::set<int>>& taken,
                                          const std::map<int, std::pair<std::int64_t, std::int64_t>>& rings = {},
                                          const std::set<int>& twins = {});

}  // namespace vp::cc
