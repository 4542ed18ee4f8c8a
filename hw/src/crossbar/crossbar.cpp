#include "vp/hw/crossbar/crossbar.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "vp/hw/crossbar/non_ideality.h"

namespace vp::hw {

Crossbar::Crossbar(int rows, int cols, int cell_bits, float initial_level)
    : rows_(rows), cols_(cols), cell_bits_(cell_bits) {
  if (rows < 1 || cols < 1) throw std::invalid_argument("xbar.rows/xbar.cols: must be >= 1");
  if (cell_bits < 1 || cell_bits > 8) throw std::invalid_argument("xbar.cell_bits: must be in [1, 8]");
  const float clamped = std::clamp(initial_level, 0.0f, static_cast<float>(max_level()));
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  targets_.assign(n, 0);
  // Starting at level 0 every cell holds its target (0): nothing to store.
  if (clamped != 0.0f) levels_.assign(n, clamped);
  state_ = clamped == 0.0f ? LevelState::exact : LevelState::unknown;
}

void Crossbar::materialize() const {
  if (!levels_.empty()) return;
  levels_.resize(targets_.size());
  for (std::size_t i = 0; i < targets_.size(); ++i) levels_[i] = static_cast<float>(targets_[i]);
}

bool Crossbar::compact() const {
  if (!levels_are_targets()) return false;
  std::vector<float>().swap(levels_);
  return true;
}

Crossbar::Crossbar(const CrossbarConfig& cfg, float initial_level)
    : Crossbar(cfg.rows, cfg.cols, cfg.cell_bits, initial_level) {}

void Crossbar::check_row_range(int row, int col_begin, int n) const {
  if (row < 0 || row >= rows_ || col_begin < 0 || n < 0 || col_begin + n > cols_) {
    throw std::out_of_range("crossbar row " + std::to_string(row) + " columns [" +
                            std::to_string(col_begin) + ", " + std::to_string(col_begin + n) +
                            ") outside " + std::to_string(rows_) + "x" + std::to_string(cols_));
  }
}

void Crossbar::set_level(int row, int col, float level) {
  if (fault(row, col) != CellFault::none) return;
  materialize();
  levels_[index(row, col)] = level;
  state_ = LevelState::unknown;
}

bool Crossbar::levels_are_targets() const {
  if (levels_.empty()) state_ = LevelState::exact;
  if (state_ == LevelState::unknown) {
    // Blocks of 256 cells without an early exit inside (the compiler
    // vectorizes them); the first block with a difference ends the scan.
    bool same = true;
    constexpr std::size_t kBlock = 256;
    for (std::size_t b = 0; b < levels_.size() && same; b += kBlock) {
      const float* lv = levels_.data() + b;
      const std::uint8_t* tg = targets_.data() + b;
      unsigned differ = 0;
      if (levels_.size() - b >= kBlock) {
        for (std::size_t i = 0; i < kBlock; ++i) differ |= lv[i] != static_cast<float>(tg[i]) ? 1u : 0u;
      } else {
        for (std::size_t i = 0; i < levels_.size() - b; ++i) differ |= lv[i] != static_cast<float>(tg[i]) ? 1u : 0u;
      }
      same = differ == 0;
    }
    state_ = same ? LevelState::exact : LevelState::inexact;
  }
  return state_ == LevelState::exact;
}

void Crossbar::set_row_targets(int row, int col_begin, const std::uint8_t* targets, int n) {
  check_row_range(row, col_begin, n);
  const int top = max_level();
  for (int i = 0; i < n; ++i) {
    if (targets[i] > top) {
      throw std::out_of_range("target level " + std::to_string(targets[i]) + " above " +
                              std::to_string(top) + " at row " + std::to_string(row) +
                              " column " + std::to_string(col_begin + i));
    }
  }
  materialize();  // the analog state stays what it was, not the new targets
  std::copy(targets, targets + n, targets_.begin() + static_cast<std::ptrdiff_t>(index(row, col_begin)));
  state_ = LevelState::unknown;
  if (!quads_.empty()) {
    quad_stale_[static_cast<std::size_t>(row / quad_rows())] = 1;
    any_quad_stale_ = true;
  }
}

void Crossbar::drop_target_quads() const {
  std::vector<std::uint8_t>().swap(quads_);
  std::vector<std::uint8_t>().swap(quad_stale_);
  any_quad_stale_ = true;
}

void Crossbar::adopt_target_quads(const Crossbar& from) const {
  if (&from == this || from.quads_.empty() || from.rows_ != rows_ || from.cols_ != cols_) {
    from.drop_target_quads();
    return;
  }
  // Its buffer, every quad stale: rebuilt from this crossbar's targets on use.
  quads_.swap(from.quads_);
  quad_stale_.swap(from.quad_stale_);
  std::fill(quad_stale_.begin(), quad_stale_.end(), std::uint8_t{1});
  any_quad_stale_ = true;
  from.drop_target_quads();
}

namespace {

// Rows r0..r0+3 (those past `rows` read as 0) of a row-major byte array,
// interleaved: column c's four bytes at out[4c .. 4c+3].
void interleave_quad(const std::uint8_t* t, std::size_t r0, std::size_t rows, std::size_t cols, std::uint8_t* out) {
  const std::uint8_t* in[4];
  bool full = true;
  for (std::size_t k = 0; k < 4; ++k) {
    in[k] = r0 + k < rows ? t + (r0 + k) * cols : nullptr;
    full = full && in[k];
  }
  std::size_t c = 0;
#if defined(__SSE2__)
  // 16 columns at a time: bytes of rows 0/1 and 2/3 paired, then the pairs
  // paired (the same bytes as the loop below).
  for (; full && c + 16 <= cols; c += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in[0] + c));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in[1] + c));
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in[2] + c));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in[3] + c));
    const __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
    const __m128i xy_lo = _mm_unpacklo_epi8(x, y), xy_hi = _mm_unpackhi_epi8(x, y);
    __m128i* o = reinterpret_cast<__m128i*>(out + 4 * c);
    _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(ab_lo, xy_lo));
    _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(ab_lo, xy_lo));
    _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(ab_hi, xy_hi));
    _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(ab_hi, xy_hi));
  }
#endif
  for (; c < cols; ++c)
    for (std::size_t k = 0; k < 4; ++k) out[4 * c + k] = in[k] ? in[k][c] : 0;
}

// Rows r0..r0+15 of 2-bit levels, four quads packed into one: column c's
// byte b at out[4c + b] holds row r0 + 4k + b in bits 2k, 2k + 1.
void pack_block16(const std::uint8_t* t, std::size_t r0, std::size_t rows, std::size_t cols, std::uint8_t* out) {
  std::fill(out, out + 4 * cols, std::uint8_t{0});
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t b = 0; b < 4; ++b) {
      const std::size_t r = r0 + 4 * k + b;
      if (r >= rows) continue;
      const std::uint8_t* row = t + r * cols;
      for (std::size_t c = 0; c < cols; ++c) out[4 * c + b] |= static_cast<std::uint8_t>((row[c] & 3u) << (2 * k));
    }
}

}  // namespace

const std::uint8_t* Crossbar::target_quads() const {
  const auto block = static_cast<std::size_t>(quad_rows());
  const std::size_t n_blocks = (static_cast<std::size_t>(rows_) + block - 1) / block;
  const auto cols = static_cast<std::size_t>(cols_);
  if (quads_.size() != n_blocks * cols * 4) {
    quads_.assign(n_blocks * cols * 4, 0);
    quad_stale_.assign(n_blocks, 1);
    any_quad_stale_ = true;
  }
  if (any_quad_stale_) {
    for (std::size_t q = 0; q < n_blocks; ++q) {
      if (quad_stale_[q] == 0) continue;
      std::uint8_t* out = quads_.data() + q * cols * 4;
      if (block == 16)
        pack_block16(targets_.data(), q * 16, static_cast<std::size_t>(rows_), cols, out);
      else
        interleave_quad(targets_.data(), q * 4, static_cast<std::size_t>(rows_), cols, out);
      quad_stale_[q] = 0;
    }
    any_quad_stale_ = false;
  }
  return quads_.data();
}

std::uint8_t Crossbar::read_level(int row, int col) const {
  if (levels_.empty()) return targets_[index(row, col)];
  const float v = std::floor(levels_[index(row, col)] + 0.5f);
  return static_cast<std::uint8_t>(std::clamp(v, 0.0f, static_cast<float>(max_level())));
}

void Crossbar::read_row_levels(int row, std::uint8_t* out) const {
  check_row_range(row, 0, cols_);
  const std::size_t at = index(row, 0);
  if (levels_.empty()) {
    std::copy_n(targets_.data() + at, cols_, out);
    return;
  }
  const float top = static_cast<float>(max_level());
  const float* lv = levels_.data() + at;
  // read_level's clamp(floor(v + 0.5), 0, top) without a floor call per
  // cell (a library call on the baseline ISA, 2.4 % of the deployment
  // worker's time): below 0 it is 0, at or above top it is top, and in
  // between floor and truncation agree.
  for (int c = 0; c < cols_; ++c) {
    const float x = lv[c] + 0.5f;
    out[c] = static_cast<std::uint8_t>(x < 0.0f ? 0 : x >= top ? static_cast<int>(top) : static_cast<int>(x));
  }
}

std::vector<std::uint8_t> Crossbar::read_levels(int row_begin, int n_rows, int col_begin,
                                                int n_cols) const {
  if (n_rows < 0 || row_begin < 0 || row_begin + n_rows > rows_) {
    throw std::out_of_range("crossbar read_levels: rows outside the array");
  }
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n_rows) * static_cast<std::size_t>(n_cols));
  for (int r = 0; r < n_rows; ++r) {
    check_row_range(row_begin + r, col_begin, n_cols);
    for (int c = 0; c < n_cols; ++c) {
      out[static_cast<std::size_t>(r) * static_cast<std::size_t>(n_cols) + static_cast<std::size_t>(c)] =
          read_level(row_begin + r, col_begin + c);
    }
  }
  return out;
}

void Crossbar::program_row_exact(int row, int col_begin, const std::uint8_t* targets, int n) {
  const LevelState before = state_;
  set_row_targets(row, col_begin, targets, n);
  float* lv = row_levels(row) + col_begin;
  const std::uint8_t* f = row_faults(row);
  for (int i = 0; i < n; ++i) {
    if (f == nullptr || f[col_begin + i] == 0) lv[i] = static_cast<float>(targets[i]);
  }
  if (non_ideality_) {
    non_ideality_->on_program_row(*this, row, col_begin, col_begin + n);
  } else if (f == nullptr && before == LevelState::exact) {
    state_ = LevelState::exact;  // an exact write keeps an exact array exact: no rescan
  }
}

void Crossbar::program_block_exact(int row_begin, int n_rows, int col_begin, int n_cols,
                                   const std::uint8_t* targets) {
  for (int r = 0; r < n_rows; ++r) {
    program_row_exact(row_begin + r, col_begin,
                      targets + static_cast<std::size_t>(r) * static_cast<std::size_t>(n_cols), n_cols);
  }
}

void Crossbar::set_fault(int row, int col, CellFault f) {
  check_row_range(row, col, 1);
  if (faults_.empty()) {
    if (f == CellFault::none) return;
    faults_.assign(targets_.size(), 0);
  }
  materialize();
  const std::size_t i = index(row, col);
  faults_[i] = static_cast<std::uint8_t>(f);
  state_ = LevelState::unknown;
  if (f == CellFault::stuck_hrs) levels_[i] = 0.0f;
  if (f == CellFault::stuck_lrs) levels_[i] = static_cast<float>(max_level());
}

std::uint64_t Crossbar::fault_count() const {
  return static_cast<std::uint64_t>(
      std::count_if(faults_.begin(), faults_.end(), [](std::uint8_t f) { return f != 0; }));
}

void Crossbar::attach(std::shared_ptr<NonIdeality> model) {
  non_ideality_ = std::move(model);
  if (non_ideality_) non_ideality_->on_fabricate(*this);
}

}  // namespace vp::hw
