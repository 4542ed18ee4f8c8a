// The .vpo reader: loads and validates an object, treating the file as
// hostile. Every offset and size is checked against the file (without
// overflow), every string table must end in NUL, every cell program must
// lie inside .vp.levels and every instruction word must decode. Failures
// throw ObjectError naming the file and the section or field; nothing is
// read out of bounds. Data and levels stay views into the caller's bytes.
#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <set>
#include <string_view>

#include "vp/isa/isa.h"
#include "vp/obj/object.h"
#include "vpo_layout.h"

namespace vp::obj {
namespace {

using namespace layout;

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
    if (n_ == 0) fail("ELF header", "empty file (0 bytes), expected a .vpo object");
    // Text or junk is named as such, however short it is.
    if (std::memcmp(d_, "\x7f" "ELF", std::min<uint64_t>(n_, 4)) != 0) fail("ELF header", "bad magic (not an ELF file)");
    if (n_ < kEhdrSize)
      fail("ELF header", "file too short (" + std::to_string(n_) + " bytes, an ELF header alone is " +
                             std::to_string(kEhdrSize) + ")");
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
  // objects written before it existed have none; objects written before
  // bindings had a host view have 40-byte records (record size field 0).
  void read_io(const InSection& s, Object& obj) const {
    const std::string where = "section .vp.io";
    if (s.type != kShtProgbits) fail(where, "is not PROGBITS");
    if (s.size < kIoHeaderSize) fail(where, "too short");
    const uint8_t* p = s.data;
    const uint64_t count = get32(p), ndims = get32(p + 4), strsize = get32(p + 8), rsize_field = get32(p + 12);
    if (rsize_field != 0 && rsize_field != kIoRecordSizeHostView)
      fail(where, "record size " + std::to_string(rsize_field) + " is not 0 (40-byte records) or " +
                      std::to_string(kIoRecordSizeHostView));
    const uint64_t rsize = rsize_field ? rsize_field : kIoRecordSize;
    if (kIoHeaderSize + count * rsize + ndims * 8 + strsize != s.size)
      fail(where, "record, dimension and name sizes do not match the section");
    const uint8_t* dims = p + kIoHeaderSize + count * rsize;
    const uint8_t* strs = dims + ndims * 8;
    if (strsize && strs[strsize - 1] != 0) fail(where, "names are not NUL-terminated");
    std::set<std::string> names;
    for (uint64_t i = 0; i < count; ++i) {
      const uint8_t* r = p + kIoHeaderSize + i * rsize;
      const std::string rw = where + " record " + std::to_string(i);
      const uint32_t flags = get32(r), name_off = get32(r + 4), code = get32(r + 24), rank = get32(r + 28),
                     first = get32(r + 32);
      IoBinding b;
      if (flags & ~kIoFlagsKnown) fail(rw, "unknown flags " + std::to_string(flags));
      b.output = flags & kIoFlagOutput;
      b.channels_last = flags & kIoFlagChannelsLast;
      b.host_softmax = flags & kIoFlagHostSoftmax;
      if (flags & kIoFlagIndirect) b.indirect = get32(r + 36);
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
      if (!(flags & kIoFlagIndirect) && get32(r + 36)) fail(rw, "indirect word is not zero without its flag");
      if (uint64_t{first} + rank > ndims) fail(rw, "('" + b.name + "') dimensions outside the dimension table");
      for (uint32_t k = 0; k < rank; ++k) b.shape.push_back(get64(dims + (uint64_t{first} + k) * 8));
      if (!io_size_matches(b, kIoTypes[code].size))
        fail(rw, "('" + b.name + "') " + std::to_string(b.bytes) + " bytes do not match its shape and dtype " + b.dtype);
      if (rsize == kIoRecordSizeHostView) {
        const uint64_t bits = get64(r + 40);
        std::memcpy(&b.scale, &bits, 8);
        b.zero_point = static_cast<int32_t>(get32(r + 48));
        if (get32(r + 52)) fail(rw, "reserved field at 52 is not zero");
      }
      if (const std::string why = io_host_view_error(b); !why.empty()) fail(rw, "('" + b.name + "') " + why);
      if (const std::string why = io_indirect_error(b); !why.empty()) fail(rw, "('" + b.name + "') " + why);
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

}  // namespace vp::obj
