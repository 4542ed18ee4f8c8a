// Value Change Dump for GTKWave, from start-ordered intervals.
//
// Per unit (scope chip.clusterC.cuU.<unit>, chip.cp.<unit>, or chip.core0.<CLASS>
// for ZeBu traces):
//   busy    1 bit   1 while at least one instruction is in flight
//   active  integer number of instructions in flight (ZeBu queues overlap)
//   opcode  vector  code of the most recently started instruction still in
//                   flight, z when idle; codes listed in a $comment block
//   layer   vector  'slyr' of that instruction, z when idle
//   op      string  that instruction's mnemonic, '-' when idle (GTKWave's
//                   string extension; left out with names = false for tools
//                   that accept only IEEE 1364 types)
// and chip.layers.<name>: 1 bit per layer, 1 while any of its instructions runs.
// Changes at one time stamp are coalesced: an instruction that ends exactly
// where the next starts leaves busy at 1, and a zero-length instruction on an
// idle unit leaves no trace in the waves (it still counts in the statistics).
#pragma once

#include <cstdint>
#include <queue>
#include <string>
#include <vector>

#include "vp/trace/output_file.hpp"
#include "vp/trace/sink.hpp"

namespace vp::trace {

struct VcdTimescale {
  std::string unit;          // "1 ns", "100 ps", ...
  std::int64_t per_cycle;    // VCD time units per clock cycle
  bool exact;                // false when the period had to be rounded to 1 fs
};
VcdTimescale vcd_timescale(double clock_mhz);

// VCD identifier for signal number n: base-94 over the printable characters.
std::string vcd_identifier(std::uint32_t n);

class VcdWriter : public IntervalSink {
 public:
  explicit VcdWriter(const std::string& path, bool names = true) : out_(path), names_(names) {}
  void begin(const RunInfo& run) override;
  void add(const Interval& iv, std::string_view payload) override;
  void finish() override;
  OutputFile* output() override { return &out_; }

 private:
  struct Active {
    std::int64_t end;
    std::uint64_t seq;
    std::uint32_t opcode;
    std::uint32_t layer;
  };
  struct TrackState {
    std::string id_busy, id_active, id_opcode, id_layer, id_op;
    std::vector<Active> active;  // in start order
    std::uint32_t shown_active = 0;
    std::int64_t shown_opcode = -1, shown_layer = -1;  // -1 = z
    bool dirty = false;
  };
  struct LayerState {
    std::string id;
    std::uint32_t count = 0;
    bool shown = false;
    bool dirty = false;
  };
  struct PendingEnd {
    std::int64_t end;
    std::uint64_t seq;
    std::uint32_t track;
    std::uint32_t layer;
    bool operator>(const PendingEnd& o) const { return end != o.end ? end > o.end : seq > o.seq; }
  };

  void advance(std::int64_t t);  // process ends <= t and move time to t
  void set_time(std::int64_t t);
  void emit_changes();
  void put_vector(std::int64_t value, const std::string& id);

  OutputFile out_;
  bool names_;
  const Catalog* catalog_ = nullptr;
  VcdTimescale scale_{};
  std::vector<TrackState> tracks_;
  std::vector<LayerState> layers_;
  std::vector<std::uint32_t> dirty_tracks_, dirty_layers_;
  std::priority_queue<PendingEnd, std::vector<PendingEnd>, std::greater<PendingEnd>> ends_;
  std::int64_t now_ = 0;
  std::int64_t t_end_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace vp::trace
