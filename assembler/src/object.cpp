// The object in memory: its small accessors, the canonical section names
// shared by writer, reader and tools, and read-only file maps (how objects
// and .incbin files are read without copying).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>

#include "vp/obj/object.h"
#include "vpo_layout.h"

namespace vp::obj {

using layout::core_suffix;

uint64_t io_dtype_size(const std::string& dtype) {
  const int code = layout::io_type_code(dtype);
  return code < 0 ? 0 : layout::kIoTypes[code].size;
}

std::string io_host_view_error(const IoBinding& b) {
  if (!std::isfinite(b.scale) || b.scale < 0)
    return "scale " + std::to_string(b.scale) + " is not a finite number >= 0 (0: no quantization)";
  if (b.quantized() && b.dtype == "float32") return "a float32 tensor takes no scale (it is not quantized)";
  if (!b.quantized() && (b.zero_point != 0 || b.host_softmax))
    return std::string(b.host_softmax ? "host_softmax" : "zero_point") + " needs a scale";
  int64_t lo = INT32_MIN, hi = INT32_MAX;
  if (b.dtype == "int8") lo = -128, hi = 127;
  else if (b.dtype == "uint8") lo = 0, hi = 255;
  else if (b.dtype == "int16") lo = -32768, hi = 32767;
  if (b.zero_point < lo || b.zero_point > hi)
    return "zero_point " + std::to_string(b.zero_point) + " is outside " + b.dtype + "'s range " +
           std::to_string(lo) + ".." + std::to_string(hi);
  if (b.channels_last && b.shape.size() < 3)
    return "layout channels_last needs a shape of rank 3 or more ([N, C, D1, ...]), the shape has rank " +
           std::to_string(b.shape.size());
  return "";
}

std::string io_indirect_error(const IoBinding& b) {
  if (b.indirect == -1) return "";
  if (b.output) return "an output cannot be indirect (the firmware copies outputs out)";
  if (b.indirect < 0 || b.indirect > 0xFFFFFFFCll || b.indirect % 4)
    return "indirect word " + std::to_string(b.indirect) + " is not a 4-byte-aligned 32-bit address";
  return "";
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
    throw ObjectError(path + (S_ISDIR(st.st_mode) ? ": is a directory, expected a file" : ": not a regular file"));
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

}  // namespace vp::obj
