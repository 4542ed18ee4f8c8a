// External merge sort of Intervals by start time, each with an optional
// byte payload (the pre-rendered JSON args of a Perfetto slice).
//
// Traces are in program (issue) order, not start order: units run out of
// order, ZeBu queues dispatch out of order, and CUs run decoupled. Outputs
// like VCD need time order, so records are gathered into runs of bounded
// size, each run sorted and spilled to an unlinked temporary file, and the
// runs merged. Memory is bounded by the run size, whatever the trace length.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vp/trace/interval.hpp"

namespace vp::trace {

class IntervalSorter {
 public:
  // `run_bytes`: memory for one in-memory run (records + payloads).
  explicit IntervalSorter(std::size_t run_bytes = 64u << 20);
  ~IntervalSorter();
  IntervalSorter(const IntervalSorter&) = delete;
  IntervalSorter& operator=(const IntervalSorter&) = delete;

  void add(const Interval& iv, std::string_view payload = {});

  // Calls `fn` for every interval in start order; can be called once.
  void drain(const std::function<void(const Interval&, std::string_view)>& fn);

  std::uint64_t size() const { return count_; }
  std::size_t spilled_runs() const { return runs_.size(); }

 private:
  struct Item {
    Interval iv;
    std::uint64_t offset;  // payload offset in arena_
  };
  // Sorting small keys and gathering afterwards moves far less memory than
  // sorting the items themselves.
  struct Key {
    std::int64_t start;
    std::uint64_t line;
    std::uint32_t item;
    bool operator<(const Key& o) const { return start != o.start ? start < o.start : line < o.line; }
  };
  std::vector<Key> sorted_keys() const;
  struct Run {
    std::FILE* file;
    std::unique_ptr<char[]> buffer;
  };
  static constexpr std::size_t kRunBuffer = 256 << 10;
  void spill();

  std::size_t run_bytes_;
  std::vector<Item> items_;
  std::string arena_;
  std::vector<Run> runs_;
  std::uint64_t count_ = 0;
};

}  // namespace vp::trace
