// Stable content hashes for point and program identities: the same text
// (or file bytes) gives the same name on every machine and every run, so an
// interrupted sweep or a Slurm task finds the folders an earlier run made.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vp::sweep {

// 128-bit FNV-1a over the bytes, as 32 hex digits (two 64-bit lanes with
// different offsets, so accidental collisions are out of reach for sweeps
// of any realistic size).
class Hasher {
 public:
  void add(std::string_view bytes);
  // A field and a separator that cannot occur in field text, so ("ab","c")
  // and ("a","bc") differ.
  void field(std::string_view text) {
    add(text);
    add(std::string_view("\0", 1));
  }
  std::string hex() const;

 private:
  std::uint64_t a_ = 0xcbf29ce484222325ULL;
  std::uint64_t b_ = 0x6c62272e07bb0142ULL;
};

std::string hash_text(std::string_view text);
// Hash of a file's bytes; throws std::runtime_error when unreadable.
std::string hash_file(const std::string& path);

}  // namespace vp::sweep
