// vp-objdump: looks inside a .vpo object (or assembles a .s in memory first).
//   -h  section table      -t  symbols         -d  disassembly per core
//   --cells  cell program summary               --meta  format version, chip, layers
//   --asm    whole object as assembly that vp-as turns back into the same bytes
// With no option: -h -t --meta. Exit codes: 0 ok, 1 a bad object or source
// or a failed write to standard output, 2 usage.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "vp/as/assembler.h"
#include "vp/isa/isa.h"

namespace {

using vp::obj::Object;

int usage() {
  std::fputs("usage: vp-objdump FILE.vpo|FILE.s [-h] [-t] [-d] [--cells] [--meta] [--asm] [-I DIR]...\n", stderr);
  return 2;
}

std::string core_name(vp::obj::CoreId c) {
  return c.is_control() ? "cp" : "c" + std::to_string(c.cluster) + "." + std::to_string(c.cu);
}

const char* type_name(uint32_t t) {
  switch (t) {
    case 0: return "NULL";
    case 1: return "PROGBITS";
    case 2: return "SYMTAB";
    case 3: return "STRTAB";
    default: return "?";
  }
}

void print_sections(const std::vector<uint8_t>& bytes, const std::string& name) {
  const auto table = vp::obj::section_table(bytes.data(), bytes.size(), name);
  std::printf("Sections:\n  %-4s %-20s %-9s %-5s %-18s %-10s %s\n", "Idx", "Name", "Type", "Flags", "Address",
              "Offset", "Size");
  for (const auto& s : table) {
    if (s.index == 0) continue;
    std::string flags;
    if (s.flags & 2) flags += 'A';
    if (s.flags & 1) flags += 'W';
    if (s.flags & 4) flags += 'X';
    std::printf("  %-4u %-20s %-9s %-5s 0x%016llx 0x%08llx %llu\n", s.index, s.name.c_str(), type_name(s.type),
                flags.c_str(), static_cast<unsigned long long>(s.addr), static_cast<unsigned long long>(s.offset),
                static_cast<unsigned long long>(s.size));
  }
}

void print_symbols(const Object& o) {
  std::printf("Symbols (%zu):\n  %-8s %-8s %s\n", o.symbols.size(), "core", "index", "name");
  for (const auto& s : o.symbols) std::printf("  %-8s %-8u %s\n", core_name(s.core).c_str(), s.value, s.name.c_str());
}

void print_disassembly(const Object& o) {
  for (const auto& t : o.texts) {
    std::map<uint32_t, std::vector<std::string>> labels;
    for (const auto& s : o.symbols)
      if (s.core == t.core) labels[s.value].push_back(s.name);
    auto label_for = [&](uint32_t target) {
      auto it = labels.find(target);
      return it == labels.end() ? std::string() : it->second.front();
    };
    std::printf("\nDisassembly of %s (core %s, %zu instructions, entry %u):\n",
                vp::obj::text_section_name(t.core).c_str(), core_name(t.core).c_str(), t.words.size(), t.entry);
    for (uint32_t i = 0; i <= t.words.size(); ++i) {
      auto it = labels.find(i);
      if (it != labels.end())
        for (const auto& n : it->second) std::printf("%s:\n", n.c_str());
      if (i == t.words.size()) break;
      auto inst = vp::isa::decode(t.words[i]);
      std::printf("  %6u:  %016llx  %s\n", i, static_cast<unsigned long long>(t.words[i]),
                  inst ? vp::isa::disassemble(*inst, label_for).c_str() : "<invalid>");
    }
  }
}

void print_cells(const Object& o) {
  std::printf("Cell programs: %zu, %llu cells\n", o.cells.size(), static_cast<unsigned long long>(o.cell_count()));
  std::map<std::tuple<int, int, int>, std::vector<const vp::obj::CellProgram*>> per_xbar;
  for (const auto& c : o.cells) per_xbar[{c.cluster, c.cu, c.xbar}].push_back(&c);
  uint64_t hist[256] = {};
  for (const auto& c : o.cells)
    for (uint64_t i = 0; i < c.levels.size; ++i) ++hist[c.levels.data[i]];
  std::printf("Crossbars programmed: %zu\n", per_xbar.size());
  for (const auto& [key, list] : per_xbar) {
    uint64_t n = 0;
    for (const auto* c : list) n += uint64_t{c->rows} * c->cols;
    std::printf("  c%d.%d xbar %-3d %8llu cells:", std::get<0>(key), std::get<1>(key), std::get<2>(key),
                static_cast<unsigned long long>(n));
    for (const auto* c : list) std::printf(" [r%u+%u, c%u+%u]", c->row0, c->rows, c->col0, c->cols);
    std::printf("\n");
  }
  std::printf("Level histogram:\n");
  for (int l = 0; l < 256; ++l)
    if (hist[l]) std::printf("  level %3d: %llu\n", l, static_cast<unsigned long long>(hist[l]));
}

void print_meta(const Object& o) {
  const auto& c = o.chip;
  std::printf("Format version: %u\n", vp::obj::kFormatVersion);
  std::printf("Chip requirements: clusters=%u cus=%u xbars=%u rows=%u cols=%u cell_bits=%u (0 = any)\n", c.clusters,
              c.cus_per_cluster, c.xbars_per_cu, c.rows, c.cols, c.cell_bits);
  std::printf("Cores: %zu\n", o.texts.size());
  for (const auto& t : o.texts)
    std::printf("  %-8s %zu instructions, entry %u\n", core_name(t.core).c_str(), t.words.size(), t.entry);
  std::printf("Data segments: %zu\n", o.data.size());
  for (const auto& d : o.data)
    std::printf("  %-16s 0x%llx, %llu bytes\n", vp::obj::data_section_name(d).c_str(),
                static_cast<unsigned long long>(d.address), static_cast<unsigned long long>(d.bytes.size));
  std::printf("Layers: %zu\n", o.layer_names.size());
  for (const auto& [id, name] : o.layer_names) std::printf("  %u %s\n", id, name.c_str());
  std::printf("IO bindings: %zu\n", o.io.size());
  for (const auto& b : o.io) {
    std::string shape;
    for (uint64_t d : b.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    std::printf("  %-6s %-20s 0x%llx, %llu bytes, %s%s%s\n", b.output ? "output" : "input", b.name.c_str(),
                static_cast<unsigned long long>(b.address), static_cast<unsigned long long>(b.bytes), b.dtype.c_str(),
                shape.empty() ? "" : " ", shape.c_str());
    if (b.quantized())
      std::printf("         scale %.17g, zero point %d%s%s\n", b.scale, b.zero_point,
                  b.channels_last ? ", channels-last bytes" : "", b.host_softmax ? ", host applies Softmax" : "");
    else if (b.channels_last)
      std::printf("         channels-last bytes\n");
    if (b.indirect >= 0)
      std::printf("         indirect: read where the word at 0x%llx points\n", static_cast<unsigned long long>(b.indirect));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string in;
  bool h = false, t = false, d = false, cells = false, meta = false, as_src = false;
  vp::as::Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h") h = true;
    else if (a == "-t") t = true;
    else if (a == "-d") d = true;
    else if (a == "--cells") cells = true;
    else if (a == "--meta") meta = true;
    else if (a == "--asm") as_src = true;
    else if (a == "-I" && i + 1 < argc) opt.include_dirs.push_back(argv[++i]);
    else if (a == "--help") {
      usage();
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "vp-objdump: unknown option %s\n", a.c_str());
      return usage();
    } else if (in.empty()) in = a;
    else return usage();
  }
  if (in.empty()) return usage();
  if (!(h || t || d || cells || meta || as_src)) h = t = meta = true;
  try {
    std::vector<uint8_t> bytes;
    Object o;
    std::shared_ptr<const vp::obj::MappedFile> m = vp::obj::map_file(in);
    // A .vpo is always read as an object (an empty or truncated one is an
    // error, not an empty program); other files are objects when they
    // start like one and assembly otherwise.
    const bool vpo_name = in.size() > 4 && in.compare(in.size() - 4, 4, ".vpo") == 0;
    if (vpo_name || (m->size >= 4 && std::memcmp(m->data, "\x7f" "ELF", 4) == 0)) {
      o = vp::obj::parse_object(m->data, m->size, in, m);
      if (h) bytes.assign(m->data, m->data + m->size);
    } else {
      vp::as::Result r = vp::as::assemble_file(in, opt);
      if (!r.ok()) {
        std::fputs(r.error_text().c_str(), stderr);
        return 1;
      }
      o = std::move(r.object);
      if (h) bytes = vp::obj::serialize_object(o);
    }
    if (as_src) {
      std::fputs(vp::as::to_source(o).c_str(), stdout);
    } else {
      if (h) print_sections(bytes, in);
      if (t) print_symbols(o);
      if (meta) print_meta(o);
      if (cells) print_cells(o);
      if (d) print_disassembly(o);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vp-objdump: %s\n", e.what());
    return 1;
  }
  // A full disk or a closed pipe must not look like a complete listing.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "vp-objdump: cannot write to standard output: %s\n", std::strerror(errno));
    return 1;
  }
  return 0;
}
