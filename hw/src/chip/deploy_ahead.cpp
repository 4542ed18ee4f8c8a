#include "vp/hw/chip/deploy_ahead.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/device_model.h"

namespace vp::hw {

namespace {
constexpr uint8_t kPending = 0, kBusy = 1, kDone = 2, kGivenUp = 3;
// Rows of a CU the worker keeps computed past the last one the simulation
// asked for (each result about 1.6 KB): a CU's rows come in bursts of a
// few per simulation quantum.
constexpr std::size_t kLead = 48;
// Rows of one CU computed per pass over the CUs: short passes refill the CU
// the simulation has just drawn on before it comes back to it.
constexpr std::size_t kChunk = 2;
}  // namespace

DeployAhead::DeployAhead(const ChipConfig& cfg, const IsppWritePath& ispp, std::vector<Row> plan,
                         uint64_t (*device_seed)(uint64_t, uint32_t), unsigned workers)
    : cfg_(cfg), ispp_(ispp), device_seed_(device_seed), index_(cfg.crossbars()) {
  // Each CU's rows together, in the order given.
  const auto xbars_per_cu = static_cast<uint32_t>(cfg.xbars_per_cu);
  ncores_ = static_cast<std::size_t>(cfg.cores());
  std::stable_sort(plan.begin(), plan.end(),
                   [&](const Row& a, const Row& b) { return a.id / xbars_per_cu < b.id / xbars_per_cu; });
  entries_.reset(new Entry[plan.size()]);
  cores_.reset(new Core[ncores_]);
  const auto rows = static_cast<std::size_t>(cfg.xbar.rows);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const Row& r = plan[i];
    entries_[i].in = r;
    if (r.id >= index_.size() || r.row >= rows) {
      entries_[i].state = kGivenUp;  // not a row of this chip: the firmware faults on it
      continue;
    }
    Core& c = cores_[r.id / xbars_per_cu];
    if (c.count++ == 0) c.first = i;
    std::vector<uint32_t>& of = index_[r.id];
    if (of.empty()) of.assign(rows, 0);
    // A row planned twice is written twice: only its first write is computed
    // ahead (the second starts from the first's result).
    if (of[r.row] == 0) of[r.row] = static_cast<uint32_t>(i + 1);
    else entries_[i].state = kGivenUp;
  }
  workers = std::max(1u, workers);
  for (unsigned w = 0; w < workers; ++w) workers_.emplace_back([this, w, workers] { work(w, workers); });
}

DeployAhead::~DeployAhead() {
  stop_ = true;
  for (std::thread& t : workers_) t.join();
}

DeployAhead::Entry* DeployAhead::entry(uint32_t id, uint32_t row, Core** core, std::size_t* k) {
  if (id >= index_.size() || index_[id].empty() || row >= index_[id].size() || index_[id][row] == 0) return nullptr;
  const std::size_t i = index_[id][row] - 1;
  *core = &cores_[id / static_cast<uint32_t>(cfg_.xbars_per_cu)];
  *k = i - (*core)->first;
  return &entries_[i];
}

const DeployAhead::Result* DeployAhead::find(uint32_t id, uint32_t row) {
  Core* core = nullptr;
  std::size_t k = 0;
  Entry* e = entry(id, row, &core, &k);
  if (e == nullptr) return nullptr;
  if (core->asked.load(std::memory_order_relaxed) < k + 1) core->asked.store(k + 1, std::memory_order_release);
  uint8_t s = kPending;
  // Not reached by the worker: the simulation programs the row itself now.
  if (e->state.compare_exchange_strong(s, kGivenUp, std::memory_order_acq_rel)) return nullptr;
  while (s == kBusy) {
    std::this_thread::yield();
    s = e->state.load(std::memory_order_acquire);
  }
  if (s != kDone) return nullptr;
  return e->result.get();
}

void DeployAhead::release(uint32_t id, uint32_t row) {
  Core* core = nullptr;
  std::size_t k = 0;
  Entry* e = entry(id, row, &core, &k);
  if (e == nullptr) return;
  if (e->state.load(std::memory_order_acquire) == kDone) {
    const std::lock_guard<std::mutex> hold(spare_mu_);
    spare_.push_back(std::move(e->result));
    ++taken_;
  }
  e->state.store(kGivenUp, std::memory_order_release);
  index_[id][row] = 0;
}

void DeployAhead::work(unsigned w, unsigned workers) {
  bool left = true;
  while (left && !stop_.load(std::memory_order_relaxed)) {
    left = false;
    bool did = false;
    // Every CU's next rows up to kLead past the simulation's last ask,
    // kChunk at a time.
    for (std::size_t c = w; c < ncores_ && !stop_.load(std::memory_order_relaxed); c += workers) {
      Core& core = cores_[c];
      if (core.next >= core.count) continue;
      left = true;
      core.next = std::max(core.next, core.asked.load(std::memory_order_acquire));
      const std::size_t until =
          std::min({core.count, core.asked.load(std::memory_order_acquire) + kLead, core.next + kChunk});
      for (; core.next < until; ++core.next) {
        Entry& e = entries_[core.first + core.next];
        uint8_t s = kPending;
        if (!e.state.compare_exchange_strong(s, kBusy, std::memory_order_acq_rel)) continue;
        try {
          compute(e);
        } catch (...) {
          // The simulation's own write of the row reports what is wrong.
          e.result.reset();
          e.state.store(kGivenUp, std::memory_order_release);
          continue;
        }
        e.state.store(kDone, std::memory_order_release);
        did = true;
      }
    }
    if (left && !did) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

std::unique_ptr<DeployAhead::Result> DeployAhead::spare() {
  const std::lock_guard<std::mutex> hold(spare_mu_);
  if (spare_.empty()) return nullptr;
  std::unique_ptr<Result> r = std::move(spare_.back());
  spare_.pop_back();
  return r;
}

void DeployAhead::compute(Entry& e) {
  // One scratch crossbar per worker: each row write sets the whole row, its
  // start state first, so what earlier rows left there does not matter.
  thread_local std::unique_ptr<Crossbar> scratch;
  if (!scratch) scratch = std::make_unique<Crossbar>(cfg_.xbar, static_cast<float>(cfg_.device.start_level));
  const Row& in = e.in;
  const int row = static_cast<int>(in.row), cols = cfg_.xbar.cols;
  std::unique_ptr<Result> r = spare();
  if (!r) r = std::make_unique<Result>();
  // A device model of its own: the row's writes numbered from 0, as a row
  // nobody has written yet.
  DeviceModel device(cfg_.device, device_seed_(cfg_.seed, in.id));
  device.reset_row(*scratch, row);
  r->start.resize(static_cast<std::size_t>(cols));
  scratch->read_row_levels(row, r->start.data());
  r->targets = r->start;
  const uint32_t n = std::min<uint32_t>(in.ncols, in.col0 < static_cast<uint32_t>(cols) ? cols - in.col0 : 0);
  std::memcpy(r->targets.data() + in.col0, in.data, n);
  r->totals = ispp_.program_row_totals(*scratch, row, 0, r->targets.data(), cols, device);
  const float* lv = scratch->row_levels(row);
  r->levels.assign(lv, lv + cols);
  r->writes = device.writes(row);
  e.result = std::move(r);
}

}  // namespace vp::hw
