// Conversions from a parameter's documented unit to the unit of the model
// field it sets (the HW(conversion, member) column of params.def). The chip
// builder applies them to configured values and the hw structs to the
// defaults, so both land on the same number.
#pragma once

#include <cstdint>
#include <string_view>

namespace vp::config::unit {

// The value as it is (ns stay ns, cycles stay cycles, counts stay counts).
template <typename T>
constexpr T as_is(T v) {
  return v;
}
// KiB -> bytes, MiB -> bytes.
constexpr std::uint64_t kib_to_bytes(std::int64_t kib) { return static_cast<std::uint64_t>(kib) << 10; }
constexpr std::uint64_t mib_to_bytes(std::int64_t mib) { return static_cast<std::uint64_t>(mib) << 20; }
// K (1024) instructions -> 64-bit instruction words.
constexpr std::uint64_t kinstr_to_words(std::int64_t k) { return static_cast<std::uint64_t>(k) * 1024; }
// KiB of 64-bit instruction memory -> instruction words.
constexpr std::uint64_t kib_to_words(std::int64_t kib) { return kib_to_bytes(kib) / 8; }
// Block implementation choice "tlm" | "rtl" -> runs as RTL.
constexpr bool is_rtl(std::string_view impl) { return impl == "rtl"; }

}  // namespace vp::config::unit
