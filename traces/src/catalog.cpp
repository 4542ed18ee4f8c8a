#include "vp/trace/catalog.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace vp::trace {

std::uint32_t Interner::intern(std::string_view s) {
  const auto it = ids_.find(s);
  if (it != ids_.end()) return it->second;
  storage_.emplace_back(s);
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.push_back(&storage_.back());
  ids_.emplace(std::string_view(storage_.back()), id);
  return id;
}

std::string zebu_class(std::string_view mnemonic) {
  std::string out;
  for (const char c : mnemonic.substr(0, 2)) {
    if (c == '_') break;
    out.push_back(c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
  }
  return out.empty() ? std::string("OTHER") : out;
}

std::uint32_t Catalog::track_of(const TraceRecord& r, std::uint32_t opcode) {
  TrackKey key{};
  if (r.has_location) {
    key = {r.chip < 0 ? -1 : r.chip, r.cluster < 0 ? -1 : r.cluster, r.cluster < 0 ? -1 : r.cu, units_.intern(r.unit)};
  } else {
    // ZeBu: one core; the unit is the instruction class of the mnemonic.
    if (opcode >= zebu_track_of_opcode_.size()) zebu_track_of_opcode_.resize(opcode + 1, -1);
    if (zebu_track_of_opcode_[opcode] >= 0) return static_cast<std::uint32_t>(zebu_track_of_opcode_[opcode]);
    key = {-1, -2, 0, units_.intern(zebu_class(r.mnemonic))};
  }
  auto it = track_ids_.find(key);
  if (it == track_ids_.end()) {
    TrackInfo t;
    t.zebu = !r.has_location;
    t.cluster = key.cluster == -2 ? 0 : key.cluster;
    t.cu = key.cluster == -2 ? 0 : key.cu;
    t.unit = units_.name(key.unit);
    if (t.zebu) {
      t.scope = "core0." + t.unit;
      t.label = t.unit;
    } else if (t.cluster < 0 && t.unit.rfind("link.", 0) == 0) {
      // Chip-level fabric recorded by vp-run: NoC links ('link.<name>') and
      // global memory ('gmem') sit beside the clusters, not in a core.
      t.scope = "noc." + t.unit.substr(5);
      t.label = "noc " + t.unit.substr(5);
    } else if (t.cluster < 0 && t.unit == "gmem") {
      t.scope = "gmem";
      t.label = "gmem";
    } else if (t.cluster < 0) {
      // The control processor is one unit ('cp'); other unit names on it,
      // if a platform ever reports them, get their own scope below it.
      t.scope = t.unit == "cp" ? std::string("cp") : "cp." + t.unit;
      t.label = t.unit == "cp" ? std::string("cp") : "cp " + t.unit;
    } else {
      t.scope = fmt::format("cluster{}.cu{}.{}", t.cluster, t.cu, t.unit);
      t.label = fmt::format("c{}.cu{} {}", t.cluster, t.cu, t.unit);
    }
    // A system's traces, read together, keep each chip's tracks apart.
    t.chip = key.chip;
    if (t.chip >= 0) {
      t.scope = fmt::format("chip{}.{}", t.chip, t.scope);
      t.label = fmt::format("k{} {}", t.chip, t.label);
    }
    it = track_ids_.emplace(key, static_cast<std::uint32_t>(tracks_.size())).first;
    tracks_.push_back(std::move(t));
  }
  if (!r.has_location) zebu_track_of_opcode_[opcode] = it->second;
  return it->second;
}

std::uint32_t Catalog::layer_of(const TraceRecord& r) {
  // Each chip of a system numbers its own layers: chip K's ids are apart.
  const std::int64_t key = r.chip >= 0 ? ((r.chip + 1) << 32) + r.layer_id : r.layer_id;
  if (r.layer_id >= 0 || r.layer_name.empty()) {
    const auto by_id = layer_by_id_.find(key);
    if (by_id != layer_by_id_.end()) return by_id->second;
  } else {
    const auto by_name = layer_by_name_.find(r.layer_name);
    if (by_name != layer_by_name_.end()) return by_name->second;
  }
  LayerInfo info;
  info.id = r.layer_id;
  if (!r.layer_name.empty()) info.name = std::string(r.layer_name);
  else if (r.layer_id >= 0) info.name = fmt::format("L{}", r.layer_id);
  else info.name = "-";
  if (r.chip >= 0 && r.layer_name.empty()) info.name = fmt::format("k{} {}", r.chip, info.name);
  info.order = static_cast<std::uint32_t>(layers_.size());
  const auto id = info.order;
  layers_.push_back(std::move(info));
  if (r.layer_id >= 0 || r.layer_name.empty()) {
    layer_by_id_.emplace(key, id);
  } else {
    layer_by_name_.emplace(layer_names_.name(layer_names_.intern(r.layer_name)), id);
  }
  return id;
}

namespace {

// Units of a CU in the order the chip lists them, then ZeBu classes in the
// order the ZeBu documentation lists them; anything else sorts after.
int unit_rank(const std::string& unit) {
  static const char* const kOrder[] = {"ctrl", "cp", "scalar", "xbar", "vector", "dma", "noc", "sync",
                                       "CT",   "LD", "LW",     "ST",   "DT",     "PE",  "VP"};
  for (std::size_t k = 0; k < std::size(kOrder); ++k)
    if (unit == kOrder[k]) return static_cast<int>(k);
  return static_cast<int>(std::size(kOrder));
}

}  // namespace

std::vector<std::uint32_t> Catalog::tracks_in_order() const {
  std::vector<std::uint32_t> ids(tracks_.size());
  for (std::uint32_t k = 0; k < ids.size(); ++k) ids[k] = k;
  std::sort(ids.begin(), ids.end(), [this](std::uint32_t a, std::uint32_t b) {
    const TrackInfo& x = tracks_[a];
    const TrackInfo& y = tracks_[b];
    if (x.zebu != y.zebu) return x.zebu < y.zebu;
    if (x.chip != y.chip) return x.chip < y.chip;
    if (x.cluster != y.cluster) return x.cluster < y.cluster;
    if (x.cu != y.cu) return x.cu < y.cu;
    const int rx = unit_rank(x.unit), ry = unit_rank(y.unit);
    if (rx != ry) return rx < ry;
    return x.unit < y.unit;
  });
  return ids;
}

void Catalog::finalize_ranks() {
  const auto order = tracks_in_order();
  for (std::uint32_t k = 0; k < order.size(); ++k) tracks_[order[k]].rank = k;
}

}  // namespace vp::trace
