#include "vp/hw/rtl/rtl_ispp_write_path.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include <Vispp_row_controller.h>
#include <verilated.h>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/crossbar_config.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/rtl/rtl_clocking.h"
#include "vp/hw/rtl/rtl_trace.h"
#include "vp/hw/rtl/rtl_wide.h"

namespace vp::hw::rtl {

namespace {
constexpr int kTargetW = 8;
constexpr int kLevelW = 64;
constexpr int kPulseW = 16;
}  // namespace

struct RtlIsppWritePath::Model {
  explicit Model(const std::string& trace_path)
      : ctx(std::make_unique<VerilatedContext>()),
        top((RtlTrace::prepare(trace_path), std::make_unique<Vispp_row_controller>(ctx.get()))),
        trace(trace_path, [this](VerilatedVcdC* vcd) { top->trace(vcd, 99); }) {}
  ~Model() { top->final(); }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vispp_row_controller> top;
  RtlTrace trace;
};

std::uint64_t level_to_fixed(double level) {
  return static_cast<std::uint64_t>(std::nearbyint(std::ldexp(level, kLevelFracBits)));
}

RtlIsppWritePath::RtlIsppWritePath(const IsppConfig& cfg, const std::string& trace_path)
    : cfg_(cfg),
      pulse_cycles_(ns_to_cycles(cfg.pulse_ns, cfg.clock_mhz)),
      verify_cycles_(ns_to_cycles(cfg.verify_ns, cfg.clock_mhz)) {
  cfg_.validate();
  if (pulse_cycles_ < 1) throw std::invalid_argument("ispp.pulse_ns: the RTL controller needs >= 1 cycle");
  if (verify_cycles_ < 1) throw std::invalid_argument("ispp.verify_ns: the RTL controller needs >= 1 cycle");
  if (cfg_.tolerance_levels >= 256.0) throw std::invalid_argument("ispp.tolerance_levels: above the RTL's range");
  tolerance_fx_ = level_to_fixed(cfg_.tolerance_levels);
  m_ = std::make_unique<Model>(trace_path);
  reset_block(*m_->top);
}

RtlIsppWritePath::~RtlIsppWritePath() = default;

void RtlIsppWritePath::tick() {
  clock_cycle(*m_->top, m_->trace, stepped_);
}

IsppRowResult RtlIsppWritePath::program_row(Crossbar& xb, int row, int col_begin,
                                            const std::uint8_t* targets, int n,
                                            DeviceModel& device) {
  if (n > kIsppCells) {
    throw std::invalid_argument("ispp.impl=rtl: a row write of " + std::to_string(n) +
                                " cells exceeds the controller's " + std::to_string(kIsppCells));
  }
  xb.set_row_targets(row, col_begin, targets, n);  // checks the range and the levels

  IsppRowResult res;
  res.row = row;
  res.col_begin = col_begin;
  res.pulses.assign(static_cast<std::size_t>(n), 0);

  const double top_level = static_cast<double>(xb.max_level());
  float* lv = xb.row_levels(row) + col_begin;
  const std::uint8_t* faults = xb.row_faults(row);
  // The device's analog state, in double like the TLM model's, and each
  // cell's draws for this write.
  std::vector<double> level(lv, lv + n);
  const DeviceModel::RowDraws draws = device.next_write(row);
  std::vector<DeviceModel::CellDraws> cell;
  cell.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) cell.push_back(draws.cell(col_begin + i));

  Vispp_row_controller& t = *m_->top;
  std::uint32_t* levels_in = t.verify_level.data();
  auto drive_levels = [&] {
    for (int i = 0; i < n; ++i) {
      set_bits(levels_in, i * kLevelW, kLevelW, level_to_fixed(level[static_cast<std::size_t>(i)]));
    }
  };
  for (int i = 0; i < kIsppCells; ++i) {
    const bool used = i < n;
    set_bits(t.cell_en.data(), i, 1, used ? 1 : 0);
    set_bits(t.target.data(), i * kTargetW, kTargetW, used ? targets[i] : 0);
    if (!used) set_bits(levels_in, i * kLevelW, kLevelW, 0);
  }
  drive_levels();
  t.tolerance = tolerance_fx_;
  t.max_pulses = static_cast<std::uint16_t>(cfg_.max_pulses);
  t.pulse_cycles = static_cast<std::uint32_t>(pulse_cycles_);
  t.verify_cycles = static_cast<std::uint32_t>(verify_cycles_);
  t.start = 1;
  tick();
  t.start = 0;

  std::uint64_t cycle = 0;
  while (!t.done) {
    if (t.pulse_strobe) {
      IsppPulseEvent* ev = nullptr;
      if (log_ != nullptr) ev = &log_->emplace_back(IsppPulseEvent{cycle, {}});
      const std::uint32_t* en = t.pulse_en.data();
      const std::uint32_t* set = t.pulse_set.data();
      for (int i = 0; i < n; ++i) {
        if (get_bits(en, i, 1) == 0) continue;
        if (ev != nullptr) ev->cells.push_back(i);
        auto& v = level[static_cast<std::size_t>(i)];
        const bool stuck = faults != nullptr && faults[col_begin + i] != 0;
        if (!stuck) {
          const double step = cell[static_cast<std::size_t>(i)].step();
          v = std::clamp(get_bits(set, i, 1) != 0 ? v + step : v - step, 0.0, top_level);
        }
      }
    }
    if (t.verify_strobe) drive_levels();
    tick();
    ++cycle;
  }

  const std::uint32_t* pulses = t.pulses.data();
  const std::uint32_t* failed = t.failed.data();
  for (int i = 0; i < n; ++i) {
    res.pulses[static_cast<std::size_t>(i)] = static_cast<std::uint16_t>(get_bits(pulses, i * kPulseW, kPulseW));
    res.total_pulses += res.pulses[static_cast<std::size_t>(i)];
    const bool fail = get_bits(failed, i, 1) != 0;
    if (fail) res.failed_cols.push_back(col_begin + i);
    const bool stuck = faults != nullptr && faults[col_begin + i] != 0;
    const bool snap = !cfg_.keep_residual && !fail;
    if (!stuck) lv[i] = snap ? static_cast<float>(targets[i]) : static_cast<float>(level[static_cast<std::size_t>(i)]);
  }
  res.failed_cells = static_cast<int>(res.failed_cols.size());
  res.iterations = t.rounds;
  res.cycles = t.busy_cycles;
  tick();  // DONE -> IDLE

  res.verify_reads = static_cast<std::uint64_t>(res.iterations) * static_cast<std::uint64_t>(n);
  res.time_ns = res.iterations * (cfg_.pulse_ns + cfg_.verify_ns);
  res.energy_pj = static_cast<double>(res.total_pulses) * cfg_.pulse_energy_pj +
                  static_cast<double>(res.verify_reads) * cfg_.verify_energy_pj;
  if (NonIdeality* ni = xb.non_ideality()) ni->on_program_row(xb, row, col_begin, col_begin + n);
  res.final_levels.assign(lv, lv + n);
  return res;
}

}  // namespace vp::hw::rtl
