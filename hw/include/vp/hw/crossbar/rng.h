// The random source of the device and non-ideality models. std::mt19937_64
// is fully specified by the standard; the distributions are not (libstdc++
// and libc++ draw differently), so uniform and normal variates are derived
// here from the raw 64-bit words: same seed, same numbers on every platform.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace vp::hw {

// splitmix64: turns (base seed, stream id) into a well-mixed seed so every
// crossbar of a chip gets its own independent stream from one device.seed.
inline std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream) {
  std::uint64_t z = base + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Standard normal by Box-Muller; the second variate of each pair is kept.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 6.283185307179586476925 * u2;
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }

  double normal(double mean, double sigma) { return mean + sigma * normal(); }

 private:
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace vp::hw
