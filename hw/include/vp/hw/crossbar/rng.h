// The random sources of the device and non-ideality models. Engines are
// fully specified (std::mt19937_64 by the standard, SplitMix64 below); the
// standard distributions are not (libstdc++ and libc++ draw differently),
// so uniform and normal variates are derived here from the raw 64-bit
// words: same seed, same numbers with any standard library.
//
// Two engines:
//  - Rng (std::mt19937_64): one long sequential stream, for models whose
//    draws come in one fixed order (the non-idealities);
//  - StreamRng (SplitMix64): a stream whose whole state is one 64-bit
//    counter, so starting one costs a hash. The device model gives every
//    (crossbar, row, column, write) its own stream: cells can be drawn in
//    any order, or on several threads, and give the same numbers.
#pragma once

#include <cstdint>
#include <random>

namespace vp::hw {

// The splitmix64 finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit
// words whose output bits each depend on every input bit.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Turns (base seed, stream id) into a well-mixed seed so every crossbar of a
// chip gets its own independent stream from one device.seed.
inline std::uint64_t derive_seed(std::uint64_t base, std::uint64_t stream) {
  return mix64(base + 0x9E3779B97F4A7C15ULL * (stream + 1));
}

// SplitMix64: a Weyl counter through mix64 (passes BigCrush). Counter-based:
// the n-th word of the stream keyed k is mix64(k + n * golden ratio).
class SplitMix64 {
 public:
  using result_type = std::uint64_t;
  explicit SplitMix64(std::uint64_t key) : s_(key) {}
  std::uint64_t operator()() {
    s_ += 0x9E3779B97F4A7C15ULL;
    return mix64(s_);
  }
  // The counter: a stream resumes from it (SplitMix64(state())).
  std::uint64_t state() const { return s_; }

 private:
  std::uint64_t s_;
};

namespace detail {
// Standard normal by the ziggurat method (Marsaglia & Tsang 2000, 128 layers).
struct Ziggurat {
  std::int64_t k[128];
  double w[128];
  double f[128];
};
const Ziggurat& ziggurat();
// The ziggurat's rare path (a draw outside a layer's rectangle) on the
// SplitMix64 stream whose counter is `counter`, advanced past the words it
// takes: what StreamRng::normal() does after its first word missed, for the
// SIMD cell kernels that run the first word of several streams at once.
double splitmix_normal_slow(std::uint64_t& counter, std::int32_t hz, unsigned layer);
}  // namespace detail

template <class Engine>
class BasicRng {
 public:
  explicit BasicRng(std::uint64_t seed) : engine_(seed), t_(&detail::ziggurat()) {}

  std::uint64_t bits() { return engine_(); }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1): safe for log().
  double uniform_open() { return (static_cast<double>(engine_() >> 11) + 0.5) * 0x1.0p-53; }

  // Standard normal, ziggurat: ~99% of draws cost one 64-bit word, a table
  // look-up and a multiply, which matters because ISPP draws one per pulse.
  // The layer index and the value come from disjoint bits of the word.
  double normal() {
    const std::uint64_t w = engine_();
    const auto layer = static_cast<unsigned>(w & 127u);
    const auto hz = static_cast<std::int32_t>(static_cast<std::uint32_t>(w >> 32));
    const std::int64_t mag = hz < 0 ? -static_cast<std::int64_t>(hz) : hz;
    if (mag < t_->k[layer]) return hz * t_->w[layer];
    return normal_slow(hz, layer);
  }

  double normal(double mean, double sigma) { return mean + sigma * normal(); }

 private:
  double normal_slow(std::int32_t hz, unsigned layer);

  Engine engine_;
  const detail::Ziggurat* t_;
};

using Rng = BasicRng<std::mt19937_64>;
using StreamRng = BasicRng<SplitMix64>;

extern template class BasicRng<std::mt19937_64>;
extern template class BasicRng<SplitMix64>;

}  // namespace vp::hw
