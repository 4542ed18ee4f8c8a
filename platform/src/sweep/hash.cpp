#include "vp/sweep/hash.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace vp::sweep {

void Hasher::add(std::string_view bytes) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  for (unsigned char c : bytes) {
    a_ = (a_ ^ c) * kPrime;
    b_ = (b_ ^ static_cast<unsigned char>(c + 0x5b)) * kPrime;
  }
}

std::string Hasher::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a_),
                static_cast<unsigned long long>(b_));
  return buf;
}

std::string hash_text(std::string_view text) {
  Hasher h;
  h.add(text);
  return h.hex();
}

std::string hash_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  Hasher h;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.add(std::string_view(buf.data(), static_cast<std::size_t>(in.gcount())));
  }
  return h.hex();
}

}  // namespace vp::sweep
