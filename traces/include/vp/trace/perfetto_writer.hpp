// Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing).
//
// One process per cluster (plus the control processor, or the single ZeBu
// core), one thread track per unit, one complete ("X") slice per
// instruction: name = mnemonic, cat = layer, ts/dur in microseconds of the
// clock, args = inst_idx, layer, unit and the record's operands. The trace
// viewers require slices on one track to nest; overlapping instructions on a
// unit (ZeBu queues) go to extra lanes "<unit> #2", "#3", ... as needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/trace/output_file.hpp"
#include "vp/trace/sink.hpp"

namespace vp::trace {

class PerfettoWriter : public IntervalSink {
 public:
  explicit PerfettoWriter(const std::string& path) : out_(path) {}
  void begin(const RunInfo& run) override;
  void add(const Interval& iv, std::string_view payload) override;
  void finish() override;
  OutputFile* output() override { return &out_; }

  std::uint64_t slices() const { return slices_; }

 private:
  struct Lane {
    std::int64_t busy_until = 0;
    std::uint32_t tid = 0;
  };
  std::int64_t pid_of(const TrackInfo& t) const;

  OutputFile out_;
  const Catalog* catalog_ = nullptr;
  double us_per_cycle_ = 0.001;
  std::vector<std::vector<Lane>> lanes_;  // per track
  std::uint32_t next_tid_ = 1;
  std::uint64_t slices_ = 0;
  bool first_event_ = true;
};

}  // namespace vp::trace
