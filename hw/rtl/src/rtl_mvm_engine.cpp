#include "vp/hw/rtl/rtl_mvm_engine.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include <Vcolumn_output_path.h>
#include <verilated.h>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/non_ideality.h"
#include "vp/hw/rtl/rtl_clocking.h"
#include "vp/hw/rtl/rtl_trace.h"
#include "vp/hw/rtl/rtl_wide.h"

namespace vp::hw::rtl {

namespace {
constexpr int kCodeW = 32;

std::uint64_t at_least_one(std::uint64_t cycles, const char* param) {
  if (cycles < 1) throw std::invalid_argument(std::string(param) + ": the RTL output path needs >= 1 cycle");
  return cycles;
}
}  // namespace

struct RtlMvmEngine::Model {
  explicit Model(const std::string& trace_path)
      : ctx(std::make_unique<VerilatedContext>()),
        top((RtlTrace::prepare(trace_path), std::make_unique<Vcolumn_output_path>(ctx.get()))),
        trace(trace_path, [this](VerilatedVcdC* vcd) { top->trace(vcd, 99); }) {}
  ~Model() { top->final(); }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vcolumn_output_path> top;
  RtlTrace trace;
};

RtlMvmEngine::RtlMvmEngine(const CrossbarConfig& cfg, const MvmTimingConfig& timing,
                           const std::string& trace_path)
    : cfg_(cfg),
      reference_(cfg),
      encoding_(cfg),
      adc_(Adc::for_crossbar(cfg)),
      dac_(cfg.dac_bits),
      adcs_((cfg.cols + cfg.adc_columns_per_adc - 1) / cfg.adc_columns_per_adc),
      groups_((cfg.cols + adcs_ - 1) / adcs_),
      front_cycles_(at_least_one(ns_to_cycles(timing.dac_latency_ns, timing.clock_mhz) +
                                     ns_to_cycles(timing.read_ns, timing.clock_mhz) +
                                     ns_to_cycles(timing.sample_hold_ns, timing.clock_mhz),
                                 "dac.latency_ns + xbar.read_ns + xbar.sample_hold_ns")),
      adc_cycles_(at_least_one(ns_to_cycles(timing.adc_conversion_ns, timing.clock_mhz), "adc.conversion_ns")),
      shift_add_cycles_(at_least_one(ns_to_cycles(timing.shift_add_ns, timing.clock_mhz), "xbar.shift_add_ns")),
      pipelined_(timing.pipelined),
      back_pipelined_(timing.back_pipelined) {
  timing.validate();
  if (cfg_.cols > kOutputPathCols) {
    throw std::invalid_argument("adc.output_path_impl=rtl: xbar.cols " + std::to_string(cfg_.cols) +
                                " exceeds the RTL's " + std::to_string(kOutputPathCols));
  }
  if (adcs_ > kOutputPathLanes) {
    throw std::invalid_argument("adc.output_path_impl=rtl: " + std::to_string(adcs_) +
                                " ADCs per crossbar (adc.columns_per_adc) exceed the RTL's " +
                                std::to_string(kOutputPathLanes));
  }
  m_ = std::make_unique<Model>(trace_path);
  reset_block(*m_->top);
}

RtlMvmEngine::~RtlMvmEngine() = default;

void RtlMvmEngine::tick() {
  clock_cycle(*m_->top, m_->trace, stepped_);
}

// MvmEngine::run's analog steps for one (DAC step, row group), in the same
// order and arithmetic, so the ADC sees the same numbers.
void RtlMvmEngine::convert_stage(const Crossbar& xb, int stage, int slot) {
  RunState& r = run_;
  const int group_rows = cfg_.rows_per_step();
  const int n_groups = (r.n_inputs + group_rows - 1) / group_rows;
  const DacStep& step = r.steps[static_cast<std::size_t>(stage / std::max(n_groups, 1))];
  const int g0 = (stage % std::max(n_groups, 1)) * group_rows;
  const int g1 = std::min(g0 + group_rows, r.n_inputs);
  const std::uint32_t code_mask = (1u << step.width) - 1u;
  const int n = r.n_phys;
  const std::size_t stride = static_cast<std::size_t>(cfg_.cols);
  std::vector<std::int32_t>& codes = codes_[slot];
  std::fill(codes.begin(), codes.end(), 0);
  NonIdeality* ni = xb.non_ideality();

  if (r.integer_path) {
    std::fill(isums_.begin(), isums_.end(), std::uint16_t{0});
    bool driven = false;
    for (int row = g0; row < g1; ++row) {
      const std::uint32_t code = (bits_[static_cast<std::size_t>(row)] >> step.shift) & code_mask;
      if (code == 0) continue;
      driven = true;
      const std::uint8_t* t = xb.targets() + static_cast<std::size_t>(row) * stride + static_cast<std::size_t>(r.col0);
      for (int c = 0; c < n; ++c) isums_[static_cast<std::size_t>(c)] = static_cast<std::uint16_t>(isums_[static_cast<std::size_t>(c)] + code * t[c]);
    }
    if (!driven) return;
    r.clipped += adc_.convert(isums_.data(), n, values_.data());
  } else {
    std::fill(sums_.begin(), sums_.end(), 0.0f);
    float* sums = sums_.data();
    double drive_sq = 0.0;
    for (int row = g0; row < g1; ++row) {
      const std::uint32_t code = (bits_[static_cast<std::size_t>(row)] >> step.shift) & code_mask;
      if (code == 0) continue;
      drive_sq += static_cast<double>(code) * code;
      const std::size_t base = static_cast<std::size_t>(row) * stride + static_cast<std::size_t>(r.col0);
      const float* lv = xb.levels() + base;
      const auto fcode = static_cast<float>(code);
      if (r.scale != nullptr) {
        const float* sc = r.scale + base;
        for (int c = 0; c < n; ++c) sums[c] += fcode * (lv[c] * sc[c]);
      } else if (code == 1) {
        for (int c = 0; c < n; ++c) sums[c] += lv[c];
      } else {
        for (int c = 0; c < n; ++c) sums[c] += fcode * lv[c];
      }
    }
    if (drive_sq == 0.0 && ni == nullptr) return;
    if (ni != nullptr) ni->on_column_read(sums, n, ColumnReadInfo{g0, g1, r.col0, drive_sq});
    r.clipped += adc_.convert(sums, n, values_.data());
  }
  // The ADC's code: value / LSB (exact, values are code * 2^lsb_shift).
  const int lsb = adc_.mode() == AdcMode::ideal ? 0 : adc_.lsb_shift();
  for (int c = 0; c < n; ++c) {
    const std::int64_t code = values_[static_cast<std::size_t>(c)] >> lsb;
    if (code < std::numeric_limits<std::int32_t>::min() || code > std::numeric_limits<std::int32_t>::max()) {
      throw std::overflow_error("RTL output path: ADC code beyond 32 bits");
    }
    codes[static_cast<std::size_t>(c)] = static_cast<std::int32_t>(code);
  }
}

std::uint64_t RtlMvmEngine::run(const Crossbar& xb, const std::int32_t* x, int n_inputs,
                                const MvmOptions& opt, std::int64_t* y, MvmStats* stats) {
  if (xb.rows() != cfg_.rows || xb.cols() != cfg_.cols || xb.cell_bits() != cfg_.cell_bits) {
    throw std::invalid_argument("MVM engine configured for a different crossbar geometry");
  }
  if (n_inputs < 0 || n_inputs > cfg_.rows) {
    throw std::out_of_range("MVM input length " + std::to_string(n_inputs) + " exceeds " +
                            std::to_string(cfg_.rows) + " rows");
  }
  if (opt.output_bits < 2 || opt.output_bits > 64) {
    throw std::invalid_argument("MVM output bits must be in [2, 64]");
  }
  RunState& r = run_;
  r = RunState{};
  r.x = x;
  r.n_inputs = n_inputs;
  r.steps = dac_.schedule(opt.input_bits, opt.input_signed);
  const int n_out = output_count(opt);
  const int w_cols = encoding_.columns_per_weight();
  r.col0 = opt.first_logical_col * w_cols;
  r.n_phys = n_out * w_cols;

  const int n_bits = opt.input_bits;
  const std::uint32_t in_mask = (n_bits >= 32) ? ~0u : ((1u << n_bits) - 1u);
  bits_.resize(static_cast<std::size_t>(n_inputs));
  std::int64_t input_sum = 0;
  for (int i = 0; i < n_inputs; ++i) {
    const std::uint32_t b = static_cast<std::uint32_t>(x[i]) & in_mask;
    bits_[static_cast<std::size_t>(i)] = b;
    std::int64_t v = b;
    if (opt.input_signed && ((b >> (n_bits - 1)) & 1u)) v -= std::int64_t{1} << n_bits;
    input_sum += v;
  }
  NonIdeality* ni = xb.non_ideality();
  r.scale = ni != nullptr ? ni->read_scale(xb) : nullptr;
  r.integer_path = ni == nullptr && cfg_.max_column_sum() <= 65535.0 && xb.levels_are_targets();
  const auto n_phys = static_cast<std::size_t>(r.n_phys);
  sums_.resize(n_phys);
  isums_.resize(n_phys);
  values_.resize(n_phys);
  for (auto& c : codes_) c.assign(n_phys, 0);
  slot_stage_[0] = slot_stage_[1] = -1;
  last_conv_.assign(n_phys, 0);
  stage_end_.clear();

  const int group_rows = cfg_.rows_per_step();
  const int n_groups = (n_inputs + group_rows - 1) / group_rows;
  // Timing counts every row group of the array (mvm_timing.h), functional
  // work only the driven ones: stages past the driven groups convert zeros.
  const int timing_groups = (cfg_.rows + group_rows - 1) / group_rows;

  Vcolumn_output_path& t = *m_->top;
  t.adcs = static_cast<std::uint16_t>(adcs_);
  t.groups = static_cast<std::uint32_t>(groups_);
  t.row_groups = static_cast<std::uint32_t>(timing_groups);
  t.input_bits = static_cast<std::uint8_t>(opt.input_bits);
  t.input_signed = opt.input_signed ? 1 : 0;
  t.dac_bits = static_cast<std::uint8_t>(cfg_.dac_bits);
  t.lsb_shift = static_cast<std::uint8_t>(adc_.mode() == AdcMode::ideal ? 0 : adc_.lsb_shift());
  t.front_cycles = static_cast<std::uint32_t>(front_cycles_);
  t.adc_cycles = static_cast<std::uint32_t>(adc_cycles_);
  t.shift_add_cycles = static_cast<std::uint32_t>(shift_add_cycles_);
  t.pipelined = pipelined_ ? 1 : 0;
  t.back_pipelined = back_pipelined_ ? 1 : 0;
  t.cell_bits = static_cast<std::uint8_t>(cfg_.cell_bits);
  t.slices = static_cast<std::uint8_t>(encoding_.slices());
  t.differential = encoding_.encoding() == SignedEncoding::differential ? 1 : 0;
  t.weight_bits = static_cast<std::uint8_t>(cfg_.weight_bits);
  t.out_bits = static_cast<std::uint8_t>(opt.output_bits);
  t.input_sum = static_cast<std::uint64_t>(input_sum);
  t.start = 1;
  tick();
  t.start = 0;

  std::uint32_t* lanes = t.adc_code.data();
  std::uint64_t cycle = 0;
  while (!t.done) {
    if (t.front_strobe) {
      const auto stage = static_cast<int>(t.front_stage);
      // Stages past the driven row groups have nothing on their rows.
      const int step = stage / timing_groups;
      const int group = stage % timing_groups;
      if (group < n_groups) {
        convert_stage(xb, step * n_groups + group, stage % 2);
      } else {
        std::fill(codes_[stage % 2].begin(), codes_[stage % 2].end(), 0);
      }
      slot_stage_[stage % 2] = stage;
    }
    if (t.adc_strobe) {
      const auto stage = static_cast<int>(t.adc_stage);
      if (slot_stage_[stage % 2] != stage) {
        throw std::logic_error("RTL output path converted stage " + std::to_string(stage) +
                               " after its sample-and-hold slot was reused");
      }
      const std::vector<std::int32_t>& codes = codes_[stage % 2];
      const int base = static_cast<int>(t.adc_group) * adcs_;
      for (int a = 0; a < adcs_; ++a) {
        const int c = base + a;
        const bool live = c < r.n_phys;
        set_bits(lanes, a * kCodeW, kCodeW, live ? static_cast<std::uint32_t>(codes[static_cast<std::size_t>(c)]) : 0u);
        if (live) last_conv_[static_cast<std::size_t>(c)] = cycle;
      }
    }
    // The first cycle after start only takes the command (not counted).
    if (t.stage_done) stage_end_.push_back(cycle);
    tick();
    ++cycle;
  }
  const std::uint64_t cycles = t.busy_cycles;

  std::uint64_t saturated = 0;
  tick();  // done -> idle
  t.rd_req = 1;
  for (int o = 0; o < n_out; ++o) {
    t.rd_col = static_cast<std::uint16_t>(o);
    tick();
    y[o] = static_cast<std::int64_t>(t.rd_value);
    saturated += t.rd_saturated;
  }
  t.rd_req = 0;

  if (stats != nullptr) {
    stats->dac_steps = static_cast<int>(r.steps.size());
    stats->row_groups = n_groups;
    stats->dac_conversions = static_cast<std::uint64_t>(n_inputs) * r.steps.size();
    stats->adc_conversions = n_phys * r.steps.size() * static_cast<std::uint64_t>(n_groups);
    stats->adc_clipped = r.clipped;
    stats->outputs_saturated = saturated;
  }
  return cycles;
}

}  // namespace vp::hw::rtl
