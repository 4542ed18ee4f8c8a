// The program as the source builds it, before it becomes an object: each
// core's text, the data segments and cell programs in the order written,
// the metadata, and which of them the next line adds to.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "vp/obj/object.h"

namespace vp::as::detail {

// A piece of a data segment or cell program: owned bytes or a view.
struct Piece {
  std::vector<uint8_t> owned;
  vp::obj::Bytes view;
  bool is_view = false;
  uint64_t size() const { return is_view ? view.size : owned.size(); }
};

// What the lines being read add to: a core's text, a data segment, a cell
// program (Xbar), or nothing yet.
enum class Mode { None, Text, Data, Xbar };

struct CoreBuild {
  vp::obj::CoreId id;
  std::vector<uint64_t> words;
  bool entry_set = false;
  uint32_t entry = 0;
};

struct SegBuild {
  vp::obj::DataSegment::Space space = vp::obj::DataSegment::Space::Global;
  vp::obj::CoreId core;
  uint64_t address = 0;
  Piece piece;
  Loc loc;
};

struct CellBuild {
  vp::obj::CellProgram hdr;
  std::vector<Piece> pieces;
  Loc loc;
};

// .chip, .layer, .input and .output: what the object says about itself.
struct Metadata {
  std::map<uint32_t, std::string> layers;
  std::vector<vp::obj::IoBinding> io;
  vp::obj::ChipRequirements declared;
  Loc chip_loc;  // of the last .chip line, for the check against what is used
};

class Program {
 public:
  explicit Program(Diagnostics& diag) : diag_(diag) {}

  Mode mode() const { return mode_; }
  void set_mode(Mode m) { mode_ = m; }
  // The core whose text and labels are current (-1: none yet).
  int current_core() const { return cur_core_; }

  // Makes core `id` current, opening its text the first time (reopening a
  // core appends). Closes an open cell program. True when the core is new.
  bool select_core(vp::obj::CoreId id);
  CoreBuild& core(int index) { return cores_[static_cast<size_t>(index)]; }
  const std::vector<CoreBuild>& cores() const { return cores_; }
  std::vector<CoreBuild>& cores() { return cores_; }
  // Core id -> index, in core order (control processor first).
  const std::map<vp::obj::CoreId, int>& core_index() const { return core_index_; }

  // Ends an open cell program, checking that its size is ROWS*COLS.
  void close_cells();
  // Starts a data segment or cell program; following lines fill it.
  void open_segment(SegBuild s);
  void open_cells(CellBuild c);
  std::vector<SegBuild>& segments() { return segs_; }
  const std::vector<SegBuild>& segments() const { return segs_; }
  std::vector<CellBuild>& cells() { return cells_; }
  const std::vector<CellBuild>& cells() const { return cells_; }

  // The bytes literal data (.byte, .space, ...) on a line at `here`
  // appends to, or nullptr outside a data section or cell program.
  std::vector<uint8_t>* literal_target(const Loc& here);
  // An .incbin view, added to the open data segment or cell program.
  void append_view(Piece piece, const Loc& here);
  // Counts n more literal bytes; false when that passes `limit`.
  bool take_literal_bytes(uint64_t n, uint64_t limit);

  // The file mapped once per run and kept alive with the object; throws
  // vp::obj::ObjectError when it cannot be mapped.
  std::shared_ptr<const vp::obj::MappedFile> map(const std::string& path);
  // What keeps the object's views alive: literal buffers and file maps.
  const std::shared_ptr<vp::obj::BackingSet>& backing() const { return backing_; }

  Metadata meta;

 private:
  Diagnostics& diag_;
  std::vector<CoreBuild> cores_;
  std::map<vp::obj::CoreId, int> core_index_;
  int cur_core_ = -1;
  Mode mode_ = Mode::None;
  std::vector<SegBuild> segs_;
  std::vector<CellBuild> cells_;
  uint64_t literal_bytes_ = 0;
  std::map<std::string, std::shared_ptr<const vp::obj::MappedFile>> maps_;
  std::shared_ptr<vp::obj::BackingSet> backing_ = std::make_shared<vp::obj::BackingSet>();
};

}  // namespace vp::as::detail
