// The .vpo writer: an Object laid out as ELF64 little-endian, by hand.
// Small sections are built in memory; large payloads (data segments, cell
// levels) stay views and are written straight from where they live. The
// bytes depend only on the object's content (canonical order, no
// timestamps), so equal objects give equal files.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "vp/obj/object.h"
#include "vpo_layout.h"

namespace vp::obj {
namespace {

using namespace layout;

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

// Into a stdio stream someone else opened and will close (vp-as writes the
// object and its listing through temporaries published together).
class StdioSink : public Sink {
 public:
  StdioSink(std::FILE* f, std::string name) : f_(f), name_(std::move(name)) {}
  void put(const uint8_t* p, uint64_t n) override {
    if (n && std::fwrite(p, 1, n, f_) != n) throw ObjectError(name_ + ": write failed: " + std::strerror(errno));
  }

 private:
  std::FILE* f_;
  std::string name_;
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
    // The longer records only when a binding has a host view, so objects
    // without one keep the bytes they always had.
    bool host_view = false;
    for (const IoBinding& b : obj.io) host_view = host_view || b.has_host_view();
    std::vector<uint8_t> records, dims, strings;
    for (const IoBinding& b : obj.io) {
      const int code = io_type_code(b.dtype);
      if (code < 0) throw ObjectError("write: io binding " + b.name + " has unknown dtype " + b.dtype);
      if (b.name.empty() || b.name.find('\0') != std::string::npos)
        throw ObjectError("write: bad io binding name");
      if (!io_size_matches(b, kIoTypes[code].size))
        throw ObjectError("write: io binding " + b.name + " size does not match its shape");
      if (const std::string why = io_host_view_error(b); !why.empty())
        throw ObjectError("write: io binding " + b.name + ": " + why);
      if (const std::string why = io_indirect_error(b); !why.empty())
        throw ObjectError("write: io binding " + b.name + ": " + why);
      put32(records, (b.output ? kIoFlagOutput : 0) | (b.channels_last ? kIoFlagChannelsLast : 0) |
                         (b.host_softmax ? kIoFlagHostSoftmax : 0) | (b.indirect >= 0 ? kIoFlagIndirect : 0));
      put32(records, static_cast<uint32_t>(strings.size()));
      put64(records, b.address);
      put64(records, b.bytes);
      put32(records, static_cast<uint32_t>(code));
      put32(records, static_cast<uint32_t>(b.shape.size()));
      put32(records, static_cast<uint32_t>(dims.size() / 8));
      put32(records, b.indirect >= 0 ? static_cast<uint32_t>(b.indirect) : 0);
      if (host_view) {
        uint64_t bits = 0;
        std::memcpy(&bits, &b.scale, 8);
        put64(records, bits);
        put32(records, static_cast<uint32_t>(b.zero_point));
        put32(records, 0);
      }
      for (uint64_t d : b.shape) put64(dims, d);
      strings.insert(strings.end(), b.name.begin(), b.name.end());
      strings.push_back(0);
    }
    put32(s.owned, static_cast<uint32_t>(obj.io.size()));
    put32(s.owned, static_cast<uint32_t>(dims.size() / 8));
    put32(s.owned, static_cast<uint32_t>(strings.size()));
    put32(s.owned, host_view ? static_cast<uint32_t>(kIoRecordSizeHostView) : 0);
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
  if (secs.size() >= 0xff00)
    throw ObjectError("write: the object would need " + std::to_string(secs.size()) +
                      " sections, more than the 65,279 an ELF file can number (one per core text, data "
                      "segment and cell program; split the program)");
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

}  // namespace

std::vector<uint8_t> serialize_object(const Object& obj) {
  VectorSink s;
  emit(obj, s);
  return std::move(s.out);
}

void write_object(const Object& obj, std::FILE* out, const std::string& name) {
  StdioSink sink(out, name);
  emit(obj, sink);
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
