// Row hand-over between layers: the tables behind Ctx::sync_pre/sync_post.
//
// A token from core p to core q on a stream (a reading layer's input) says
// "p has finished one more of its writing steps of the tensor". A reading
// step needs, from every writer core that writes a row it reads, the tokens
// of all that core's writing steps up to the last one touching those rows
// (steps of a core need not be in row order: a Concat writes the same rows
// once per input). Each writer sends exactly the tokens the reader will take,
// so nothing is left in a mailbox.
//
// Tags: the mailbox matches (source, tag) in arrival order. Two streams may
// share a tag on a core pair only when one is written and read wholly before
// the other on both sides (earlier writer layer and earlier reader layer);
// otherwise their tokens would interleave.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <tuple>

#include "emit_context.h"
#include "row_release.h"
#include "vp/isa/isa.h"

namespace vp::cc {
namespace {

// Tag 255 is the shared loads' (shared_loads.h).
constexpr int kFirstTag = 1, kLastTag = 254;

// Writing steps of one core of a layer: for rows [lo, hi] and columns
// [clo, chi], how many of its steps must be done before every pixel it
// writes there is stored.
struct Written {
  std::int64_t row, c0, c1;  // a step's row and its columns [c0, c1)
};
struct WriterProgress {
  struct Part {
    std::int64_t c0, c1;
    int last;  // 1 + the last step index writing these columns of the row
  };
  std::vector<std::pair<std::int64_t, std::vector<Part>>> by_row;  // sorted by row
  int steps_for(std::int64_t lo, std::int64_t hi, std::int64_t clo, std::int64_t chi) const {
    int n = 0;
    auto it = std::lower_bound(by_row.begin(), by_row.end(), lo,
                               [](const auto& e, std::int64_t r) { return e.first < r; });
    for (; it != by_row.end() && it->first <= hi; ++it)
      for (const Part& p : it->second)
        if (p.c0 <= chi && clo < p.c1) n = std::max(n, p.last);
    return n;
  }
};

WriterProgress progress_of(const std::vector<Written>& steps) {
  std::map<std::int64_t, std::vector<WriterProgress::Part>> rows;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    auto& parts = rows[steps[i].row];
    const int last = static_cast<int>(i) + 1;
    auto it = std::find_if(parts.begin(), parts.end(),
                           [&](const WriterProgress::Part& p) { return p.c0 == steps[i].c0 && p.c1 == steps[i].c1; });
    if (it == parts.end()) parts.push_back({steps[i].c0, steps[i].c1, last});
    else it->last = last;
  }
  WriterProgress w;
  w.by_row.assign(rows.begin(), rows.end());
  return w;
}

struct Stream {
  int reader = 0, input = 0, writer = 0;
  int tag = 0;
  std::map<std::pair<int, int>, int> total;  // (p, q) -> tokens
  std::map<int, std::vector<std::vector<int>>> recvs;  // q -> per step the source cores
};

}  // namespace

std::pair<std::int64_t, std::int64_t> window_columns(std::int64_t w0, std::int64_t w1, int kw, int sw, int dw, int pl,
                                                     std::int64_t width) {
  const std::int64_t left = w0 * sw - pl, right = (w1 - 1) * sw - pl + std::int64_t{kw - 1} * dw;
  return {std::max<std::int64_t>(0, left), std::min(width - 1, right)};
}

SyncPlan plan_sync(const std::map<std::pair<int, int>, std::vector<SyncStep>>& steps, bool stream,
                   const std::vector<ReuseOrder>& reuse, bool image_releases,
                   const std::map<int, std::pair<std::int64_t, std::int64_t>>& rings, const std::set<int>& twins) {
  // Writing rows of every (layer, core).
  std::map<int, std::map<int, std::vector<Written>>> written;  // layer -> core -> its writing steps
  for (const auto& [key, list] : steps)
    for (const SyncStep& s : list)
      if (s.writes) written[key.first][key.second].push_back({s.row, s.c0, s.c1});
  std::map<std::pair<int, int>, WriterProgress> progress;
  for (const auto& [layer, cores] : written)
    for (const auto& [core, rows] : cores) progress[{layer, core}] = progress_of(rows);

  // Streams in program order of the reading layer, then input.
  std::vector<Stream> streams;
  std::map<std::pair<int, int>, std::size_t> stream_at;  // (reader, input)
  for (const auto& [key, list] : steps) {
    const int W = key.first, q = key.second;
    if (list.empty()) continue;
    for (std::size_t k = 0; k < list.front().needs.size(); ++k) {
      const int Z = list.front().needs[k].writer;
      const auto wit = written.find(Z);
      if (wit == written.end()) continue;
      auto [it, fresh] = stream_at.emplace(std::make_pair(W, static_cast<int>(k)), streams.size());
      if (fresh) streams.push_back(Stream{W, static_cast<int>(k), Z, 0, {}, {}});
      Stream& s = streams[it->second];
      std::map<int, int> have;
      auto& per_step = s.recvs[q];
      for (const SyncStep& st : list) {
        std::vector<int> srcs;
        for (const auto& [p, rows] : wit->second) {
          if (p == q) continue;  // its own rows: written earlier in its own program
          const int need = progress.at({Z, p}).steps_for(st.needs[k].lo, st.needs[k].hi, st.needs[k].clo, st.needs[k].chi);
          int& h = have[p];
          for (; h < need; ++h) srcs.push_back(p);
        }
        per_step.push_back(std::move(srcs));
      }
      for (const auto& [p, n] : have)
        if (n > 0) s.total[{p, q}] = n;
    }
  }
  std::sort(streams.begin(), streams.end(),
            [](const Stream& a, const Stream& b) { return std::tie(a.reader, a.input) < std::tie(b.reader, b.input); });

  // Tags.
  struct Use { int tag, writer, reader; };
  std::map<std::pair<int, int>, std::vector<Use>> used;
  SyncPlan plan;
  for (Stream& s : streams) {
    if (s.total.empty()) continue;
    for (int t = kFirstTag; t <= kLastTag && !s.tag; ++t) {
      bool ok = true;
      for (const auto& [pq, n] : s.total)
        for (const Use& u : used[pq])
          if (u.tag == t && !(u.writer < s.writer && u.reader < s.reader)) ok = false;
      if (ok) s.tag = t;
    }
    if (!s.tag)
      throw CompileError("emit: layer " + std::to_string(s.reader) + " reads layer " + std::to_string(s.writer) +
                         " while more than " + std::to_string(kLastTag) +
                         " other row streams between the same cores are open; no message tag is free");
    for (const auto& [pq, n] : s.total) {
      used[pq].push_back({s.tag, s.writer, s.reader});
      plan.tokens += n;
      plan.core_tokens[{s.writer, pq.first}] += n;
      plan.core_tokens[{s.reader, pq.second}] += n;
    }
  }

  // Releases: one per stream and core pair with tokens, back from reader q
  // to writer p. q sends them in (reader, writer) layer order, p takes them
  // in (writer, reader) order, so two may share a tag on a pair only when
  // both orders agree; never a tag a row stream uses from q to p.
  if (stream && image_releases) {
    struct Rel { int writer, reader, p, q, tag; };
    std::vector<Rel> rels;
    for (const Stream& s : streams)
      for (const auto& [pq, n] : s.total) rels.push_back({s.writer, s.reader, pq.first, pq.second, 0});
    std::map<std::pair<int, int>, std::vector<const Rel*>> on_pair;  // (q, p)
    for (Rel& r : rels) {
      const auto key = std::make_pair(r.q, r.p);
      std::vector<bool> taken(kLastTag + 1, false);
      for (const Use& u : used[key]) taken[static_cast<std::size_t>(u.tag)] = true;
      for (const Rel* o : on_pair[key]) {
        const bool same_order = o->reader == r.reader || o->writer == r.writer ||
                                (o->reader < r.reader) == (o->writer < r.writer);
        if (!same_order) taken[static_cast<std::size_t>(o->tag)] = true;
      }
      for (int t = kLastTag; t >= kFirstTag && !r.tag; --t)
        if (!taken[static_cast<std::size_t>(t)]) r.tag = t;
      if (!r.tag)
        throw CompileError("emit: core " + std::to_string(r.q) + " has no message tag left to release core " +
                           std::to_string(r.p) + " (layer " + std::to_string(r.writer) + " to " +
                           std::to_string(r.reader) + ")");
      on_pair[key].push_back(&r);
    }
    std::vector<const Rel*> order;
    for (const Rel& r : rels) order.push_back(&r);
    std::sort(order.begin(), order.end(),
              [](const Rel* a, const Rel* b) { return std::tie(a->reader, a->writer, a->p) < std::tie(b->reader, b->writer, b->p); });
    for (const Rel* r : order) plan.release_give[{r->reader, r->q}].push_back({r->p, r->tag});
    std::sort(order.begin(), order.end(),
              [](const Rel* a, const Rel* b) { return std::tie(a->writer, a->reader, a->q) < std::tie(b->writer, b->reader, b->q); });
    for (const Rel* r : order) plan.release_take[{r->writer, r->p}].push_back({r->q, r->tag});
    plan.releases = static_cast<std::int64_t>(rels.size());
  }

  // SRAM reuse: one release from each core q of the reader to each core p
  // of the writer (none to itself: it runs its layers in order), each on a
  // tag of its own on the pair, counted down from the last.
  {
    std::map<std::pair<int, int>, std::vector<int>> taken;  // (q, p)
    for (const ReuseOrder& r : reuse)
      for (int q : r.reader_cores)
        for (int p : r.writer_cores) {
          if (p == q) continue;
          const auto key = std::make_pair(q, p);
          int tag = 0;
          for (int t = kLastTag; t >= kFirstTag && !tag; --t) {
            bool ok = std::find(taken[key].begin(), taken[key].end(), t) == taken[key].end();
            for (const Use& u : used[key]) ok = ok && u.tag != t;
            if (ok) tag = t;
          }
          if (!tag)
            throw CompileError("emit: core " + std::to_string(q) + " has no message tag left to let core " +
                               std::to_string(p) + " reuse the SRAM of layer " + std::to_string(r.reader));
          taken[key].push_back(tag);
          plan.reuse_give[{r.reader, q}].push_back({p, tag});
          plan.reuse_take[{r.writer, p}].push_back({q, tag});
        }
  }

  // Row releases: back from each reader core to each writer core, on tags
  // of their own in that direction.
  std::vector<RowRelease> row_rels;
  if (stream && !image_releases) {
    std::map<std::pair<int, int>, std::set<int>> taken;
    for (const auto& [pq, uses] : used)
      for (const Use& u : uses) taken[pq].insert(u.tag);
    row_rels = plan_row_releases(steps, taken, rings, twins);
    for (const RowRelease& r : row_rels)
      for (const auto& [qp, n] : r.pair_tokens) {
        plan.releases += n;
        plan.core_tokens[{r.reader, qp.first}] += n;
        plan.core_tokens[{r.writer, qp.second}] += n;
      }
  }
  auto put = [](std::vector<std::int32_t>& table, const std::vector<int>& cores) {
    table.push_back(static_cast<std::int32_t>(cores.size()));
    table.insert(table.end(), cores.begin(), cores.end());
  };

  // Tables. Pre: per step of (reader, q), per stream with tokens for q,
  // then per row release q takes as a writer.
  for (const auto& [key, list] : steps) {
    const int W = key.first, q = key.second;
    std::vector<const Stream*> mine;
    for (const Stream& s : streams)
      if (s.reader == W && s.tag) {
        bool any = false;
        for (const auto& [pq, n] : s.total) any = any || pq.second == q;
        if (any) mine.push_back(&s);
      }
    std::vector<const std::vector<std::vector<int>>*> takes;
    for (const RowRelease& r : row_rels)
      if (r.writer == W && r.takes.count(q)) takes.push_back(&r.takes.at(q));
    if (mine.empty() && takes.empty()) continue;
    SyncTable& tab = plan.tables[key];
    for (const Stream* s : mine) tab.pre_tags.push_back(s->tag);
    for (const RowRelease& r : row_rels)
      if (r.writer == W && r.takes.count(q)) {
        tab.pre_tags.push_back(r.tag);
        tab.pre_cross.push_back(static_cast<char>(r.cross ? r.depth : 0));
      }
    for (std::size_t j = 0; j < list.size(); ++j) {
      for (const Stream* s : mine) put(tab.pre, s->recvs.at(q)[j]);
      for (const auto* t : takes) put(tab.pre, (*t)[j]);
    }
  }
  // Post: per writing step of (writer, p), per stream with tokens from p;
  // then, at every step, per row release p sends as a reader.
  for (const auto& [key, list] : steps) {
    const int Z = key.first, p = key.second;
    std::vector<const Stream*> mine;
    for (const Stream& s : streams)
      if (s.writer == Z && s.tag) {
        bool any = false;
        for (const auto& [pq, n] : s.total) any = any || pq.first == p;
        if (any) mine.push_back(&s);
      }
    std::vector<const std::vector<std::vector<int>>*> gives;
    for (const RowRelease& r : row_rels)
      if (r.reader == Z && r.gives.count(p)) gives.push_back(&r.gives.at(p));
    if (mine.empty() && gives.empty()) continue;
    SyncTable& tab = plan.tables[key];
    for (const Stream* s : mine) tab.post_tags.push_back(s->tag);
    for (const RowRelease& r : row_rels)
      if (r.reader == Z && r.gives.count(p)) {
        tab.post_tags.push_back(r.tag);
        tab.post_cross.push_back(static_cast<char>(r.cross ? r.depth : 0));
      }
    int i = 0;  // writing steps so far
    for (std::size_t j = 0; j < list.size(); ++j) {
      if (list[j].writes) {
        for (const Stream* s : mine) {
          std::vector<int> dsts;
          for (const auto& [pq, n] : s->total)
            if (pq.first == p && i < n) dsts.push_back(pq.second);
          put(tab.post, dsts);
        }
        ++i;
      }
      for (const auto* g : gives) put(tab.post, (*g)[j]);
    }
  }
  return plan;
}

namespace emit {

// Registers of the hand-over code (the layer emitters leave them alone):
// r16 count, r17 peer core, r18 token buffer, r19 pre-table pointer, r30
// token bytes, r31 post-table pointer.
void Ctx::sync_rows(int c, std::int64_t first_row, std::int64_t rows, std::int64_t hstep, std::int64_t w0,
                    std::int64_t w1, std::int64_t width) {
  // The loop's columns are the map's own when it walks the layer's output
  // width (share_loop's strips and blocks); a loop over whole rows (one
  // "pixel" a row) writes and reads every column.
  if (odd) return;  // the second copy of a twin image loop: the first's steps
  const bool columns = w0 >= 0 && width > 1 && width == out_width;
  auto& list = steps[{layer, c}];
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t h = first_row + i * hstep;
    SyncStep s;
    s.row = h;
    s.writes = writes;
    if (columns) {
      s.c0 = w0;
      s.c1 = w1;
    }
    for (const Input& in : inputs) {
      const auto [lo, hi] = in.rows(h);
      NeedRow need{in.writer, lo, hi};
      if (columns && in.cols) std::tie(need.clo, need.chi) = in.cols(w0, w1);
      else if (columns && in.width == width) std::tie(need.clo, need.chi) = std::make_pair(w0, w1 - 1);
      s.needs.push_back(need);
    }
    list.push_back(std::move(s));
  }
}

namespace {
const SyncTable* table_of(const Ctx& e, int c) {
  if (!e.plan) return nullptr;
  const auto it = e.plan->tables.find({e.layer, c});
  return it == e.plan->tables.end() ? nullptr : &it->second;
}
}  // namespace

namespace {

// A layer's tables on one core of more words than this (half of the
// scratchpad) go indirect: each distinct list once, run-length coded
// ([runs, then per run a peer core and its count of tokens]), and per entry
// the list's address. A core whose readers or writers are many copies in
// strips (every row of a map touches all of them) repeats the same list at
// every row, and a writer that hands over pixel by pixel repeats one peer
// thousands of times in a list: VGG-11's first pooling core would hold
// 40 KB of inline tables in its 64 KiB scratchpad, and one of its first
// block alone 57 KB.
constexpr std::size_t kInlineTableWords = 8192;

// The table's words for core c: inline ([count, cores...] per entry), or
// indirect (the distinct lists run-length coded, then one address per
// entry). Returns the address the table pointer starts at, and whether it
// is indirect.
// The run-length coded lists of an indirect table: the distinct lists
// ([runs, then per run a peer core and its count of tokens]) and, per
// entry, its list's word offset in them.
std::pair<std::vector<std::int32_t>, std::vector<std::int64_t>> coded_lists(const std::vector<std::int32_t>& table) {
  std::vector<std::int32_t> pool;
  std::map<std::vector<std::int32_t>, std::int64_t> at;  // coded list -> its word offset in the pool
  std::vector<std::int64_t> index;
  for (std::size_t i = 0; i < table.size();) {
    const std::size_t n = static_cast<std::size_t>(table[i]);
    // Consecutive tokens to or from one peer become one run, in order, so
    // the messages go in the same order as the inline table's.
    std::vector<std::int32_t> runs{0};
    for (std::size_t j = i + 1; j <= i + n; ++j) {
      if (runs.size() > 1 && runs[runs.size() - 2] == table[j]) {
        ++runs.back();
      } else {
        runs.push_back(table[j]);
        runs.push_back(1);
        ++runs[0];
      }
    }
    auto it = at.find(runs);
    if (it == at.end()) {
      it = at.emplace(runs, static_cast<std::int64_t>(pool.size())).first;
      pool.insert(pool.end(), runs.begin(), runs.end());
    }
    index.push_back(it->second);
    i += 1 + n;
  }
  return {std::move(pool), std::move(index)};
}

std::vector<std::int32_t> list_addresses(const std::vector<std::int64_t>& index, std::int64_t pool_at) {
  std::vector<std::int32_t> addrs;
  for (std::int64_t off : index) addrs.push_back(static_cast<std::int32_t>(pool_at + 4 * off));
  return addrs;
}

// The table's words for core c among its parameters: inline ([count,
// cores...] per entry), or indirect (the distinct lists run-length coded,
// then one address per entry). Returns the address the table pointer starts
// at, and whether it is indirect.
std::pair<std::int64_t, bool> place_table(Ctx& e, int c, const std::vector<std::int32_t>& table, bool indirect) {
  if (!indirect) return {e.words(c, table), false};
  const auto [pool, index] = coded_lists(table);
  const std::int64_t base = e.words(c, pool);
  return {e.words(c, list_addresses(index, base)), true};
}

// The same words laid out from scratch address `at` (block[0] there), for a
// layer's tables loaded from global memory; returns where the pointer starts.
std::pair<std::int64_t, bool> block_table(std::vector<std::int32_t>& block, std::int64_t at,
                                          const std::vector<std::int32_t>& table, bool indirect) {
  const std::int64_t start = at + 4 * static_cast<std::int64_t>(block.size());
  if (!indirect) {
    block.insert(block.end(), table.begin(), table.end());
    return {start, false};
  }
  const auto [pool, index] = coded_lists(table);
  block.insert(block.end(), pool.begin(), pool.end());
  const std::vector<std::int32_t> addrs = list_addresses(index, start);
  const std::int64_t pointer = at + 4 * static_cast<std::int64_t>(block.size());
  block.insert(block.end(), addrs.begin(), addrs.end());
  return {pointer, true};
}

}  // namespace

void Ctx::sync_begin(int c) {
  const SyncTable* t = table_of(*this, c);
  table_save_.erase(c);
  scratch_floor_[c] = 0;
  if (!t) return;
  std::pair<std::int64_t, std::int64_t> save{0, 0};
  const bool large = t->pre.size() + t->post.size() > kInlineTableWords;
  if (tables_in_memory.count(c)) {
    // The layer's tables at the bottom of its scratch: the words are laid
    // out for that address, kept in global memory, and one DMA brings them
    // in before the layer's first row.
    const std::int64_t at = 0;
    std::vector<std::int32_t> block;
    std::int64_t pre = 0, post = 0;
    bool pre_indirect = false, post_indirect = false;
    if (!t->pre.empty()) std::tie(pre, pre_indirect) = block_table(block, at, t->pre, large);
    if (!t->post.empty()) std::tie(post, post_indirect) = block_table(block, at, t->post, large);
    const std::int64_t bytes = 4 * static_cast<std::int64_t>(block.size());
    scratch_next_[c] = 0;
    scratch(c, bytes);
    scratch_floor_[c] = scratch_next_[c];
    // Both copies of a twin image loop load the same tables.
    const auto known = memory_tables_.find({layer, c});
    const std::int64_t from = known != memory_tables_.end() ? known->second : global_data_at;
    if (known == memory_tables_.end()) {
      global_data_at = (global_data_at + bytes + 63) / 64 * 64;
      global_data << ".data global, " << from << "    ; hand-over tables of layer " << layer << ", core " << c << "\n";
      word_lines(global_data, block);
      memory_tables_[{layer, c}] = from;
    }
    li(c, 10, at);
    li(c, 11, from);
    li(c, 12, bytes);
    ins(c, "dma.gl r10, r11, r12");
    ins(c, "wait " + std::to_string(isa::wait_bit(isa::Unit::Dma)));
    if (!t->pre.empty()) {
      li(c, 19, pre);
      if (pre_indirect) save.first = words(c, {0, 0});
    }
    if (!t->post.empty()) {
      li(c, 31, post);
      if (post_indirect) save.second = words(c, {0, 0});
    }
  } else {
    if (!t->pre.empty()) {
      const auto [at, indirect] = place_table(*this, c, t->pre, large);
      li(c, 19, at);
      if (indirect) save.first = words(c, {0, 0});
    }
    if (!t->post.empty()) {
      const auto [at, indirect] = place_table(*this, c, t->post, large);
      li(c, 31, at);
      if (indirect) save.second = words(c, {0, 0});
    }
  }
  table_save_[c] = save;
  li(c, 18, words(c, {0}));
  li(c, 30, 4);
}

namespace {
// One entry of a table. Inline: its count, then a send or recv per peer
// core. Indirect: the address of its run-length coded list; the table
// pointer is saved (word `save`) and walks the list, whose runs left are
// kept in the word after it while a run's tokens go, and is restored after.
// A row release's entry is passed over, its messages not sent or taken,
// while the current image is below `walk.from` (a writer's first images)
// or at or past `walk.until` (a reader's last ones).
struct Walk {
  int from = 0, until = std::numeric_limits<int>::max();
};
void table_loop(Ctx& e, int c, int table_reg, const std::string& op, int tag, std::int64_t save, Walk when = {}) {
  const std::string tr = "r" + std::to_string(table_reg);
  const std::string loop = e.label(c, "tok"), skip = e.label(c, "tokdone");
  std::string end;  // past the entry, the table pointer restored
  if (when.from > 0 || when.until < std::numeric_limits<int>::max()) {
    const std::string walk = e.label(c, "tokwalk");
    end = e.label(c, "tokend");
    e.li(c, 16, e.image_word(c));
    e.ins(c, "ld r16, r16, 0");
    if (when.from > 0) {
      e.li(c, 17, when.from);
      e.ins(c, "bge r16, r17, " + walk);
    } else {
      e.li(c, 17, when.until);
      e.ins(c, "blt r16, r17, " + walk);
    }
    if (!save) {  // past the count and its cores
      e.ins(c, "ld r16, " + tr + ", 0");
      e.ins(c, "shli r16, r16, 2");
      e.ins(c, "add " + tr + ", " + tr + ", r16");
    }
    e.ins(c, "addi " + tr + ", " + tr + ", 4");
    e.ins(c, "jmp " + end);
    e.put_label(c, walk);
  }
  if (!save) {
    e.ins(c, "ld r16, " + tr + ", 0");
    e.ins(c, "addi " + tr + ", " + tr + ", 4");
    e.ins(c, "beq r16, r0, " + skip);
    e.put_label(c, loop);
    e.ins(c, "ld r17, " + tr + ", 0");
    e.ins(c, "addi " + tr + ", " + tr + ", 4");
    e.ins(c, op + " r18, r30, r17, " + std::to_string(tag));
    e.ins(c, "dbnz r16, " + loop);
    e.put_label(c, skip);
    if (!end.empty()) e.put_label(c, end);
    return;
  }
  const std::string run = e.label(c, "tokrun"), runs = std::to_string(save + 4);
  e.ins(c, "ld r16, " + tr + ", 0");
  e.ins(c, "addi " + tr + ", " + tr + ", 4");
  e.ins(c, "st " + tr + ", r0, " + std::to_string(save));
  e.ins(c, "add " + tr + ", r16, r0");
  e.ins(c, "ld r16, " + tr + ", 0");
  e.ins(c, "addi " + tr + ", " + tr + ", 4");
  e.ins(c, "beq r16, r0, " + skip);
  e.put_label(c, run);
  e.ins(c, "st r16, r0, " + runs);
  e.ins(c, "ld r17, " + tr + ", 0");
  e.ins(c, "ld r16, " + tr + ", 4");
  e.ins(c, "addi " + tr + ", " + tr + ", 8");
  e.put_label(c, loop);
  e.ins(c, op + " r18, r30, r17, " + std::to_string(tag));
  e.ins(c, "dbnz r16, " + loop);
  e.ins(c, "ld r16, r0, " + runs);
  e.ins(c, "dbnz r16, " + run);
  e.put_label(c, skip);
  e.ins(c, "ld " + tr + ", r0, " + std::to_string(save));
  if (!end.empty()) e.put_label(c, end);
}
}  // namespace

void Ctx::sync_pre(int c) {
  const SyncTable* t = table_of(*this, c);
  if (!t) return;
  const std::int64_t save = table_save_.count(c) ? table_save_.at(c).first : 0;
  const std::size_t rows = t->pre_tags.size() - t->pre_cross.size();
  // The row releases: none to take in the first image (the first two with two buffers).
  for (std::size_t k = 0; k < t->pre_tags.size(); ++k) {
    Walk when;
    if (k >= rows) when.from = t->pre_cross[k - rows];
    table_loop(*this, c, 19, "recv", t->pre_tags[k], save, when);
  }
}

void Ctx::sync_post(int c) {
  const SyncTable* t = table_of(*this, c);
  if (!t) return;
  const std::size_t rows = t->post_tags.size() - t->post_cross.size();
  const bool hand = writes && rows > 0;
  if (!hand && t->post_cross.empty()) return;
  // The row's pixels must be in memory before a reader hears of them, and
  // the rows it read in the scratchpad before their writer may overwrite them.
  ins(c, "wait " + std::to_string(isa::wait_bit(isa::Unit::Dma)));
  const std::int64_t save = table_save_.count(c) ? table_save_.at(c).second : 0;
  for (std::size_t k = 0; k < t->post_tags.size(); ++k) {
    if (k < rows && !writes) continue;
    // The row releases: none to send after the last image (the last two with two buffers).
    Walk when;
    if (k >= rows && t->post_cross[k - rows]) when.until = batch - t->post_cross[k - rows];
    table_loop(*this, c, 31, "send", t->post_tags[k], save, when);
  }
}

std::int64_t Ctx::image_word(int c) {
  auto it = image_word_.find(c);
  if (it == image_word_.end()) it = image_word_.emplace(c, state_word(c)).first;
  return it->second;
}

namespace {
// r16 = the current image (0 .. batch - 1).
void load_image(Ctx& e, int c) {
  e.li(c, 16, e.image_word(c));
  e.ins(c, "ld r16, r16, 0");
}
void release_regs(Ctx& e, int c, std::map<int, std::int64_t>& buf) {
  auto it = buf.find(c);
  if (it == buf.end()) it = buf.emplace(c, e.state_word(c)).first;
  e.li(c, 18, it->second);
  e.li(c, 30, 4);
}
}  // namespace

void Ctx::release_take(int c) { releases(c, true); }
void Ctx::release_give(int c) { releases(c, false); }
void Ctx::reuse_take(int c) { reuses(c, true); }
void Ctx::reuse_give(int c) { reuses(c, false); }

void Ctx::reuses(int c, bool take) {
  if (!plan) return;
  const auto& table = take ? plan->reuse_take : plan->reuse_give;
  const auto it = table.find({layer, c});
  if (it == table.end()) return;
  release_regs(*this, c, release_buf_);
  for (const Release& r : it->second) {
    li(c, 17, r.peer);
    ins(c, std::string(take ? "recv" : "send") + " r18, r30, r17, " + std::to_string(r.tag));
  }
}

void Ctx::releases(int c, bool take) {
  if (!plan || batch <= 1) return;
  const auto& table = take ? plan->release_take : plan->release_give;
  const auto it = table.find({layer, c});
  if (it == table.end()) return;
  // A writer takes none before the first image, a reader gives none after the last.
  const std::string skip = label(c, take ? "first" : "last");
  load_image(*this, c);
  li(c, 17, take ? 0 : batch - 1);
  ins(c, "beq r16, r17, " + skip);
  release_regs(*this, c, release_buf_);
  for (const Release& r : it->second) {
    li(c, 17, r.peer);
    ins(c, std::string(take ? "recv" : "send") + " r18, r30, r17, " + std::to_string(r.tag));
  }
  put_label(c, skip);
}

void Ctx::image_loop_begin(int c) {
  if (batch <= 1) return;
  li(c, 16, image_word(c));
  ins(c, "st r0, r16, 0");
  const std::string top = label(c, "image");
  image_label_[c] = top;
  put_label(c, top);
}

void Ctx::image_loop_mid(int c) {
  // After the even image: on to the odd one, unless that was the last.
  li(c, 16, image_word(c));
  ins(c, "ld r17, r16, 0");
  ins(c, "addi r17, r17, 1");
  ins(c, "st r17, r16, 0");
  li(c, 16, batch);
  const std::string done = label(c, "images");
  image_done_[c] = done;
  ins(c, "beq r17, r16, " + done);
}

void Ctx::image_loop_end(int c) {
  if (batch <= 1) return;
  li(c, 16, image_word(c));
  ins(c, "ld r17, r16, 0");
  ins(c, "addi r17, r17, 1");
  ins(c, "st r17, r16, 0");
  li(c, 16, batch);
  ins(c, "bne r17, r16, " + image_label_.at(c));
  if (const auto it = image_done_.find(c); it != image_done_.end()) put_label(c, it->second);
}

}  // namespace emit
}  // namespace vp::cc
