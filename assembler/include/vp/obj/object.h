// The Sidra VP object file (.vpo) in memory: what the assembler produces and
// the platform loads. On disk it is ELF64 (little-endian, ET_EXEC) with the
// machine number kMachine, so `readelf -S file.vpo` lists its sections.
//
// Large payloads (instruction words, data, crossbar cell levels) are views
// into a backing buffer (a memory-mapped file, or the assembler's own
// buffers) so a 100 MB weight image is never copied byte by byte.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp::obj {

inline constexpr uint16_t kMachine = 0x5D1A;  // e_machine: not assigned to anyone
inline constexpr uint32_t kFormatVersion = 1;  // in .vp.meta; bumped on layout changes

// Which processor a text or scratchpad section belongs to. The control
// processor (which runs the firmware) is cluster = cu = -1.
struct CoreId {
  int32_t cluster = -1;
  int32_t cu = -1;
  bool is_control() const { return cluster < 0; }
  friend bool operator<(const CoreId& a, const CoreId& b) {
    return a.cluster != b.cluster ? a.cluster < b.cluster : a.cu < b.cu;
  }
  friend bool operator==(const CoreId& a, const CoreId& b) { return a.cluster == b.cluster && a.cu == b.cu; }
};

// A read-only byte range kept alive by the object's backing storage.
struct Bytes {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
};

struct CoreText {
  CoreId core;
  std::vector<uint64_t> words;  // instruction words, decoded from little-endian
  uint32_t entry = 0;           // instruction index where the core starts
};

// Initialised memory: global memory, a cluster's SRAM, or a core's scratchpad.
struct DataSegment {
  enum class Space : uint8_t { Global = 0, Sram = 1, Local = 2 };
  Space space = Space::Global;
  CoreId core;          // Local: the core; Sram: cluster in core.cluster
  uint64_t address = 0; // byte address in that space
  Bytes bytes;
};

// Target levels for a rectangle of one crossbar's cells, row-major, one byte
// per cell (the level index, 0 .. 2^cell_bits - 1), as the SIDRA .sidra cell
// programs: addressed by crossbar, never a list of per-cell addresses.
struct CellProgram {
  int32_t cluster = 0, cu = 0, xbar = 0;
  uint32_t row0 = 0, col0 = 0, rows = 0, cols = 0;
  Bytes levels;  // rows * cols bytes
};

struct Symbol {
  std::string name;
  CoreId core;
  uint32_t value = 0;  // instruction index in that core's text
};

// The smallest chip the program runs on; 0 = no requirement.
struct ChipRequirements {
  uint32_t clusters = 0, cus_per_cluster = 0, xbars_per_cu = 0;
  uint32_t rows = 0, cols = 0, cell_bits = 0;
};

// A named tensor the program reads (input) or writes (output) in global
// memory: what a host (vp-run, the firmware's host driver) binds files to.
// dtype is one of "int8", "uint8", "int16", "int32", "float32"; shape may be
// empty, otherwise bytes = product(shape) * element size.
struct IoBinding {
  std::string name;
  bool output = false;
  uint64_t address = 0, bytes = 0;
  std::string dtype;
  std::vector<uint64_t> shape;
  // How a host converts between the stored codes and the real tensor (all
  // optional; a binding without them is bytes only). value = (code -
  // zero_point) * scale; scale 0 means no quantization. channels_last: the
  // shape is the model's [N, C, D1, ...] but the bytes are ordered
  // [N, D1, ..., C] (rank 3 or more). host_softmax: the model's output is
  // Softmax over the last axis of the dequantized values, left to the host.
  double scale = 0;
  int32_t zero_point = 0;
  bool channels_last = false;
  bool host_softmax = false;
  // An input the program reads through a pointer: the 32-bit word at
  // global address `indirect` holds where its bytes are. The firmware
  // writes there the address of the element's bytes in its batch input
  // area instead of copying them to `address`; a host that places the
  // bytes at `address` itself writes `address` there (docs/firmware.md).
  // -1: none, the bytes are read at `address`.
  int64_t indirect = -1;

  bool quantized() const { return scale > 0; }
  bool has_host_view() const { return quantized() || zero_point != 0 || channels_last || host_softmax; }
};

// Why a binding's host view (scale, zero point, layout, Softmax) cannot be
// used, or "" when it can: the one check shared by the assembler, the
// object reader and writer.
std::string io_host_view_error(const IoBinding& b);
// Why a binding cannot be indirect (IoBinding::indirect), or "" when it
// can (or is not): shared the same way.
std::string io_indirect_error(const IoBinding& b);

// Element size of an IoBinding dtype, 0 for a name that is not one.
uint64_t io_dtype_size(const std::string& dtype);

struct Object {
  ChipRequirements chip;
  std::vector<CoreText> texts;        // sorted by core, control processor first
  std::vector<DataSegment> data;
  std::vector<CellProgram> cells;
  std::vector<Symbol> symbols;
  std::map<uint32_t, std::string> layer_names;  // `layer id` marker -> name
  std::vector<IoBinding> io;                    // .input/.output, declaration order
  std::shared_ptr<const void> backing;          // keeps Bytes views alive

  const CoreText* text_of(CoreId c) const;
  uint64_t cell_count() const;
};

// Errors name the file and the offending section or field.
struct ObjectError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads an object; the file is memory-mapped and the views point into it.
// Throws ObjectError on anything malformed (never crashes on bad input).
Object load_object(const std::string& path);
// Same, from bytes already in memory (the fuzzer and tests use this).
Object parse_object(const uint8_t* data, uint64_t size, const std::string& name,
                    std::shared_ptr<const void> backing = nullptr);

// Writes atomically: a temporary beside `path`, renamed over it when
// complete, so a failed write never leaves a half-finished object behind.
// Large views (data, cell levels) are written straight from where they live.
// The output depends only on the object's content (no timestamps; texts and
// symbols are written in canonical order), so equal objects give equal bytes.
void write_object(const Object& obj, const std::string& path);
// The same bytes into an open stream (closing and publishing it is the
// caller's business); `name` names the output in errors.
void write_object(const Object& obj, std::FILE* out, const std::string& name);
// The same bytes write_object would produce, in memory.
std::vector<uint8_t> serialize_object(const Object& obj);

// A read-only memory map of a whole file (an empty file maps to nothing).
struct MappedFile {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
};
// Throws ObjectError naming the file when it cannot be opened or mapped.
std::shared_ptr<const MappedFile> map_file(const std::string& path);

// Several buffers kept alive as one `backing` (the assembler's own byte
// buffers and the memory maps of .incbin files).
struct BackingSet {
  std::vector<std::shared_ptr<const void>> parts;
};

// Canonical text-section and data-section names (".text.c0.3", ".data.sram1").
std::string text_section_name(CoreId core);
std::string data_section_name(const DataSegment& seg);

// One row of the ELF section table (vp-objdump -h).
struct SectionInfo {
  uint32_t index = 0;
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
};
// The section table of a valid object (validated first with parse_object).
std::vector<SectionInfo> section_table(const uint8_t* data, uint64_t size, const std::string& name);

// Section and record sizes of the on-disk layout (docs/object-format.md).
inline constexpr uint64_t kCellRecordSize = 40;
inline constexpr uint64_t kCoreRecordSize = 16;
inline constexpr uint64_t kMetaHeaderSize = 40;
inline constexpr uint64_t kIoHeaderSize = 16;
inline constexpr uint64_t kIoRecordSize = 40;          // records without a host view
inline constexpr uint64_t kIoRecordSizeHostView = 56;  // + scale, zero point

}  // namespace vp::obj
