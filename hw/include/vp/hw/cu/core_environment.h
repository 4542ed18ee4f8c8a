// What an execution core needs from the chip around it. Everything a core
// shares with others (memories, the NoC, barriers, crossbars programmed by
// the control processor, other cores) goes through this interface; the
// SystemC modules implement it and synchronise simulated time before acting,
// so shared resources are used in global time order.
#pragma once

#include <cstdint>
#include <string>

namespace vp::hw {

enum class DmaDirection : uint8_t { GlobalToLocal, LocalToGlobal, SramToLocal, LocalToSram, GlobalToSram, SramToGlobal };

// Why a core stopped early; the platform turns these into messages.
struct CoreFault {
  bool set = false;
  std::string message;
};

struct MvmRequest {
  uint32_t xbar = 0;        // crossbar index within the CU
  const int32_t* input = nullptr;  // `rows` signed inputs
  uint32_t input_bits = 8;
  int64_t* output = nullptr;       // `lcols` results, overwritten
};

// What the write path reports about one program_row (read by xstat).
struct ProgramStatus {
  uint64_t pulses = 0;  // summed over the row's cells
  uint64_t failed = 0;  // cells outside tolerance after the pulse cap
  uint64_t rounds = 0;  // pulse-and-verify iterations (the slowest cell's pulses)
  uint64_t retries = 0;  // an xprogn's passes beyond each row's first
};

class CoreEnvironment {
 public:
  virtual ~CoreEnvironment() = default;

  // Temporal decoupling: bring simulated time up to the core's local cycle.
  virtual void sync(uint64_t cycle) = 0;

  // Moves bytes between the core's scratchpad and shared memories. Returns
  // the cycle the transfer completes; sets fault on a bad address.
  virtual uint64_t dma(DmaDirection dir, uint64_t dst, uint64_t src, uint64_t bytes, uint64_t ready,
                       CoreFault& fault) = 0;

  // NoC: send returns when the packet has been injected; recv blocks until a
  // matching packet has arrived and returns the cycle its data is in place.
  virtual uint64_t send(uint32_t dst_core, uint32_t tag, const uint8_t* data, uint64_t bytes,
                        uint64_t ready, CoreFault& fault) = 0;
  virtual uint64_t recv(uint32_t src_core, uint32_t tag, uint8_t* data, uint64_t bytes, uint64_t ready,
                        CoreFault& fault) = 0;
  virtual uint64_t barrier(uint32_t id, uint32_t count, uint64_t ready, CoreFault& fault) = 0;

  // Crossbars. mvm: one crossbar of this CU, functional result written to
  // the request's output; returns the latency in cycles.
  virtual uint64_t mvm(const MvmRequest& req, CoreFault& fault) = 0;
  // Program-and-verify one row of a chip-wide crossbar; returns the latency.
  virtual uint64_t program_row(uint32_t xbar_global, uint32_t row, const uint8_t* levels, uint64_t ready,
                               CoreFault& fault) = 0;
  virtual uint64_t read_row(uint32_t xbar_global, uint32_t row, uint8_t* levels, uint64_t ready,
                            CoreFault& fault) = 0;
  // The status of this core's last program_row; environments that do not
  // model the write path report zeros.
  virtual ProgramStatus last_program_status() const { return {}; }
  // Sets it to a block's totals (xprogn, after its rows' program_row calls).
  virtual void set_last_program_status(const ProgramStatus& status) { (void)status; }
  // The ADC range of one crossbar of this CU (xadc); environments without
  // crossbars fault.
  virtual void set_adc_range(uint32_t xbar, uint32_t range, CoreFault& fault) {
    (void)xbar;
    (void)range;
    fault = {true, "xadc: this core has no crossbar ADCs"};
  }
  // The weight format of one crossbar of this CU (xfmt): wbits-bit weights,
  // differential pairs or offset slices; environments without crossbars fault.
  virtual void set_xbar_format(uint32_t xbar, uint32_t wbits, bool differential, CoreFault& fault) {
    (void)xbar;
    (void)wbits;
    (void)differential;
    fault = {true, "xfmt: this core has no crossbars"};
  }
  // The logical columns an mvm of crossbar `xbar` writes (its format);
  // 0 = the chip's format (CoreIdentity::lcols).
  virtual uint32_t xbar_logical_cols(uint32_t xbar) {
    (void)xbar;
    return 0;
  }

  // Control processor only.
  virtual uint64_t load_core(uint32_t core, uint64_t global_addr, uint64_t words, uint64_t ready,
                             CoreFault& fault) = 0;
  virtual uint64_t start_core(uint32_t core, uint32_t pc, uint64_t ready, CoreFault& fault) = 0;
  virtual uint64_t wait_core(uint32_t core, uint64_t ready, CoreFault& fault) = 0;
  virtual uint32_t core_state(uint32_t core, CoreFault& fault) = 0;
};

}  // namespace vp::hw
