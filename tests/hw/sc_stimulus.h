// Stimulus for the SystemC model tests: a thread that runs a test's script in
// simulated time, and a TLM initiator that issues one blocking transaction
// the way a DMA engine does. SystemC elaborates once per process and CTest
// runs each test case in a process of its own, so a test builds its models,
// binds them, and calls sc_start() once.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace vp::hw::test {

// One SystemC cycle is 1 ns (docs/chip-model.md, Time).
inline uint64_t now() { return static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); }
inline void wait_until(uint64_t cycle) {
  const sc_core::sc_time t(static_cast<double>(cycle), sc_core::SC_NS);
  if (t > sc_core::sc_time_stamp()) sc_core::wait(t - sc_core::sc_time_stamp());
}

class Script : public sc_core::sc_module {
 public:
  Script(sc_core::sc_module_name name, std::function<void()> body) : sc_module(name), body_(std::move(body)) {
    SC_HAS_PROCESS(Script);
    SC_THREAD(run);
  }

 private:
  // The thread parks when the script is done instead of returning: a
  // terminated SystemC thread's coroutine stack is released while the
  // sanitizers' leak check still has it on record as a thread stack, and
  // its scan at exit then faults (LeakSanitizer "Tracer caught signal 11").
  void run() {
    body_();
    sc_core::wait(parked_);
  }
  std::function<void()> body_;
  sc_core::sc_event parked_;
};

struct Completion {
  uint64_t cycle = 0;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE;
  uint64_t address_after = 0;  // the address as the initiator sees it afterwards
};

class Initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Initiator> socket;
  explicit Initiator(sc_core::sc_module_name name) : sc_module(name), socket("socket") {}

  // One transaction issued at the current time; returns when it completes
  // (the annotated delay, not waited for).
  Completion transport(bool read, uint64_t addr, uint8_t* data, uint32_t bytes) {
    tlm::tlm_generic_payload trans;
    trans.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    trans.set_address(addr);
    trans.set_data_ptr(data);
    trans.set_data_length(bytes);
    trans.set_streaming_width(bytes);
    trans.set_byte_enable_ptr(nullptr);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    socket->b_transport(trans, delay);
    Completion c;
    c.cycle = static_cast<uint64_t>((sc_core::sc_time_stamp() + delay).to_seconds() * 1e9 + 0.5);
    c.status = trans.get_response_status();
    c.address_after = trans.get_address();
    return c;
  }
};

}  // namespace vp::hw::test
