// .data and the literal data that fills a segment, .incbin views, and
// .xbar cell programs (whose level bytes come from .byte, .space and
// .incbin lines).
#include <climits>
#include <exception>
#include <memory>
#include <vector>

#include "directives.h"

namespace vp::as::detail {
namespace {

using vp::obj::CoreId;
using vp::obj::DataSegment;

// The bytes literal data on this line goes to, or nullptr (reported).
std::vector<uint8_t>* literal_target(Assembly& a, const char* at, const char* what) {
  std::vector<uint8_t>* out = a.program.literal_target(a.line.loc);
  if (!out)
    a.error_at(at, std::string(what) + " outside a data section (start one with .data global|sram|local, ...)");
  return out;
}

// Counts n literal bytes against Options::max_literal_bytes.
bool budget(Assembly& a, const char* at, uint64_t n) {
  if (a.program.take_literal_bytes(n, a.opt.max_literal_bytes)) return true;
  a.error_at(at, "more than " + std::to_string(a.opt.max_literal_bytes) + " bytes of literal data");
  return false;
}

}  // namespace

void dir_data(Assembly& a, const char* at, const char* p, const char* e) {
  if (!a.split(p, e)) return;
  a.program.close_cells();
  a.program.set_mode(Mode::None);  // until the directive is known to be good
  if (a.ops.empty()) {
    a.error_at(at, ".data expects global, ADDR | sram, CLUSTER, ADDR | local, ADDR");
    return;
  }
  SegBuild s;
  int64_t addr = 0, cl = 0;
  const std::string_view kind = a.ops[0].text;
  if (iequals(kind, "global")) {
    if (!expect_count(a, ".data global", at, 2, 2, "global, ADDR")) return;
    if (!now(a, a.ops[1], 0, INT64_MAX, "address", &addr)) return;
    s.space = DataSegment::Space::Global;
  } else if (iequals(kind, "sram")) {
    if (!expect_count(a, ".data sram", at, 3, 3, "sram, CLUSTER, ADDR")) return;
    if (!now(a, a.ops[1], 0, INT32_MAX, "cluster", &cl) || !now(a, a.ops[2], 0, INT64_MAX, "address", &addr)) return;
    s.space = DataSegment::Space::Sram;
    s.core = CoreId{static_cast<int32_t>(cl), -1};
  } else if (iequals(kind, "local")) {
    if (!expect_count(a, ".data local", at, 2, 2, "local, ADDR")) return;
    if (a.program.current_core() < 0) {
      a.error_at(at, ".data local with no core selected (local is the scratchpad of the current core)");
      return;
    }
    if (!now(a, a.ops[1], 0, INT64_MAX, "address", &addr)) return;
    s.space = DataSegment::Space::Local;
    s.core = a.program.core(a.program.current_core()).id;
  } else {
    a.error_at(a.ops[0].at, "expected global, sram or local for .data, got " + quote(kind));
    return;
  }
  s.address = static_cast<uint64_t>(addr);
  s.loc = a.line.loc;
  a.program.open_segment(std::move(s));
}

void data_values(Assembly& a, int size, const char* at, const char* p, const char* e) {
  static const char* const names[] = {"", ".byte", ".half", "", ".word", "", "", "", ".dword"};
  const char* name = names[size];
  const bool cells = a.program.mode() == Mode::Xbar;
  if (cells && size != 1) {
    a.error_at(at, std::string(name) + " inside a cell program (level bytes are given with .byte or .incbin)");
    return;
  }
  std::vector<uint8_t>* out = literal_target(a, at, name);
  if (!out) return;
  if (!a.split(p, e)) return;
  if (a.ops.empty()) {
    a.error_at(at, std::string(name) + " expects a list of expressions");
    return;
  }
  if (!budget(a, at, a.ops.size() * static_cast<uint64_t>(size))) return;
  // Signed or unsigned values fit; cell levels are never negative.
  const int64_t lo = cells ? 0 : (size == 8 ? INT64_MIN : -(int64_t{1} << (8 * size - 1)));
  const int64_t hi = size == 8 ? INT64_MAX : (int64_t{1} << (8 * size)) - 1;
  out->reserve(out->size() + a.ops.size() * static_cast<size_t>(size));
  for (const Operand& o : a.ops) {
    int64_t v = 0;
    const uint64_t off = out->size();
    // A cell program's size is checked when it ends, so its levels are
    // needed now; data values may name later labels.
    const Ev r = a.eval(o.at, o.at + o.text.size(), &v, cells);
    if (r == Ev::Unresolved) {
      Fixup fx;
      fx.kind = Fixup::Data;
      fx.core = a.program.current_core();
      fx.seg = a.program.segments().size() - 1;
      fx.offset = off;
      fx.size = static_cast<uint8_t>(size);
      fx.lo = lo;
      fx.hi = hi;
      fx.b = o.at;
      fx.e = o.at + o.text.size();
      fx.line = a.line;
      a.fixups.add(fx);
    } else if (r == Ev::Ok && (v < lo || v > hi)) {
      a.error_at(o.at, std::string(cells ? "cell level " : "value ") + std::to_string(v) + " out of range for " +
                           name + " (expected " + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    }
    const auto u = static_cast<uint64_t>(r == Ev::Ok ? v : 0);
    for (int i = 0; i < size; ++i) out->push_back(static_cast<uint8_t>(u >> (8 * i)));
  }
}

void dir_space(Assembly& a, const char* at, const char* p, const char* e) {
  std::vector<uint8_t>* out = literal_target(a, at, ".space");
  if (!out || !a.split(p, e) || !expect_count(a, ".space", at, 1, 2, "N[, FILL]")) return;
  int64_t n = 0, fill = 0;
  if (!now(a, a.ops[0], 0, INT64_MAX, "size", &n)) return;
  if (a.ops.size() == 2 && !now(a, a.ops[1], a.program.mode() == Mode::Xbar ? 0 : -128, 255, "fill byte", &fill))
    return;
  if (!budget(a, at, static_cast<uint64_t>(n))) return;
  out->resize(out->size() + static_cast<size_t>(n), static_cast<uint8_t>(fill));
}

void dir_align(Assembly& a, const char* at, const char* p, const char* e) {
  if (a.program.mode() != Mode::Data) {
    a.error_at(at, ".align outside a data section");
    return;
  }
  if (!a.split(p, e) || !expect_count(a, ".align", at, 1, 1, "a power of two")) return;
  int64_t n = 0;
  if (!now(a, a.ops[0], 1, int64_t{1} << 20, "alignment", &n)) return;
  if (n & (n - 1)) {
    a.error_at(a.ops[0].at, ".align " + std::to_string(n) + " is not a power of two");
    return;
  }
  std::vector<uint8_t>* out = literal_target(a, at, ".align");
  // Alignment is of the address in the memory, not of the segment's size.
  const SegBuild& s = a.program.segments().back();
  const uint64_t here = s.address + out->size();
  const uint64_t pad = (static_cast<uint64_t>(n) - here % static_cast<uint64_t>(n)) % static_cast<uint64_t>(n);
  if (!budget(a, at, pad)) return;
  out->resize(out->size() + pad, 0);
}

void dir_ascii(Assembly& a, const char* at, const char* p, const char* e, bool nul) {
  const char* name = nul ? ".asciz" : ".ascii";
  if (a.program.mode() == Mode::Xbar) {
    a.error_at(at, std::string(name) + " inside a cell program");
    return;
  }
  std::vector<uint8_t>* out = literal_target(a, at, name);
  if (!out || !a.split(p, e)) return;
  if (a.ops.empty()) {
    a.error_at(at, std::string(name) + " expects quoted strings");
    return;
  }
  std::string s;
  for (const Operand& o : a.ops) {
    if (!string_operand(a, o, "string", &s)) return;
    if (!budget(a, at, s.size() + 1)) return;
    out->insert(out->end(), s.begin(), s.end());
    if (nul) out->push_back(0);
  }
}

void dir_incbin(Assembly& a, const char* at, const char* p, const char* e) {
  if (a.program.mode() != Mode::Data && a.program.mode() != Mode::Xbar) {
    a.error_at(at, ".incbin outside a data section or cell program");
    return;
  }
  if (!a.split(p, e) || !expect_count(a, ".incbin", at, 1, 3, "\"FILE\"[, OFFSET[, LENGTH]]")) return;
  std::string name;
  if (!string_operand(a, a.ops[0], "file name", &name)) return;
  int64_t off = 0, len = -1;
  if (a.ops.size() >= 2 && !now(a, a.ops[1], 0, INT64_MAX, "offset", &off)) return;
  if (a.ops.size() == 3 && !now(a, a.ops[2], 0, INT64_MAX, "length", &len)) return;
  const std::string path = a.sources.resolve(name, a.line.loc.file, a.opt.include_dirs);
  if (path.empty()) {
    a.error_at(a.ops[0].at, "cannot find .incbin file " + quote(name));
    return;
  }
  std::shared_ptr<const vp::obj::MappedFile> m;
  try {
    m = a.program.map(path);
  } catch (const std::exception& ex) {
    a.error_at(a.ops[0].at, std::string("cannot read .incbin file: ") + ex.what());
    return;
  }
  const auto uoff = static_cast<uint64_t>(off);
  if (uoff > m->size) {
    a.error_at(a.ops[1].at, ".incbin offset " + std::to_string(off) + " beyond the end of " + quote(name) + " (" +
                                std::to_string(m->size) + " bytes)");
    return;
  }
  const uint64_t n = len < 0 ? m->size - uoff : static_cast<uint64_t>(len);
  if (n > m->size - uoff) {
    a.error_at(a.ops[2].at, ".incbin length " + std::to_string(n) + " beyond the end of " + quote(name) + " (" +
                                std::to_string(m->size - uoff) + " bytes after the offset)");
    return;
  }
  if (n == 0) return;
  Piece piece;
  piece.is_view = true;
  piece.view = vp::obj::Bytes{m->data + uoff, n};
  a.program.append_view(std::move(piece), a.line.loc);
}

void dir_xbar(Assembly& a, const char* at, const char* p, const char* e) {
  a.program.close_cells();
  a.program.set_mode(Mode::None);
  if (!a.split(p, e) || !expect_count(a, ".xbar", at, 7, 7, "CLUSTER, CU, XBAR, ROW0, COL0, ROWS, COLS")) return;
  int64_t v[7];
  static const char* const what[7] = {"cluster", "CU", "crossbar", "first row", "first column", "rows", "columns"};
  static const int64_t hi[7] = {INT32_MAX, INT32_MAX, 255, 1 << 20, 1 << 20, 1 << 20, 1 << 20};
  for (int i = 0; i < 7; ++i)
    if (!now(a, a.ops[static_cast<size_t>(i)], i >= 5 ? 1 : 0, hi[i], what[i], &v[i])) return;
  CellBuild c;
  c.hdr.cluster = static_cast<int32_t>(v[0]);
  c.hdr.cu = static_cast<int32_t>(v[1]);
  c.hdr.xbar = static_cast<int32_t>(v[2]);
  c.hdr.row0 = static_cast<uint32_t>(v[3]);
  c.hdr.col0 = static_cast<uint32_t>(v[4]);
  c.hdr.rows = static_cast<uint32_t>(v[5]);
  c.hdr.cols = static_cast<uint32_t>(v[6]);
  c.loc = a.line.at(at);  // the size error points at the .xbar line
  a.program.open_cells(std::move(c));
}

}  // namespace vp::as::detail
