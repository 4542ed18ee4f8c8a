// The ISPP write path with the RTL controller (hw/rtl/ispp_row_controller.sv)
// in place of the TLM loop: same interface and result as IsppWritePath.
//
// The verilated --cc controller is stepped cycle by cycle. The analog side
// stays in C++ exactly as the TLM model has it: on each pulse strobe every
// enabled cell draws its next step from its own DeviceModel stream and moves
// its double-precision level (stuck cells take the pulse and stay);
// on each verify strobe the levels go back to the controller in fixed
// point (kLevelFracBits fractional bits). After done, converged cells are
// snapped to target unless ispp.keep_residual, and the crossbar's
// non-ideality sees the write, as in the TLM model.
//
// cycles in the result are the controller's busy cycles, counted by the RTL.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"

namespace vp::hw {
class Crossbar;
}

namespace vp::hw::rtl {

// What the controller was verilated with (hw/rtl/CMakeLists.txt).
constexpr int kIsppCells = VP_RTL_ISPP_CELLS;
constexpr int kLevelFracBits = 56;

// One pulse strobe as the RTL issued it: its cycle from the row's first
// busy cycle and the cells it reached, for divergence reports.
struct IsppPulseEvent {
  std::uint64_t cycle;
  std::vector<int> cells;  // relative to col_begin
};

class RtlIsppWritePath {
 public:
  // Throws std::invalid_argument when the configuration needs more than the
  // RTL has (pulse or verify of 0 cycles). A non-empty trace_path writes the
  // controller's VCD there.
  explicit RtlIsppWritePath(const IsppConfig& cfg, const std::string& trace_path = "");
  ~RtlIsppWritePath();
  RtlIsppWritePath(const RtlIsppWritePath&) = delete;
  RtlIsppWritePath& operator=(const RtlIsppWritePath&) = delete;

  const IsppConfig& config() const { return cfg_; }
  IsppRowResult program_row(Crossbar& xb, int row, int col_begin, const std::uint8_t* targets,
                            int n, DeviceModel& device);

  // Pulse strobes of the rows programmed while set (nullptr = off).
  void record_pulses(std::vector<IsppPulseEvent>* log) { log_ = log; }
  // Controller clock cycles stepped so far, over all rows.
  std::uint64_t cycles_stepped() const { return stepped_; }

 private:
  struct Model;
  void tick();

  IsppConfig cfg_;
  std::uint64_t pulse_cycles_;
  std::uint64_t verify_cycles_;
  std::uint64_t tolerance_fx_;
  std::unique_ptr<Model> m_;
  std::vector<IsppPulseEvent>* log_ = nullptr;
  std::uint64_t stepped_ = 0;
};

// A level in the controller's fixed point: round to nearest of level * 2^56.
std::uint64_t level_to_fixed(double level);

}  // namespace vp::hw::rtl
