// NumPy .npy files: the header is a Python dict literal padded to 64 bytes.
#include "vp/cc/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "vp/cc/graph.h"

namespace vp::cc {

std::int64_t NpyArray::count() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
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

NpyArray read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CompileError("cannot open '" + path + "'");
  char magic[8];
  f.read(magic, 8);
  if (!f || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw CompileError("'" + path + "' is not a .npy file");
  std::uint32_t hlen = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    f.read(reinterpret_cast<char*>(b), 2);
    hlen = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    f.read(reinterpret_cast<char*>(b), 4);
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (std::uint32_t{b[3]} << 24);
  }
  std::string h(hlen, '\0');
  f.read(h.data(), hlen);
  NpyArray a;
  auto field = [&](const std::string& key) {
    const auto p = h.find("'" + key + "'");
    if (p == std::string::npos) throw CompileError("'" + path + "': .npy header lacks " + key);
    return h.substr(h.find(':', p) + 1);
  };
  const std::string d = field("descr");
  const auto q1 = d.find('\''), q2 = d.find('\'', q1 + 1);
  a.dtype = d.substr(q1 + 1, q2 - q1 - 1);
  if (field("fortran_order").find("True") < field("fortran_order").find(','))
    throw CompileError("'" + path + "': Fortran-order .npy is not supported");
  const std::string s = field("shape");
  const auto l = s.find('('), r = s.find(')');
  std::stringstream ss(s.substr(l + 1, r - l - 1));
  std::string tok;
  while (std::getline(ss, tok, ','))
    if (tok.find_first_of("0123456789") != std::string::npos) a.shape.push_back(std::stoll(tok));
  std::stringstream rest;
  rest << f.rdbuf();
  const std::string body = rest.str();
  a.bytes.assign(body.begin(), body.end());
  return a;
}

namespace {
void write_raw(const std::string& path, const std::string& descr, const std::vector<std::int64_t>& shape, const char* data,
               std::size_t n) {
  std::string sh = "(";
  for (auto d : shape) sh += std::to_string(d) + ",";
  if (shape.size() > 1) sh.pop_back();
  sh += ")";
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + sh + ", }";
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throw CompileError("cannot write '" + path + "'");
  f.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(h.size() & 0xff), static_cast<char>(h.size() >> 8)};
  f.write(len, 2);
  f.write(h.data(), static_cast<std::streamsize>(h.size()));
  f.write(data, static_cast<std::streamsize>(n));
}
}  // namespace

void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& data) {
  write_raw(path, "<f4", shape, reinterpret_cast<const char*>(data.data()), data.size() * 4);
}
void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<std::int8_t>& data) {
  write_raw(path, "|i1", shape, reinterpret_cast<const char*>(data.data()), data.size());
}

}  // namespace vp::cc
