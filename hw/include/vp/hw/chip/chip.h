// The whole chip: clusters of CUs on a 2D-mesh NoC, each cluster with its
// SRAM and bus, global memory at one router of the mesh edge, the control
// processor beside it, and every crossbar. Built from a ChipConfig; the
// platform loads programs and data into it and calls run(). The chip binds
// every processor's ports: the clusters' (crossbars, message fabric, run
// supervision) and the control processor's, which also reaches the CUs
// through the control path.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "vp/hw/chip/chip_config.h"
#include "vp/hw/chip/core_control.h"
#include "vp/hw/chip/crossbar_bank.h"
#include "vp/hw/chip/message_fabric.h"
#include "vp/hw/chip/run_control_if.h"
#include "vp/hw/cluster/cluster.h"
#include "vp/hw/cluster/cluster_bus.h"
#include "vp/hw/cu/core_module.h"
#include "vp/hw/memory/shared_memory.h"
#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw {

enum class RunStatus { Completed, Deadlock, MaxCycles, Fault, Trap, Interrupted };
const char* run_status_name(RunStatus s);

struct RunResult {
  RunStatus status = RunStatus::Completed;
  uint64_t cycles = 0;           // last cycle any unit was busy
  std::string message;           // one paragraph for the user
  std::vector<std::string> waiting;  // deadlock: one line per waiting core
  uint32_t trap_code = 0;
};

class Chip : public sc_core::sc_module, public RunControlIf {
 public:
  // link_port: the chip is one of a system (hw/system/chip_link.h): its
  // chip-to-chip port joins the message fabric as participant
  // link_participant(), at the router of global memory.
  Chip(sc_core::sc_module_name name, const ChipConfig& cfg, TraceSink* trace = nullptr, bool link_port = false);
  ~Chip() override;

  const ChipConfig& config() const { return cfg_; }
  uint32_t cores() const { return cfg_.cores(); }
  CoreModule& core(uint32_t i) { return *cores_.at(i); }
  const CoreModule& core(uint32_t i) const { return *cores_.at(i); }
  Cluster& cluster(uint32_t i) { return *clusters_.at(i); }
  CoreModule& control_processor() { return *cp_; }
  const CoreModule& control_processor() const { return *cp_; }
  uint32_t core_index(uint32_t cluster, uint32_t cu) const { return cluster * cfg_.cus_per_cluster + cu; }
  // Message-fabric participants: the cores, then the control processor,
  // then (link_port) the chip-to-chip port.
  uint32_t cp_participant() const { return cores(); }
  uint32_t link_participant() const { return cores() + 1; }
  bool has_link_port() const { return link_port_; }

  SharedMemory& global_memory() { return *gmem_; }
  const SharedMemory& global_memory() const { return *gmem_; }
  SharedMemory& sram(uint32_t cluster) { return clusters_.at(cluster)->sram(); }
  const SharedMemory& sram(uint32_t cluster) const { return clusters_.at(cluster)->sram(); }
  CrossbarBank& crossbars() { return crossbars_; }
  const CrossbarBank& crossbars() const { return crossbars_; }
  noc::MeshNoc& noc() { return noc_; }
  const noc::MeshNoc& noc() const { return noc_; }
  MessageFabric& fabric() { return *fabric_; }
  TraceSink* trace_sink() { return trace_; }

  // Runs until every started core has stopped, a core faults or traps, the
  // cores deadlock, max_cycles (0 = no limit) is reached, or `interrupt`
  // (when given) becomes true: a signal handler sets it, and the run stops
  // between two instructions so every trace line is whole.
  RunResult run(uint64_t max_cycles, const std::atomic<bool>* interrupt = nullptr);
  // The same in parts, for several chips in one simulation (a system): arm
  // each, sc_start() once, then read each one's outcome.
  void arm(uint64_t max_cycles, const std::atomic<bool>* interrupt = nullptr);
  RunResult outcome() const;

  // RunControlIf: called by a core's thread through its run_control port.
  void on_core_stopped(const ExecutionCore& core) override;
  uint64_t max_cycles() const override { return max_cycles_; }
  void on_max_cycles(const ExecutionCore& core) override;
  void count_progress(uint64_t n) override { progress_.fetch_add(n, std::memory_order_relaxed); }
  bool interrupt_requested() const override {
    return interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed);
  }
  void on_interrupt(const ExecutionCore& core) override;
  // Instructions executed so far, readable from another thread (progress line).
  uint64_t progress_instructions() const { return progress_.load(std::memory_order_relaxed); }

 private:
  ChipConfig cfg_;
  TraceSink* trace_;
  bool link_port_ = false;
  noc::MeshNoc noc_;
  noc::Endpoint gmem_port_;
  noc::Endpoint cp_port_;
  CrossbarBank crossbars_;
  std::unique_ptr<SharedMemory> gmem_;
  std::vector<std::unique_ptr<Cluster>> clusters_;
  std::unique_ptr<ClusterBus> cp_bus_;
  std::unique_ptr<MessageFabric> fabric_;
  std::vector<CoreModule*> cores_;  // owned by their clusters
  std::unique_ptr<CoreModule> cp_;
  std::unique_ptr<CoreControl> control_;
  uint64_t max_cycles_ = 0;
  bool stop_requested_ = false;
  bool max_cycles_hit_ = false;
  const std::atomic<bool>* interrupt_ = nullptr;
  bool interrupted_ = false;
  std::atomic<uint64_t> progress_{0};
};

}  // namespace vp::hw
