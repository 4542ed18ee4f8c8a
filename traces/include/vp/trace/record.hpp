// One trace line, decoded: the ZeBu grammar
//   [mnemonic, {mapping}, {'inst_idx': N, 'time': [start, end]}, {params}]
// or the assembly form without the third element.
#pragma once

#include <cstdint>
#include <string_view>

#include "vp/trace/literal_parser.hpp"
#include "vp/trace/value.hpp"

namespace vp::trace {

struct TraceRecord {
  std::uint64_t line_no = 0;   // 1-based line in the source
  std::string_view line;       // the line's text, without the newline
  std::string_view mnemonic;
  ValueView mapping;           // element 1 (a dict)
  ValueView timing;            // element 2 when present
  ValueView params;            // last element (a dict)

  bool timed = false;          // false for assembly lines (no third element)
  std::int64_t inst_idx = -1;
  std::int64_t start = 0;      // cycles
  std::int64_t end = 0;        // cycles, >= start

  // Where it ran. Our traces carry 'cluster', 'cu' and 'unit' in the mapping
  // (cluster/cu -1 = the control processor); ZeBu traces run on one core and
  // carry none of them (has_location false).
  bool has_location = false;
  std::int64_t chip = -1;        // 'chip' of a system of chips' trace; -1 = none
  std::int64_t cluster = -1;
  std::int64_t cu = -1;
  std::int64_t pc = -1;
  std::string_view unit;
  std::int64_t layer_id = -1;    // mapping 'slyr'; -1 = no layer
  std::string_view layer_name;   // mapping 'layer' (ours); empty for ZeBu

  std::int64_t cycles() const { return end - start; }
};

// Parses one line into a TraceRecord; views point into the line and into the
// parser's arenas, valid until the next call.
class RecordParser {
 public:
  RecordParser();
  bool parse(std::string_view line, TraceRecord& out, LiteralError& error);

 private:
  bool invalid(LiteralError& error, const ValueView& at, std::string message) const;
  LiteralParser literal_;
  std::string_view line_;
};

}  // namespace vp::trace
