// A generated trace in our own format, with known intervals, written through
// TraceWriter in issue order (not start order) as the simulator would.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "vp/trace/writer.hpp"

namespace vp::trace::test {

struct SynthRecord {
  std::string mnemonic;
  int cluster, cu;
  Unit unit;
  int layer;
  std::int64_t start, end, inst_idx;
};

// Unit key as vp-trace scopes it: cluster, cu, unit name.
using UnitKey = std::tuple<int, int, std::string>;

inline std::vector<SynthRecord> make_synthetic(int clusters, int cus, int per_unit, unsigned seed) {
  std::mt19937 rng(seed);
  const Unit units[] = {Unit::Scalar, Unit::Xbar, Unit::Vector, Unit::Dma, Unit::Noc};
  const char* mnem[] = {"addi", "mvm", "vadd", "dma_ld", "send"};
  std::vector<std::vector<SynthRecord>> streams;
  for (int c = -1; c < clusters; ++c) {
    for (int u = 0; u < (c < 0 ? 1 : cus); ++u) {
      for (int k = 0; k < (c < 0 ? 1 : 5); ++k) {
        std::vector<SynthRecord> s;
        std::int64_t t = rng() % 50;
        for (int n = 0; n < per_unit; ++n) {
          // Gaps of 0 (back to back), short and long; some zero-length records.
          const int g = static_cast<int>(rng() % 4);
          t += g == 0 ? 0 : g == 1 ? 1 : static_cast<std::int64_t>(rng() % 200);
          const std::int64_t d = rng() % 10 == 0 ? 0 : 1 + static_cast<std::int64_t>(rng() % 100);
          SynthRecord r{c < 0 ? "fw_call" : mnem[k], c < 0 ? -1 : c, c < 0 ? -1 : u, c < 0 ? Unit::Cp : units[k],
                        n * 8 / per_unit, t, t + d, 0};
          if (r.mnemonic == "mvm" && n % 3 == 0) r.mnemonic = "mvm.acc";
          s.push_back(r);
          t += d;
        }
        streams.push_back(std::move(s));
      }
    }
  }
  // Interleave the streams in chunks: issue order is not start order.
  std::vector<SynthRecord> out;
  std::vector<std::size_t> pos(streams.size(), 0);
  bool more = true;
  while (more) {
    more = false;
    for (std::size_t s = 0; s < streams.size(); ++s) {
      const std::size_t take = 1 + rng() % 7;
      for (std::size_t k = 0; k < take && pos[s] < streams[s].size(); ++k) out.push_back(streams[s][pos[s]++]);
      more = more || pos[s] < streams[s].size();
    }
  }
  for (std::size_t k = 0; k < out.size(); ++k) out[k].inst_idx = static_cast<std::int64_t>(k + 1);
  return out;
}

inline void write_synthetic(const std::string& path, const std::vector<SynthRecord>& recs) {
  TraceWriter w(path);
  const std::string names[] = {"conv1", "conv2", "pool", "fc", "relu", "add", "conv3", "softmax"};
  for (const SynthRecord& s : recs) {
    const Param params[] = {Param::integer("rd", s.inst_idx % 32), Param::string("dt", "i8")};
    WriteRecord r;
    r.mnemonic = s.mnemonic;
    r.cluster = s.cluster;
    r.cu = s.cu;
    r.unit = s.unit;
    r.layer_id = s.layer;
    r.layer_name = names[s.layer % 8];
    r.pc = s.inst_idx * 8;
    r.inst_idx = s.inst_idx;
    r.start = s.start;
    r.end = s.end;
    r.params = params;
    w.write(r);
  }
  w.close();
}

// Union of positive-length intervals, touching ones merged: what a busy
// wire shows.
inline std::vector<std::pair<std::int64_t, std::int64_t>> merged(std::vector<std::pair<std::int64_t, std::int64_t>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& [s, e] : v) {
    if (e <= s) continue;
    if (!out.empty() && s <= out.back().second) out.back().second = std::max(out.back().second, e);
    else out.emplace_back(s, e);
  }
  return out;
}

}  // namespace vp::trace::test
