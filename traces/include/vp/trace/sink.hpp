// The consumers of a conversion: each sees the whole catalog first, then
// every kept interval in start order, then the end of the run.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "vp/trace/catalog.hpp"
#include "vp/trace/interval.hpp"

namespace vp::trace {

struct RunInfo {
  const Catalog* catalog = nullptr;
  std::int64_t t_min = 0;    // earliest kept start (0 when nothing kept)
  std::int64_t t_max = 0;    // latest kept end
  std::uint64_t count = 0;   // kept intervals
  double clock_mhz = 1000.0;
  // Which catalog tracks / layers have at least one kept interval: the
  // catalog also names what the filters dropped, outputs show only these.
  std::vector<bool> track_used;
  std::vector<bool> layer_used;
  std::int64_t span() const { return t_max - t_min; }
};

class OutputFile;

class IntervalSink {
 public:
  virtual ~IntervalSink() = default;
  virtual void begin(const RunInfo& run) = 0;
  virtual void add(const Interval& iv, std::string_view payload) = 0;
  virtual void finish() = 0;
  // The file this sink writes, if any: the conversion publishes the files of
  // every sink together once all are complete (commit_together), so a
  // failure leaves no partial set behind.
  virtual OutputFile* output() { return nullptr; }
};

}  // namespace vp::trace
