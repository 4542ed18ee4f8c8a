// The race check (vp-run --check-races): does every access of shared memory
// follow the accesses it conflicts with by the program's own
// synchronization, whatever the timing? A stream whose writer overwrites a
// row before a reader has read it gives the right bytes as long as the
// reader happens to be early enough; the check reports it all the same.
//
// Happens-before comes only from what the chip orders between processors:
// a message (send, then the recv that takes it), a barrier, the control
// processor's cstart of a core and its cwait for the core's halt. Each
// processor counts its releases (sends, halts, cstarts, barrier arrivals)
// and keeps a vector clock of the releases it has heard of; a message
// carries its sender's clock. An access of global memory or of a cluster
// SRAM is in the epoch of the releases its processor issued before the
// access completed (a DMA still in flight when its core sends is not
// covered by that send). A read conflicts with the last write of each byte
// and a write with the last write and every read since; the later access
// must know of a release of the earlier one's processor at or after it.
// Accesses of one processor are ordered by its own scoreboard.
//
// Pure C++: CoreModule calls it at each DMA leg and each synchronization,
// in simulated time order. A cluster SRAM reached through its own DMA
// window (dma.sl, dma.ls) is a space of its own, apart from the same bytes
// in the global window that interleaves the SRAMs: an access through one
// is not checked against one through the other. A chip link's writes into
// global memory (multi-chip systems) are not seen.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace vp::hw {

class RaceCheck {
 public:
  // WriteOfReadOnly: a processor wrote bytes declared read-only (read_only()).
  enum class Kind : uint8_t { ReadAfterWrite, WriteAfterRead, WriteAfterWrite, WriteOfReadOnly };

  // Where an access came from, for the report.
  struct Site {
    uint32_t participant = 0;  // core index, or the control processor's (cores())
    uint32_t pc = 0;
    int32_t layer = -1;
    uint64_t start = 0, end = 0;  // cycles
  };

  struct Race {
    Kind kind = Kind::ReadAfterWrite;
    uint64_t lo = 0, hi = 0;  // the bytes both touch, [lo, hi), in the access's space
    bool sram = false;        // a cluster SRAM (its own address space), else global memory
    uint32_t cluster = 0;     // with sram
    Site access, earlier;
  };

  // `participants`: the compute units and the control processor, the
  // latter numbered last.
  explicit RaceCheck(uint32_t participants, uint32_t keep = 20);

  // A DMA leg of `bytes` at `addr` of global memory (cluster < 0) or of
  // cluster `cluster`'s SRAM.
  void access(const Site& at, int32_t cluster, uint64_t addr, uint64_t bytes, bool write);

  // Bytes of global memory (cluster < 0) or of a cluster's SRAM that the
  // host wrote before the run and no processor may write: a model image's
  // program texts, tables and cell levels. A read wholly inside them is
  // counted but not recorded, since nothing can race with it (a deployment
  // reads a million rows of levels, which would otherwise fill the shadow
  // memory); a write into them is reported.
  void read_only(int32_t cluster, uint64_t lo, uint64_t hi);

  // Synchronization, in the order the chip performs it.
  void send(uint32_t from, uint32_t to, uint32_t tag, uint64_t cycle);
  void recv(uint32_t at, uint32_t from, uint32_t tag);
  void barrier_arrive(uint32_t at, uint32_t id, uint32_t count, uint64_t cycle);
  void barrier_leave(uint32_t at, uint32_t id);
  void start(uint32_t control, uint32_t core, uint64_t cycle);
  void halt(uint32_t core, uint64_t cycle);
  void waited(uint32_t control, uint32_t core);

  uint64_t races() const { return races_; }
  uint64_t accesses() const { return accesses_; }
  const std::vector<Race>& first_races() const { return kept_; }
  // One line per race; `layer_names` (a program's `layer` ids to names)
  // names the layers where it has them.
  static std::string describe(const Race& r, const std::map<uint32_t, std::string>* layer_names = nullptr);

 private:
  using Clock = std::vector<uint32_t>;
  struct Segment {
    uint64_t end = 0;  // [key, end)
    bool written = false;
    Site writer;
    std::vector<Site> reads;  // since the last write, one (the latest) per participant
  };
  using Space = std::map<uint64_t, Segment>;

  // The release that covers an access of p that completed at `end`, counted
  // from 1: the first of p's releases at or after `end`.
  uint32_t epoch_of(uint32_t p, uint64_t end) const;
  bool ordered(uint32_t earlier, uint64_t earlier_end, uint32_t later, uint64_t later_start) const;
  uint32_t release(uint32_t p, uint64_t cycle);
  static void merge(Clock& into, const Clock& from);
  // Splits the space's segments at lo and hi; fills [lo, hi) with unwritten
  // segments where none is.
  static void carve(Space& s, uint64_t lo, uint64_t hi);
  void report(Kind k, const Site& access, const Site& earlier, uint64_t lo, uint64_t hi, int32_t cluster);

  uint32_t participants_;
  uint32_t keep_;
  std::vector<Clock> clock_;                  // per participant
  std::vector<std::vector<uint64_t>> releases_;  // per participant: its releases' cycles, in order
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<Clock>> channels_;  // (from, to, tag)
  std::map<uint32_t, Clock> barrier_join_, barrier_done_;
  std::map<uint32_t, uint32_t> barrier_arrived_;
  std::vector<Clock> halted_;
  std::map<int32_t, Space> spaces_;  // -1: global memory; else a cluster's SRAM
  std::map<int32_t, std::vector<std::pair<uint64_t, uint64_t>>> read_only_;  // per space: [lo, hi) ranges
  uint64_t races_ = 0, accesses_ = 0;
  std::vector<Race> kept_;
};

}  // namespace vp::hw
