#include "vp/platform/run_statistics.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

namespace vp::platform {

using nlohmann::json;

namespace {

constexpr std::array<isa::Unit, isa::kUnitCount> kUnits = {isa::Unit::Scalar, isa::Unit::Crossbar, isa::Unit::Vector,
                                                           isa::Unit::Dma,    isa::Unit::Noc,      isa::Unit::Sync,
                                                           isa::Unit::Control};

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

}  // namespace

json run_statistics(const hw::Chip& chip, const hw::RunResult& result, const LoadSummary& load,
                    const HostFigures& host) {
  const hw::ChipConfig& cfg = chip.config();
  const double cycles = static_cast<double>(result.cycles);
  const double seconds = cycles * cfg.cycle_ns() * 1e-9;
  json j;
  j["run"] = {{"status", hw::run_status_name(result.status)},
              {"message", result.message},
              {"cycles", result.cycles},
              {"clock_mhz", cfg.clock_mhz},
              {"time_s", seconds}};
  if (!result.waiting.empty()) j["run"]["waiting"] = result.waiting;

  // Per unit over the cores that executed anything; utilization = busy
  // cycles / (active cores x run cycles).
  std::array<uint64_t, isa::kUnitCount> busy{}, insts{};
  uint64_t instructions = 0, active = 0, scalar_ops = 0, vector_elements = 0, dma_bytes = 0, noc_bytes = 0;
  uint64_t mvm_insts = 0, activations = 0, macs = 0;
  json per_core = json::array();
  auto add_core = [&](const hw::ExecutionCore& c) {
    const hw::CoreStats& s = c.stats();
    if (s.instructions == 0) return;
    active++;
    instructions += s.instructions;
    scalar_ops += s.scalar_ops;
    vector_elements += s.vector_elements;
    dma_bytes += s.dma_bytes;
    noc_bytes += s.noc_bytes_sent;
    mvm_insts += s.mvm_instructions;
    activations += s.xbar_activations;
    macs += s.mvm_macs;
    json units = json::object();
    for (size_t u = 0; u < kUnits.size(); ++u) {
      busy[u] += s.unit_busy[u];
      insts[u] += s.unit_insts[u];
      if (s.unit_insts[u])
        units[std::string(isa::unit_name(kUnits[u]))] = {{"instructions", s.unit_insts[u]},
                                                         {"busy_cycles", s.unit_busy[u]},
                                                         {"utilization", ratio(static_cast<double>(s.unit_busy[u]), cycles)}};
    }
    const hw::CoreIdentity& id = c.identity();
    per_core.push_back({{"core", id.is_control() ? json("cp") : json(id.core)},
                        {"cluster", id.cluster},
                        {"cu", id.cu},
                        {"state", hw::core_state_name(c.state())},
                        {"instructions", s.instructions},
                        {"first_cycle", s.first_cycle},
                        {"last_cycle", s.last_cycle},
                        {"dma_bytes", s.dma_bytes},
                        {"dma_cluster_bytes", s.dma_cluster_bytes},
                        {"units", units}});
  };
  for (uint32_t i = 0; i < chip.cores(); ++i) add_core(chip.core(i).core());
  add_core(chip.control_processor().core());
  json units = json::object();
  for (size_t u = 0; u < kUnits.size(); ++u)
    if (insts[u])
      units[std::string(isa::unit_name(kUnits[u]))] = {
          {"instructions", insts[u]},
          {"busy_cycles", busy[u]},
          {"utilization", ratio(static_cast<double>(busy[u]), cycles * static_cast<double>(active))}};
  j["instructions"] = instructions;
  j["active_cores"] = active;
  j["units"] = units;
  j["cores"] = per_core;

  const hw::CrossbarBankStats& xs = chip.crossbars().stats();
  j["crossbar"] = {{"mvm_instructions", mvm_insts},
                   {"crossbar_activations", activations},
                   {"macs", macs},
                   {"crossbars_used", xs.crossbars_used},
                   {"crossbars_total", chip.crossbars().count()},
                   {"dac_steps", xs.dac_steps},
                   {"adc_conversions", xs.adc_conversions},
                   {"adc_clipped", xs.adc_clipped},
                   {"outputs_saturated", xs.outputs_saturated}};
  json failed = json::array();
  for (const auto& [id, n] : chip.crossbars().failed_cells()) failed.push_back({{"crossbar", id}, {"failed_cells", n}});
  j["ispp"] = {{"rows_programmed", xs.rows_programmed},
               {"cells_programmed", xs.cells_programmed},
               {"pulses", xs.ispp_pulses},
               {"verify_reads", xs.ispp_verify_reads},
               {"failed_cells", xs.ispp_failed_cells},
               {"failed_by_crossbar", failed},
               {"row_cycles_total", xs.ispp_cycles},
               {"energy_pj", xs.ispp_energy_pj},
               {"rows_read_back", xs.rows_read},
               {"preloaded_cell_programs", load.cell_programs},
               {"preloaded_cells", load.cells},
               {"preload_row_serial_cycles", load.preload_ispp_cycles},
               {"preload_note", load.cell_programs
                                    ? "cell programs were written by the platform before the run (no deploy firmware): "
                                      "levels, pulses and failures are simulated; their time is not on the timeline"
                                    : ""}};

  const hw::noc::MeshNoc& noc = chip.noc();
  json links = json::array();
  // The link (between routers, or a port) busy the longest: a link moves
  // one flit a NoC cycle, so no run with this traffic is shorter than its
  // busy cycles. They count the whole run, the program's load and any
  // deployment included, so they bound the run, not one inference.
  const hw::noc::Link* busiest = nullptr;
  for (const auto& l : noc.links())
    if (l.stats.packets) {
      links.push_back({{"link", l.name},
                       {"bytes", l.stats.bytes},
                       {"flits", l.stats.flits},
                       {"packets", l.stats.packets},
                       {"busy_cycles", l.stats.busy_cycles},
                       {"blocked_cycles", l.stats.blocked_cycles}});
      if (!busiest || l.stats.busy_cycles > busiest->stats.busy_cycles) busiest = &l;
    }
  const hw::noc::NocTotals& nt = noc.totals();
  j["noc"] = {{"packets", nt.packets},
              {"bytes", nt.bytes},
              {"flits", nt.flits},
              {"flit_hops", nt.flit_hops},
              {"contention_cycles", nt.contention_cycles},
              {"core_to_core_bytes", noc_bytes},
              {"links", links}};
  if (busiest)
    j["noc"]["busiest_link"] = {{"link", busiest->name},
                                {"busy_cycles", busiest->stats.busy_cycles},
                                {"share_of_run", ratio(static_cast<double>(busiest->stats.busy_cycles), cycles)}};

  const hw::SharedMemoryStats& gs = chip.global_memory().stats();
  uint64_t sram_bytes = 0;
  for (uint32_t c = 0; c < cfg.clusters; ++c) {
    const auto& s = chip.sram(c).stats();
    sram_bytes += s.bytes_read + s.bytes_written;
  }
  j["memory"] = {{"gmem_bytes_read", gs.bytes_read},
                 {"gmem_bytes_written", gs.bytes_written},
                 {"gmem_busy_cycles", chip.global_memory().channel().stats().busy_cycles},
                 {"sram_bytes", sram_bytes},
                 {"dma_bytes", dma_bytes}};

  // Energy: event counts times the energy parameters (pJ).
  const hw::EnergyConfig& e = cfg.energy;
  const double cells_per_step = static_cast<double>(cfg.xbar.rows) * cfg.xbar.cols;
  json energy = {
      {"dac", static_cast<double>(xs.dac_steps) * cfg.xbar.rows * e.dac_pj},
      {"crossbar_read", static_cast<double>(xs.dac_steps) * cells_per_step * e.xbar_read_pj_per_cell},
      {"sample_hold", static_cast<double>(xs.dac_steps) * cfg.xbar.cols * e.sample_hold_pj},
      {"adc", static_cast<double>(xs.adc_conversions) * e.adc_pj_at(cfg.xbar.adc_bits)},
      {"shift_add", static_cast<double>(xs.adc_conversions) * e.shift_add_pj},
      {"ispp", xs.ispp_energy_pj},
      {"vector", static_cast<double>(vector_elements) * e.vector_pj_per_element},
      {"scalar", static_cast<double>(scalar_ops) * e.scalar_pj},
      {"control_processor", static_cast<double>(chip.control_processor().core().stats().instructions) * e.cp_pj_per_op},
      {"sram", static_cast<double>(sram_bytes) * e.sram_pj_per_byte},
      {"global_memory", static_cast<double>(gs.bytes_read + gs.bytes_written) * e.gmem_pj_per_byte},
      {"noc", static_cast<double>(nt.flit_hops) * e.noc_pj_per_flit_hop},
      {"leakage", (e.leakage_mw_per_cu * chip.cores() + e.leakage_mw_per_cluster * cfg.clusters) * 1e-3 * seconds * 1e12}};
  double total = 0;
  for (const auto& [k, v] : energy.items()) total += v.get<double>();
  j["energy_pj"] = energy;
  j["energy_pj"]["total"] = total;

  j["host"] = {{"wall_s", host.wall_seconds},
               {"instructions_per_s", ratio(static_cast<double>(instructions), host.wall_seconds)},
               {"trace_records", host.trace_records},
               // Row writes of the deployment taken from the second thread
               // (hw::DeployAhead): how the host shared the work, no figure
               // of the chip's.
               {"deploy_rows_ahead", chip.crossbars().rows_programmed_ahead()}};
  return j;
}

std::string run_summary(const json& s) {
  std::ostringstream o;
  char buf[256];
  const auto& run = s["run"];
  std::snprintf(buf, sizeof buf, "run:         %s after %llu cycles (%.3f us at %.0f MHz)\n",
                run["status"].get<std::string>().c_str(), static_cast<unsigned long long>(run["cycles"].get<uint64_t>()),
                run["time_s"].get<double>() * 1e6, run["clock_mhz"].get<double>());
  o << buf;
  std::snprintf(buf, sizeof buf, "executed:    %llu instructions on %llu cores\n",
                static_cast<unsigned long long>(s["instructions"].get<uint64_t>()),
                static_cast<unsigned long long>(s["active_cores"].get<uint64_t>()));
  o << buf;
  for (const auto& [name, u] : s["units"].items()) {
    std::snprintf(buf, sizeof buf, "  %-7s    %10llu instructions, %5.1f %% busy\n", name.c_str(),
                  static_cast<unsigned long long>(u["instructions"].get<uint64_t>()), 100.0 * u["utilization"].get<double>());
    o << buf;
  }
  const auto& x = s["crossbar"];
  std::snprintf(buf, sizeof buf, "crossbars:   %llu used of %llu, %llu MVMs, %llu MACs\n",
                static_cast<unsigned long long>(x["crossbars_used"].get<uint64_t>()),
                static_cast<unsigned long long>(x["crossbars_total"].get<uint64_t>()),
                static_cast<unsigned long long>(x["crossbar_activations"].get<uint64_t>()),
                static_cast<unsigned long long>(x["macs"].get<uint64_t>()));
  o << buf;
  const auto& p = s["ispp"];
  std::snprintf(buf, sizeof buf, "ispp:        %llu cells, %llu pulses, %llu failed cells\n",
                static_cast<unsigned long long>(p["cells_programmed"].get<uint64_t>()),
                static_cast<unsigned long long>(p["pulses"].get<uint64_t>()),
                static_cast<unsigned long long>(p["failed_cells"].get<uint64_t>()));
  o << buf;
  std::snprintf(buf, sizeof buf, "noc:         %llu packets, %llu bytes, %llu contention cycles\n",
                static_cast<unsigned long long>(s["noc"]["packets"].get<uint64_t>()),
                static_cast<unsigned long long>(s["noc"]["bytes"].get<uint64_t>()),
                static_cast<unsigned long long>(s["noc"]["contention_cycles"].get<uint64_t>()));
  o << buf;
  if (s["noc"].contains("busiest_link")) {
    const auto& b = s["noc"]["busiest_link"];
    std::snprintf(buf, sizeof buf, "busiest:     link %s, busy %llu cycles (%.1f%% of the run)\n",
                  b["link"].get<std::string>().c_str(), static_cast<unsigned long long>(b["busy_cycles"].get<uint64_t>()),
                  100.0 * b["share_of_run"].get<double>());
    o << buf;
  }
  std::snprintf(buf, sizeof buf, "energy:      %.3f uJ\n", s["energy_pj"]["total"].get<double>() * 1e-6);
  o << buf;
  std::snprintf(buf, sizeof buf, "host:        %.3f s wall, %.2f M instructions/s\n", s["host"]["wall_s"].get<double>(),
                s["host"]["instructions_per_s"].get<double>() * 1e-6);
  o << buf;
  return o.str();
}

}  // namespace vp::platform
