// Pictures of a run, written without a display: a timeline (units x time,
// colour = layer, shade = how busy the unit was in that pixel column) and a
// per-layer chart (one bar per layer from its first start to its last end,
// with its cycles and share; layers on the critical path outlined).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/trace/output_file.hpp"
#include "vp/trace/sink.hpp"
#include "vp/trace/stats.hpp"

namespace vp::trace {

class TimelinePlot : public IntervalSink {
 public:
  // More units than `max_rows` are folded: first per cluster and unit kind,
  // then per unit kind, so a full-chip run still gives a readable picture.
  explicit TimelinePlot(const std::string& path, int columns = 1000, std::size_t max_rows = 256)
      : out_(path), columns_(columns), max_rows_(max_rows) {}
  void begin(const RunInfo& run) override;
  void add(const Interval& iv, std::string_view payload) override;
  void finish() override;
  OutputFile* output() override { return &out_; }

 private:
  struct Row {
    std::string label;
    std::uint32_t members = 0;  // tracks folded into this row
    std::vector<float> cover;   // busy fraction per column
    std::vector<float> best;    // longest piece per column (picks the colour)
    std::vector<std::uint32_t> layer;
  };

  OutputFile out_;
  int columns_;
  std::size_t max_rows_;
  RunInfo run_;
  std::vector<Row> rows_;
  std::vector<std::uint32_t> row_of_track_;
  std::vector<std::int64_t> covered_until_;  // per track, for the union
};

// Fills `out` (format from its path) with the per-layer chart.
void write_layers_plot(OutputFile& out, const StatsReport& report);

}  // namespace vp::trace
