// Object -> assembly source that vp-as turns back into the same bytes
// (vp-objdump --asm). Texts come out with their labels and entry; data
// segments and cell programs as .byte lines; .chip and .layer carry the
// metadata. Each data segment gets its own .data directive so segments
// never merge on the way back.
#include <algorithm>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "vp/as/assembler.h"
#include "vp/isa/isa.h"

namespace vp::as {
namespace {

std::string core_directive(vp::obj::CoreId c) {
  if (c.is_control()) return ".cp\n";
  return ".core " + std::to_string(c.cluster) + ", " + std::to_string(c.cu) + "\n";
}

std::string escape(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void byte_lines(std::string& out, const vp::obj::Bytes& b, bool hex, size_t per_line) {
  char buf[8];
  for (uint64_t i = 0; i < b.size; ++i) {
    if (i % per_line == 0) out += i ? "\n    .byte " : "    .byte ";
    else out += ",";
    std::snprintf(buf, sizeof buf, hex ? "0x%02x" : "%u", b.data[i]);
    out += buf;
  }
  if (b.size) out += "\n";
}

// ", scale=..., zero_point=..., ..." of a binding's host view; the scale
// with 17 significant digits, so the object it assembles to is the same.
std::string io_host_view_operands(const vp::obj::IoBinding& b) {
  std::string s;
  if (b.quantized()) {
    char scale[40];
    std::snprintf(scale, sizeof scale, "%.17g", b.scale);
    s += std::string(", scale=") + scale + ", zero_point=" + std::to_string(b.zero_point);
  }
  if (b.channels_last) s += ", layout=channels_last";
  if (b.host_softmax) s += ", host_softmax=1";
  if (b.indirect >= 0) s += ", indirect=" + std::to_string(b.indirect);
  return s;
}

}  // namespace

std::string to_source(const vp::obj::Object& o) {
  std::string out = "; Sidra VP assembly regenerated from an object (vp-objdump --asm)\n";
  const auto& c = o.chip;
  std::string chip;
  const std::pair<const char*, uint32_t> keys[] = {{"clusters", c.clusters}, {"cus", c.cus_per_cluster},
                                                   {"xbars", c.xbars_per_cu}, {"rows", c.rows},
                                                   {"cols", c.cols},         {"cell_bits", c.cell_bits}};
  for (const auto& [k, v] : keys)
    if (v) chip += (chip.empty() ? "" : ", ") + std::string(k) + "=" + std::to_string(v);
  if (!chip.empty()) out += ".chip " + chip + "\n";
  for (const auto& [id, name] : o.layer_names) out += ".layer " + std::to_string(id) + ", " + escape(name) + "\n";
  for (const auto& b : o.io) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(b.address));
    out += std::string(b.output ? ".output " : ".input ") + escape(b.name) + ", " + addr + ", " +
           std::to_string(b.bytes) + ", " + escape(b.dtype);
    for (uint64_t d : b.shape) out += ", " + std::to_string(d);
    out += io_host_view_operands(b) + "\n";
  }

  for (const auto& t : o.texts) {
    std::map<uint32_t, std::vector<const std::string*>> labels;
    for (const auto& s : o.symbols)
      if (s.core == t.core) labels[s.value].push_back(&s.name);
    for (auto& [idx, names] : labels)
      std::sort(names.begin(), names.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
    auto label_for = [&](uint32_t target) -> std::string {
      auto it = labels.find(target);
      return it == labels.end() ? std::string() : *it->second.front();
    };
    out += "\n" + core_directive(t.core);
    if (t.entry) {
      const std::string l = label_for(t.entry);
      out += ".entry " + (l.empty() ? std::to_string(t.entry) : l) + "\n";
    }
    for (uint32_t i = 0; i <= t.words.size(); ++i) {
      auto it = labels.find(i);
      if (it != labels.end())
        for (const std::string* n : it->second) out += *n + ":\n";
      if (i == t.words.size()) break;
      std::string why;
      auto inst = vp::isa::decode(t.words[i], &why);
      if (!inst) throw std::invalid_argument("to_source: word " + std::to_string(i) + " does not decode: " + why);
      out += "    " + vp::isa::disassemble(*inst, label_for) + "\n";
    }
  }

  for (const auto& d : o.data) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(d.address));
    out += "\n";
    switch (d.space) {
      case vp::obj::DataSegment::Space::Global: out += ".data global, " + std::string(addr) + "\n"; break;
      case vp::obj::DataSegment::Space::Sram:
        out += ".data sram, " + std::to_string(d.core.cluster) + ", " + addr + "\n";
        break;
      case vp::obj::DataSegment::Space::Local:
        out += core_directive(d.core) + ".data local, " + addr + "\n";
        break;
    }
    byte_lines(out, d.bytes, true, 16);
  }

  for (const auto& x : o.cells) {
    out += "\n.xbar " + std::to_string(x.cluster) + ", " + std::to_string(x.cu) + ", " + std::to_string(x.xbar) +
           ", " + std::to_string(x.row0) + ", " + std::to_string(x.col0) + ", " + std::to_string(x.rows) + ", " +
           std::to_string(x.cols) + "\n";
    byte_lines(out, x.levels, false, 32);
  }
  return out;
}

}  // namespace vp::as
