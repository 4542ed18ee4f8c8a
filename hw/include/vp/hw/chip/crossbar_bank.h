// All crossbars of the chip, created when first touched (a sidra-y1 has
// 6,400 of them and most programs use a fraction), with the functional MVM
// engine, the ISPP write path and the device model shared by all of them.
// Each crossbar's device randomness is seeded from (run seed, crossbar id),
// so the pulses a row needs do not depend on the order rows are programmed.
// The ISPP controller and the MVM back end can each be the RTL (hw/rtl,
// ChipConfig::rtl) instead of the TLM model, with the same results.
// Processors reach the bank through CrossbarBankIf, which checks their
// indices and levels; the platform uses the unchecked calls directly.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "vp/hw/chip/chip_config.h"
#include "vp/hw/chip/crossbar_bank_if.h"
#include "vp/hw/chip/deploy_ahead.h"
#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"
#include "vp/hw/crossbar/mvm_engine.h"
#include "vp/hw/crossbar/mvm_timing.h"
#include "vp/hw/crossbar/non_ideality.h"

namespace vp::hw {

namespace rtl {
class RtlIsppWritePath;
class RtlMvmEngine;
}  // namespace rtl

struct CrossbarBankStats {
  uint64_t crossbars_used = 0;
  uint64_t mvms = 0;
  uint64_t dac_steps = 0, adc_conversions = 0, adc_clipped = 0, outputs_saturated = 0;
  uint64_t rows_programmed = 0, cells_programmed = 0;
  uint64_t ispp_pulses = 0, ispp_verify_reads = 0, ispp_failed_cells = 0;
  uint64_t ispp_cycles = 0;   // sum over rows of the row's programming time
  double ispp_energy_pj = 0;
  uint64_t rows_read = 0;
};

class CrossbarBank : public CrossbarBankIf {
 public:
  explicit CrossbarBank(const ChipConfig& cfg);
  ~CrossbarBank() override;

  uint32_t count() const { return total_; }
  uint32_t logical_cols() const { return static_cast<uint32_t>(lcols_); }
  // The crossbar, created at the device's start state if never touched.
  // Every row is in its start state or written: a row's start state is
  // drawn when the row is first written (or the crossbar first read), with
  // the numbers of a reset at creation, so the row is in cache for its
  // first write and the crossbar is not swept twice.
  Crossbar& at(uint32_t id);
  bool exists(uint32_t id) const { return id < xbars_.size() && xbars_[id] != nullptr; }

  // Functional MVM into `out` (lcols values, overwritten); returns the latency in cycles.
  uint64_t mvm(uint32_t id, const int32_t* in, int input_bits, int64_t* out);
  // Program-and-verify one row (all its columns); returns the row's cycles.
  uint64_t program_row(uint32_t id, uint32_t row, const uint8_t* levels, uint32_t col0, uint32_t ncols);
  // Many row writes at once (the platform's preload): each crossbar's rows
  // in the order given, different crossbars on up to `threads` threads.
  // Every cell draws from its own stream (DeviceModel) and the statistics
  // are summed in the order given afterwards, so levels, pulses and
  // statistics are the same for any thread count. Returns the sum of the
  // rows' cycles. The RTL write path runs them one by one.
  struct RowWrite {
    uint32_t id, row, col0, ncols;
    const uint8_t* levels;
  };
  uint64_t program_rows(const std::vector<RowWrite>& writes, unsigned threads);
  // Read back integer levels of one row.
  void read_row(uint32_t id, uint32_t row, uint8_t* out);
  // The rows a firmware deployment is expected to write (DeployAhead): a
  // second host thread programs them ahead, and xread and xprog of a row
  // take its result when the levels are the ones expected. Only where the
  // worker's numbers are the simulation's: the TLM write path, no
  // non-ideality model (its streams are drawn in simulation order), drawn
  // start states; and with more than one host thread (threads - 1 of them
  // compute, at most 4). Returns whether it runs.
  bool plan_deployment(std::vector<DeployAhead::Row> rows, unsigned threads);
  uint64_t rows_programmed_ahead() const { return ahead_ ? ahead_->rows_taken() : 0; }
  // The seed of crossbar id's device model.
  static uint64_t device_seed(uint64_t seed, uint32_t id);
  uint64_t readback_cycles() const { return readback_cycles_; }

  // CrossbarBankIf: the same operations for a processor, faulting instead of
  // throwing on a crossbar, row or level the chip does not have.
  uint64_t mvm(uint32_t xbar, const int32_t* input, uint32_t input_bits, int64_t* output,
               CoreFault& fault) override;
  uint64_t program_row(uint32_t xbar, uint32_t row, const uint8_t* levels, ProgramStatus& status,
                       CoreFault& fault) override;
  uint64_t read_row(uint32_t xbar, uint32_t row, uint8_t* levels, CoreFault& fault) override;

  void set_adc_range(uint32_t xbar, uint32_t range, CoreFault& fault) override;
  uint8_t adc_range(uint32_t id) const { return id < adc_range_.size() ? adc_range_[id] : 0; }
  // Weight formats (xfmt): a crossbar keeps the chip's (xbar.weight_bits,
  // xbar.signed_encoding) until set; each other format has an engine of its
  // own, so the output path decodes the crossbar's columns with its own
  // slices and encoding.
  void set_format(uint32_t xbar, uint32_t wbits, bool differential, CoreFault& fault) override;
  uint32_t logical_cols_of(uint32_t xbar) const override;

  // ADC profile: with it on, every MVM records the largest analog column
  // sum its conversions see, per crossbar (what a calibration run measures
  // to choose ADC ranges; it costs host time: no direct path).
  void profile_adc(bool on) { profile_ = on; }
  struct AdcProfile {
    double max_column_sum = 0;
    uint64_t mvms = 0;
  };
  const std::map<uint32_t, AdcProfile>& adc_profile() const { return profile_sums_; }

  const CrossbarBankStats& stats() const { return stats_; }
  // Failed cells per crossbar id, for the statistics report.
  const std::map<uint32_t, uint64_t>& failed_cells() const { return failed_; }

 private:
  DeviceModel& device(uint32_t id);
  // The crossbar, created if never touched, rows whose start state is not
  // drawn yet left so (see at()).
  Crossbar& slot(uint32_t id);
  // Draws the start state of `row` if it is still pending.
  void start_row(uint32_t id, Crossbar& xb, uint32_t row);
  void account(uint32_t id, uint32_t ncols, const IsppRowTotals& r);
  // xprog of a whole row with a deployment planned: the worker's result when
  // it is this write, else program_row.
  uint64_t program_row_ahead(uint32_t id, uint32_t row, const uint8_t* levels);

  ChipConfig cfg_;
  uint32_t total_;
  int lcols_;
  std::vector<std::unique_ptr<Crossbar>> xbars_;
  std::vector<std::unique_ptr<DeviceModel>> devices_;
  std::vector<std::vector<uint8_t>> unstarted_;  // per crossbar: rows whose start state is pending
  // Crossbars whose MVMs may have built row quads (Crossbar::target_quads,
  // 64 KiB each), oldest first: beyond kQuadCrossbars the oldest drops them.
  static constexpr std::size_t kQuadCrossbars = 8192;
  std::deque<uint32_t> quad_fifo_;
  std::vector<uint8_t> in_quad_fifo_;
  MvmEngine engine_;
  MvmTiming timing_;
  IsppWritePath ispp_;
  std::unique_ptr<rtl::RtlIsppWritePath> rtl_ispp_;  // set when ispp.impl = rtl
  std::unique_ptr<rtl::RtlMvmEngine> rtl_engine_;    // set when adc.output_path_impl = rtl
  std::shared_ptr<NonIdeality> nonideal_;  // null when ideal
  uint64_t mvm_cycles_[17] = {};
  uint64_t readback_cycles_;
  CrossbarBankStats stats_;
  std::map<uint32_t, uint64_t> failed_;
  std::vector<uint8_t> adc_range_;  // per crossbar; 0 = the configured full scale
  // Per crossbar: 0 = the chip's format, k = formats_[k - 1].
  std::vector<uint8_t> format_;
  struct Format {
    int weight_bits;
    SignedEncoding encoding;
    int lcols;
    std::unique_ptr<MvmEngine> engine;
  };
  std::vector<Format> formats_;
  MvmEngine& engine_of(uint32_t id) {
    const uint8_t f = id < format_.size() ? format_[id] : 0;
    return f == 0 ? engine_ : *formats_[f - 1u].engine;
  }
  bool profile_ = false;
  std::map<uint32_t, AdcProfile> profile_sums_;
  // Declared last: its worker reads the write path and the configuration.
  std::unique_ptr<DeployAhead> ahead_;
};

}  // namespace vp::hw
