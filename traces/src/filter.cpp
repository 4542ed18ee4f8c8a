#include "vp/trace/filter.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <stdexcept>

#include "vp/common/suggest.h"
#include "vp/isa/isa.h"

namespace vp::trace {
namespace {

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(pos, comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.push_back(item);
    pos = comma + 1;
  }
  return out;
}

bool to_int(std::string_view s, std::int64_t& v) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool cached(std::vector<std::int8_t>& cache, std::uint32_t id) {
  if (id >= cache.size()) cache.resize(id + 1, -1);
  return cache[id] >= 0;
}

}  // namespace

bool glob_match(std::string_view p, std::string_view t) {
  // Iterative matcher with one backtrack point: linear for the usual
  // patterns, no recursion on hostile ones.
  std::size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  while (ti < t.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == t[ti])) {
      ++pi;
      ++ti;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

bool FilterSpec::empty() const {
  return from == 0 && to == std::numeric_limits<std::int64_t>::max() && cores.empty() && chips.empty() &&
         units.empty() && layers.empty() && mnemonics.empty();
}

std::vector<FilterSpec::Core> FilterSpec::parse_cores(std::string_view text) {
  std::vector<Core> out;
  for (const std::string_view item : split(text)) {
    Core c;
    if (lower(item) == "cp") {
      c.cp = true;
    } else {
      const std::size_t dot = item.find('.');
      std::int64_t cu = 0;
      if (!to_int(item.substr(0, dot), c.cluster) || c.cluster < 0 ||
          (dot != std::string_view::npos && (!to_int(item.substr(dot + 1), cu) || cu < 0)))
        throw std::invalid_argument(
            fmt::format("--cores: '{}' is not CLUSTER, CLUSTER.CU or cp (e.g. 3, 3.2, cp)", item));
      if (dot != std::string_view::npos) c.cu = cu;
    }
    out.push_back(c);
  }
  return out;
}

std::vector<std::int64_t> FilterSpec::parse_chips(std::string_view text) {
  std::vector<std::int64_t> out;
  for (const std::string_view item : split(text)) {
    std::int64_t k = 0;
    if (!to_int(item, k) || k < 0)
      throw std::invalid_argument(fmt::format("--chips: '{}' is not a chip number (0, 1, ...)", item));
    out.push_back(k);
  }
  return out;
}

std::vector<std::string> FilterSpec::parse_names(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string_view item : split(text)) out.emplace_back(item);
  return out;
}

const std::vector<std::string>& FilterSpec::unit_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (int k = 0; k < isa::kUnitCount; ++k) v.emplace_back(isa::unit_name(static_cast<isa::Unit>(k)));
    v.emplace_back("cp");
    for (const char* z : {"CT", "LD", "LW", "ST", "DT", "PE", "VP"}) v.emplace_back(z);  // ZeBu classes
    return v;
  }();
  return names;
}

std::vector<std::string> FilterSpec::parse_units(std::string_view text) {
  std::vector<std::string> out = parse_names(text);
  if (out.empty()) throw std::invalid_argument("--units: expected a comma-separated list of unit names, got none");
  const auto& known = unit_names();
  for (const std::string& u : out) {
    const std::string lu = lower(u);
    if (std::any_of(known.begin(), known.end(), [&lu](const std::string& k) { return lower(k) == lu; })) continue;
    vp::common::Nearest near(u, 2, vp::common::Case::kInsensitive);
    std::string list;
    for (const std::string& k : known) {
      near.offer(k);
      list += (list.empty() ? "" : ",") + k;
    }
    throw std::invalid_argument(fmt::format("--units: unknown unit '{}' (expected one of {}){}", u, list,
                                            near.found() ? "; did you mean '" + near.best() + "'?" : ""));
  }
  return out;
}

std::vector<FilterSpec::LayerSel> FilterSpec::parse_layers(std::string_view text) {
  std::vector<LayerSel> out;
  for (const std::string_view item : split(text)) {
    LayerSel sel;
    const std::size_t dash = item.find('-', 1);
    std::int64_t lo = 0, hi = 0;
    if (to_int(item, lo)) {
      sel.lo = sel.hi = lo;
    } else if (dash != std::string_view::npos && to_int(item.substr(0, dash), lo) && to_int(item.substr(dash + 1), hi)) {
      if (hi < lo) throw std::invalid_argument(fmt::format("--layers: range '{}' is empty", item));
      sel.lo = lo;
      sel.hi = hi;
    } else {
      sel.name = std::string(item);
    }
    out.push_back(std::move(sel));
  }
  return out;
}

bool Filter::track_ok(std::uint32_t id) {
  if (cached(track_cache_, id)) return track_cache_[id] == 1;
  const TrackInfo& t = catalog_->tracks()[id];
  bool ok = spec_.chips.empty() || std::find(spec_.chips.begin(), spec_.chips.end(), t.chip) != spec_.chips.end();
  if (ok && !spec_.cores.empty()) {
    ok = std::any_of(spec_.cores.begin(), spec_.cores.end(), [&t](const FilterSpec::Core& c) {
      if (c.cp) return t.cluster < 0;
      return t.cluster == c.cluster && (!c.cu || *c.cu == t.cu);
    });
  }
  if (ok && !spec_.units.empty()) {
    const std::string unit = lower(t.unit);
    ok = std::any_of(spec_.units.begin(), spec_.units.end(), [&unit](const std::string& u) { return lower(u) == unit; });
  }
  track_cache_[id] = ok ? 1 : 0;
  return ok;
}

bool Filter::opcode_ok(std::uint32_t id) {
  if (cached(opcode_cache_, id)) return opcode_cache_[id] == 1;
  const std::string& name = catalog_->opcode_name(id);
  const bool ok = spec_.mnemonics.empty() ||
                  std::any_of(spec_.mnemonics.begin(), spec_.mnemonics.end(),
                              [&name](const std::string& p) { return glob_match(p, name); });
  opcode_cache_[id] = ok ? 1 : 0;
  return ok;
}

bool Filter::layer_ok(std::uint32_t id) {
  if (cached(layer_cache_, id)) return layer_cache_[id] == 1;
  const LayerInfo& l = catalog_->layers()[id];
  const bool ok = spec_.layers.empty() ||
                  std::any_of(spec_.layers.begin(), spec_.layers.end(), [&l](const FilterSpec::LayerSel& s) {
                    if (s.name) return *s.name == l.name;
                    return l.id >= s.lo && l.id <= s.hi;
                  });
  layer_cache_[id] = ok ? 1 : 0;
  return ok;
}

bool Filter::apply(Interval& iv) {
  // Overlap with [from, to): zero-length records count when they sit inside.
  // `to` at its largest means no upper bound (--to not given), so a record
  // at time 2^63 - 1 is kept rather than falling just outside the window.
  const bool bounded = spec_.to != std::numeric_limits<std::int64_t>::max();
  if (iv.end < spec_.from || (bounded && iv.start >= spec_.to)) return false;
  if (iv.end == spec_.from && iv.start < spec_.from) return false;
  if (!track_ok(iv.track) || !opcode_ok(iv.opcode) || !layer_ok(iv.layer)) return false;
  iv.start = std::max(iv.start, spec_.from);
  iv.end = std::min(iv.end, spec_.to);
  return true;
}

}  // namespace vp::trace
