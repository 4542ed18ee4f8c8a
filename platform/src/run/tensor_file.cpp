#include "vp/platform/tensor_file.h"

#include <cstdio>
#include <fstream>
#include <iterator>

namespace vp::platform {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

size_t dtype_size(const std::string& descr) {
  if (descr.size() < 3) return 0;
  try {
    return static_cast<size_t>(std::stoul(descr.substr(2)));
  } catch (...) {
    return 0;
  }
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

}  // namespace

TensorData read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TensorFileError(path + ": cannot open");
  std::vector<uint8_t> all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TensorData t;
  if (!ends_with(path, ".npy")) {
    t.bytes = std::move(all);
    t.shape = {t.bytes.size()};
    return t;
  }
  static const uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (all.size() < 10 || !std::equal(std::begin(kMagic), std::end(kMagic), all.begin()))
    throw TensorFileError(path + ": not a .npy file (magic \\x93NUMPY expected)");
  const uint8_t major = all[6];
  size_t hlen = 0, hstart = 0;
  if (major == 1) {
    hlen = all[8] | (all[9] << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (all.size() < 12) throw TensorFileError(path + ": truncated .npy header");
    hlen = all[8] | (all[9] << 8) | (static_cast<size_t>(all[10]) << 16) | (static_cast<size_t>(all[11]) << 24);
    hstart = 12;
  } else {
    throw TensorFileError(path + ": unsupported .npy version " + std::to_string(major));
  }
  if (hstart + hlen > all.size()) throw TensorFileError(path + ": truncated .npy header");
  const std::string h(all.begin() + static_cast<long>(hstart), all.begin() + static_cast<long>(hstart + hlen));
  std::string descr = dict_field(h, "descr", path);
  if (descr.size() < 2) throw TensorFileError(path + ": bad dtype " + descr);
  t.dtype = descr.substr(1, descr.size() - 2);
  if (t.dtype.empty() || (t.dtype[0] != '<' && t.dtype[0] != '|'))
    throw TensorFileError(path + ": dtype " + descr + " is not little-endian");
  if (dict_field(h, "fortran_order", path) != "False")
    throw TensorFileError(path + ": fortran_order arrays are not supported; save in C order");
  const std::string shape = dict_field(h, "shape", path);
  uint64_t count = 1;
  std::string num;
  for (char ch : shape) {
    if (ch >= '0' && ch <= '9') num += ch;
    else if (!num.empty()) {
      t.shape.push_back(std::stoull(num));
      count *= t.shape.back();
      num.clear();
    }
  }
  const size_t es = dtype_size(t.dtype);
  if (es == 0) throw TensorFileError(path + ": unsupported dtype " + descr);
  const uint64_t want = count * es;
  if (all.size() - hstart - hlen != want)
    throw TensorFileError(path + ": .npy data holds " + std::to_string(all.size() - hstart - hlen) + " bytes, shape " +
                          shape + " needs " + std::to_string(want));
  t.bytes.assign(all.begin() + static_cast<long>(hstart + hlen), all.end());
  return t;
}

void write_tensor_file(const std::string& path, const std::vector<uint8_t>& bytes, const std::string& dtype,
                       const std::vector<uint64_t>& shape) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw TensorFileError(path + ": cannot write");
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
      const char magic[] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
      out.write(magic, 8);
      const uint16_t hl = static_cast<uint16_t>(h.size());
      out.put(static_cast<char>(hl & 0xFF));
      out.put(static_cast<char>(hl >> 8));
      out << h;
    }
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::remove(tmp.c_str());
      throw TensorFileError(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw TensorFileError(path + ": cannot rename the finished file into place");
  }
}

}  // namespace vp::platform
