// Run statistics: per layer, per unit, per mnemonic, the longest single
// instructions and the critical path through the layers.
//
// Critical path. Traces carry no layer-to-layer dependencies, so the path is
// inferred from time and program order (layers first appear in dependency
// order, as the compiler emits them): start at the layer that finishes last;
// its predecessor is the earlier-appearing layer that finishes last, i.e. the
// one whose completion the current layer could have been waiting for; repeat.
// Each layer on the path is credited with its exposed cycles,
// end - max(start, predecessor's end): the part of the run's length that only
// it accounts for. Gaps (predecessor finished before the layer started) are
// reported separately; exposed cycles + gaps add up to the time from the run's
// start to the last layer's end (the run length when a layer ends the run). Records outside any layer (slyr -1: firmware,
// waits) form the '-' row of the table but never a step of the path.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "vp/trace/output_file.hpp"
#include "vp/trace/sink.hpp"

namespace vp::trace {

struct LayerStats {
  std::string name;
  std::int64_t id = -1;
  std::uint32_t order = 0;       // catalog index (first appearance), picks the colour
  std::int64_t start = 0, end = 0;
  std::int64_t cycles = 0;       // end - start
  double share = 0.0;            // cycles / run span
  std::int64_t busy_cycles = 0;  // union of its instructions' intervals
  std::uint64_t count = 0;
  bool critical = false;
  bool unassigned = false;       // the bucket of records outside any layer ('-')
};

struct UnitStats {
  std::string name;              // track label
  std::string unit;
  std::int64_t cluster = -1, cu = -1;
  std::uint64_t count = 0;
  std::int64_t inst_cycles = 0;  // sum of instruction durations (overlaps counted twice)
  std::int64_t busy_cycles = 0;  // union: cycles with at least one in flight
  double busy_fraction = 0.0;    // busy_cycles / run span
};

struct MnemonicStats {
  std::string name;
  std::uint64_t count = 0;
  std::int64_t total_cycles = 0;
  std::int64_t max_cycles = 0;
  double share = 0.0;  // of all instruction cycles
};

struct LongInstruction {
  std::int64_t inst_idx = 0;
  std::uint64_t line = 0;
  std::string mnemonic, layer, unit;
  std::int64_t start = 0, end = 0;
};

struct CriticalStep {
  std::string layer;
  std::int64_t start = 0, end = 0;
  std::int64_t exposed = 0;  // cycles this layer alone adds to the run
  std::int64_t gap = 0;      // idle cycles between the predecessor's end and this start
};

struct StatsReport {
  double clock_mhz = 1000.0;
  std::int64_t t_min = 0, t_max = 0;
  std::uint64_t records = 0;
  std::vector<LayerStats> layers;        // in order of first appearance
  std::vector<UnitStats> units;          // in chip order
  std::vector<MnemonicStats> mnemonics;  // by total cycles, descending
  std::vector<LongInstruction> longest;  // by duration, descending
  std::vector<CriticalStep> critical_path;  // from the run's start to its end

  void print_table(std::ostream& os, std::size_t top) const;
  // Both fill `out`; the caller commits it.
  void write_csv(OutputFile& out) const;
  void write_json(OutputFile& out, std::size_t top) const;
};

class StatsCollector : public IntervalSink {
 public:
  explicit StatsCollector(std::size_t keep_longest = 10) : keep_longest_(keep_longest) {}
  void begin(const RunInfo& run) override;
  void add(const Interval& iv, std::string_view payload) override;
  void finish() override;
  const StatsReport& report() const { return report_; }

 private:
  struct Cover {
    std::int64_t until = 0;
    std::int64_t busy = 0;
    bool any = false;
    void add(std::int64_t s, std::int64_t e);
  };
  struct Acc {
    std::uint64_t count = 0;
    std::int64_t cycles = 0, max = 0, start = 0, end = 0;
  };
  struct Long {
    std::int64_t cycles;
    Interval iv;
    bool operator>(const Long& o) const { return cycles != o.cycles ? cycles > o.cycles : iv.line < o.iv.line; }
  };

  std::size_t keep_longest_;
  RunInfo run_;
  std::vector<Cover> track_cover_, layer_cover_;
  std::vector<Acc> track_acc_, layer_acc_, opcode_acc_;
  std::vector<Long> longest_;  // min-heap on duration, size <= keep_longest_
  StatsReport report_;
};

}  // namespace vp::trace
