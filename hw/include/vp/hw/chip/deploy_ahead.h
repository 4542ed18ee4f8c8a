// The deployment's row writes computed ahead on a second host thread.
//
// A firmware deployment programs every row of every crossbar once, by
// program-and-verify, in an order the simulation decides. What a row write
// does depends only on the row: its start state is drawn from the row's
// write 0 and every pulse from the cell's own stream keyed by (seed,
// crossbar, row, column, write) (DeviceModel), so a row can be programmed
// on a scratch crossbar, in any order, on any thread, with the numbers the
// simulation would draw. The platform hands over the rows it expects (the
// model's cell programs, each CU's in its deploy table's order); a worker
// keeps the next rows of every CU computed, a few ahead of the last one
// the simulation asked for on that CU (the CUs deploy side by side, each
// at its own pace); the bank takes a result when the simulation's xread or
// xprog reaches that row with the levels expected, and otherwise programs
// the row itself (also when the worker has not got to it yet, so the two
// threads share the work). Every statistic is still counted by the simulation thread,
// in simulation order, so the figures are those of a run without it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "vp/hw/chip/chip_config.h"
#include "vp/hw/crossbar/ispp_write_path.h"

namespace vp::hw {

class DeployAhead {
 public:
  // One row the firmware is expected to write, in each CU's order (the
  // rows of different CUs may come in any order): columns [col0, col0 + ncols)
  // from `data` (kept alive by the caller for the bank's lifetime), the
  // rest as read back from the row's start state (the deploy kernel reads a
  // partial row first).
  struct Row {
    uint32_t id, row, col0, ncols;
    const uint8_t* data;
  };
  struct Result {
    IsppRowTotals totals;
    std::vector<uint8_t> start;    // what xread returns before the write
    std::vector<uint8_t> targets;  // the levels xprog is expected to be given
    std::vector<float> levels;     // the row's levels after the write
    uint32_t writes = 0;           // the device's writes of the row after it
  };

  // device_seed(id): the seed of crossbar id's device model, as the bank's.
  // `workers` threads, each with the CUs of its own (c mod workers).
  DeployAhead(const ChipConfig& cfg, const IsppWritePath& ispp, std::vector<Row> plan,
              uint64_t (*device_seed)(uint64_t seed, uint32_t id), unsigned workers = 1);
  ~DeployAhead();
  DeployAhead(const DeployAhead&) = delete;
  DeployAhead& operator=(const DeployAhead&) = delete;

  // The result of (id, row) when it was planned and is not given up: waits
  // while the worker is on it. A planned row the worker has not reached is
  // given up (nullptr), so the caller programs it itself at once.
  const Result* find(uint32_t id, uint32_t row);
  // Frees the result of (id, row); later finds return nullptr.
  void release(uint32_t id, uint32_t row);

  // Rows whose result the simulation took from the worker.
  uint64_t rows_taken() const { return taken_; }

 private:
  struct Entry {
    Row in{};
    std::atomic<uint8_t> state{0};  // kPending, kBusy, kDone, kGivenUp
    std::unique_ptr<Result> result;
  };
  // One CU's rows in its order, and how far the simulation has got.
  struct Core {
    std::size_t first = 0, count = 0;  // its entries
    std::atomic<std::size_t> asked{0};  // 1 + the last of them find() was asked for
    std::size_t next = 0;               // its worker's next candidate (that worker only)
  };
  Entry* entry(uint32_t id, uint32_t row, Core** core, std::size_t* k);
  void work(unsigned w, unsigned workers);
  void compute(Entry& e);
  // A result the simulation has released, to be filled again (nullptr:
  // none). Results go back and forth between the threads instead of being
  // allocated by the worker and freed by the simulation: a free on another
  // thread than the allocation's takes the allocator's lock of the worker's
  // arena, and the two threads queued on it for every row.
  std::unique_ptr<Result> spare();

  ChipConfig cfg_;
  const IsppWritePath& ispp_;
  uint64_t (*device_seed_)(uint64_t, uint32_t);
  std::unique_ptr<Entry[]> entries_;
  std::unique_ptr<Core[]> cores_;
  std::size_t ncores_ = 0;
  std::vector<std::vector<uint32_t>> index_;  // per crossbar: row -> entry + 1 (0: not planned)
  std::mutex spare_mu_;
  std::vector<std::unique_ptr<Result>> spare_;
  std::atomic<bool> stop_{false};
  uint64_t taken_ = 0;
  std::vector<std::thread> workers_;
};

}  // namespace vp::hw
