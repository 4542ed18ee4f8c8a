#include "program.h"

namespace vp::as::detail {

bool Program::select_core(vp::obj::CoreId id) {
  close_cells();
  auto it = core_index_.find(id);
  const bool fresh = it == core_index_.end();
  if (fresh) {
    it = core_index_.emplace(id, static_cast<int>(cores_.size())).first;
    cores_.emplace_back();
    cores_.back().id = id;
    cores_.back().words.reserve(1024);
  }
  cur_core_ = it->second;
  mode_ = Mode::Text;
  return fresh;
}

void Program::close_cells() {
  if (mode_ != Mode::Xbar) return;
  mode_ = Mode::None;
  CellBuild& c = cells_.back();
  uint64_t n = 0;
  for (const auto& pc : c.pieces) n += pc.size();
  const uint64_t want = uint64_t{c.hdr.rows} * c.hdr.cols;
  if (n != want)
    diag_.error(c.loc, "cell program for crossbar " + std::to_string(c.hdr.xbar) + " of core c" +
                           std::to_string(c.hdr.cluster) + "." + std::to_string(c.hdr.cu) + " has " +
                           std::to_string(n) + " level bytes, expected ROWS*COLS = " + std::to_string(c.hdr.rows) +
                           "*" + std::to_string(c.hdr.cols) + " = " + std::to_string(want));
}

void Program::open_segment(SegBuild s) {
  segs_.push_back(std::move(s));
  mode_ = Mode::Data;
}

void Program::open_cells(CellBuild c) {
  cells_.push_back(std::move(c));
  mode_ = Mode::Xbar;
}

std::vector<uint8_t>* Program::literal_target(const Loc& here) {
  if (mode_ == Mode::Data) {
    SegBuild& s = segs_.back();
    if (s.piece.is_view) {
      // Literals after an .incbin continue in a new segment right after it.
      SegBuild n;
      n.space = s.space;
      n.core = s.core;
      n.address = s.address + s.piece.size();
      n.loc = here;
      segs_.push_back(std::move(n));
    }
    return &segs_.back().piece.owned;
  }
  if (mode_ == Mode::Xbar) {
    CellBuild& c = cells_.back();
    if (c.pieces.empty() || c.pieces.back().is_view) c.pieces.emplace_back();
    return &c.pieces.back().owned;
  }
  return nullptr;
}

void Program::append_view(Piece piece, const Loc& here) {
  if (mode_ == Mode::Xbar) {
    cells_.back().pieces.push_back(std::move(piece));
    return;
  }
  SegBuild& s = segs_.back();
  if (s.piece.size() == 0) {
    s.piece = std::move(piece);
    return;
  }
  // A view is a segment of its own, starting right after the bytes so far.
  SegBuild nseg;
  nseg.space = s.space;
  nseg.core = s.core;
  nseg.address = s.address + s.piece.size();
  nseg.loc = here;
  nseg.piece = std::move(piece);
  segs_.push_back(std::move(nseg));
}

bool Program::take_literal_bytes(uint64_t n, uint64_t limit) {
  if (n > limit || literal_bytes_ > limit - n) return false;
  literal_bytes_ += n;
  return true;
}

std::shared_ptr<const vp::obj::MappedFile> Program::map(const std::string& path) {
  auto it = maps_.find(path);
  if (it != maps_.end()) return it->second;
  auto m = vp::obj::map_file(path);
  maps_.emplace(path, m);
  backing_->parts.push_back(m);
  return m;
}

}  // namespace vp::as::detail
