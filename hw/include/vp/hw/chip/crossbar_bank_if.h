// What a processor sees of the chip's crossbars: the MVM of one crossbar,
// and the ISPP write path and readback of one row of any crossbar. Indices
// are chip-wide (crossbar k of core c is c x chip.xbars_per_cu + k). An
// index, row or level the bank does not have is a fault of the caller, not
// an exception, so the core reports it with its pc and cycle.
#pragma once

#include <cstdint>

#include <systemc>

#include "vp/hw/cu/core_environment.h"

namespace vp::hw {

class CrossbarBankIf : public virtual sc_core::sc_interface {
 public:
  // Functional MVM into `output` (lcols values); returns the latency in cycles.
  virtual uint64_t mvm(uint32_t xbar, const int32_t* input, uint32_t input_bits, int64_t* output,
                       CoreFault& fault) = 0;
  // Program-and-verify one whole row; returns the row's cycles and what the
  // write path reports about it (xstat).
  virtual uint64_t program_row(uint32_t xbar, uint32_t row, const uint8_t* levels, ProgramStatus& status,
                               CoreFault& fault) = 0;
  // Integer levels of one row; returns the readback latency in cycles.
  virtual uint64_t read_row(uint32_t xbar, uint32_t row, uint8_t* levels, CoreFault& fault) = 0;
  // Sets the ADC range of one crossbar (MvmOptions::adc_range: 0 = the
  // configured full scale, k = an LSB of 2^(k-1)), kept until set again.
  virtual void set_adc_range(uint32_t xbar, uint32_t range, CoreFault& fault) = 0;
  // Sets the weight format of one crossbar (xfmt), kept until set again;
  // the logical columns its MVM writes follow from it.
  virtual void set_format(uint32_t xbar, uint32_t wbits, bool differential, CoreFault& fault) {
    (void)xbar;
    (void)wbits;
    (void)differential;
    fault = {true, "xfmt: this chip's crossbars have one format"};
  }
  // Logical columns of one crossbar's MVM result; 0 = the chip's format.
  virtual uint32_t logical_cols_of(uint32_t xbar) const {
    (void)xbar;
    return 0;
  }
};

}  // namespace vp::hw
