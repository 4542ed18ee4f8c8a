#include "vp/hw/crossbar/rng.h"

#include <cmath>

namespace vp::hw {

namespace {
constexpr double kR = 3.442619855899;        // start of the tail
constexpr double kV = 9.91256303526217e-3;   // area of each layer
constexpr double kM = 2147483648.0;          // 2^31: scale of the 32-bit value
}  // namespace

const detail::Ziggurat& detail::ziggurat() {
  static const Ziggurat t = [] {
    Ziggurat s{};
    double dn = kR;
    double tn = dn;
    const double q = kV / std::exp(-0.5 * dn * dn);
    s.k[0] = static_cast<std::int64_t>((dn / q) * kM);
    s.k[1] = 0;
    s.w[0] = q / kM;
    s.w[127] = dn / kM;
    s.f[0] = 1.0;
    s.f[127] = std::exp(-0.5 * dn * dn);
    for (int i = 126; i >= 1; --i) {
      dn = std::sqrt(-2.0 * std::log(kV / dn + std::exp(-0.5 * dn * dn)));
      s.k[i + 1] = static_cast<std::int64_t>((dn / tn) * kM);
      tn = dn;
      s.f[i] = std::exp(-0.5 * dn * dn);
      s.w[i] = dn / kM;
    }
    return s;
  }();
  return t;
}

namespace {
// The rare path, on any source of 64-bit words.
template <class Next>
double ziggurat_slow(const detail::Ziggurat& t, Next&& next, std::int32_t hz, unsigned layer) {
  const auto uniform = [&] { return static_cast<double>(next() >> 11) * 0x1.0p-53; };
  const auto uniform_open = [&] { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; };
  for (;;) {
    const double x = hz * t.w[layer];
    if (layer == 0) {
      // Base strip: sample the tail beyond kR (Marsaglia 1964).
      double tx;
      double ty;
      do {
        tx = -std::log(uniform_open()) / kR;
        ty = -std::log(uniform_open());
      } while (ty + ty < tx * tx);
      return hz > 0 ? kR + tx : -kR - tx;
    }
    if (t.f[layer] + uniform() * (t.f[layer - 1] - t.f[layer]) < std::exp(-0.5 * x * x)) return x;
    const std::uint64_t w = next();
    layer = static_cast<unsigned>(w & 127u);
    hz = static_cast<std::int32_t>(static_cast<std::uint32_t>(w >> 32));
    const std::int64_t mag = hz < 0 ? -static_cast<std::int64_t>(hz) : hz;
    if (mag < t.k[layer]) return hz * t.w[layer];
  }
}
}  // namespace

template <class Engine>
double BasicRng<Engine>::normal_slow(std::int32_t hz, unsigned layer) {
  return ziggurat_slow(*t_, [this] { return engine_(); }, hz, layer);
}

double detail::splitmix_normal_slow(std::uint64_t& counter, std::int32_t hz, unsigned layer) {
  SplitMix64 engine(counter);
  const double x = ziggurat_slow(ziggurat(), [&engine] { return engine(); }, hz, layer);
  counter = engine.state();
  return x;
}

template class BasicRng<std::mt19937_64>;
template class BasicRng<SplitMix64>;

}  // namespace vp::hw
