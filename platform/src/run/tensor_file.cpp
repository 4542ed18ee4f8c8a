#include "vp/platform/tensor_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "vp/common/atomic_file.h"

namespace vp::platform {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Element size of a numpy descr without its byte-order character: b1, i1..i8,
// u1..u8, f2/f4/f8. Anything else (strings, objects, complex) is 0.
size_t dtype_size(const std::string& descr) {
  if (descr.size() != 3) return 0;
  const char kind = descr[1], width = descr[2];
  if (kind == 'b') return width == '1' ? 1 : 0;
  if (kind == 'i' || kind == 'u')
    return width == '1' || width == '2' || width == '4' || width == '8' ? static_cast<size_t>(width - '0') : 0;
  if (kind == 'f') return width == '2' || width == '4' || width == '8' ? static_cast<size_t>(width - '0') : 0;
  return 0;
}

// Value of 'key': ... in the header dict, as text up to the next top-level comma.
std::string dict_field(const std::string& h, const std::string& key, const std::string& path) {
  const size_t k = h.find("'" + key + "'");
  if (k == std::string::npos) throw TensorFileError(path + ": .npy header has no '" + key + "' field");
  size_t i = h.find(':', k);
  if (i == std::string::npos) throw TensorFileError(path + ": .npy header field '" + key + "' has no value");
  ++i;
  while (i < h.size() && h[i] == ' ') ++i;
  int depth = 0;
  size_t j = i;
  for (; j < h.size(); ++j) {
    if (h[j] == '(') depth++;
    else if (h[j] == ')') depth--;
    else if ((h[j] == ',' || h[j] == '}') && depth == 0) break;
  }
  return h.substr(i, j - i);
}

// "(2, 3)", "(5,)" or "()": non-negative dimensions, the element count
// checked against overflow.
std::vector<uint64_t> parse_shape(const std::string& text, const std::string& path, uint64_t& count) {
  const auto bad = [&](const std::string& why) {
    return TensorFileError(path + ": .npy shape " + text + " " + why + " (expected a tuple of sizes, e.g. (2, 3))");
  };
  std::vector<uint64_t> shape;
  size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  skip();
  if (i >= text.size() || text[i] != '(') throw bad("is not a tuple");
  ++i;
  count = 1;
  for (;;) {
    skip();
    if (i < text.size() && text[i] == ')') break;
    if (i >= text.size() || text[i] < '0' || text[i] > '9') throw bad("has a dimension that is not a size");
    uint64_t d = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
      if (d > (UINT64_MAX - digit) / 10) throw bad("has a dimension too large");
      d = d * 10 + digit;
      ++i;
    }
    if (d != 0 && count > UINT64_MAX / d) throw bad("has more elements than fit in 64 bits");
    count *= d;
    shape.push_back(d);
    skip();
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    skip();
    if (i < text.size() && text[i] == ')') break;
    throw bad("is malformed");
  }
  ++i;
  skip();
  if (i != text.size()) throw bad("has text after the tuple");
  return shape;
}

}  // namespace

TensorData parse_tensor_bytes(const std::string& path, const uint8_t* data, size_t size) {
  TensorData t;
  if (!ends_with(path, ".npy")) {
    t.bytes.assign(data, data + size);
    t.shape = {t.bytes.size()};
    return t;
  }
  static const uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || !std::equal(std::begin(kMagic), std::end(kMagic), data))
    throw TensorFileError(path + ": not a .npy file (magic \\x93NUMPY expected)");
  const uint8_t major = data[6];
  size_t hlen = 0, hstart = 0;
  if (major == 1) {
    hlen = data[8] | (data[9] << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) throw TensorFileError(path + ": truncated .npy header");
    hlen = data[8] | (data[9] << 8) | (static_cast<size_t>(data[10]) << 16) | (static_cast<size_t>(data[11]) << 24);
    hstart = 12;
  } else {
    throw TensorFileError(path + ": unsupported .npy version " + std::to_string(major) + " (1, 2 or 3 expected)");
  }
  if (hlen > size - hstart)
    throw TensorFileError(path + ": truncated .npy header (" + std::to_string(hlen) + " header bytes announced, " +
                          std::to_string(size - hstart) + " present)");
  const std::string h(data + hstart, data + hstart + hlen);
  t.npy = true;
  const std::string descr = dict_field(h, "descr", path);
  if (descr.size() < 2 || (descr.front() != '\'' && descr.front() != '"') || descr.back() != descr.front())
    throw TensorFileError(path + ": .npy dtype " + descr + " is not a quoted dtype string");
  t.dtype = descr.substr(1, descr.size() - 2);
  if (t.dtype.empty() || (t.dtype[0] != '<' && t.dtype[0] != '|'))
    throw TensorFileError(path + ": dtype " + descr + " is not little-endian");
  const size_t es = dtype_size(t.dtype);
  if (es == 0) throw TensorFileError(path + ": unsupported dtype " + descr + " (bool, integer or float expected)");
  const std::string order = dict_field(h, "fortran_order", path);
  if (order == "True") throw TensorFileError(path + ": fortran_order arrays are not supported; save in C order");
  if (order != "False") throw TensorFileError(path + ": .npy fortran_order is " + order + ", expected True or False");
  const std::string shape = dict_field(h, "shape", path);
  uint64_t count = 1;
  t.shape = parse_shape(shape, path, count);
  const uint64_t have = size - hstart - hlen;
  if (count > UINT64_MAX / es || count * es != have)
    throw TensorFileError(path + ": .npy data holds " + std::to_string(have) + " bytes, shape " + shape + " of " +
                          t.dtype + " needs " +
                          (count > UINT64_MAX / es ? std::string("more than 2^64") : std::to_string(count * es)));
  t.bytes.assign(data + hstart + hlen, data + size);
  return t;
}

TensorData read_tensor_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw TensorFileError(path + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st{};
  if (::fstat(fd, &st) != 0) throw TensorFileError(path + ": cannot read: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw TensorFileError(path + ": is a directory, expected a .npy or raw data file");
  // A device such as /dev/zero never ends; a pipe does.
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
    throw TensorFileError(path + ": is a device or socket, expected a .npy or raw data file (or a pipe)");
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > kMaxTensorFileBytes)
    throw TensorFileError(path + ": " + std::to_string(st.st_size) + " bytes, larger than any global memory (" +
                          std::to_string(kMaxTensorFileBytes) + " bytes)");
  // Read to the end (pipes and character devices have no size up front).
  std::vector<uint8_t> all;
  if (S_ISREG(st.st_mode)) all.reserve(static_cast<size_t>(st.st_size));
  uint8_t chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw TensorFileError(path + ": read failed: " + std::strerror(errno));
    if (n == 0) break;
    if (all.size() + static_cast<size_t>(n) > kMaxTensorFileBytes)
      throw TensorFileError(path + ": more than " + std::to_string(kMaxTensorFileBytes) +
                            " bytes, larger than any global memory");
    all.insert(all.end(), chunk, chunk + n);
  }
  return parse_tensor_bytes(path, all.data(), all.size());
}

std::vector<uint8_t> encode_tensor_file(const std::string& path, const std::vector<uint8_t>& bytes,
                                        const std::string& dtype, const std::vector<uint64_t>& shape) {
  std::vector<uint8_t> out;
  if (ends_with(path, ".npy")) {
    const size_t es = std::max<size_t>(1, dtype_size(dtype));
    std::string dims;
    if (shape.empty()) {
      dims = std::to_string(bytes.size() / es) + ",";
    } else {
      for (size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
      if (shape.size() == 1) dims += ",";
    }
    std::string h = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    const size_t total = 10 + h.size() + 1;
    h.append((64 - total % 64) % 64, ' ');
    h += '\n';
    const uint8_t magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    out.insert(out.end(), std::begin(magic), std::end(magic));
    const uint16_t hl = static_cast<uint16_t>(h.size());
    out.push_back(static_cast<uint8_t>(hl & 0xFF));
    out.push_back(static_cast<uint8_t>(hl >> 8));
    out.insert(out.end(), h.begin(), h.end());
  }
  out.insert(out.end(), bytes.begin(), bytes.end());
  return out;
}

void write_tensor_file(const std::string& path, const std::vector<uint8_t>& bytes, const std::string& dtype,
                       const std::vector<uint64_t>& shape) {
  const std::vector<uint8_t> all = encode_tensor_file(path, bytes, dtype, shape);
  try {
    common::write_file_atomically(path, all.data(), all.size());
  } catch (const common::OutputError& e) {
    throw TensorFileError(e.what());
  }
}

}  // namespace vp::platform
