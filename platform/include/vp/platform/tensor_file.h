// Inputs and outputs of vp-run: raw little-endian bytes (.bin or anything
// else) or NumPy .npy (version 1.0/2.0, C order, little-endian integer or
// float dtypes; the data bytes are what reaches memory).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp::platform {

struct TensorFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct TensorData {
  std::vector<uint8_t> bytes;
  std::string dtype = "|u1";      // numpy descr
  std::vector<uint64_t> shape;
};

TensorData read_tensor_file(const std::string& path);
// Writes atomically (temporary + rename). .npy files get a header with
// `dtype` ("<i1", "<i4", ...) and `shape` (1-D over all bytes when empty);
// other names get raw bytes.
void write_tensor_file(const std::string& path, const std::vector<uint8_t>& bytes, const std::string& dtype,
                       const std::vector<uint64_t>& shape = {});

}  // namespace vp::platform
