// Record filters shared by every output: time window, cores, units, layers,
// mnemonics. Decisions on names are made once per catalog id and cached, so
// filtering costs a few array lookups per record.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vp/trace/catalog.hpp"
#include "vp/trace/interval.hpp"

namespace vp::trace {

struct FilterSpec {
  std::int64_t from = 0;                                      // keep time >= from
  std::int64_t to = std::numeric_limits<std::int64_t>::max(); // keep time < to

  // --cores: "3" = cluster 3, "3.2" = cluster 3 CU 2, "cp" = control
  // processor. ZeBu traces are one core, addressed as "0" / "0.0".
  struct Core {
    bool cp = false;
    std::int64_t cluster = 0;
    std::optional<std::int64_t> cu;
  };
  std::vector<Core> cores;
  std::vector<std::int64_t> chips;     // --chips: a system's chips ('chip' key); empty = all
  std::vector<std::string> units;      // unit or ZeBu class names, case-insensitive
  struct LayerSel {
    std::optional<std::string> name;   // exact layer name
    std::int64_t lo = 0, hi = -1;      // inclusive id range when no name
  };
  std::vector<LayerSel> layers;
  std::vector<std::string> mnemonics;  // exact names or globs with '*' and '?'

  bool empty() const;

  // Parsers for the comma-separated command-line forms; throw
  // std::invalid_argument naming the bad item.
  static std::vector<Core> parse_cores(std::string_view text);
  static std::vector<std::string> parse_names(std::string_view text);
  // --units: names checked against unit_names() (case-insensitive), an
  // unknown one answered with the nearest known name.
  static std::vector<std::string> parse_units(std::string_view text);
  // The chip's units, "cp", and the ZeBu instruction classes.
  static const std::vector<std::string>& unit_names();
  static std::vector<LayerSel> parse_layers(std::string_view text);
  // --chips: "0,2" = chips 0 and 2 of a system's traces read together.
  static std::vector<std::int64_t> parse_chips(std::string_view text);
};

bool glob_match(std::string_view pattern, std::string_view text);

class Filter {
 public:
  Filter(FilterSpec spec, const Catalog& catalog) : spec_(std::move(spec)), catalog_(&catalog) {}

  // Decides on an interval and clips it to the window. Records outside the
  // window are dropped; a zero-length record at the window's end is too.
  bool apply(Interval& iv);

  const FilterSpec& spec() const { return spec_; }

 private:
  bool track_ok(std::uint32_t id);
  bool opcode_ok(std::uint32_t id);
  bool layer_ok(std::uint32_t id);

  FilterSpec spec_;
  const Catalog* catalog_;
  std::vector<std::int8_t> track_cache_, opcode_cache_, layer_cache_;  // -1 unknown, 0 no, 1 yes
};

}  // namespace vp::trace
