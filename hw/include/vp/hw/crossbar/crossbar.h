// The crossbar array itself: rows x cols memristive cells, each holding an
// analog conductance state in level units (0 = HRS .. 2^cell_bits-1 = LRS)
// and the integer level it was programmed towards. The array knows nothing
// about weights; WeightEncoding maps weights to levels.
//
// Storage is bulk and row-major (one byte per cell for the targets; one
// float per cell for the analog state, plus one byte per cell for the fault
// map only when faults exist): a 256x256 crossbar is 64 KiB while every
// cell holds exactly its target (the analog state is then not stored: the
// exact state, as ideal writes and converged ISPP without residual leave
// it) and 320 KiB otherwise. The whole sidra-y1 (419 M cells) would be
// ~2.1 GB with every analog state stored, so the CU model creates crossbars
// when they are first programmed and compact() drops an exact state.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "vp/hw/crossbar/crossbar_config.h"

namespace vp::hw {

class NonIdeality;

// Manufacturing faults: a stuck cell keeps its level whatever is written.
enum class CellFault : std::uint8_t { none = 0, stuck_hrs = 1, stuck_lrs = 2 };

class Crossbar {
 public:
  // Every cell starts at `initial_level` (device.start_level; HRS = 0).
  Crossbar(int rows, int cols, int cell_bits, float initial_level = 0.0f);
  explicit Crossbar(const CrossbarConfig& cfg, float initial_level = 0.0f);

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int cell_bits() const { return cell_bits_; }
  int max_level() const { return (1 << cell_bits_) - 1; }

  // Analog state, row-major rows x cols (stored again from the targets if
  // it was dropped as exact; pointers are good until compact()).
  const float* levels() const {
    materialize();
    return levels_.data();
  }
  // Mutable access; the pointer is good until the next read of the array
  // (MvmEngine caches whether levels equal targets, see below).
  float* row_levels(int row) {
    materialize();
    state_ = LevelState::unknown;
    return levels_.data() + index(row, 0);
  }
  const float* row_levels(int row) const {
    materialize();
    return levels_.data() + index(row, 0);
  }
  float level(int row, int col) const {
    return levels_.empty() ? static_cast<float>(targets_[index(row, col)]) : levels_[index(row, col)];
  }
  // Raw state write for device models; stuck cells keep their level.
  void set_level(int row, int col, float level);

  // Integer level each cell was last programmed towards.
  const std::uint8_t* targets() const { return targets_.data(); }
  const std::uint8_t* row_targets(int row) const { return targets_.data() + index(row, 0); }
  std::uint8_t target(int row, int col) const { return targets_[index(row, col)]; }
  // Record targets without touching the analog state (the write path does that).
  void set_row_targets(int row, int col_begin, const std::uint8_t* targets, int n);

  // What a verify/read-back sees: the analog level rounded to the nearest
  // integer level and clamped to [0, max_level].
  std::uint8_t read_level(int row, int col) const;
  // read_level of every column of `row` into out[0, cols).
  void read_row_levels(int row, std::uint8_t* out) const;
  // read_level over a block [row_begin, row_begin+n_rows) x [col_begin, col_begin+n_cols).
  std::vector<std::uint8_t> read_levels(int row_begin, int n_rows, int col_begin, int n_cols) const;

  // Direct (ideal) write: targets and levels set exactly, stuck cells keep
  // theirs, then the attached non-ideality sees the write (programming
  // noise). The fast path when ISPP timing is not of interest.
  void program_row_exact(int row, int col_begin, const std::uint8_t* targets, int n);
  // program_row_exact over a block of rows; `targets` is n_rows x n_cols.
  void program_block_exact(int row_begin, int n_rows, int col_begin, int n_cols,
                           const std::uint8_t* targets);

  // True when every cell's analog level equals its integer target exactly
  // (ideal writes, converged ISPP without residual, no faults): MvmEngine
  // then sums the one-byte targets instead of the float levels, with the
  // same result. Computed on first use after a change and cached (a cache
  // in a const method: like the rest of the class, not for concurrent use).
  bool levels_are_targets() const;
  // Drops the stored analog state when it is exact (levels_are_targets):
  // the levels then read as the targets until a write stores them again.
  // Returns whether the state is exact.
  bool compact() const;
  bool stores_levels() const { return !levels_.empty(); }

  // The targets in blocks of quad_rows() rows, for dot products over four
  // rows per instruction (mvm_vnni.h); rows past the last are 0. Column c
  // of block q is the four bytes 4 * (q * cols + c) + 0..3:
  //   cells of up to 2 bits: blocks of 16 rows, byte b holding the level of
  //     row 16q + 4k + b in its bits 2k, 2k + 1 (k = 0..3), so that the
  //     word shifted right by 2k and masked with 0x03030303 is the quad of
  //     rows 16q + 4k .. 16q + 4k + 3: a crossbar of 2-bit cells streams a
  //     quarter of the bytes from memory per MVM;
  //   wider cells: blocks of 4 rows, byte b the level of row 4q + b.
  // Kept up to date block by block on first use after a write (a cache,
  // like the above).
  const std::uint8_t* target_quads() const;
  int quad_rows() const { return cell_bits_ <= 2 ? 16 : 4; }
  // Frees the row quads (rebuilt on next use): a chip of thousands of
  // crossbars keeps them for the recently used ones only.
  void drop_target_quads() const;
  // Takes `from`'s row-quad buffer (every quad stale, rebuilt from this
  // crossbar's targets on use) and leaves `from` without: a bank that keeps
  // quads for its most recent crossbars hands the buffer on instead of
  // freeing one and allocating another.
  void adopt_target_quads(const Crossbar& from) const;
  bool has_target_quads() const { return !quads_.empty(); }

  // Fault map; empty (has_faults() false) until a fault is set.
  bool has_faults() const { return !faults_.empty(); }
  CellFault fault(int row, int col) const {
    return faults_.empty() ? CellFault::none : static_cast<CellFault>(faults_[index(row, col)]);
  }
  // nullptr when there are no faults.
  const std::uint8_t* row_faults(int row) const {
    return faults_.empty() ? nullptr : faults_.data() + index(row, 0);
  }
  // Marks a cell stuck and moves its level to HRS (0) or LRS (max_level).
  void set_fault(int row, int col, CellFault f);
  std::uint64_t fault_count() const;

  // The one place non-idealities plug in: attaching calls on_fabricate()
  // (stuck-at map); writes call on_program_row(); MvmEngine consults it on
  // every read. nullptr (the default) = ideal, and costs nothing.
  void attach(std::shared_ptr<NonIdeality> model);
  NonIdeality* non_ideality() const { return non_ideality_.get(); }

 private:
  std::size_t index(int row, int col) const {
    return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols_) +
           static_cast<std::size_t>(col);
  }
  void check_row_range(int row, int col_begin, int n) const;
  // Stores the analog state (from the targets) if it was dropped.
  void materialize() const;

  enum class LevelState : std::uint8_t { unknown, exact, inexact };

  int rows_;
  int cols_;
  int cell_bits_;
  mutable std::vector<float> levels_;  // empty: every level is its target (state_ exact)
  std::vector<std::uint8_t> targets_;
  std::vector<std::uint8_t> faults_;
  std::shared_ptr<NonIdeality> non_ideality_;
  mutable LevelState state_ = LevelState::unknown;
  mutable std::vector<std::uint8_t> quads_;       // empty until first asked for
  mutable std::vector<std::uint8_t> quad_stale_;  // per block of quad_rows() rows
  mutable bool any_quad_stale_ = true;
};

}  // namespace vp::hw
