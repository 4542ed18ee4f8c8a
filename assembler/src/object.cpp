// The .vpo object format: ELF64 little-endian written and read by hand.
// Layout and every record are described in docs/object-format.md.
//
// The loader treats the file as hostile: every offset and size is checked
// against the file (without overflow), every string table must end in NUL,
// every cell program must lie inside .vp.levels and every instruction word
// must decode. Failures throw ObjectError naming the file and the section
// or field; nothing is read out of bounds.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <string_view>

#include "vp/isa/isa.h"
#include "vp/obj/object.h"

namespace vp::obj {
namespace {

// ---- ELF constants (the subset we use) --------------------------------------
constexpr uint32_t kShtNull = 0, kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3;
constexpr uint64_t kShfWrite = 1, kShfAlloc = 2, kShfExec = 4;
constexpr uint64_t kEhdrSize = 64, kShdrSize = 64, kSymSize = 24;
constexpr uint8_t kSttFunc = 2, kStbLocal = 0, kStbGlobal = 1;

// ---- little-endian helpers ---------------------------------------------------
void put16(std::vector<uint8_t>& v, uint16_t x) {
  v.push_back(static_cast<uint8_t>(x));
  v.push_back(static_cast<uint8_t>(x >> 8));
}
void put32(std::vector<uint8_t>& v, uint32_t x) {
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}
void put64(std::vector<uint8_t>& v, uint64_t x) {
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<uint8_t>(x >> (8 * i)));
}
uint16_t get16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
uint32_t get32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
uint64_t get64(const uint8_t* p) { return uint64_t{get32(p)} | (uint64_t{get32(p + 4)} << 32); }

uint64_t align8(uint64_t x) { return (x + 7) & ~uint64_t{7}; }

// .vp.io dtype codes; the index is the on-disk code (never renumber).
struct IoType {
  const char* name;
  uint64_t size;
};
constexpr IoType kIoTypes[] = {{"int8", 1}, {"uint8", 1}, {"int16", 2}, {"int32", 4}, {"float32", 4}};
constexpr uint32_t kIoTypeCount = sizeof kIoTypes / sizeof kIoTypes[0];

int io_type_code(const std::string& dtype) {
  for (uint32_t i = 0; i < kIoTypeCount; ++i)
    if (dtype == kIoTypes[i].name) return static_cast<int>(i);
  return -1;
}

// bytes == product(shape) * element size, without overflow.
bool io_size_matches(const IoBinding& b, uint64_t esize) {
  if (b.shape.empty()) return true;
  uint64_t n = esize;
  for (uint64_t d : b.shape) {
    if (d == 0 || n > UINT64_MAX / d) return false;
    n *= d;
  }
  return n == b.bytes;
}

// ---- writer -------------------------------------------------------------------
struct Piece {
  const uint8_t* data;
  uint64_t size;
};

struct OutSection {
  std::string name;
  uint32_t type = kShtProgbits;
  uint64_t flags = 0, addr = 0, align = 8, entsize = 0;
  uint32_t link = 0, info = 0, name_off = 0;
  std::vector<uint8_t> owned;   // small sections are built here
  std::vector<Piece> pieces;    // large ones are views, each padded to 8
  uint64_t offset = 0, size = 0;
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void put(const uint8_t* p, uint64_t n) = 0;
  void zeros(uint64_t n) {
    static const uint8_t kZero[64] = {};
    while (n) {
      const uint64_t k = std::min<uint64_t>(n, sizeof kZero);
      put(kZero, k);
      n -= k;
    }
  }
};

class VectorSink : public Sink {
 public:
  std::vector<uint8_t> out;
  void put(const uint8_t* p, uint64_t n) override { out.insert(out.end(), p, p + n); }
};

// Buffers small writes; large views go to write(2) directly, never copied.
class FileSink : public Sink {
 public:
  FileSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) { buf_.reserve(kBuf); }
  void put(const uint8_t* p, uint64_t n) override {
    if (n >= kBuf) {
      flush();
      raw(p, n);
      return;
    }
    if (buf_.size() + n > kBuf) flush();
    buf_.insert(buf_.end(), p, p + n);
  }
  void flush() {
    raw(buf_.data(), buf_.size());
    buf_.clear();
  }

 private:
  static constexpr uint64_t kBuf = 1 << 20;
  void raw(const uint8_t* p, uint64_t n) {
    while (n) {
      const ssize_t k = ::write(fd_, p, std::min<uint64_t>(n, uint64_t{1} << 30));
      if (k < 0) {
        if (errno == EINTR) continue;
        throw ObjectError(path_ + ": write failed: " + std::strerror(errno));
      }
      p += k;
      n -= static_cast<uint64_t>(k);
    }
  }
  int fd_;
  std::string path_;
  std::vector<uint8_t> buf_;
};

std::string core_suffix(CoreId c) {
  return c.is_control() ? "cp" : "c" + std::to_string(c.cluster) + "." + std::to_string(c.cu);
}

void emit(const Object& obj, Sink& sink) {
  std::vector<OutSection> secs(1);  // [0] is the null section
  secs[0].type = kShtNull;
  secs[0].align = 0;

  // Texts in canonical (core) order.
  std::vector<const CoreText*> texts;
  for (const auto& t : obj.texts) texts.push_back(&t);
  std::sort(texts.begin(), texts.end(), [](const CoreText* a, const CoreText* b) { return a->core < b->core; });
  std::map<CoreId, uint32_t> text_index;
  std::map<CoreId, uint64_t> text_words;
  for (const CoreText* t : texts) {
    if (t->core.is_control() ? (t->core.cluster != -1 || t->core.cu != -1) : t->core.cu < 0)
      throw ObjectError("write: bad core id");
    if (text_index.count(t->core)) throw ObjectError("write: two texts for " + text_section_name(t->core));
    if (t->words.empty() ? t->entry != 0 : t->entry >= t->words.size())
      throw ObjectError("write: entry of " + text_section_name(t->core) + " outside its text");
    OutSection s;
    s.name = text_section_name(t->core);
    s.flags = kShfAlloc | kShfExec;
    s.entsize = 8;
    s.owned.reserve(t->words.size() * 8);
    for (uint64_t w : t->words) put64(s.owned, w);
    text_index[t->core] = static_cast<uint32_t>(secs.size());
    text_words[t->core] = t->words.size();
    secs.push_back(std::move(s));
  }
  for (const auto& d : obj.data) {
    if (d.bytes.size && !d.bytes.data) throw ObjectError("write: data segment without bytes");
    if (d.address + d.bytes.size < d.address) throw ObjectError("write: data segment wraps the address space");
    OutSection s;
    s.name = data_section_name(d);
    s.flags = kShfAlloc | kShfWrite;
    s.addr = d.address;
    s.align = 1;
    if (d.bytes.size) s.pieces.push_back({d.bytes.data, d.bytes.size});
    secs.push_back(std::move(s));
  }
  {  // cells + levels
    OutSection cells, levels;
    cells.name = ".vp.cells";
    cells.entsize = kCellRecordSize;
    levels.name = ".vp.levels";
    uint64_t off = 0;
    for (const auto& c : obj.cells) {
      const uint64_t n = uint64_t{c.rows} * c.cols;
      if (n == 0 || c.levels.size != n || !c.levels.data)
        throw ObjectError("write: cell program size does not match rows*cols");
      put32(cells.owned, static_cast<uint32_t>(c.cluster));
      put32(cells.owned, static_cast<uint32_t>(c.cu));
      put32(cells.owned, static_cast<uint32_t>(c.xbar));
      put32(cells.owned, c.row0);
      put32(cells.owned, c.col0);
      put32(cells.owned, c.rows);
      put32(cells.owned, c.cols);
      put32(cells.owned, 0);
      put64(cells.owned, off);
      levels.pieces.push_back({c.levels.data, n});
      off = align8(off + n);
    }
    secs.push_back(std::move(cells));
    secs.push_back(std::move(levels));
  }
  {  // cores
    OutSection s;
    s.name = ".vp.cores";
    s.entsize = kCoreRecordSize;
    for (const CoreText* t : texts) {
      put32(s.owned, static_cast<uint32_t>(t->core.cluster));
      put32(s.owned, static_cast<uint32_t>(t->core.cu));
      put32(s.owned, text_index[t->core]);
      put32(s.owned, t->entry);
    }
    secs.push_back(std::move(s));
  }
  {  // meta
    OutSection s;
    s.name = ".vp.meta";
    std::vector<uint8_t> strings;
    std::vector<uint8_t> table;
    for (const auto& [id, name] : obj.layer_names) {
      if (name.find('\0') != std::string::npos) throw ObjectError("write: layer name contains NUL");
      put32(table, id);
      put32(table, static_cast<uint32_t>(strings.size()));
      strings.insert(strings.end(), name.begin(), name.end());
      strings.push_back(0);
    }
    put32(s.owned, kFormatVersion);
    const ChipRequirements& c = obj.chip;
    for (uint32_t v : {c.clusters, c.cus_per_cluster, c.xbars_per_cu, c.rows, c.cols, c.cell_bits}) put32(s.owned, v);
    put32(s.owned, static_cast<uint32_t>(obj.layer_names.size()));
    put32(s.owned, static_cast<uint32_t>(strings.size()));
    put32(s.owned, 0);
    s.owned.insert(s.owned.end(), table.begin(), table.end());
    s.owned.insert(s.owned.end(), strings.begin(), strings.end());
    secs.push_back(std::move(s));
  }
  if (!obj.io.empty()) {  // io bindings, declaration order
    OutSection s;
    s.name = ".vp.io";
    std::vector<uint8_t> records, dims, strings;
    for (const IoBinding& b : obj.io) {
      const int code = io_type_code(b.dtype);
      if (code < 0) throw ObjectError("write: io binding " + b.name + " has unknown dtype " + b.dtype);
      if (b.name.empty() || b.name.find('\0') != std::string::npos)
        throw ObjectError("write: bad io binding name");
      if (!io_size_matches(b, kIoTypes[code].size))
        throw ObjectError("write: io binding " + b.name + " size does not match its shape");
      put32(records, b.output ? 1 : 0);
      put32(records, static_cast<uint32_t>(strings.size()));
      put64(records, b.address);
      put64(records, b.bytes);
      put32(records, static_cast<uint32_t>(code));
      put32(records, static_cast<uint32_t>(b.shape.size()));
      put32(records, static_cast<uint32_t>(dims.size() / 8));
      put32(records, 0);
      for (uint64_t d : b.shape) put64(dims, d);
      strings.insert(strings.end(), b.name.begin(), b.name.end());
      strings.push_back(0);
    }
    put32(s.owned, static_cast<uint32_t>(obj.io.size()));
    put32(s.owned, static_cast<uint32_t>(dims.size() / 8));
    put32(s.owned, static_cast<uint32_t>(strings.size()));
    put32(s.owned, 0);
    s.owned.insert(s.owned.end(), records.begin(), records.end());
    s.owned.insert(s.owned.end(), dims.begin(), dims.end());
    s.owned.insert(s.owned.end(), strings.begin(), strings.end());
    secs.push_back(std::move(s));
  }
  {  // symbols, canonical order
    std::vector<const Symbol*> syms;
    for (const auto& s : obj.symbols) syms.push_back(&s);
    std::sort(syms.begin(), syms.end(), [](const Symbol* a, const Symbol* b) {
      if (!(a->core == b->core)) return a->core < b->core;
      if (a->value != b->value) return a->value < b->value;
      return a->name < b->name;
    });
    OutSection symtab, strtab;
    symtab.name = ".symtab";
    symtab.type = kShtSymtab;
    symtab.entsize = kSymSize;
    strtab.name = ".strtab";
    strtab.type = kShtStrtab;
    strtab.align = 1;
    strtab.owned.push_back(0);
    symtab.owned.resize(kSymSize, 0);  // symbol 0
    for (const Symbol* s : syms) {
      auto it = text_index.find(s->core);
      if (it == text_index.end()) throw ObjectError("write: symbol " + s->name + " names a core without text");
      if (s->value > text_words[s->core]) throw ObjectError("write: symbol " + s->name + " beyond its text");
      if (s->name.empty() || s->name.find('\0') != std::string::npos)
        throw ObjectError("write: bad symbol name");
      put32(symtab.owned, static_cast<uint32_t>(strtab.owned.size()));
      symtab.owned.push_back(static_cast<uint8_t>((kStbLocal << 4) | kSttFunc));
      symtab.owned.push_back(0);
      put16(symtab.owned, static_cast<uint16_t>(it->second));
      put64(symtab.owned, uint64_t{s->value} * 8);
      put64(symtab.owned, 0);
      strtab.owned.insert(strtab.owned.end(), s->name.begin(), s->name.end());
      strtab.owned.push_back(0);
    }
    symtab.link = static_cast<uint32_t>(secs.size() + 1);
    symtab.info = static_cast<uint32_t>(syms.size() + 1);  // all symbols are local
    secs.push_back(std::move(symtab));
    secs.push_back(std::move(strtab));
  }
  OutSection shstr;
  shstr.name = ".shstrtab";
  shstr.type = kShtStrtab;
  shstr.align = 1;
  secs.push_back(std::move(shstr));
  if (secs.size() >= 0xff00) throw ObjectError("write: too many sections");
  {
    // Section names, deduplicated so repeated data names share one string.
    auto& st = secs.back().owned;
    st.push_back(0);
    std::map<std::string, uint32_t> seen;
    for (auto& s : secs) {
      if (s.type == kShtNull) continue;
      auto [it, fresh] = seen.emplace(s.name, static_cast<uint32_t>(st.size()));
      if (fresh) {
        st.insert(st.end(), s.name.begin(), s.name.end());
        st.push_back(0);
      }
      s.name_off = it->second;
    }
  }

  // Layout: header, then section contents 8-aligned, then the section table.
  uint64_t pos = kEhdrSize;
  for (auto& s : secs) {
    if (s.type == kShtNull) continue;
    pos = align8(pos);
    s.offset = pos;
    s.size = s.owned.size();
    for (size_t i = 0; i < s.pieces.size(); ++i)
      s.size = (i + 1 < s.pieces.size() ? align8(s.size + s.pieces[i].size) : s.size + s.pieces[i].size);
    pos += s.size;
  }
  const uint64_t shoff = align8(pos);

  std::vector<uint8_t> eh;
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  eh.insert(eh.end(), ident, ident + 16);
  put16(eh, 2);         // ET_EXEC
  put16(eh, kMachine);  // e_machine
  put32(eh, 1);         // e_version
  put64(eh, 0);         // e_entry (per-core entries live in .vp.cores)
  put64(eh, 0);         // e_phoff
  put64(eh, shoff);     // e_shoff
  put32(eh, 0);         // e_flags
  put16(eh, kEhdrSize);
  put16(eh, 0);  // e_phentsize
  put16(eh, 0);  // e_phnum
  put16(eh, kShdrSize);
  put16(eh, static_cast<uint16_t>(secs.size()));
  put16(eh, static_cast<uint16_t>(secs.size() - 1));  // .shstrtab is last
  sink.put(eh.data(), eh.size());

  uint64_t at = kEhdrSize;
  for (auto& s : secs) {
    if (s.type == kShtNull) continue;
    sink.zeros(s.offset - at);
    at = s.offset;
    if (!s.owned.empty()) sink.put(s.owned.data(), s.owned.size());
    at += s.owned.size();
    for (size_t i = 0; i < s.pieces.size(); ++i) {
      sink.put(s.pieces[i].data, s.pieces[i].size);
      at += s.pieces[i].size;
      if (i + 1 < s.pieces.size()) {
        sink.zeros(align8(at - s.offset) + s.offset - at);
        at = align8(at - s.offset) + s.offset;
      }
    }
  }
  sink.zeros(shoff - at);
  std::vector<uint8_t> sh;
  sh.reserve(secs.size() * kShdrSize);
  for (const auto& s : secs) {
    if (s.type == kShtNull) {
      sh.resize(sh.size() + kShdrSize, 0);
      continue;
    }
    put32(sh, s.name_off);
    put32(sh, s.type);
    put64(sh, s.flags);
    put64(sh, s.addr);
    put64(sh, s.offset);
    put64(sh, s.size);
    put32(sh, s.link);
    put32(sh, s.info);
    put64(sh, s.align);
    put64(sh, s.entsize);
  }
  sink.put(sh.data(), sh.size());
}

// ---- loader -------------------------------------------------------------------
struct InSection {
  std::string name;
  uint32_t type;
  uint64_t flags, addr, offset, size, entsize;
  uint32_t link, info;
  const uint8_t* data;
};

// Parses a decimal int32 >= 0 from `s` starting at *pos; no sign, no overflow.
bool parse_index(std::string_view s, size_t* pos, int32_t* out) {
  size_t i = *pos;
  int64_t v = 0;
  if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
  if (s[i] == '0' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') return false;  // no leading zeros
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    v = v * 10 + (s[i] - '0');
    if (v > INT32_MAX) return false;
    ++i;
  }
  *pos = i;
  *out = static_cast<int32_t>(v);
  return true;
}

bool parse_core_suffix(std::string_view s, CoreId* core) {
  if (s == "cp") {
    *core = CoreId{-1, -1};
    return true;
  }
  if (s.empty() || s[0] != 'c') return false;
  size_t pos = 1;
  CoreId c;
  if (!parse_index(s, &pos, &c.cluster) || pos >= s.size() || s[pos] != '.') return false;
  ++pos;
  if (!parse_index(s, &pos, &c.cu) || pos != s.size()) return false;
  *core = c;
  return true;
}

class Loader {
 public:
  Loader(const uint8_t* data, uint64_t size, std::string name) : d_(data), n_(size), file_(std::move(name)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw ObjectError(file_ + ": " + (where.empty() ? "" : where + ": ") + what);
  }

  // True when [off, off+len) lies inside [0, limit), computed without overflow.
  static bool inside(uint64_t off, uint64_t len, uint64_t limit) { return off <= limit && len <= limit - off; }

  std::vector<SectionInfo> table() {
    read_header();
    read_sections();
    std::vector<SectionInfo> out;
    for (uint32_t i = 0; i < secs_.size(); ++i) {
      const InSection& s = secs_[i];
      out.push_back(SectionInfo{i, i ? s.name : std::string(), s.type, s.flags, s.addr, s.offset, s.size});
    }
    return out;
  }

  Object run(std::shared_ptr<const void> backing) {
    Object obj;
    obj.backing = std::move(backing);
    read_header();
    read_sections();

    const InSection* cores = nullptr;
    const InSection* cells = nullptr;
    const InSection* levels = nullptr;
    const InSection* meta = nullptr;
    const InSection* io = nullptr;
    const InSection* symtab = nullptr;
    std::map<uint32_t, CoreId> text_sections;  // section index -> core
    std::map<CoreId, uint32_t> core_sections;
    auto unique = [&](const InSection*& slot, const InSection& s) {
      if (slot) fail("section " + s.name, "appears twice");
      slot = &s;
    };
    for (uint32_t i = 1; i < secs_.size(); ++i) {
      const InSection& s = secs_[i];
      const std::string where = "section " + s.name;
      std::string_view nm = s.name;
      if (nm.substr(0, 6) == ".text.") {
        CoreId c;
        if (!parse_core_suffix(nm.substr(6), &c)) fail(where, "malformed text section name");
        if (s.type != kShtProgbits) fail(where, "text section is not PROGBITS");
        if (s.size % 8) fail(where, "size " + std::to_string(s.size) + " is not a multiple of 8");
        if (!core_sections.emplace(c, i).second) fail(where, "two text sections for one core");
        text_sections[i] = c;
      } else if (nm.substr(0, 6) == ".data.") {
        DataSegment seg;
        std::string_view rest = nm.substr(6);
        if (rest == "global") {
          seg.space = DataSegment::Space::Global;
        } else if (rest.substr(0, 4) == "sram") {
          seg.space = DataSegment::Space::Sram;
          size_t pos = 4;
          if (!parse_index(rest, &pos, &seg.core.cluster) || pos != rest.size())
            fail(where, "malformed data section name");
        } else if (parse_core_suffix(rest, &seg.core) && !seg.core.is_control()) {
          seg.space = DataSegment::Space::Local;
        } else if (rest == "cp") {
          seg.space = DataSegment::Space::Local;
          seg.core = CoreId{-1, -1};
        } else {
          fail(where, "malformed data section name");
        }
        if (s.type != kShtProgbits) fail(where, "data section is not PROGBITS");
        if (s.addr + s.size < s.addr) fail(where, "address + size wraps");
        seg.address = s.addr;
        seg.bytes = Bytes{s.size ? s.data : nullptr, s.size};
        obj.data.push_back(seg);
      } else if (nm == ".vp.cells") {
        unique(cells, s);
      } else if (nm == ".vp.levels") {
        unique(levels, s);
      } else if (nm == ".vp.cores") {
        unique(cores, s);
      } else if (nm == ".vp.meta") {
        unique(meta, s);
      } else if (nm == ".vp.io") {
        unique(io, s);
      } else if (nm == ".symtab") {
        unique(symtab, s);
      } else if (nm == ".strtab" || nm == ".shstrtab") {
        if (s.type != kShtStrtab) fail(where, "not a string table");
      } else {
        fail(where, "unknown section");
      }
    }
    if (!meta) fail("", "missing section .vp.meta");
    if (!cores) fail("", "missing section .vp.cores");
    for (const InSection* s : {meta, cores})
      if (s->type != kShtProgbits) fail("section " + s->name, "is not PROGBITS");

    read_meta(*meta, obj);
    if (io) read_io(*io, obj);

    // Cores: one record per text section.
    {
      const std::string where = "section .vp.cores";
      if (cores->size % kCoreRecordSize) fail(where, "size is not a multiple of " + std::to_string(kCoreRecordSize));
      const uint64_t count = cores->size / kCoreRecordSize;
      if (count != text_sections.size())
        fail(where, std::to_string(count) + " records for " + std::to_string(text_sections.size()) + " text sections");
      std::set<uint32_t> seen;
      for (uint64_t r = 0; r < count; ++r) {
        const uint8_t* p = cores->data + r * kCoreRecordSize;
        const std::string rw = where + " record " + std::to_string(r);
        CoreId c{static_cast<int32_t>(get32(p)), static_cast<int32_t>(get32(p + 4))};
        const uint32_t shndx = get32(p + 8), entry = get32(p + 12);
        auto it = text_sections.find(shndx);
        if (it == text_sections.end()) fail(rw, "section index " + std::to_string(shndx) + " is not a text section");
        if (!(it->second == c)) fail(rw, "core does not match section " + secs_[shndx].name);
        if (!seen.insert(shndx).second) fail(rw, "text section listed twice");
        CoreText t;
        t.core = c;
        t.entry = entry;
        const InSection& ts = secs_[shndx];
        const uint64_t words = ts.size / 8;
        if (words ? entry >= words : entry != 0)
          fail(rw, "entry " + std::to_string(entry) + " outside the " + std::to_string(words) + "-word text");
        t.words.resize(words);
        for (uint64_t w = 0; w < words; ++w) {
          const uint64_t word = get64(ts.data + w * 8);
          std::string why;
          if (!vp::isa::decode(word, &why))
            fail("section " + ts.name, "word " + std::to_string(w) + " does not decode: " + why);
          t.words[w] = word;
        }
        obj.texts.push_back(std::move(t));
      }
      std::sort(obj.texts.begin(), obj.texts.end(),
                [](const CoreText& a, const CoreText& b) { return a.core < b.core; });
    }

    // Cell programs.
    if (cells || levels) {
      if (!cells || !levels) fail("", ".vp.cells and .vp.levels come together");
      if (cells->type != kShtProgbits || levels->type != kShtProgbits)
        fail("section .vp.cells", "cell sections are not PROGBITS");
      const std::string where = "section .vp.cells";
      if (cells->size % kCellRecordSize) fail(where, "size is not a multiple of " + std::to_string(kCellRecordSize));
      const uint64_t count = cells->size / kCellRecordSize;
      obj.cells.reserve(count);
      for (uint64_t r = 0; r < count; ++r) {
        const uint8_t* p = cells->data + r * kCellRecordSize;
        const std::string rw = where + " record " + std::to_string(r);
        CellProgram c;
        c.cluster = static_cast<int32_t>(get32(p));
        c.cu = static_cast<int32_t>(get32(p + 4));
        c.xbar = static_cast<int32_t>(get32(p + 8));
        c.row0 = get32(p + 12);
        c.col0 = get32(p + 16);
        c.rows = get32(p + 20);
        c.cols = get32(p + 24);
        const uint32_t reserved = get32(p + 28);
        const uint64_t off = get64(p + 32);
        if (c.cluster < 0 || c.cu < 0 || c.xbar < 0) fail(rw, "negative cluster, cu or crossbar");
        if (reserved) fail(rw, "reserved field is not zero");
        if (c.rows == 0 || c.cols == 0) fail(rw, "empty rectangle (rows or cols is 0)");
        if (uint64_t{c.row0} + c.rows > UINT32_MAX || uint64_t{c.col0} + c.cols > UINT32_MAX)
          fail(rw, "rectangle exceeds 32-bit coordinates");
        const uint64_t n = uint64_t{c.rows} * c.cols;
        if (off % 8) fail(rw, "level offset " + std::to_string(off) + " is not 8-byte aligned");
        if (!inside(off, n, levels->size))
          fail(rw, "levels [" + std::to_string(off) + ", +" + std::to_string(n) + ") outside .vp.levels of " +
                       std::to_string(levels->size) + " bytes");
        c.levels = Bytes{levels->data + off, n};
        obj.cells.push_back(c);
      }
    }

    if (symtab) read_symbols(*symtab, text_sections, obj);
    return obj;
  }

 private:
  void read_header() {
    if (n_ < kEhdrSize) fail("ELF header", "file too short (" + std::to_string(n_) + " bytes)");
    if (std::memcmp(d_, "\x7f" "ELF", 4) != 0) fail("ELF header", "bad magic (not an ELF file)");
    if (d_[4] != 2) fail("ELF header", "not ELF64");
    if (d_[5] != 1) fail("ELF header", "not little-endian");
    if (d_[6] != 1) fail("ELF header", "bad ELF version");
    if (get16(d_ + 16) != 2) fail("ELF header", "e_type is not ET_EXEC");
    if (get16(d_ + 18) != kMachine) fail("ELF header", "e_machine is not the Sidra VP machine");
    if (get32(d_ + 20) != 1) fail("ELF header", "bad e_version");
    if (get16(d_ + 52) != kEhdrSize) fail("ELF header", "bad e_ehsize");
    shoff_ = get64(d_ + 40);
    if (get16(d_ + 58) != kShdrSize) fail("ELF header", "bad e_shentsize");
    shnum_ = get16(d_ + 60);
    shstrndx_ = get16(d_ + 62);
    if (shnum_ < 2) fail("ELF header", "no sections");
    if (!inside(shoff_, uint64_t{shnum_} * kShdrSize, n_)) fail("ELF header", "section table outside the file");
    if (shstrndx_ == 0 || shstrndx_ >= shnum_) fail("ELF header", "bad e_shstrndx");
  }

  void read_sections() {
    secs_.resize(shnum_);
    for (uint32_t i = 0; i < shnum_; ++i) {
      const uint8_t* p = d_ + shoff_ + uint64_t{i} * kShdrSize;
      InSection& s = secs_[i];
      s.type = get32(p + 4);
      s.flags = get64(p + 8);
      s.addr = get64(p + 16);
      s.offset = get64(p + 24);
      s.size = get64(p + 32);
      s.link = get32(p + 40);
      s.info = get32(p + 44);
      s.entsize = get64(p + 56);
      s.name = std::to_string(get32(p));  // resolved below
      if (i == 0) {
        if (s.type != kShtNull) fail("section 0", "is not SHT_NULL");
        continue;
      }
      if (s.type == kShtNull) fail("section " + std::to_string(i), "is SHT_NULL");
      if (!inside(s.offset, s.size, n_)) fail("section " + std::to_string(i), "contents outside the file");
      s.data = d_ + s.offset;
    }
    const InSection& strs = secs_[shstrndx_];
    if (strs.type != kShtStrtab) fail("section header string table", "is not SHT_STRTAB");
    check_strtab(strs, "section header string table");
    for (uint32_t i = 1; i < shnum_; ++i) {
      const uint32_t off = get32(d_ + shoff_ + uint64_t{i} * kShdrSize);
      secs_[i].name = string_at(strs, off, "section " + std::to_string(i) + " name");
    }
  }

  void check_strtab(const InSection& s, const std::string& where) const {
    if (s.size == 0 || s.data[0] != 0 || s.data[s.size - 1] != 0)
      fail(where, "string table does not start and end with NUL");
  }

  std::string string_at(const InSection& strs, uint64_t off, const std::string& where) const {
    if (off >= strs.size) fail(where, "string offset " + std::to_string(off) + " outside its string table");
    const char* p = reinterpret_cast<const char*>(strs.data + off);
    return std::string(p, strnlen(p, strs.size - off));  // NUL-terminated: checked by check_strtab
  }

  void read_meta(const InSection& m, Object& obj) const {
    const std::string where = "section .vp.meta";
    if (m.size < kMetaHeaderSize) fail(where, "too short");
    const uint8_t* p = m.data;
    const uint32_t version = get32(p);
    if (version != kFormatVersion)
      fail(where, "format version " + std::to_string(version) + " (this reader reads " +
                      std::to_string(kFormatVersion) + ")");
    ChipRequirements& c = obj.chip;
    c.clusters = get32(p + 4);
    c.cus_per_cluster = get32(p + 8);
    c.xbars_per_cu = get32(p + 12);
    c.rows = get32(p + 16);
    c.cols = get32(p + 20);
    c.cell_bits = get32(p + 24);
    const uint64_t nlayers = get32(p + 28), strsize = get32(p + 32);
    if (get32(p + 36)) fail(where, "reserved field is not zero");
    if (kMetaHeaderSize + nlayers * 8 + strsize != m.size) fail(where, "layer table size does not match the section");
    const uint8_t* strs = p + kMetaHeaderSize + nlayers * 8;
    if (strsize && strs[strsize - 1] != 0) fail(where, "layer names are not NUL-terminated");
    for (uint64_t i = 0; i < nlayers; ++i) {
      const uint32_t id = get32(p + kMetaHeaderSize + i * 8), off = get32(p + kMetaHeaderSize + i * 8 + 4);
      if (off >= strsize) fail(where, "layer " + std::to_string(id) + " name offset outside the names");
      const char* s = reinterpret_cast<const char*>(strs + off);
      if (!obj.layer_names.emplace(id, std::string(s, strnlen(s, strsize - off))).second)
        fail(where, "layer " + std::to_string(id) + " named twice");
    }
  }

  // .vp.io: header, records, dims, names (docs/object-format.md). Optional:
  // objects written before it existed have none.
  void read_io(const InSection& s, Object& obj) const {
    const std::string where = "section .vp.io";
    if (s.type != kShtProgbits) fail(where, "is not PROGBITS");
    if (s.size < kIoHeaderSize) fail(where, "too short");
    const uint8_t* p = s.data;
    const uint64_t count = get32(p), ndims = get32(p + 4), strsize = get32(p + 8);
    if (get32(p + 12)) fail(where, "reserved field is not zero");
    if (kIoHeaderSize + count * kIoRecordSize + ndims * 8 + strsize != s.size)
      fail(where, "record, dimension and name sizes do not match the section");
    const uint8_t* dims = p + kIoHeaderSize + count * kIoRecordSize;
    const uint8_t* strs = dims + ndims * 8;
    if (strsize && strs[strsize - 1] != 0) fail(where, "names are not NUL-terminated");
    std::set<std::string> names;
    for (uint64_t i = 0; i < count; ++i) {
      const uint8_t* r = p + kIoHeaderSize + i * kIoRecordSize;
      const std::string rw = where + " record " + std::to_string(i);
      const uint32_t flags = get32(r), name_off = get32(r + 4), code = get32(r + 24), rank = get32(r + 28),
                     first = get32(r + 32);
      IoBinding b;
      if (flags > 1) fail(rw, "unknown flags " + std::to_string(flags));
      b.output = flags == 1;
      if (name_off >= strsize) fail(rw, "name offset outside the names");
      const char* nm = reinterpret_cast<const char*>(strs + name_off);
      b.name.assign(nm, strnlen(nm, strsize - name_off));
      if (b.name.empty()) fail(rw, "has no name");
      if (!names.insert(b.name).second) fail(rw, "name '" + b.name + "' bound twice");
      b.address = get64(r + 8);
      b.bytes = get64(r + 16);
      if (b.address + b.bytes < b.address) fail(rw, "('" + b.name + "') address + bytes wraps");
      if (code >= kIoTypeCount) fail(rw, "('" + b.name + "') unknown dtype code " + std::to_string(code));
      b.dtype = kIoTypes[code].name;
      if (get32(r + 36)) fail(rw, "reserved field is not zero");
      if (uint64_t{first} + rank > ndims) fail(rw, "('" + b.name + "') dimensions outside the dimension table");
      for (uint32_t k = 0; k < rank; ++k) b.shape.push_back(get64(dims + (uint64_t{first} + k) * 8));
      if (!io_size_matches(b, kIoTypes[code].size))
        fail(rw, "('" + b.name + "') " + std::to_string(b.bytes) + " bytes do not match its shape and dtype " + b.dtype);
      obj.io.push_back(std::move(b));
    }
  }

  void read_symbols(const InSection& st, const std::map<uint32_t, CoreId>& texts, Object& obj) const {
    const std::string where = "section .symtab";
    if (st.type != kShtSymtab) fail(where, "is not SHT_SYMTAB");
    if (st.entsize != kSymSize) fail(where, "bad entry size");
    if (st.size % kSymSize || st.size == 0) fail(where, "size is not a positive multiple of 24");
    if (st.link == 0 || st.link >= secs_.size() || secs_[st.link].type != kShtStrtab)
      fail(where, "sh_link does not name a string table");
    const InSection& strs = secs_[st.link];
    check_strtab(strs, "section " + strs.name);
    const uint64_t count = st.size / kSymSize;
    obj.symbols.reserve(count - 1);
    for (uint64_t i = 1; i < count; ++i) {
      const uint8_t* p = st.data + i * kSymSize;
      const std::string sw = where + " symbol " + std::to_string(i);
      Symbol s;
      s.name = string_at(strs, get32(p), sw);
      if (s.name.empty()) fail(sw, "has no name");
      const uint8_t info = p[4];
      if ((info & 0xf) != kSttFunc || ((info >> 4) != kStbLocal && (info >> 4) != kStbGlobal))
        fail(sw, "is not a local or global function symbol");
      const uint16_t shndx = get16(p + 6);
      auto it = texts.find(shndx);
      if (it == texts.end()) fail(sw, "(" + s.name + ") does not point into a text section");
      const uint64_t value = get64(p + 8);
      const uint64_t words = secs_[shndx].size / 8;
      if (value % 8 || value / 8 > words)
        fail(sw, "(" + s.name + ") value " + std::to_string(value) + " is not a word offset inside its text");
      s.core = it->second;
      s.value = static_cast<uint32_t>(value / 8);
      obj.symbols.push_back(std::move(s));
    }
  }

  const uint8_t* d_;
  uint64_t n_;
  std::string file_;
  uint64_t shoff_ = 0;
  uint32_t shnum_ = 0, shstrndx_ = 0;
  std::vector<InSection> secs_;
};

}  // namespace

// ---- public API -------------------------------------------------------------------
uint64_t io_dtype_size(const std::string& dtype) {
  const int code = io_type_code(dtype);
  return code < 0 ? 0 : kIoTypes[code].size;
}

const CoreText* Object::text_of(CoreId c) const {
  for (const auto& t : texts)
    if (t.core == c) return &t;
  return nullptr;
}

uint64_t Object::cell_count() const {
  uint64_t n = 0;
  for (const auto& c : cells) n += uint64_t{c.rows} * c.cols;
  return n;
}

std::string text_section_name(CoreId core) { return ".text." + core_suffix(core); }

std::string data_section_name(const DataSegment& seg) {
  switch (seg.space) {
    case DataSegment::Space::Global: return ".data.global";
    case DataSegment::Space::Sram: return ".data.sram" + std::to_string(seg.core.cluster);
    case DataSegment::Space::Local: return ".data." + core_suffix(seg.core);
  }
  return ".data.?";
}

MappedFile::~MappedFile() {
  if (data && size) ::munmap(const_cast<uint8_t*>(data), size);
}

std::shared_ptr<const MappedFile> map_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ObjectError(path + ": cannot open: " + std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ObjectError(path + ": not a regular file");
  }
  auto m = std::make_shared<MappedFile>();
  m->size = static_cast<uint64_t>(st.st_size);
  if (m->size) {
    void* p = ::mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      m->size = 0;
      throw ObjectError(path + ": cannot map: " + std::strerror(e));
    }
    m->data = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return m;
}

Object load_object(const std::string& path) {
  auto m = map_file(path);
  return parse_object(m->data, m->size, path, m);
}

Object parse_object(const uint8_t* data, uint64_t size, const std::string& name,
                    std::shared_ptr<const void> backing) {
  if (!backing) {
    // Nobody keeps the bytes alive for us: keep our own copy.
    auto copy = std::make_shared<std::vector<uint8_t>>(data, data + size);
    Loader l(copy->data(), copy->size(), name);
    return l.run(copy);
  }
  Loader l(data, size, name);
  return l.run(std::move(backing));
}

std::vector<SectionInfo> section_table(const uint8_t* data, uint64_t size, const std::string& name) {
  parse_object(data, size, name, std::shared_ptr<const void>(std::shared_ptr<void>(), data));
  Loader l(data, size, name);
  return l.table();
}

std::vector<uint8_t> serialize_object(const Object& obj) {
  VectorSink s;
  emit(obj, s);
  return std::move(s.out);
}

void write_object(const Object& obj, const std::string& path) {
  std::string tmpl = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw ObjectError(path + ": cannot create: " + std::strerror(errno));
  bool open = true;
  try {
    FileSink sink(fd, path);
    emit(obj, sink);
    sink.flush();
    if (::fchmod(fd, 0644) != 0) throw ObjectError(path + ": chmod failed: " + std::strerror(errno));
    open = false;
    if (::close(fd) != 0) throw ObjectError(path + ": close failed: " + std::strerror(errno));
  } catch (...) {
    if (open) ::close(fd);
    ::unlink(tmpl.c_str());
    throw;
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmpl.c_str());
    throw ObjectError(path + ": cannot rename into place: " + std::strerror(e));
  }
}

}  // namespace vp::obj
