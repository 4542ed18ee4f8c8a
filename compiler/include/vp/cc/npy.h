// Minimal NumPy .npy reading and writing (version 1.0, C order, little
// endian) for vp-cc's --calib, --reference and --fp32 files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vp::cc {

struct NpyArray {
  std::string dtype;                 // "<f4", "|i1", "<i4", ...
  std::vector<std::int64_t> shape;
  std::vector<char> bytes;
  std::int64_t count() const;
  std::vector<float> as_float() const;   // f4, f8, i1, u1, i4, i8
};

NpyArray read_npy(const std::string& path);
// The bytes of a whole .npy file; `file` names it in errors.
NpyArray parse_npy(const std::string& data, const std::string& file);
// The bytes of a .npy file (version 1.0, C order); write_npy writes them
// through an atomic file.
std::string encode_npy(const std::vector<std::int64_t>& shape, const std::vector<float>& data);
std::string encode_npy(const std::vector<std::int64_t>& shape, const std::vector<std::int8_t>& data);
void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& data);
void write_npy(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<std::int8_t>& data);

}  // namespace vp::cc
