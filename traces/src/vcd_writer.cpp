#include "vp/trace/vcd_writer.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <set>

namespace vp::trace {
namespace {

int bits_for(std::uint64_t max_value) {
  int bits = 1;
  while (bits < 63 && (max_value >> bits) != 0) ++bits;
  return bits;
}

// VCD identifiers (scope and signal names) may not contain whitespace.
std::string vcd_name(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '_');
  }
  return out.empty() ? std::string("_") : out;
}

std::vector<std::string> split_dots(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t dot = path.find('.', pos);
    parts.push_back(path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos));
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  return parts;
}

}  // namespace

VcdTimescale vcd_timescale(double clock_mhz) {
  // VCD allows 1, 10 or 100 of s..fs; pick the coarsest unit that divides
  // the clock period exactly so that times stay integers.
  static const struct {
    const char* name;
    double fs;
  } kUnits[] = {{"1 ms", 1e12}, {"100 us", 1e11}, {"10 us", 1e10}, {"1 us", 1e9}, {"100 ns", 1e8},
                {"10 ns", 1e7}, {"1 ns", 1e6},    {"100 ps", 1e5}, {"10 ps", 1e4}, {"1 ps", 1e3},
                {"100 fs", 1e2}, {"10 fs", 1e1},  {"1 fs", 1.0}};
  const double period_fs = 1e9 / clock_mhz;
  for (const auto& u : kUnits) {
    const double k = period_fs / u.fs;
    if (k >= 1.0 && std::fabs(k - std::round(k)) < 1e-9 * k)
      return {u.name, static_cast<std::int64_t>(std::llround(k)), true};
  }
  return {"1 fs", std::max<std::int64_t>(1, std::llround(period_fs)), false};
}

std::string vcd_identifier(std::uint32_t n) {
  std::string id;
  do {
    id.push_back(static_cast<char>('!' + n % 94));
    n /= 94;
  } while (n != 0);
  return id;
}

void VcdWriter::begin(const RunInfo& run) {
  catalog_ = run.catalog;
  scale_ = vcd_timescale(run.clock_mhz);
  t_end_ = run.t_max;
  now_ = run.t_min;
  const Catalog& cat = *catalog_;
  auto& b = out_.buf();
  auto it = std::back_inserter(b);

  fmt::format_to(it, "$version vp-trace (Sidra VP) $end\n");
  fmt::format_to(it, "$comment clock {} MHz: one cycle = {} x {}{} $end\n", run.clock_mhz, scale_.per_cycle,
                 scale_.unit, scale_.exact ? "" : " (rounded)");
  b += "$comment opcode codes (0 / z = idle):";
  for (std::uint32_t k = 0; k < cat.opcodes().size(); ++k) fmt::format_to(it, " {}={}", k + 1, cat.opcode_name(k));
  b += " $end\n";
  fmt::format_to(it, "$timescale {} $end\n", scale_.unit);

  std::int64_t max_layer = 0;
  for (const LayerInfo& l : cat.layers()) max_layer = std::max(max_layer, l.id);
  const int opcode_bits = bits_for(cat.opcodes().size());
  const int layer_bits = bits_for(static_cast<std::uint64_t>(max_layer));

  std::uint32_t next_id = 0;
  tracks_.resize(cat.tracks().size());
  b += "$scope module chip $end\n";
  std::vector<std::string> open;  // currently open scopes below chip
  for (const std::uint32_t t : cat.tracks_in_order()) {
    if (!run.track_used[t]) continue;
    const std::vector<std::string> parts = split_dots(cat.tracks()[t].scope);
    std::size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) ++common;
    for (std::size_t k = open.size(); k > common; --k) b += "$upscope $end\n";
    open.resize(common);
    for (std::size_t k = common; k < parts.size(); ++k) {
      fmt::format_to(it, "$scope module {} $end\n", vcd_name(parts[k]));
      open.push_back(parts[k]);
    }
    TrackState& s = tracks_[t];
    s.id_busy = vcd_identifier(next_id++);
    s.id_active = vcd_identifier(next_id++);
    s.id_opcode = vcd_identifier(next_id++);
    s.id_layer = vcd_identifier(next_id++);
    fmt::format_to(it, "$var wire 1 {} busy $end\n", s.id_busy);
    fmt::format_to(it, "$var integer 32 {} active $end\n", s.id_active);
    fmt::format_to(it, "$var wire {} {} opcode $end\n", opcode_bits, s.id_opcode);
    fmt::format_to(it, "$var wire {} {} layer $end\n", layer_bits, s.id_layer);
    if (names_) {
      s.id_op = vcd_identifier(next_id++);
      fmt::format_to(it, "$var string 1 {} op $end\n", s.id_op);
    }
  }
  for (std::size_t k = open.size(); k > 0; --k) b += "$upscope $end\n";

  b += "$scope module layers $end\n";
  layers_.resize(cat.layers().size());
  std::set<std::string> used;
  for (std::uint32_t l = 0; l < layers_.size(); ++l) {
    if (!run.layer_used[l]) continue;
    std::string name = vcd_name(cat.layers()[l].name);
    if (!used.insert(name).second) name += fmt::format("_{}", l);
    layers_[l].id = vcd_identifier(next_id++);
    fmt::format_to(it, "$var wire 1 {} {} $end\n", layers_[l].id, name);
  }
  b += "$upscope $end\n$upscope $end\n$enddefinitions $end\n";

  fmt::format_to(it, "#{}\n$dumpvars\n", now_ * scale_.per_cycle);
  for (const TrackState& s : tracks_)
    if (!s.id_busy.empty()) {
      fmt::format_to(it, "0{}\nb0 {}\nbz {}\nbz {}\n", s.id_busy, s.id_active, s.id_opcode, s.id_layer);
      if (names_) fmt::format_to(it, "s- {}\n", s.id_op);
    }
  for (const LayerState& l : layers_)
    if (!l.id.empty()) fmt::format_to(it, "0{}\n", l.id);
  b += "$end\n";
  out_.maybe_flush();
}

void VcdWriter::put_vector(std::int64_t value, const std::string& id) {
  // Formatted in a local buffer and appended once: this runs for most
  // value changes of a conversion.
  char tmp[80];
  std::size_t n = 0;
  tmp[n++] = 'b';
  if (value < 0) {
    tmp[n++] = value == -1 ? 'z' : 'x';
  } else {
    const auto v = static_cast<std::uint64_t>(value);
    const int top = v == 0 ? 0 : 63 - __builtin_clzll(v);
    for (int bit = top; bit >= 0; --bit) tmp[n++] = static_cast<char>('0' + ((v >> bit) & 1));
  }
  tmp[n++] = ' ';
  std::string& b = out_.buf();
  b.append(tmp, n);
  b += id;
  b.push_back('\n');
}

void VcdWriter::emit_changes() {
  if (dirty_tracks_.empty() && dirty_layers_.empty()) return;
  std::string& b = out_.buf();
  bool stamped = false;
  const auto stamp = [&] {
    if (!stamped) fmt::format_to(std::back_inserter(b), "#{}\n", now_ * scale_.per_cycle);
    stamped = true;
  };
  for (const std::uint32_t t : dirty_tracks_) {
    TrackState& s = tracks_[t];
    s.dirty = false;
    const auto count = static_cast<std::uint32_t>(s.active.size());
    const std::int64_t opcode = count ? static_cast<std::int64_t>(s.active.back().opcode) + 1 : -1;
    const std::uint32_t layer_idx = count ? s.active.back().layer : 0;
    const std::int64_t layer_id = count ? catalog_->layers()[layer_idx].id : -1;
    // -1 shows z (idle); a record outside any layer shows x.
    const std::int64_t layer = count ? (layer_id < 0 ? -2 : layer_id) : -1;
    if ((count > 0) != (s.shown_active > 0)) {
      stamp();
      b.push_back(count ? '1' : '0');
      b += s.id_busy;
      b.push_back('\n');
    }
    if (count != s.shown_active) {
      stamp();
      put_vector(count, s.id_active);
      s.shown_active = count;
    }
    if (opcode != s.shown_opcode) {
      stamp();
      put_vector(opcode, s.id_opcode);
      if (names_) {
        b += 's';
        b += opcode > 0 ? catalog_->opcode_name(static_cast<std::uint32_t>(opcode - 1)) : std::string("-");
        b += ' ';
        b += s.id_op;
        b += '\n';
      }
      s.shown_opcode = opcode;
    }
    if (layer != s.shown_layer) {
      stamp();
      put_vector(layer, s.id_layer);
      s.shown_layer = layer;
    }
  }
  for (const std::uint32_t l : dirty_layers_) {
    LayerState& s = layers_[l];
    s.dirty = false;
    if ((s.count > 0) != s.shown) {
      stamp();
      s.shown = s.count > 0;
      b.push_back(s.shown ? '1' : '0');
      b += s.id;
      b.push_back('\n');
    }
  }
  dirty_tracks_.clear();
  dirty_layers_.clear();
  out_.maybe_flush();
}

void VcdWriter::set_time(std::int64_t t) {
  if (t == now_) return;
  emit_changes();
  now_ = t;
}

void VcdWriter::advance(std::int64_t t) {
  while (!ends_.empty() && ends_.top().end <= t) {
    const PendingEnd e = ends_.top();
    ends_.pop();
    set_time(e.end);
    TrackState& s = tracks_[e.track];
    const auto pos = std::find_if(s.active.begin(), s.active.end(), [&e](const Active& a) { return a.seq == e.seq; });
    if (pos != s.active.end()) s.active.erase(pos);
    if (!s.dirty) dirty_tracks_.push_back(e.track);
    s.dirty = true;
    LayerState& l = layers_[e.layer];
    --l.count;
    if (!l.dirty) dirty_layers_.push_back(e.layer);
    l.dirty = true;
  }
  set_time(t);
}

void VcdWriter::add(const Interval& iv, std::string_view) {
  advance(iv.start);
  const std::uint64_t seq = seq_++;
  TrackState& s = tracks_[iv.track];
  s.active.push_back({iv.end, seq, iv.opcode, iv.layer});
  if (!s.dirty) dirty_tracks_.push_back(iv.track);
  s.dirty = true;
  LayerState& l = layers_[iv.layer];
  ++l.count;
  if (!l.dirty) dirty_layers_.push_back(iv.layer);
  l.dirty = true;
  ends_.push({iv.end, seq, iv.track, iv.layer});
}

void VcdWriter::finish() {
  advance(std::max(t_end_, now_));
  emit_changes();
}

}  // namespace vp::trace
