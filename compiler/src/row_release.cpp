// Row releases of a stream of images (row_release.h).
//
// A writer step of image i + 1 overwrites one row (a strip of its columns)
// of the buffer that the readers of image i read. Reader core q must have
// finished every step that reads those columns of that row: the writer
// takes q's tokens up to the last such step of q (its steps in program
// order, so "up to" is a count). q sends a token only after the steps some
// writer step waits for (the release points), so a reader that many writer
// steps wait for at the same step sends one token, not many.
//
// A ring of R rows (Buffer::ring_rows, R dividing the height H) puts row h
// where row h - R was: a writer step of row h >= R waits for this image's
// reads of row h - R (a stream of its own, never skipped), one of row
// h < R for the last image's reads of row h - R + H (skipped in the first
// image, like a whole map's).
//
// Deadlock: a writer step of image i + 1 waits only for reader steps of
// image i, a reader step of image i only for writer steps of image i of
// earlier layers (the forward tokens) or for releases of image i - 1; every
// wait goes to an earlier (image, layer), so none closes a cycle. In a ring
// a writer step of row h also waits for reads of row h - R of its own image;
// plan_memory holds a value as a ring only where a reader's step of a row
// needs no row past its window (1x1 Convs, residual Adds, line-buffered
// windows of kh rows) and R is at least kh, so those reads wait for nothing
// past row h - R + kh - 1 < h. A writer is at most one image ahead of its
// slowest reader, so a mailbox holds at most two images' tokens of a stream.
// A value in two buffers (Buffer::alt, images alternating between them):
// a writer step of image i + 1 overwrites image i - 1's rows and waits for
// their reads (depth 2; none taken in the first two images, none sent after
// the last two); the waits still go to earlier images. Such a writer is up
// to two images ahead, and a mailbox holds up to three images' tokens.
#include "row_release.h"

#include <algorithm>
#include <string>

#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

// Tag 255 is the shared loads' (shared_loads.h).
constexpr int kFirstTag = 1, kLastTag = 254;

// A reader step's use of one written tensor: its step index and columns.
struct Use {
  int step;
  std::int64_t clo, chi;
};
// (writer layer, reader layer) -> reader core -> row -> the steps reading it.
using Reads = std::map<std::pair<int, int>, std::map<int, std::map<std::int64_t, std::vector<Use>>>>;

Reads reads_of(const std::map<std::pair<int, int>, std::vector<SyncStep>>& steps) {
  Reads reads;
  for (const auto& [key, list] : steps) {
    const int W = key.first, q = key.second;
    for (std::size_t s = 0; s < list.size(); ++s) {
      // The rows and columns of each written tensor the step reads (one
      // tensor may be several of its inputs: a Concat of x and x).
      std::map<int, NeedRow> per_writer;
      for (const NeedRow& n : list[s].needs) {
        if (n.lo > n.hi) continue;
        auto [it, fresh] = per_writer.emplace(n.writer, n);
        if (fresh) continue;
        NeedRow& u = it->second;
        u.lo = std::min(u.lo, n.lo);
        u.hi = std::max(u.hi, n.hi);
        u.clo = std::min(u.clo, n.clo);
        u.chi = std::max(u.chi, n.chi);
      }
      for (const auto& [Z, n] : per_writer) {
        auto& rows = reads[{Z, W}][q];
        for (std::int64_t r = n.lo; r <= n.hi; ++r) rows[r].push_back({static_cast<int>(s), n.clo, n.chi});
      }
    }
  }
  return reads;
}

}  // namespace

std::vector<RowRelease> plan_row_releases(const std::map<std::pair<int, int>, std::vector<SyncStep>>& steps,
                                          std::map<std::pair<int, int>, std::set<int>>& taken,
                                          const std::map<int, std::pair<std::int64_t, std::int64_t>>& rings,
                                          const std::set<int>& twins) {
  std::vector<RowRelease> out;
  for (const auto& [layers, readers] : reads_of(steps)) {
    const auto [Z, W] = layers;
    const auto ring = rings.find(Z);
    RowRelease rel[2];  // the last image's reads, this image's (a ring)
    for (int k = 0; k < 2; ++k) {
      rel[k].writer = Z;
      rel[k].reader = W;
      rel[k].cross = k == 0;
      rel[k].depth = k == 0 && twins.count(Z) ? 2 : 1;
    }
    for (auto wit = steps.lower_bound({Z, 0}); wit != steps.end() && wit->first.first == Z; ++wit) {
      const int p = wit->first.second;
      const std::vector<SyncStep>& wsteps = wit->second;
      for (const auto& [q, rows] : readers) {
        if (p == q) continue;  // its own rows: it runs its layers in order
        // Per writer step, 1 + the last step of q that reads the row it
        // writes over (the same row of the last image, or in a ring the row
        // `ring rows` before it).
        std::vector<int> need[2];
        need[0].assign(wsteps.size(), 0);
        need[1].assign(wsteps.size(), 0);
        for (std::size_t t = 0; t < wsteps.size(); ++t) {
          const SyncStep& w = wsteps[t];
          if (!w.writes) continue;
          std::int64_t row = w.row;
          int k = 0;
          if (ring != rings.end()) {
            row -= ring->second.first;
            if (row >= 0) k = 1;
            else row += ring->second.second;
          }
          const auto r = rows.find(row);
          if (r == rows.end()) continue;
          for (const Use& u : r->second)
            if (w.c0 <= u.chi && u.clo < w.c1) need[k][t] = std::max(need[k][t], u.step + 1);
        }
        for (int k = 0; k < 2; ++k) {
          std::vector<int> points(need[k].begin(), need[k].end());
          std::sort(points.begin(), points.end());
          points.erase(std::unique(points.begin(), points.end()), points.end());
          if (!points.empty() && points.front() == 0) points.erase(points.begin());
          if (points.empty()) continue;
          auto& take = rel[k].takes[p];
          take.resize(wsteps.size());
          std::size_t have = 0;
          int upto = 0;
          for (std::size_t t = 0; t < wsteps.size(); ++t) {
            upto = std::max(upto, need[k][t]);
            for (; have < points.size() && points[have] <= upto; ++have) take[t].push_back(q);
          }
          auto& give = rel[k].gives[q];
          give.resize(steps.at({W, q}).size());
          for (int pt : points) give[static_cast<std::size_t>(pt - 1)].push_back(p);
          rel[k].pair_tokens[{q, p}] = static_cast<std::int64_t>(points.size());
        }
      }
    }
    for (RowRelease& r : rel) {
      if (r.pair_tokens.empty()) continue;
      for (int t = kLastTag; t >= kFirstTag && !r.tag; --t) {
        bool free = true;
        for (const auto& [qp, n] : r.pair_tokens) free = free && !taken[qp].count(t);
        if (free) r.tag = t;
      }
      if (!r.tag)
        throw CompileError("emit: no message tag is left to release the rows layer " + std::to_string(W) +
                           " reads of layer " + std::to_string(Z) + " between the same cores");
      for (const auto& [qp, n] : r.pair_tokens) taken[qp].insert(r.tag);
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace vp::cc
