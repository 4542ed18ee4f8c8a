// The random source of the device and non-ideality models. std::mt19937_64
// is fully specified by the standard; the distributions are not (libstdc++
// and libc++ draw differently), so uniform and normal variates are derived
// here from the raw 64-bit words: same seed, same numbers with any standard
// library.
#pragma once

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

  std::uint64_t bits() { return engine_(); }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1): safe for log().
  double uniform_open() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }

  // Standard normal, ziggurat method (Marsaglia & Tsang 2000, 128 layers):
  // ~99% of draws cost one 64-bit word, a table look-up and a multiply,
  // which matters because ISPP draws one per pulse. The layer index and the
  // value come from disjoint bits of the word.
  double normal() {
    const std::uint64_t w = engine_();
    const auto layer = static_cast<unsigned>(w & 127u);
    const auto hz = static_cast<std::int32_t>(static_cast<std::uint32_t>(w >> 32));
    const std::int64_t mag = hz < 0 ? -static_cast<std::int64_t>(hz) : hz;
    const Tables& t = tables();
    if (mag < t.k[layer]) return hz * t.w[layer];
    return normal_slow(hz, layer);
  }

  double normal(double mean, double sigma) { return mean + sigma * normal(); }

 private:
  struct Tables {
    std::int64_t k[128];
    double w[128];
    double f[128];
  };
  static const Tables& tables();
  double normal_slow(std::int32_t hz, unsigned layer);

  std::mt19937_64 engine_;
};

}  // namespace vp::hw
