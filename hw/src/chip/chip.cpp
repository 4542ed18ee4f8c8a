#include "vp/hw/chip/chip.h"

#include <algorithm>
#include <string>

#include "vp/hw/noc/bandwidth_channel.h"

namespace vp::hw {

const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::Completed: return "completed";
    case RunStatus::Deadlock: return "deadlock";
    case RunStatus::MaxCycles: return "max-cycles";
    case RunStatus::Fault: return "fault";
    case RunStatus::Trap: return "trap";
    case RunStatus::Interrupted: return "interrupted";
  }
  return "?";
}

namespace {
noc::MeshNocConfig noc_config(const ChipConfig& cfg) {
  noc::MeshNocConfig n = cfg.noc;
  n.clusters = cfg.clusters;
  n.mesh_cols = cfg.mesh_cols;
  n.core_clock_mhz = cfg.clock_mhz;
  return n;
}
}  // namespace

Chip::Chip(sc_core::sc_module_name name, const ChipConfig& cfg, TraceSink* trace, bool link_port)
    : sc_module(name), cfg_(cfg), trace_(trace), link_port_(link_port), noc_(noc_config(cfg)), crossbars_(cfg) {
  const uint32_t attach = std::min(cfg.memory.gmem_attach_cluster, cfg.clusters - 1);
  gmem_port_ = noc_.attach_device(attach, "gmem");
  cp_port_ = noc_.attach_device(attach, "cp");

  gmem_ = std::make_unique<SharedMemory>(
      "gmem", cfg.memory.gmem_bytes,
      noc::gmem_channel_config(cfg.memory.gmem_latency_ns, cfg.memory.gmem_bandwidth_gbps, cfg.clock_mhz));

  std::vector<noc::Endpoint> endpoints;
  for (uint32_t c = 0; c < cfg.clusters; ++c) {
    const std::string n = "cluster" + std::to_string(c);
    clusters_.push_back(std::make_unique<Cluster>(n.c_str(), cfg, c, noc_, gmem_port_, trace));
    clusters_.back()->bus().to_global.bind(gmem_->socket);
    for (uint32_t u = 0; u < cfg.cus_per_cluster; ++u) {
      cores_.push_back(&clusters_.back()->cu(u));
      endpoints.push_back(noc_.cluster_endpoint(c));
    }
  }
  // The control processor sits beside the memory controller and reaches
  // memory through a bus of its own on that router.
  cp_bus_ = std::make_unique<ClusterBus>("cp_bus", attach, noc_, gmem_port_, sram_window(cfg));
  cp_bus_->to_global.bind(gmem_->socket);
  cp_bus_->to_sram.bind(clusters_[attach]->sram().socket);
  // Every bus reaches every cluster's SRAM through the global window, at
  // the SRAM's own port on its cluster's router.
  std::vector<noc::Endpoint> sram_ports;
  for (uint32_t c = 0; c < cfg.clusters; ++c) sram_ports.push_back(noc_.attach_device(c, "sram" + std::to_string(c)));
  for (auto& from : clusters_) {
    for (auto& to : clusters_) from->bus().to_cluster_sram.bind(to->sram().socket);
    from->bus().set_sram_ports(sram_ports);
  }
  for (auto& to : clusters_) cp_bus_->to_cluster_sram.bind(to->sram().socket);
  cp_bus_->set_sram_ports(sram_ports);
  cp_ = std::make_unique<CoreModule>("cp", core_identity(cfg, -1, -1), cfg.cp_core, cfg.memory.cp_dmem_bytes,
                                     cfg.memory.cp_imem_words, trace);
  cp_->dma_socket.bind(cp_bus_->cores);
  endpoints.push_back(cp_port_);
  // The chip-to-chip port sits beside the memory controller, as a PCIe or
  // die-to-die controller's DMA does.
  if (link_port) endpoints.push_back(noc_.attach_device(attach, "link"));
  fabric_ = std::make_unique<MessageFabric>("fabric", noc_, endpoints, cfg.core.barrier_cycles);
  control_ = std::make_unique<CoreControl>(cores_, cfg.memory.cp_load_bytes_per_cycle);

  for (auto& cluster : clusters_) {
    cluster->crossbars.bind(crossbars_);
    cluster->fabric.bind(*fabric_);
    cluster->run_control.bind(*this);
  }
  cp_->crossbars.bind(crossbars_);
  cp_->fabric.bind(*fabric_);
  cp_->control.bind(*control_);
  cp_->run_control.bind(*this);
}

Chip::~Chip() = default;

void Chip::on_core_stopped(const ExecutionCore& core) {
  const CoreState s = core.state();
  if ((s == CoreState::Faulted || s == CoreState::Trapped) && !stop_requested_) {
    stop_requested_ = true;
    sc_core::sc_stop();
  }
}

void Chip::on_max_cycles(const ExecutionCore&) {
  if (!stop_requested_) {
    max_cycles_hit_ = true;
    stop_requested_ = true;
    sc_core::sc_stop();
  }
}

void Chip::on_interrupt(const ExecutionCore&) {
  if (!stop_requested_) {
    interrupted_ = true;
    stop_requested_ = true;
    sc_core::sc_stop();
  }
}

RunResult Chip::run(uint64_t max_cycles, const std::atomic<bool>* interrupt) {
  arm(max_cycles, interrupt);
  if (interrupt_requested()) {
    RunResult r;
    r.status = RunStatus::Interrupted;
    r.message = "interrupted before the run started";
    return r;
  }
  sc_core::sc_start();
  return outcome();
}

void Chip::arm(uint64_t max_cycles, const std::atomic<bool>* interrupt) {
  max_cycles_ = max_cycles;
  interrupt_ = interrupt;
}

RunResult Chip::outcome() const {
  RunResult r;
  const uint64_t max_cycles = max_cycles_;
  std::vector<const CoreModule*> all(cores_.begin(), cores_.end());
  all.push_back(cp_.get());
  for (const CoreModule* m : all) {
    const ExecutionCore& c = m->core();
    r.cycles = std::max({r.cycles, c.stats().last_cycle, c.end_cycle()});
  }
  auto who = [](const ExecutionCore& c) {
    const CoreIdentity& id = c.identity();
    return id.is_control() ? std::string("control processor")
                           : "core " + std::to_string(id.core) + " (cluster " + std::to_string(id.cluster) + ", cu " +
                                 std::to_string(id.cu) + ")";
  };
  for (const CoreModule* m : all) {
    const ExecutionCore& c = m->core();
    if (c.state() == CoreState::Faulted) {
      r.status = RunStatus::Fault;
      r.message = c.fault_message();
      return r;
    }
    if (c.state() == CoreState::Trapped) {
      r.status = RunStatus::Trap;
      r.trap_code = c.trap_code();
      r.message = who(c) + " stopped the run with trap code " + std::to_string(c.trap_code()) + " at pc " +
                  std::to_string(c.pc() - 1) + ", cycle " + std::to_string(c.end_cycle());
      return r;
    }
  }
  if (interrupted_) {
    r.status = RunStatus::Interrupted;
    r.message = "interrupted at cycle " + std::to_string(r.cycles) + " before every core halted";
    return r;
  }
  if (max_cycles_hit_) {
    r.status = RunStatus::MaxCycles;
    r.message = "stopped at --max-cycles " + std::to_string(max_cycles) + " before every core halted";
    return r;
  }
  // Nothing left to simulate but some core has not halted: every such core
  // is blocked on something no one will provide.
  for (const CoreModule* m : all) {
    const ExecutionCore& c = m->core();
    if (c.state() != CoreState::Running) continue;
    const std::string what = c.waiting_for().empty() ? std::string("an event") : c.waiting_for();
    r.waiting.push_back(who(c) + " at pc " + std::to_string(c.pc()) + ", cycle " + std::to_string(c.cycle()) +
                        ": waits for " + what);
  }
  if (!r.waiting.empty()) {
    r.status = RunStatus::Deadlock;
    r.message = "deadlock: every running core waits and nothing is in flight";
    return r;
  }
  // Every core halted, but a message nobody received means the program's
  // sends and receives do not pair up (and would be taken by the wrong
  // receive of the next batch element).
  if (const uint64_t left = fabric_->undelivered()) {
    r.status = RunStatus::Fault;
    r.message = std::to_string(left) + " message(s) sent but never received, the first " +
                fabric_->first_undelivered();
  }
  return r;
}

}  // namespace vp::hw
