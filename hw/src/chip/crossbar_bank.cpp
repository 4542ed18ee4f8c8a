#include "vp/hw/chip/crossbar_bank.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include "vp/hw/crossbar/rng.h"
#include "vp/hw/crossbar/weight_encoding.h"
#include "vp/hw/rtl/rtl_ispp_write_path.h"
#include "vp/hw/rtl/rtl_mvm_engine.h"

namespace vp::hw {

namespace {
// Streams of derive_seed: device randomness and non-idealities of crossbar
// id use disjoint streams so switching one on does not shift the other.
constexpr uint64_t kDeviceStream = 0;
constexpr uint64_t kNonIdealStream = 1ull << 32;
}  // namespace

CrossbarBank::CrossbarBank(const ChipConfig& cfg)
    : cfg_(cfg),
      total_(cfg.crossbars()),
      lcols_(WeightEncoding(cfg.xbar).logical_cols(cfg.xbar.cols)),
      xbars_(total_),
      devices_(total_),
      unstarted_(total_),
      in_quad_fifo_(total_, 0),
      engine_(cfg.xbar),
      timing_(cfg.xbar, cfg.mvm_timing),
      ispp_(cfg.ispp),
      readback_cycles_(ns_to_cycles(cfg.readback_ns_per_row, cfg.clock_mhz)) {
  for (int b = 1; b <= 16; ++b) mvm_cycles_[b] = timing_.cycles(b);
  const std::string& trace = cfg.rtl.trace_prefix;
  if (cfg.rtl.ispp) rtl_ispp_ = std::make_unique<rtl::RtlIsppWritePath>(cfg.ispp, trace.empty() ? "" : trace + ".ispp.vcd");
  if (cfg.rtl.output_path)
    rtl_engine_ = std::make_unique<rtl::RtlMvmEngine>(cfg.xbar, cfg.mvm_timing, trace.empty() ? "" : trace + ".output_path.vcd");
}

CrossbarBank::~CrossbarBank() = default;

Crossbar& CrossbarBank::slot(uint32_t id) {
  if (id >= total_) throw std::out_of_range("crossbar " + std::to_string(id) + " does not exist");
  auto& slot = xbars_[id];
  if (!slot) {
    slot = std::make_unique<Crossbar>(cfg_.xbar, static_cast<float>(cfg_.device.start_level));
    if (!cfg_.nonideal.ideal())
      slot->attach(std::make_shared<NonIdealityModel>(cfg_.nonideal, derive_seed(cfg_.seed, kNonIdealStream + id)));
    // The reset every new crossbar gets: row by row, on first use.
    if (cfg_.device.start_sigma > 0) unstarted_[id].assign(static_cast<std::size_t>(slot->rows()), 1);
    stats_.crossbars_used++;
  }
  return *slot;
}

void CrossbarBank::start_row(uint32_t id, Crossbar& xb, uint32_t row) {
  std::vector<uint8_t>& pending = unstarted_[id];
  if (pending.empty() || row >= pending.size() || pending[row] == 0) return;
  pending[row] = 0;
  device(id).reset_row(xb, static_cast<int>(row));  // the row's write 0, as at creation
}

Crossbar& CrossbarBank::at(uint32_t id) {
  Crossbar& xb = slot(id);
  if (!unstarted_[id].empty()) {
    for (uint32_t r = 0; r < unstarted_[id].size(); ++r) start_row(id, xb, r);
    unstarted_[id].clear();
  }
  return xb;
}

uint64_t CrossbarBank::device_seed(uint64_t seed, uint32_t id) { return derive_seed(seed, kDeviceStream + id); }

DeviceModel& CrossbarBank::device(uint32_t id) {
  auto& d = devices_[id];
  if (!d) d = std::make_unique<DeviceModel>(cfg_.device, device_seed(cfg_.seed, id));
  return *d;
}

bool CrossbarBank::plan_deployment(std::vector<DeployAhead::Row> rows, unsigned threads) {
  ahead_.reset();
  if (threads < 2 || rows.empty() || rtl_ispp_ || !cfg_.nonideal.ideal() || cfg_.device.start_sigma <= 0) return false;
  // The simulation keeps one host thread; the rest compute ahead (at most 4:
  // beyond, the simulation thread cannot take their results fast enough).
  ahead_ = std::make_unique<DeployAhead>(cfg_, ispp_, std::move(rows), &CrossbarBank::device_seed,
                                         std::min(threads - 1, 4u));
  return true;
}

uint64_t CrossbarBank::mvm(uint32_t id, const int32_t* in, int input_bits, int64_t* out) {
  Crossbar& xb = at(id);
  if (!in_quad_fifo_[id]) {
    in_quad_fifo_[id] = 1;
    quad_fifo_.push_back(id);
    if (quad_fifo_.size() > kQuadCrossbars) {
      const uint32_t old = quad_fifo_.front();
      quad_fifo_.pop_front();
      in_quad_fifo_[old] = 0;
      xb.adopt_target_quads(*xbars_[old]);
    }
  }
  MvmOptions opt;
  opt.input_bits = input_bits;
  opt.output_bits = 64;
  opt.adc_range = adc_range(id);
  opt.profile_sums = profile_;
  MvmStats st;
  uint64_t cycles = mvm_cycles_[input_bits];
  if (rtl_engine_)
    cycles = rtl_engine_->run(xb, in, cfg_.xbar.rows, opt, out, &st);
  else
    engine_of(id).run(xb, in, cfg_.xbar.rows, opt, out, &st);
  stats_.mvms++;
  stats_.dac_steps += static_cast<uint64_t>(st.dac_steps) * static_cast<uint64_t>(st.row_groups);
  stats_.adc_conversions += st.adc_conversions;
  stats_.adc_clipped += st.adc_clipped;
  stats_.outputs_saturated += st.outputs_saturated;
  if (profile_) {
    AdcProfile& p = profile_sums_[id];
    p.max_column_sum = std::max(p.max_column_sum, st.max_column_sum);
    p.mvms++;
  }
  return cycles;
}

void CrossbarBank::set_adc_range(uint32_t xbar, uint32_t range, CoreFault& fault) {
  if (xbar >= count()) {
    fault = {true, "xadc of crossbar " + std::to_string(xbar) + ": the chip has " + std::to_string(count())};
    return;
  }
  if (range > static_cast<uint32_t>(kMaxAdcRange)) {
    fault = {true, "xadc range " + std::to_string(range) + " outside 0.." + std::to_string(kMaxAdcRange)};
    return;
  }
  if (rtl_engine_ && range != 0) {
    fault = {true, "xadc: per-crossbar ADC ranges are modelled by the TLM output path only "
                   "(adc.output_path_impl = tlm)"};
    return;
  }
  if (adc_range_.empty()) adc_range_.assign(count(), 0);
  adc_range_[xbar] = static_cast<uint8_t>(range);
}

void CrossbarBank::set_format(uint32_t xbar, uint32_t wbits, bool differential, CoreFault& fault) {
  if (xbar >= count()) {
    fault = {true, "xfmt of crossbar " + std::to_string(xbar) + ": the chip has " + std::to_string(count())};
    return;
  }
  CrossbarConfig c = cfg_.xbar;
  c.weight_bits = static_cast<int>(wbits);
  c.signed_encoding = differential ? SignedEncoding::differential : SignedEncoding::offset_slices;
  try {
    c.validate();
  } catch (const std::exception& e) {
    fault = {true, std::string("xfmt: ") + e.what()};
    return;
  }
  const bool chip = c.weight_bits == cfg_.xbar.weight_bits && c.signed_encoding == cfg_.xbar.signed_encoding;
  if (rtl_engine_ && !chip) {
    fault = {true, "xfmt: crossbar formats other than the chip's are modelled by the TLM output path only "
                   "(adc.output_path_impl = tlm)"};
    return;
  }
  uint8_t code = 0;
  if (!chip) {
    for (std::size_t k = 0; k < formats_.size() && code == 0; ++k)
      if (formats_[k].weight_bits == c.weight_bits && formats_[k].encoding == c.signed_encoding)
        code = static_cast<uint8_t>(k + 1);
    if (code == 0) {
      const int lcols = WeightEncoding(c).logical_cols(c.cols);
      formats_.push_back({c.weight_bits, c.signed_encoding, lcols, std::make_unique<MvmEngine>(c)});
      code = static_cast<uint8_t>(formats_.size());
    }
  }
  if (format_.empty()) {
    if (code == 0) return;
    format_.assign(count(), 0);
  }
  format_[xbar] = code;
}

uint32_t CrossbarBank::logical_cols_of(uint32_t xbar) const {
  const uint8_t f = xbar < format_.size() ? format_[xbar] : 0;
  return static_cast<uint32_t>(f == 0 ? lcols_ : formats_[f - 1u].lcols);
}

uint64_t CrossbarBank::program_row(uint32_t id, uint32_t row, const uint8_t* levels, uint32_t col0, uint32_t ncols) {
  Crossbar& xb = slot(id);
  start_row(id, xb, row);
  const IsppRowTotals r = rtl_ispp_ ? rtl_ispp_->program_row(xb, static_cast<int>(row), static_cast<int>(col0), levels,
                                                             static_cast<int>(ncols), device(id))
                                    : ispp_.program_row_totals(xb, static_cast<int>(row), static_cast<int>(col0), levels,
                                                               static_cast<int>(ncols), device(id));
  account(id, ncols, r);
  // The last row of a crossbar written (a deployment writes them in order):
  // an exact analog state need not be stored (stored again by a later write).
  if (row + 1 == static_cast<uint32_t>(cfg_.xbar.rows)) xb.compact();
  return r.cycles;
}

void CrossbarBank::account(uint32_t id, uint32_t ncols, const IsppRowTotals& r) {
  stats_.rows_programmed++;
  stats_.cells_programmed += ncols;
  stats_.ispp_pulses += r.total_pulses;
  stats_.ispp_verify_reads += r.verify_reads;
  stats_.ispp_energy_pj += r.energy_pj;
  stats_.ispp_cycles += r.cycles;
  if (r.failed_cells > 0) {
    stats_.ispp_failed_cells += static_cast<uint64_t>(r.failed_cells);
    failed_[id] += static_cast<uint64_t>(r.failed_cells);
  }
}

uint64_t CrossbarBank::program_rows(const std::vector<RowWrite>& writes, unsigned threads) {
  uint64_t cycles = 0;
  if (rtl_ispp_ || threads <= 1 || writes.size() < 2) {
    for (std::size_t i = 0; i < writes.size(); ++i) {
      const RowWrite& w = writes[i];
      cycles += program_row(w.id, w.row, w.levels, w.col0, w.ncols);
      // A crossbar's writes done: an exact analog state need not be stored.
      if (i + 1 == writes.size() || writes[i + 1].id != w.id) xbars_[w.id]->compact();
    }
    return cycles;
  }
  // Crossbars and their devices are created here, in order; the workers
  // then touch only the crossbar, device and non-ideality of their group.
  std::map<uint32_t, std::vector<std::size_t>> by_xbar;
  for (std::size_t i = 0; i < writes.size(); ++i) {
    slot(writes[i].id);
    device(writes[i].id);
    by_xbar[writes[i].id].push_back(i);
  }
  std::vector<const std::vector<std::size_t>*> groups;
  for (const auto& g : by_xbar) groups.push_back(&g.second);
  std::vector<IsppRowTotals> results(writes.size());
  std::vector<std::exception_ptr> errors(writes.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t g; (g = next.fetch_add(1)) < groups.size();) {
      for (std::size_t i : *groups[g]) {
        const RowWrite& w = writes[i];
        try {
          start_row(w.id, *xbars_[w.id], w.row);  // touches only this crossbar's rows
          results[i] = ispp_.program_row_totals(*xbars_[w.id], static_cast<int>(w.row), static_cast<int>(w.col0),
                                                w.levels, static_cast<int>(w.ncols), *devices_[w.id]);
        } catch (...) {
          errors[i] = std::current_exception();
          break;  // later rows of this crossbar are not written, as in order
        }
      }
      // Its writes done: an exact analog state need not be stored.
      xbars_[writes[groups[g]->front()].id]->compact();
    }
  };
  const unsigned n = static_cast<unsigned>(std::min<std::size_t>(threads, groups.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (std::size_t i = 0; i < writes.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    account(writes[i].id, writes[i].ncols, results[i]);
    cycles += results[i].cycles;
  }
  return cycles;
}

void CrossbarBank::read_row(uint32_t id, uint32_t row, uint8_t* out) {
  Crossbar& xb = at(id);
  xb.read_row_levels(static_cast<int>(row), out);
  stats_.rows_read++;
}

uint64_t CrossbarBank::mvm(uint32_t xbar, const int32_t* input, uint32_t input_bits, int64_t* output,
                           CoreFault& fault) {
  try {
    return mvm(xbar, input, static_cast<int>(input_bits), output);
  } catch (const std::exception& e) {
    fault = {true, std::string("mvm: ") + e.what()};
    return 0;
  }
}

uint64_t CrossbarBank::program_row(uint32_t xbar, uint32_t row, const uint8_t* levels, ProgramStatus& status,
                                   CoreFault& fault) {
  if (xbar >= count() || row >= static_cast<uint32_t>(cfg_.xbar.rows)) {
    fault = {true, "xprog row " + std::to_string(row) + " of crossbar " + std::to_string(xbar) + ": the chip has " +
                       std::to_string(count()) + " crossbars of " + std::to_string(cfg_.xbar.rows) + " rows"};
    return 0;
  }
  const uint32_t max_level = (1u << cfg_.xbar.cell_bits) - 1;
  for (int c = 0; c < cfg_.xbar.cols; ++c)
    if (levels[c] > max_level) {
      fault = {true, "xprog level " + std::to_string(levels[c]) + " at column " + std::to_string(c) +
                         " exceeds the highest cell level " + std::to_string(max_level)};
      return 0;
    }
  // The bank counts pulses and failures chip-wide; this row's share is the
  // difference (cores run one at a time in SystemC, so nothing interleaves).
  const CrossbarBankStats before = stats_;
  const uint64_t cycles = ahead_ ? program_row_ahead(xbar, row, levels)
                                 : program_row(xbar, row, levels, 0, static_cast<uint32_t>(cfg_.xbar.cols));
  const uint64_t per_round = ispp_.cycles_per_iteration();
  status = {stats_.ispp_pulses - before.ispp_pulses, stats_.ispp_failed_cells - before.ispp_failed_cells,
            per_round ? cycles / per_round : 0};
  return cycles;
}

uint64_t CrossbarBank::program_row_ahead(uint32_t id, uint32_t row, const uint8_t* levels) {
  const uint32_t cols = static_cast<uint32_t>(cfg_.xbar.cols);
  Crossbar& xb = slot(id);
  std::vector<uint8_t>& pending = unstarted_[id];
  const bool unstarted = !pending.empty() && pending[row] != 0;
  // The worker wrote the row from its start state with these levels: the
  // row must be in it (unstarted, or started by a read of the crossbar).
  const uint32_t writes = device(id).writes(static_cast<int>(row));
  const DeployAhead::Result* r = ahead_->find(id, row);
  if (r == nullptr || (unstarted ? writes != 0 : writes != 1) ||
      std::memcmp(levels, r->targets.data(), cols) != 0) {
    ahead_->release(id, row);
    return program_row(id, row, levels, 0, cols);
  }
  if (unstarted) pending[row] = 0;
  std::memcpy(xb.row_levels(static_cast<int>(row)), r->levels.data(), cols * sizeof(float));
  xb.set_row_targets(static_cast<int>(row), 0, r->targets.data(), static_cast<int>(cols));
  device(id).set_writes(static_cast<int>(row), r->writes);
  const IsppRowTotals totals = r->totals;
  ahead_->release(id, row);
  account(id, cols, totals);
  if (row + 1 == static_cast<uint32_t>(cfg_.xbar.rows)) xb.compact();
  return totals.cycles;
}

uint64_t CrossbarBank::read_row(uint32_t xbar, uint32_t row, uint8_t* levels, CoreFault& fault) {
  if (xbar >= count() || row >= static_cast<uint32_t>(cfg_.xbar.rows)) {
    fault = {true, "xread row " + std::to_string(row) + " of crossbar " + std::to_string(xbar) + " does not exist"};
    return 0;
  }
  // A row still in its start state whose write was computed ahead: that
  // start state, read back, without drawing it here.
  if (ahead_) {
    Crossbar& xb = slot(xbar);
    const std::vector<uint8_t>& pending = unstarted_[xbar];
    if (!pending.empty() && pending[row] != 0)
      if (const DeployAhead::Result* r = ahead_->find(xbar, row)) {
        std::memcpy(levels, r->start.data(), static_cast<std::size_t>(xb.cols()));
        stats_.rows_read++;
        return readback_cycles();
      }
  }
  read_row(xbar, row, levels);
  return readback_cycles();
}

}  // namespace vp::hw
