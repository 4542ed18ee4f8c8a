// MVM with the RTL column output path (hw/rtl/column_output_path.sv) in
// place of MvmEngine's digital back end: same interface, same results, and
// the cycles the RTL took.
//
// The analog part stays in C++ and is computed as MvmEngine computes it
// (mvm_engine.h steps 1-3: DAC codes, column sums on the cell levels with
// the non-ideality's read scale and perturbation, the column ADC): when the
// RTL strobes the front of a stage, the column sums of that DAC step and
// row group are formed and converted; when it strobes an ADC conversion,
// the codes of that column group are put on its lanes. Shift-and-add,
// slice weighting, the signed-encoding correction and saturation are the
// RTL's. The input sum for the offset correction comes from the input
// buffer, here C++.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vp/hw/crossbar/adc.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/dac.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/mvm_timing.h"
#include "vp/hw/crossbar/weight_encoding.h"

namespace vp::hw {
class Crossbar;
}

namespace vp::hw::rtl {

// What the output path was verilated with (hw/rtl/CMakeLists.txt).
constexpr int kOutputPathCols = VP_RTL_COLS;
constexpr int kOutputPathLanes = VP_RTL_LANES;

class RtlMvmEngine {
 public:
  // Throws std::invalid_argument when the crossbar or the timing needs more
  // than the RTL has (more columns or ADCs, a stage of 0 cycles).
  RtlMvmEngine(const CrossbarConfig& cfg, const MvmTimingConfig& timing,
               const std::string& trace_path = "");
  ~RtlMvmEngine();
  RtlMvmEngine(const RtlMvmEngine&) = delete;
  RtlMvmEngine& operator=(const RtlMvmEngine&) = delete;

  const CrossbarConfig& config() const { return cfg_; }
  int output_count(const MvmOptions& opt) const { return reference_.output_count(opt); }

  // As MvmEngine::run; returns the RTL's cycles from start to done.
  std::uint64_t run(const Crossbar& xb, const std::int32_t* x, int n_inputs, const MvmOptions& opt,
                    std::int64_t* y, MvmStats* stats = nullptr);

  // Controller clock cycles stepped so far, over all MVMs.
  std::uint64_t cycles_stepped() const { return stepped_; }
  // RTL cycle (from start) at which each physical column (relative to the
  // first computed one) was last converted in the last run, for divergence
  // reports.
  const std::vector<std::uint64_t>& last_conversion_cycle() const { return last_conv_; }
  // Cycle (counted from the first front cycle) by which each stage (DAC step
  // x row group) of the last run had its last shift-add done.
  const std::vector<std::uint64_t>& stage_end_cycles() const { return stage_end_; }

 private:
  struct Model;
  void tick();
  // Column sums and ADC values of one stage (DAC step, row group) into slot.
  void convert_stage(const Crossbar& xb, int stage, int slot);

  CrossbarConfig cfg_;
  MvmEngine reference_;  // only for output_count's checks
  WeightEncoding encoding_;
  Adc adc_;
  Dac dac_;
  int adcs_;
  int groups_;
  std::uint64_t front_cycles_, adc_cycles_, shift_add_cycles_;
  bool pipelined_, back_pipelined_;
  std::unique_ptr<Model> m_;
  std::uint64_t stepped_ = 0;

  // State of one run.
  struct RunState {
    const std::int32_t* x = nullptr;
    int n_inputs = 0;
    int col0 = 0;
    int n_phys = 0;
    std::vector<DacStep> steps;
    const float* scale = nullptr;
    bool integer_path = false;
    std::uint64_t clipped = 0;
  } run_;
  std::vector<std::uint32_t> bits_;
  std::vector<float> sums_;
  std::vector<std::uint16_t> isums_;
  std::vector<std::int64_t> values_;
  std::vector<std::int32_t> codes_[2];  // the two sample-and-hold slots, converted
  int slot_stage_[2] = {-1, -1};
  std::vector<std::uint64_t> last_conv_;
  std::vector<std::uint64_t> stage_end_;
};

}  // namespace vp::hw::rtl
