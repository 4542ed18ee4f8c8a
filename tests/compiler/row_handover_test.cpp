// The row hand-over tables (plan_sync): which tokens each core sends and
// waits for, counted by hand on small schedules.
#include <gtest/gtest.h>

#include <algorithm>

#include "vp/cc/row_handover.h"

namespace vp::cc {
namespace {

using Steps = std::map<std::pair<int, int>, std::vector<SyncStep>>;

// `rows` steps of core c in layer `layer`, reading rows [h*s - p, h*s - p + k - 1]
// of the tensor layer `writer` writes (none when writer is 0).
void add(Steps& s, int layer, int c, std::int64_t h0, std::int64_t rows, int writer = 0, int k = 1, int p = 0,
         bool writes = true) {
  for (std::int64_t h = h0; h < h0 + rows; ++h) {
    SyncStep st;
    st.row = h;
    st.writes = writes;
    if (writer) st.needs.push_back({writer, std::max<std::int64_t>(0, h - p), h - p + k - 1});
    s[{layer, c}].push_back(st);
  }
}

// Reads a table stream: per step and stream, the count then the cores.
std::vector<std::vector<int>> entries(const std::vector<std::int32_t>& t, std::size_t streams) {
  std::vector<std::vector<int>> out;
  for (std::size_t i = 0; i < t.size();) {
    for (std::size_t k = 0; k < streams; ++k) {
      const int n = t[i++];
      out.emplace_back(t.begin() + static_cast<std::ptrdiff_t>(i), t.begin() + static_cast<std::ptrdiff_t>(i + n));
      i += static_cast<std::size_t>(n);
    }
  }
  return out;
}

TEST(RowHandover, ThreeByThreeReaderWaitsForTheRowsItsWindowCovers) {
  // Layer 1 writes rows 0-3 on core 10 and rows 4-7 on core 11; layer 2
  // (3x3, pad 1) computes rows 0-7 on core 20.
  Steps s;
  add(s, 1, 10, 0, 4);
  add(s, 1, 11, 4, 4);
  add(s, 2, 20, 0, 8, 1, 3, 1);
  const SyncPlan plan = plan_sync(s);
  const SyncTable& r = plan.tables.at({2, 20});
  ASSERT_EQ(r.pre_tags.size(), 1u);
  const auto pre = entries(r.pre, 1);
  ASSERT_EQ(pre.size(), 8u);
  // Row 0 reads rows 0-1, row 1 rows 0-2, ..., row 3 rows 2-4 (core 11's first), row 7 rows 6-7.
  EXPECT_EQ(pre[0], (std::vector<int>{10, 10}));
  EXPECT_EQ(pre[1], (std::vector<int>{10}));
  EXPECT_EQ(pre[2], (std::vector<int>{10}));
  EXPECT_EQ(pre[3], (std::vector<int>{11}));
  EXPECT_EQ(pre[4], (std::vector<int>{11}));
  EXPECT_EQ(pre[6], (std::vector<int>{11}));
  EXPECT_TRUE(pre[7].empty());
  // Each writer sends one token per step to core 20, all of them used.
  const auto post10 = entries(plan.tables.at({1, 10}).post, 1), post11 = entries(plan.tables.at({1, 11}).post, 1);
  ASSERT_EQ(post10.size(), 4u);
  for (const auto& d : post10) EXPECT_EQ(d, (std::vector<int>{20}));
  for (const auto& d : post11) EXPECT_EQ(d, (std::vector<int>{20}));
  EXPECT_EQ(plan.tokens, 8);
  EXPECT_EQ(plan.tables.at({1, 10}).post_tags, r.pre_tags);
}

TEST(RowHandover, AReaderTakesOnlyTheWritersOfItsRowsAndNothingIsLeftOver) {
  // Two readers of the bottom rows only: core 10 (rows 0-3) never sends to
  // core 21, which reads rows 5-7.
  Steps s;
  add(s, 1, 10, 0, 4);
  add(s, 1, 11, 4, 4);
  add(s, 2, 20, 0, 2, 1);  // 1x1: rows 0-1
  add(s, 2, 21, 5, 3, 1);  // rows 5-7
  const SyncPlan plan = plan_sync(s);
  const auto pre21 = entries(plan.tables.at({2, 21}).pre, 1);
  // Core 11's steps 0..1 (rows 4 and 5) are done before row 5 is.
  EXPECT_EQ(pre21[0], (std::vector<int>{11, 11}));
  EXPECT_EQ(pre21[1], (std::vector<int>{11}));
  EXPECT_EQ(pre21[2], (std::vector<int>{11}));
  const auto post10 = entries(plan.tables.at({1, 10}).post, 1);
  EXPECT_EQ(post10[0], (std::vector<int>{20}));
  EXPECT_EQ(post10[1], (std::vector<int>{20}));
  EXPECT_TRUE(post10[2].empty());
  EXPECT_TRUE(post10[3].empty());
  // Sent equals received.
  std::int64_t sent = 0, received = 0;
  for (const auto& [key, t] : plan.tables) {
    for (const auto& e : entries(t.post, t.post_tags.size())) sent += static_cast<std::int64_t>(e.size());
    for (const auto& e : entries(t.pre, t.pre_tags.size())) received += static_cast<std::int64_t>(e.size());
  }
  EXPECT_EQ(sent, received);
  EXPECT_EQ(sent, plan.tokens);
}

// What each core sends and takes, for the report's cost of the hand-over:
// per (layer, core) the entries of its own tables, sent plus taken.
TEST(RowHandover, EachCoresMessagesAreWhatItsTablesSendAndTake) {
  Steps s;
  add(s, 1, 10, 0, 4);
  add(s, 1, 11, 4, 4);
  add(s, 2, 20, 0, 8, 1, 3, 1);  // 3x3 over all eight rows
  add(s, 2, 21, 5, 3, 1);        // 1x1 over rows 5-7
  add(s, 3, 30, 0, 8, 2, 1, 0);  // 1x1 over layer 2's rows, written by core 20 (0-7) and 21 (5-7)
  const SyncPlan plan = plan_sync(s);
  std::int64_t total = 0;
  for (const auto& [key, t] : plan.tables) {
    std::int64_t n = 0;
    for (const auto& e : entries(t.post, t.post_tags.size())) n += static_cast<std::int64_t>(e.size());
    for (const auto& e : entries(t.pre, t.pre_tags.size())) n += static_cast<std::int64_t>(e.size());
    EXPECT_EQ(plan.core_tokens.at(key), n) << "layer " << key.first << ", core " << key.second;
    total += n;
  }
  EXPECT_EQ(plan.core_tokens.size(), plan.tables.size());
  EXPECT_EQ(total, 2 * plan.tokens);  // each message sent once and taken once
  // Core 10 sends a token per step to core 20 only (core 21 reads rows 5-7).
  EXPECT_EQ(plan.core_tokens.at({1, 10}), 4);
}

// Strips of columns: a reader takes tokens only from the writers whose
// columns its windows cover, and a writer sends only to those readers.
TEST(RowHandover, ColumnStripsHandOverOnlyWhereTheyMeet) {
  Steps s;
  auto strip = [&](int layer, int c, std::int64_t c0, std::int64_t c1, int writer, std::int64_t clo,
                   std::int64_t chi) {
    for (std::int64_t h = 0; h < 4; ++h) {
      SyncStep st;
      st.row = h;
      st.c0 = c0;
      st.c1 = c1;
      if (writer) st.needs.push_back({writer, h, h, clo, chi});
      s[{layer, c}].push_back(st);
    }
  };
  strip(1, 10, 0, 4, 0, 0, 0);
  strip(1, 11, 4, 8, 0, 0, 0);
  strip(2, 20, 0, 4, 1, 0, 3);  // its own columns
  strip(2, 21, 4, 8, 1, 3, 7);  // a window reaching one column left, into core 10's strip
  const SyncPlan plan = plan_sync(s);
  const auto pre20 = entries(plan.tables.at({2, 20}).pre, 1), pre21 = entries(plan.tables.at({2, 21}).pre, 1);
  ASSERT_EQ(pre20.size(), 4u);
  for (const auto& from : pre20) EXPECT_EQ(from, (std::vector<int>{10}));
  for (const auto& from : pre21) EXPECT_EQ(from, (std::vector<int>{10, 11}));
  const auto post10 = entries(plan.tables.at({1, 10}).post, 1), post11 = entries(plan.tables.at({1, 11}).post, 1);
  for (const auto& to : post10) EXPECT_EQ(to, (std::vector<int>{20, 21}));
  for (const auto& to : post11) EXPECT_EQ(to, (std::vector<int>{21}));
  EXPECT_EQ(plan.tokens, 12);  // 16 without the columns
}

// The columns a strip's windows read, against every tap of every window
// of the strip: strides, dilations, pads, strips at both edges.
TEST(RowHandover, WindowColumnsCoverEveryTapOfTheStrip) {
  for (int kw : {1, 2, 3, 5, 7})
    for (int sw : {1, 2, 3})
      for (int dw : {1, 2})
        for (int pl : {0, 1, 3}) {
          const std::int64_t W = 17, OW = (W + 2 * pl - (std::int64_t{kw - 1} * dw + 1)) / sw + 1;
          for (std::int64_t w0 = 0; w0 < OW; ++w0)
            for (std::int64_t w1 = w0 + 1; w1 <= OW; ++w1) {
              std::int64_t lo = W, hi = -1;
              for (std::int64_t x = w0; x < w1; ++x)
                for (int k = 0; k < kw; ++k) {
                  const std::int64_t col = x * sw - pl + std::int64_t{k} * dw;
                  if (col < 0 || col >= W) continue;
                  lo = std::min(lo, col);
                  hi = std::max(hi, col);
                }
              if (hi < 0) continue;  // only padding
              const auto [clo, chi] = window_columns(w0, w1, kw, sw, dw, pl, W);
              SCOPED_TRACE(::testing::Message() << "kw " << kw << " sw " << sw << " dw " << dw << " pl " << pl << " ["
                                                << w0 << ", " << w1 << ")");
              // Every tap covered (a tap missed would let the strip read a
              // column before its writer handed it over), within the map,
              // and exact where the outermost taps are in it.
              EXPECT_LE(clo, lo);
              EXPECT_GE(chi, hi);
              EXPECT_GE(clo, 0);
              EXPECT_LE(chi, W - 1);
              if (w0 * sw - pl >= 0) {
                EXPECT_EQ(clo, lo);
              }
              if ((w1 - 1) * sw - pl + std::int64_t{kw - 1} * dw < W) {
                EXPECT_EQ(chi, hi);
              }
            }
        }
}

TEST(RowHandover, OwnRowsNeedNoToken) {
  Steps s;
  add(s, 1, 10, 0, 4);
  add(s, 2, 10, 0, 4, 1, 3, 1);
  EXPECT_TRUE(plan_sync(s).tables.empty());
}

TEST(RowHandover, TwoReadersOfOneTensorOnTheSameCoresGetTheirOwnTags) {
  // Core 11 reads layer 1 twice (layers 2 and 3, as a residual does): the
  // two token streams from core 10 interleave, so their tags differ.
  Steps s;
  add(s, 1, 10, 0, 2);
  add(s, 2, 11, 0, 2, 1);
  add(s, 3, 11, 0, 2, 1);
  const SyncPlan plan = plan_sync(s);
  ASSERT_EQ(plan.tables.at({1, 10}).post_tags.size(), 2u);
  EXPECT_NE(plan.tables.at({2, 11}).pre_tags, plan.tables.at({3, 11}).pre_tags);
  // Streams that follow each other on both sides may share a tag.
  Steps t;
  add(t, 1, 10, 0, 2);
  add(t, 2, 11, 0, 2, 1);
  add(t, 3, 10, 0, 2);
  add(t, 4, 11, 0, 2, 3);
  const SyncPlan q = plan_sync(t);
  EXPECT_EQ(q.tables.at({2, 11}).pre_tags, q.tables.at({4, 11}).pre_tags);
}

TEST(RowHandover, AConcatWritingRowsTwiceIsDoneWithARowAfterItsLastPass) {
  // Core 10 writes rows 0-1 once per input (steps 0,1 then 2,3): row 0 is
  // complete after step 2.
  Steps s;
  add(s, 1, 10, 0, 2);
  add(s, 1, 10, 0, 2);
  add(s, 2, 11, 0, 2, 1);
  const auto pre = entries(plan_sync(s).tables.at({2, 11}).pre, 1);
  EXPECT_EQ(pre[0].size(), 3u);
  EXPECT_EQ(pre[1].size(), 1u);
}

TEST(RowHandover, HelpersThatDoNotWriteSendNothing) {
  Steps s;
  add(s, 1, 10, 0, 2, 0, 1, 0, false);  // a partial-sum helper
  add(s, 1, 12, 0, 2);                  // the owner
  add(s, 2, 11, 0, 2, 1);
  const SyncPlan plan = plan_sync(s);
  EXPECT_EQ(plan.tables.count({1, 10}), 0u);
  EXPECT_EQ(entries(plan.tables.at({2, 11}).pre, 1)[0], (std::vector<int>{12}));
}

// A stream of images (plan_sync(steps, true)): a writer takes, before each
// row it writes, the release tokens of every reader step that read that row
// of the last image; readers send them after those steps only.
TEST(RowHandover, AStreamWriterOverwritesARowOnlyOnceItsReadersHaveReadIt) {
  // Layer 1 writes rows 0-3 on core 10 and rows 4-7 on core 11; layer 2
  // (3x3, pad 1) computes rows 0-7 on core 20: its step o reads rows o-1..o+1.
  Steps s;
  add(s, 1, 10, 0, 4);
  add(s, 1, 11, 4, 4);
  add(s, 2, 20, 0, 8, 1, 3, 1);
  const SyncPlan plan = plan_sync(s, true);
  const SyncTable& w10 = plan.tables.at({1, 10});
  ASSERT_EQ(w10.pre_tags.size(), 1u);
  EXPECT_EQ(w10.pre_cross, (std::vector<char>{1}));
  // Row t of core 10 was read last by reader step t + 1: one more token
  // before each of its rows.
  for (const auto& e : entries(w10.pre, 1)) EXPECT_EQ(e, (std::vector<int>{20}));
  // Core 11's rows 4-6 likewise; row 7 was read last by step 7, the token
  // its row 6 already waited for.
  const auto w11 = entries(plan.tables.at({1, 11}).pre, 1);
  ASSERT_EQ(w11.size(), 4u);
  EXPECT_EQ(w11[0], (std::vector<int>{20}));
  EXPECT_EQ(w11[2], (std::vector<int>{20}));
  EXPECT_TRUE(w11[3].empty());
  // The reader sends after steps 1-4 to core 10 and after 5-7 to core 11.
  const SyncTable& r = plan.tables.at({2, 20});
  EXPECT_EQ(r.post_cross, (std::vector<char>{1}));
  const auto gives = entries(r.post, 1);
  ASSERT_EQ(gives.size(), 8u);
  EXPECT_TRUE(gives[0].empty());
  for (int k = 1; k <= 4; ++k) EXPECT_EQ(gives[static_cast<std::size_t>(k)], (std::vector<int>{10}));
  for (int k = 5; k <= 7; ++k) EXPECT_EQ(gives[static_cast<std::size_t>(k)], (std::vector<int>{11}));
  EXPECT_EQ(plan.releases, 7);
  // Its own tag, in the other direction than the rows' tokens.
  EXPECT_EQ(r.post_tags, w10.pre_tags);
  EXPECT_NE(r.post_tags, r.pre_tags);
  // One image, or releases per image: no row releases.
  EXPECT_TRUE(plan_sync(s).tables.at({1, 10}).pre_cross.empty());
  const SyncPlan images = plan_sync(s, true, {}, true);
  EXPECT_EQ(images.tables.count({1, 10}), 1u);
  EXPECT_TRUE(images.tables.at({1, 10}).pre_cross.empty());
  EXPECT_EQ(images.release_take.at({1, 10}).size(), 1u);
}

// A ring of 4 rows of an 8-row map (Buffer::ring_rows): row h of an image
// goes where row h - 4 was, so rows 4-7 wait for this image's reads of rows
// 0-3 (never skipped), and rows 0-3 for the last image's reads of rows 4-7
// (none in the first image).
TEST(RowHandover, ARingWaitsForTheReadsOfTheRowItOverwrites) {
  Steps s;
  add(s, 1, 10, 0, 8);
  add(s, 2, 20, 0, 8, 1);  // 1x1: step o reads row o
  const SyncPlan plan = plan_sync(s, true, {}, false, {{1, {4, 8}}});
  const SyncTable& w = plan.tables.at({1, 10});
  ASSERT_EQ(w.pre_tags.size(), 2u);
  EXPECT_EQ(w.pre_cross, (std::vector<char>{1, 0}));
  EXPECT_NE(w.pre_tags[0], w.pre_tags[1]);
  const auto takes = entries(w.pre, 2);  // per step: the last image's stream, this image's
  ASSERT_EQ(takes.size(), 16u);
  for (std::size_t h = 0; h < 8; ++h) {
    EXPECT_EQ(takes[2 * h], h < 4 ? std::vector<int>{20} : std::vector<int>{}) << h;
    EXPECT_EQ(takes[2 * h + 1], h < 4 ? std::vector<int>{} : std::vector<int>{20}) << h;
  }
  const SyncTable& r = plan.tables.at({2, 20});
  EXPECT_EQ(r.post_cross, (std::vector<char>{1, 0}));
  EXPECT_EQ(r.post_tags, w.pre_tags);
  const auto gives = entries(r.post, 2);
  for (std::size_t o = 0; o < 8; ++o) {
    EXPECT_EQ(gives[2 * o], o >= 4 ? std::vector<int>{10} : std::vector<int>{}) << o;
    EXPECT_EQ(gives[2 * o + 1], o < 4 ? std::vector<int>{10} : std::vector<int>{}) << o;
  }
  EXPECT_EQ(plan.releases, 8);
}

// By brute force over strips of columns, copies dealt rows in turn and a
// partial-sum helper: before each writer step every reader step that reads
// what it writes has sent the token the writer waits for, and each pair of
// cores sends exactly the tokens the other takes.
TEST(RowHandover, StreamReleasesCoverEveryReadAndBalance) {
  Steps s;
  auto strip = [&](int layer, int c, std::int64_t first, std::int64_t rows, std::int64_t step, std::int64_t c0,
                   std::int64_t c1, int writer, bool writes) {
    for (std::int64_t h = first; h < rows; h += step) {
      SyncStep st;
      st.row = h;
      st.c0 = c0;
      st.c1 = c1;
      st.writes = writes;
      if (writer) st.needs.push_back({writer, std::max<std::int64_t>(0, h - 1), std::min<std::int64_t>(11, h + 1),
                                      std::max<std::int64_t>(0, c0 - 1), std::min<std::int64_t>(11, c1)});
      s[{layer, c}].push_back(st);
    }
  };
  // Layer 1: 12x12 in two strips of columns, rows dealt to two copies each.
  strip(1, 10, 0, 12, 2, 0, 6, 0, true);
  strip(1, 11, 1, 12, 2, 0, 6, 0, true);
  strip(1, 12, 0, 12, 2, 6, 12, 0, true);
  strip(1, 13, 1, 12, 2, 6, 12, 0, true);
  // Layer 2 (3x3) in three strips, one core each, and a helper of the first.
  strip(2, 20, 0, 12, 1, 0, 4, 1, true);
  strip(2, 21, 0, 12, 1, 4, 8, 1, true);
  strip(2, 22, 0, 12, 1, 8, 12, 1, true);
  strip(2, 23, 0, 12, 1, 0, 4, 1, false);
  const SyncPlan plan = plan_sync(s, true);
  // Per reader core, the steps after which it sends to each writer core.
  std::map<std::pair<int, int>, std::vector<std::size_t>> sent;  // (q, p) -> step of each token
  for (int q : {20, 21, 22, 23}) {
    const SyncTable& t = plan.tables.at({2, q});
    ASSERT_EQ(t.post_cross, (std::vector<char>{1}));
    const auto gives = entries(t.post, 1);
    ASSERT_EQ(gives.size(), s.at({2, q}).size());
    for (std::size_t j = 0; j < gives.size(); ++j)
      for (int p : gives[j]) sent[{q, p}].push_back(j);
  }
  for (int p : {10, 11, 12, 13}) {
    const SyncTable& t = plan.tables.at({1, p});
    ASSERT_EQ(t.pre_cross, (std::vector<char>{1}));
    const auto takes = entries(t.pre, 1);
    const auto& ws = s.at({1, p});
    ASSERT_EQ(takes.size(), ws.size());
    std::map<int, std::size_t> have;
    for (std::size_t k = 0; k < ws.size(); ++k) {
      for (int q : takes[k]) ++have[q];
      for (int q : {20, 21, 22, 23}) {
        const auto& rs = s.at({2, q});
        for (std::size_t j = 0; j < rs.size(); ++j) {
          const NeedRow& n = rs[j].needs[0];
          const bool reads = n.lo <= ws[k].row && ws[k].row <= n.hi && ws[k].c0 <= n.chi && n.clo < ws[k].c1;
          if (!reads) continue;
          ASSERT_GT(have[q], 0u) << "writer " << p << " step " << k << " reader " << q << " step " << j;
          EXPECT_GE(sent.at({q, p})[have[q] - 1], j) << "writer " << p << " step " << k << " reader " << q;
        }
      }
    }
    for (int q : {20, 21, 22, 23}) {
      const std::size_t n = sent.count({q, p}) ? sent.at({q, p}).size() : 0;
      EXPECT_EQ(have[q], n) << "pair " << q << " -> " << p;
    }
  }
}

}  // namespace
}  // namespace vp::cc
