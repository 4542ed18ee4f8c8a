// The ISPP controller at pin level: the --sc model of ispp_row_controller
// (16 cells) on an sc_clock, a SystemC device process on its pins, against
// the TLM write path. Besides levels, pulses and failures, the cycle count
// is taken from the pins: SystemC time from the first busy cycle (the one
// after the start edge) to done must be the TLM row time.
#include <systemc>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include <Vispp_row_controller_sc.h>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"
#include "vp/hw/crossbar/ispp_write_path.h"

using namespace sc_core;
using sc_dt::sc_bv;

namespace {

constexpr int kCells = 16;
constexpr int kRows = 24;
int failures = 0;

#define CHECK_EQ(a, b, what)                                                                        \
  do {                                                                                              \
    if (!((a) == (b))) {                                                                            \
      std::cerr << "row " << row << ": " << what << ": RTL " << (a) << " TLM " << (b) << "\n";      \
      ++failures;                                                                                   \
    }                                                                                               \
  } while (0)

std::uint64_t to_fixed(double level) { return static_cast<std::uint64_t>(std::nearbyint(std::ldexp(level, 56))); }

SC_MODULE(Bench) {
  sc_clock clk{"clk", 1, SC_NS};
  sc_signal<bool> rst_n{"rst_n"}, start{"start"}, busy{"busy"}, done{"done"};
  sc_signal<bool> pulse_strobe{"pulse_strobe"}, verify_strobe{"verify_strobe"};
  sc_signal<std::uint32_t> cell_en{"cell_en"}, max_pulses{"max_pulses"}, pulse_en{"pulse_en"}, pulse_set{"pulse_set"};
  sc_signal<std::uint32_t> amp_step{"amp_step"}, failed{"failed"}, rounds{"rounds"};
  sc_signal<std::uint32_t> pulse_cycles{"pulse_cycles"}, verify_cycles{"verify_cycles"}, busy_cycles{"busy_cycles"};
  sc_signal<std::uint64_t> tolerance{"tolerance"};
  sc_signal<sc_bv<128>> target{"target"};
  sc_signal<sc_bv<1024>> verify_level{"verify_level"};
  sc_signal<sc_bv<256>> pulses{"pulses"};
  Vispp_row_controller_sc dut{"dut"};

  vp::hw::IsppConfig cfg;
  vp::hw::DeviceConfig dev_cfg;

  SC_CTOR(Bench) {
    dut.clk(clk);
    dut.rst_n(rst_n);
    dut.start(start);
    dut.busy(busy);
    dut.done(done);
    dut.pulse_strobe(pulse_strobe);
    dut.verify_strobe(verify_strobe);
    dut.cell_en(cell_en);
    dut.max_pulses(max_pulses);
    dut.pulse_en(pulse_en);
    dut.pulse_set(pulse_set);
    dut.amp_step(amp_step);
    dut.failed(failed);
    dut.rounds(rounds);
    dut.pulse_cycles(pulse_cycles);
    dut.verify_cycles(verify_cycles);
    dut.busy_cycles(busy_cycles);
    dut.tolerance(tolerance);
    dut.target(target);
    dut.verify_level(verify_level);
    dut.pulses(pulses);
    cfg.pulse_ns = 3;
    cfg.verify_ns = 5;
    cfg.tolerance_levels = 0.2;
    cfg.max_pulses = 20;
    dev_cfg.step_levels_mean = 0.25;
    dev_cfg.step_levels_sigma = 0.08;
    dev_cfg.start_sigma = 0.05;
    SC_THREAD(device);
  }

  void drive_levels(const std::vector<double>& level) {
    sc_bv<1024> v;
    for (int i = 0; i < kCells; ++i) v.range(i * 64 + 63, i * 64) = to_fixed(level[static_cast<std::size_t>(i)]);
    verify_level.write(v);
  }

  // The analog device on the controller's pins; the TLM write path on a
  // twin crossbar and device for reference.
  void device() {
    vp::hw::Crossbar xb_tlm(kRows, kCells, 2), xb_rtl(kRows, kCells, 2);
    vp::hw::DeviceModel dev_tlm(dev_cfg, 9), dev_rtl(dev_cfg, 9);
    dev_tlm.reset(xb_tlm);
    dev_rtl.reset(xb_rtl);
    vp::hw::IsppWritePath tlm(cfg);
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> lv(0, 3);

    rst_n.write(false);
    wait(clk.negedge_event());
    rst_n.write(true);
    tolerance.write(to_fixed(cfg.tolerance_levels));
    max_pulses.write(static_cast<std::uint32_t>(cfg.max_pulses));
    pulse_cycles.write(3);
    verify_cycles.write(5);
    cell_en.write(0xFFFF);
    std::uint64_t strobes = 0;
    for (int row = 0; row < kRows; ++row) {
      std::vector<std::uint8_t> t(kCells);
      sc_bv<128> tv;
      for (int i = 0; i < kCells; ++i) {
        t[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(lv(rng));
        tv.range(i * 8 + 7, i * 8) = t[static_cast<std::size_t>(i)];
      }
      const vp::hw::IsppRowResult ref = tlm.program_row(xb_tlm, row, 0, t.data(), kCells, dev_tlm);

      xb_rtl.set_row_targets(row, 0, t.data(), kCells);
      float* lvl = xb_rtl.row_levels(row);
      std::vector<double> level(lvl, lvl + kCells);
      // Each cell draws from its own stream of this write of the row.
      const vp::hw::DeviceModel::RowDraws draws = dev_rtl.next_write(row);
      std::vector<vp::hw::DeviceModel::CellDraws> cell;
      for (int i = 0; i < kCells; ++i) cell.push_back(draws.cell(i));
      target.write(tv);
      drive_levels(level);
      start.write(true);
      wait(clk.negedge_event());
      const sc_time started = sc_time_stamp();
      start.write(false);
      while (!done.read()) {
        if (pulse_strobe.read()) {
          ++strobes;
          CHECK_EQ(amp_step.read(), static_cast<std::uint32_t>(rounds.read()), "amplitude step");
          for (int i = 0; i < kCells; ++i) {
            if (((pulse_en.read() >> i) & 1u) == 0) continue;
            auto& v = level[static_cast<std::size_t>(i)];
            const double step = cell[static_cast<std::size_t>(i)].step();
            v = std::clamp(((pulse_set.read() >> i) & 1u) != 0 ? v + step : v - step, 0.0, 3.0);
          }
        }
        if (verify_strobe.read()) drive_levels(level);
        wait(clk.negedge_event());
      }
      // Cycles from the pins: from the first busy cycle to done.
      const auto pin_cycles = static_cast<std::uint64_t>((sc_time_stamp() - started) / sc_time(1, SC_NS));
      CHECK_EQ(pin_cycles, ref.cycles, "cycles first busy cycle->done (pins)");
      CHECK_EQ(static_cast<std::uint64_t>(busy_cycles.read()), ref.cycles, "busy cycles");
      CHECK_EQ(static_cast<int>(rounds.read()), ref.iterations, "rounds");
      std::vector<int> failed_cols;
      for (int i = 0; i < kCells; ++i) {
        const auto p = static_cast<std::uint16_t>(pulses.read().range(i * 16 + 15, i * 16).to_uint());
        CHECK_EQ(p, ref.pulses[static_cast<std::size_t>(i)], "pulses of cell " << i);
        const bool fail = ((failed.read() >> i) & 1u) != 0;
        if (fail) failed_cols.push_back(i);
        lvl = xb_rtl.row_levels(row);
        lvl[i] = fail || cfg.keep_residual ? static_cast<float>(level[static_cast<std::size_t>(i)])
                                           : static_cast<float>(t[static_cast<std::size_t>(i)]);
        CHECK_EQ(lvl[i], ref.final_levels[static_cast<std::size_t>(i)], "level of cell " << i);
      }
      CHECK_EQ(failed_cols.size(), ref.failed_cols.size(), "failed cells");
      wait(clk.negedge_event());  // DONE -> IDLE
    }
    if (strobes == 0) {
      std::cerr << "no pulse was issued\n";
      ++failures;
    }
    std::cout << kRows << " rows, " << strobes << " pulse strobes, " << failures << " differences\n";
    sc_stop();
  }
};

}  // namespace

int sc_main(int, char**) {
  Bench bench("bench");
  sc_start();
  return failures == 0 ? 0 : 1;
}
