// The MVM engine's direct integer path (y[c] = sum over rows of x_r *
// target[r][c], exact levels, an ADC that passes every sum) as 8-bit dot
// products over four rows at a time (AVX-512 VNNI, vpdpbusd): 64 cell
// products per instruction, on the crossbar's row quads
// (Crossbar::target_quads). Integer arithmetic, so the sums are the
// one-row-at-a-time loop's exactly.
#pragma once

#include <cstdint>

namespace vp::hw {

class Crossbar;

// acc[i] = sum over r < n_inputs of x[r] * target[r][col0 + i], i < n.
// Returns false (acc untouched) when the host has no AVX-512 VNNI, or an
// input does not fit 8 bits (all in [0, 255] or all in [-128, 127]; inputs
// in [0, 255] also need levels <= 127), or the caller's bound does not hold:
// the caller checked that every partial sum fits 32 bits.
bool mvm_direct_vnni(const Crossbar& xb, const std::int64_t* x, int n_inputs, int col0, int n, std::int32_t* acc);

}  // namespace vp::hw
