#include "object_builder.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

namespace vp::as::detail {
namespace {

using vp::obj::Bytes;

// The bytes of a piece, kept alive by the object's backing.
Bytes take(Piece& p, vp::obj::BackingSet& backing) {
  if (p.is_view) return p.view;
  auto buf = std::make_shared<std::vector<uint8_t>>(std::move(p.owned));
  Bytes b{buf->data(), buf->size()};
  backing.parts.push_back(std::move(buf));
  return b;
}

// The level bytes of a cell program given in several pieces, joined.
Bytes join(const std::vector<Piece>& pieces, vp::obj::BackingSet& backing) {
  auto buf = std::make_shared<std::vector<uint8_t>>();
  uint64_t n = 0;
  for (const auto& pc : pieces) n += pc.size();
  buf->resize(n);
  uint8_t* w = buf->data();
  for (const auto& pc : pieces) {
    const uint8_t* src = pc.is_view ? pc.view.data : pc.owned.data();
    if (pc.size()) std::memcpy(w, src, pc.size());
    w += pc.size();
  }
  Bytes b{buf->data(), n};
  backing.parts.push_back(std::move(buf));
  return b;
}

}  // namespace

vp::obj::ChipRequirements chip_requirements(const Program& program, Diagnostics& diag) {
  vp::obj::ChipRequirements used;
  for (const auto& c : program.cores())
    if (!c.id.is_control()) {
      used.clusters = std::max<uint32_t>(used.clusters, static_cast<uint32_t>(c.id.cluster) + 1);
      used.cus_per_cluster = std::max<uint32_t>(used.cus_per_cluster, static_cast<uint32_t>(c.id.cu) + 1);
    }
  for (const auto& s : program.segments())
    if (s.space == vp::obj::DataSegment::Space::Sram)
      used.clusters = std::max<uint32_t>(used.clusters, static_cast<uint32_t>(s.core.cluster) + 1);
  for (const auto& c : program.cells()) {
    used.clusters = std::max<uint32_t>(used.clusters, static_cast<uint32_t>(c.hdr.cluster) + 1);
    used.cus_per_cluster = std::max<uint32_t>(used.cus_per_cluster, static_cast<uint32_t>(c.hdr.cu) + 1);
    used.xbars_per_cu = std::max<uint32_t>(used.xbars_per_cu, static_cast<uint32_t>(c.hdr.xbar) + 1);
    used.rows = std::max<uint32_t>(used.rows, c.hdr.row0 + c.hdr.rows);
    used.cols = std::max<uint32_t>(used.cols, c.hdr.col0 + c.hdr.cols);
  }
  const vp::obj::ChipRequirements& declared = program.meta.declared;
  const auto check = [&](uint32_t want, uint32_t need, const char* key) -> uint32_t {
    if (want && want < need)
      diag.error(program.meta.chip_loc, std::string(".chip ") + key + "=" + std::to_string(want) +
                                            " but the program uses " + std::to_string(need));
    return std::max(want, need);
  };
  vp::obj::ChipRequirements chip;
  chip.clusters = check(declared.clusters, used.clusters, "clusters");
  chip.cus_per_cluster = check(declared.cus_per_cluster, used.cus_per_cluster, "cus");
  chip.xbars_per_cu = check(declared.xbars_per_cu, used.xbars_per_cu, "xbars");
  chip.rows = check(declared.rows, used.rows, "rows");
  chip.cols = check(declared.cols, used.cols, "cols");
  chip.cell_bits = declared.cell_bits;
  return chip;
}

void build_object(Program& program, const Symbols& symbols, vp::obj::Object& o) {
  vp::obj::BackingSet& backing = *program.backing();
  for (const auto& [id, idx] : program.core_index()) {
    CoreBuild& c = program.core(idx);
    vp::obj::CoreText t;
    t.core = id;
    t.entry = c.entry;
    // Symbols by index, then name: the labels' map has no order of its own.
    const Symbols::Labels& labels = symbols.labels(idx);
    std::vector<std::pair<uint32_t, std::string_view>> sorted(labels.size());
    size_t k = 0;
    for (const auto& [name, value] : labels) sorted[k++] = {value, name};
    std::sort(sorted.begin(), sorted.end());
    for (const auto& [value, name] : sorted) o.symbols.push_back(vp::obj::Symbol{std::string(name), id, value});
    t.words = std::move(c.words);
    o.texts.push_back(std::move(t));
  }
  for (auto& s : program.segments()) {
    if (s.piece.size() == 0) continue;
    vp::obj::DataSegment d;
    d.space = s.space;
    d.core = s.core;
    d.address = s.address;
    d.bytes = take(s.piece, backing);
    o.data.push_back(d);
  }
  for (auto& c : program.cells()) {
    vp::obj::CellProgram cp = c.hdr;
    cp.levels = c.pieces.size() == 1 ? take(c.pieces[0], backing) : join(c.pieces, backing);
    o.cells.push_back(cp);
  }
  o.layer_names = program.meta.layers;
  o.io = program.meta.io;
  o.backing = program.backing();
}

}  // namespace vp::as::detail
