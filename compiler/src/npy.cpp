// NumPy .npy files: the header is a Python dict literal padded to 64 bytes.
// Reading checks every part against the format (magic, version, header
// length, the dict's three keys, a supported dtype, a shape whose size
// matches the data exactly) before it allocates anything, so a truncated
// or hostile file is an error naming what was expected.
#include "vp/cc/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "vp/cc/graph.h"
#include "vp/common/atomic_file.h"

namespace vp::cc {
namespace {

std::size_t item_size(const std::string& descr) {
  static const char* const kTypes[][2] = {{"<f4", "4"}, {"<f8", "8"}, {"|i1", "1"}, {"|u1", "1"},
                                         {"<i4", "4"}, {"<i8", "8"}, {"i1", "1"},  {"u1", "1"}};
  for (const auto& t : kTypes)
    if (descr == t[0]) return static_cast<std::size_t>(t[1][0] - '0');
  return 0;
}

// The value of 'key' in the header dict: the text from after its colon up to
// the next top-level comma or the closing brace.
std::string dict_value(const std::string& h, const std::string& key, const std::string& file) {
  const auto p = h.find("'" + key + "'");
  if (p == std::string::npos) throw CompileError(file + ": .npy header has no '" + key + "' key");
  std::size_t i = p + key.size() + 2;
  while (i < h.size() && h[i] == ' ') ++i;
  if (i >= h.size() || h[i] != ':') throw CompileError(file + ": .npy header: expected ':' after '" + key + "'");
  ++i;
  while (i < h.size() && h[i] == ' ') ++i;
  std::size_t end = i;
  int depth = 0;
  for (; end < h.size(); ++end) {
    const char c = h[end];
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if ((c == ',' || c == '}') && depth == 0) break;
  }
  if (depth != 0 || end >= h.size()) throw CompileError(file + ": .npy header: unterminated value of '" + key + "'");
  std::string v = h.substr(i, end - i);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

std::vector<std::int64_t> parse_shape(const std::string& s, const std::string& file) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')')
    throw CompileError(file + ": .npy header: shape '" + s + "' is not a tuple of sizes");
  std::vector<std::int64_t> shape;
  std::stringstream ss(s.substr(1, s.size() - 2));
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    const auto a = tok.find_first_not_of(' '), b = tok.find_last_not_of(' ');
    if (a == std::string::npos) continue;  // "(3,)" ends with an empty item
    tok = tok.substr(a, b - a + 1);
    if (tok.size() > 18 || tok.find_first_not_of("0123456789") != std::string::npos)
      throw CompileError(file + ": .npy header: shape entry '" + tok + "' is not a size");
    shape.push_back(std::stoll(tok));
  }
  return shape;
}

}  // namespace

std::int64_t NpyArray::count() const {
  // A zero anywhere makes the array empty, whatever the other sizes
  // multiply to; otherwise the product of a parsed file is bounded by its
  // data, and any other overflow is an error, not a wrapped count.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0 || n > INT64_MAX / d) throw CompileError(".npy shape has more elements than can be counted");
    n *= d;
  }
  return n;
}

std::vector<float> NpyArray::as_float() const {
  const auto n = static_cast<std::size_t>(count());
  std::vector<float> out(n);
  auto conv = [&](auto sample) {
    using T = decltype(sample);
    if (bytes.size() < n * sizeof(T)) throw CompileError(".npy data is shorter than its shape");
    for (std::size_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
      out[i] = static_cast<float>(v);
    }
  };
  const std::string t = dtype.size() > 1 ? dtype.substr(1) : dtype;
  if (t == "f4") conv(float{});
  else if (t == "f8") conv(double{});
  else if (t == "i1") conv(std::int8_t{});
  else if (t == "u1") conv(std::uint8_t{});
  else if (t == "i4") conv(std::int32_t{});
  else if (t == "i8") conv(std::int64_t{});
  else throw CompileError(".npy dtype '" + dtype + "' is not supported (f4, f8, i1, u1, i4, i8)");
  return out;
}

NpyArray parse_npy(const std::string& data, const std::string& file) {
  if (data.size() < 10 || std::memcmp(data.data(), "\x93NUMPY", 6) != 0)
    throw CompileError(file + ": not a .npy file (expected the \\x93NUMPY magic)" +
                       (data.empty() ? std::string(": the file is empty") : std::string()));
  const auto major = static_cast<unsigned char>(data[6]);
  if (major < 1 || major > 3)
    throw CompileError(file + ": .npy format version " + std::to_string(major) + " is not supported (1 to 3)");
  std::size_t off = 8, hlen = 0;
  const auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(data[i])); };
  if (major == 1) {
    hlen = byte(8) | byte(9) << 8;
    off = 10;
  } else {
    if (data.size() < 12) throw CompileError(file + ": .npy file ends inside its header length");
    hlen = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    off = 12;
  }
  if (hlen > data.size() - off)
    throw CompileError(file + ": .npy header says " + std::to_string(hlen) + " bytes but the file ends after " +
                       std::to_string(data.size() - off));
  const std::string h = data.substr(off, hlen);
  NpyArray a;
  const std::string descr = dict_value(h, "descr", file);
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'')
    throw CompileError(file + ": .npy header: descr " + descr + " is not a quoted type string");
  a.dtype = descr.substr(1, descr.size() - 2);
  const std::size_t item = item_size(a.dtype);
  if (item == 0)
    throw CompileError(file + ": .npy dtype '" + a.dtype + "' is not supported (little-endian f4, f8, i1, u1, i4, i8)");
  const std::string fortran = dict_value(h, "fortran_order", file);
  if (fortran == "True") throw CompileError(file + ": Fortran-order .npy is not supported");
  if (fortran != "False") throw CompileError(file + ": .npy header: fortran_order '" + fortran + "' is not False/True");
  a.shape = parse_shape(dict_value(h, "shape", file), file);
  // The size the shape implies, without overflow, against what the file holds.
  const std::size_t body = data.size() - off - hlen;
  std::size_t need = item;
  const bool empty = std::find(a.shape.begin(), a.shape.end(), 0) != a.shape.end();
  for (const auto d : a.shape) {
    if (empty) {
      need = 0;
      break;
    }
    const auto ud = static_cast<std::size_t>(d);
    if (ud != 0 && need > (body + 1) / ud + 1) {
      need = body + 1;  // certainly more than the file holds
      break;
    }
    need *= ud;
  }
  if (need != body)
    throw CompileError(file + ": .npy data is " + std::to_string(body) + " bytes; its shape and dtype '" + a.dtype +
                       "' need " + (need > body ? "more" : std::to_string(need)) +
                       (need > body ? " (the file is truncated or the shape is wrong)" : " (trailing bytes)"));
  a.bytes.assign(data.begin() + static_cast<std::ptrdiff_t>(off + hlen), data.end());
  return a;
}

NpyArray read_npy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw CompileError(path + ": is a directory; expected a .npy file");
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw CompileError(path + ": is not a regular file; expected a .npy file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CompileError(path + ": cannot open (" + std::strerror(errno) + ")");
  std::stringstream rest;
  rest << f.rdbuf();
  return parse_npy(rest.str(), path);
}

namespace {
std::string encode(const std::string& descr, const std::vector<std::int64_t>& shape, const char* data, std::size_t n) {
  std::string sh = "(";
  for (auto d : shape) sh += std::to_string(d) + ",";
  if (shape.size() > 1) sh.pop_back();
  sh += ")";
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  out += h;
  out.append(data, n);
  return out;
}

void write_raw(const std::string& path, const std::string& bytes) {
  try {
    vp::common::write_file_atomically(path, bytes);
  } catch (const vp::common::OutputError& e) {
    throw CompileError(e.what());
  }
}
}  // namespace

std::string encode_npy(const std::vector<std::int64_t>& shape, const std::vector<float>& data) {
  return encode("<f4", shape, reinterpret_cast<const char*>(data.data()), data.size() * 4);
}
std::string encode_npy(const std::vector<std::int64_t>& shape, const std::vector<std::int8_t>& data) {
  return encode("|i1", shape, reinterpret_cast<const char*>(data.data()), data.size());
}
void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& data) {
  write_raw(path, encode_npy(shape, data));
}
void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<std::int8_t>& data) {
  write_raw(path, encode_npy(shape, data));
}

}  // namespace vp::cc
