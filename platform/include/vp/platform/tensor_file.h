// Inputs and outputs of vp-run: raw little-endian bytes (.bin or anything
// else) or NumPy .npy (version 1.0/2.0/3.0, C order, little-endian bool,
// integer or float dtypes; the data bytes are what reaches memory).
#pragma once

#include <cstddef>
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
  bool npy = false;               // read from a .npy (dtype and shape are the file's own)
};

// No input is larger than the largest global memory a configuration can
// have (gmem.size_mib's maximum); a bigger file is refused before it is read.
inline constexpr uint64_t kMaxTensorFileBytes = uint64_t{1} << 40;

// Reads a regular file; a directory, an unreadable, oversized or malformed
// file is a TensorFileError naming the file and what was expected.
TensorData read_tensor_file(const std::string& path);
// The same from bytes in memory; `path` names them in messages and its
// extension (.npy or not) picks the format.
TensorData parse_tensor_bytes(const std::string& path, const uint8_t* data, size_t size);

// The bytes write_tensor_file writes: a .npy header with `dtype` ("<i1",
// "<i4", ...) and `shape` (1-D over all bytes when empty) for .npy names,
// raw bytes for others.
std::vector<uint8_t> encode_tensor_file(const std::string& path, const std::vector<uint8_t>& bytes,
                                        const std::string& dtype, const std::vector<uint64_t>& shape = {});
// Writes encode_tensor_file(...) whole or not at all (vp/common/atomic_file.h).
void write_tensor_file(const std::string& path, const std::vector<uint8_t>& bytes, const std::string& dtype,
                       const std::vector<uint64_t>& shape = {});

}  // namespace vp::platform
