// What the object says about itself rather than what it runs: the chip it
// needs (.chip), layer names for traces (.layer), and the tensors a host
// binds files to (.input, .output). None of them ends a data section.
#include <climits>
#include <string>

#include "directives.h"
#include "vp/common/parse_number.h"

namespace vp::as::detail {

void dir_chip(Assembly& a, const char* at, const char* p, const char* e) {
  if (!a.split(p, e)) return;
  if (a.ops.empty()) {
    a.error_at(at, ".chip expects key=value pairs (clusters, cus, xbars, rows, cols, cell_bits)");
    return;
  }
  for (const Operand& o : a.ops) {
    const size_t eq = o.text.find('=');
    const std::string_view key = trim(o.text.substr(0, eq == std::string_view::npos ? o.text.size() : eq));
    uint32_t* slot = nullptr;
    vp::obj::ChipRequirements& c = a.program.meta.declared;
    if (key == "clusters") slot = &c.clusters;
    else if (key == "cus") slot = &c.cus_per_cluster;
    else if (key == "xbars") slot = &c.xbars_per_cu;
    else if (key == "rows") slot = &c.rows;
    else if (key == "cols") slot = &c.cols;
    else if (key == "cell_bits") slot = &c.cell_bits;
    if (!slot || eq == std::string_view::npos) {
      a.error_at(o.at, "expected key=value with key clusters, cus, xbars, rows, cols or cell_bits, got " +
                         quote(o.text));
      continue;
    }
    Operand val{trim(o.text.substr(eq + 1)), o.at + eq + 1};
    while (val.at < o.at + o.text.size() && is_space(*val.at)) ++val.at;
    int64_t v = 0;
    if (!now(a, val, 0, key == "cell_bits" ? 8 : UINT32_MAX, std::string(key).c_str(), &v)) continue;
    if (*slot && *slot != v) {
      a.error_at(o.at, ".chip " + std::string(key) + " given twice with different values (" + std::to_string(*slot) +
                         " and " + std::to_string(v) + ")");
      continue;
    }
    *slot = static_cast<uint32_t>(v);
    a.program.meta.chip_loc = a.line.at(a.line.begin);
  }
}

void dir_layer(Assembly& a, const char* at, const char* p, const char* e) {
  if (!a.split(p, e) || !expect_count(a, ".layer", at, 2, 2, "ID, \"NAME\"")) return;
  int64_t id = 0;
  if (!now(a, a.ops[0], 0, 65535, "layer id", &id)) return;
  std::string name;
  if (!string_operand(a, a.ops[1], "layer name", &name)) return;
  if (name.find('\0') != std::string::npos) {
    a.error_at(a.ops[1].at, "layer name contains a NUL character");
    return;
  }
  auto [it, fresh] = a.program.meta.layers.emplace(static_cast<uint32_t>(id), name);
  if (!fresh && it->second != name)
    a.error_at(a.ops[1].at, "layer " + std::to_string(id) + " already named " + quote(it->second));
}

namespace {

// One KEY=VALUE operand after the dimensions of .input/.output: the host
// view (scale, zero_point, layout, host_softmax) or an input read in place
// (indirect).
// False after an error.
bool io_key(Assembly& a, const Operand& o, vp::obj::IoBinding& b, std::string& seen) {
  const size_t eq = o.text.find('=');
  const std::string key(trim(o.text.substr(0, eq)));
  Operand val{trim(o.text.substr(eq + 1)), o.at + eq + 1};
  while (val.at < o.at + o.text.size() && is_space(*val.at)) ++val.at;
  if (seen.find("|" + key + "|") != std::string::npos) {
    a.error_at(o.at, key + " given twice");
    return false;
  }
  seen += "|" + key + "|";
  if (key == "scale") {
    try {
      b.scale = vp::common::parse_real(val.text, "scale", 0.0);
    } catch (const vp::common::NumberError& e) {
      a.error_at(val.at, std::string(e.what()) + " (a real number > 0)");
      return false;
    }
    if (!(b.scale > 0)) {
      a.error_at(val.at, "scale " + std::string(val.text) + " must be > 0");
      return false;
    }
    return true;
  }
  if (key == "zero_point") {
    int64_t v = 0;
    if (!now(a, val, INT32_MIN, INT32_MAX, "zero_point", &v)) return false;
    b.zero_point = static_cast<int32_t>(v);
    return true;
  }
  if (key == "layout") {
    if (val.text != "channels_last" && val.text != "row_major") {
      a.error_at(val.at, "layout " + quote(val.text) + ": expected channels_last or row_major");
      return false;
    }
    b.channels_last = val.text == "channels_last";
    return true;
  }
  if (key == "host_softmax") {
    int64_t v = 0;
    if (!now(a, val, 0, 1, "host_softmax", &v)) return false;
    b.host_softmax = v == 1;
    return true;
  }
  if (key == "indirect") {
    int64_t v = 0;
    if (!now(a, val, 0, 0xFFFFFFFCll, "indirect word address", &v)) return false;
    b.indirect = v;
    return true;
  }
  a.error_at(o.at, "unknown key " + quote(key) + " (expected scale, zero_point, layout, host_softmax or indirect)");
  return false;
}

}  // namespace

// .input/.output "name", ADDR, BYTES, "dtype"[, D0, D1, ...][, KEY=VALUE...]:
// a tensor the host binds a file to, and optionally how its codes map to
// real values (the host view: scale, zero_point, layout, host_softmax).
// Metadata like .layer: it does not end a data block.
void dir_io(Assembly& a, const char* at, const char* p, const char* e, bool output) {
  const char* d = output ? ".output" : ".input";
  if (!a.split(p, e) ||
      !expect_count(a, d, at, 4, 4 + 16 + 4, "\"NAME\", ADDR, BYTES, \"DTYPE\"[, DIMS...][, KEY=VALUE...]"))
    return;
  vp::obj::IoBinding b;
  b.output = output;
  if (!string_operand(a, a.ops[0], "tensor name", &b.name)) return;
  if (b.name.empty() || b.name.find('\0') != std::string::npos) {
    a.error_at(a.ops[0].at, std::string(d) + " name must be non-empty and contain no NUL character");
    return;
  }
  int64_t addr = 0, bytes = 0;
  if (!now(a, a.ops[1], 0, INT64_MAX, "address", &addr) || !now(a, a.ops[2], 1, INT64_MAX, "byte count", &bytes)) return;
  b.address = static_cast<uint64_t>(addr);
  b.bytes = static_cast<uint64_t>(bytes);
  if (!string_operand(a, a.ops[3], "dtype", &b.dtype)) return;
  const uint64_t esize = vp::obj::io_dtype_size(b.dtype);
  if (esize == 0) {
    a.error_at(a.ops[3].at, "unknown dtype " + quote(b.dtype) + " (expected int8, uint8, int16, int32 or float32)");
    return;
  }
  uint64_t n = esize;
  bool overflow = false;
  size_t i = 4;
  for (; i < a.ops.size() && a.ops[i].text.find('=') == std::string_view::npos; ++i) {
    if (i - 4 == 16) {
      a.error_at(a.ops[i].at, std::string(d) + " takes at most 16 dimensions");
      return;
    }
    int64_t dim = 0;
    if (!now(a, a.ops[i], 1, INT64_MAX, "dimension", &dim)) return;
    b.shape.push_back(static_cast<uint64_t>(dim));
    if (n > UINT64_MAX / static_cast<uint64_t>(dim)) overflow = true;
    else n *= static_cast<uint64_t>(dim);
  }
  if (!b.shape.empty() && (overflow || n != b.bytes)) {
    std::string dims;
    for (uint64_t x : b.shape) dims += (dims.empty() ? "" : "x") + std::to_string(x);
    a.error_at(a.ops[2].at, std::string(d) + " " + quote(b.name) + ": " + std::to_string(b.bytes) +
                             " bytes, but shape " + dims + " of " + b.dtype + " is " +
                             (overflow ? std::string("too large") : std::to_string(n) + " bytes"));
    return;
  }
  std::string seen;
  for (; i < a.ops.size(); ++i) {
    if (a.ops[i].text.find('=') == std::string_view::npos) {
      a.error_at(a.ops[i].at, "dimensions come before KEY=VALUE operands, got " + quote(a.ops[i].text));
      return;
    }
    if (!io_key(a, a.ops[i], b, seen)) return;
  }
  if (const std::string why = vp::obj::io_host_view_error(b); !why.empty()) {
    a.error_at(at, std::string(d) + " " + quote(b.name) + ": " + why);
    return;
  }
  if (const std::string why = vp::obj::io_indirect_error(b); !why.empty()) {
    a.error_at(at, std::string(d) + " " + quote(b.name) + ": " + why);
    return;
  }
  for (const auto& other : a.program.meta.io)
    if (other.name == b.name) {
      a.error_at(a.ops[0].at, "tensor " + quote(b.name) + " already bound (by an " +
                               (other.output ? std::string(".output") : std::string(".input")) + ")");
      return;
    }
  a.program.meta.io.push_back(std::move(b));
}

}  // namespace vp::as::detail
