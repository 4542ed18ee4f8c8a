#include "vp/trace/interval_sorter.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <queue>
#include <stdexcept>
#include <unistd.h>

namespace vp::trace {
namespace {

// An unlinked temporary file: it disappears with the process, even on a crash.
std::FILE* make_spill_file() {
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = fmt::format("{}/vp-trace-sort-XXXXXX", dir && *dir ? dir : "/tmp");
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary file in {}: {}", tmpl, std::strerror(errno)));
  ::unlink(tmpl.c_str());
  std::FILE* f = ::fdopen(fd, "w+b");
  if (!f) {
    ::close(fd);
    throw std::runtime_error("fdopen failed for a temporary file");
  }
  return f;
}

// The run files belong to one thread: the unlocked stdio calls skip a lock
// per record.
void write_all(std::FILE* f, const void* data, std::size_t size) {
  if (size && ::fwrite_unlocked(data, 1, size, f) != size)
    throw std::runtime_error(fmt::format("writing a sort run failed: {}", std::strerror(errno)));
}

// Sequential reader over one spilled run.
struct RunCursor {
  std::FILE* file;
  Interval iv{};
  std::vector<char> buffer;  // grows to the longest payload, never shrinks
  std::string_view payload;
  bool advance() {
    if (::fread_unlocked(&iv, sizeof iv, 1, file) != 1) return false;
    if (buffer.size() < iv.payload) buffer.resize(iv.payload);
    if (iv.payload && ::fread_unlocked(buffer.data(), 1, iv.payload, file) != iv.payload)
      throw std::runtime_error("reading a sort run failed: file shorter than written");
    payload = std::string_view(buffer.data(), iv.payload);
    return true;
  }
};

}  // namespace

IntervalSorter::IntervalSorter(std::size_t run_bytes) : run_bytes_(std::max<std::size_t>(run_bytes, 1 << 16)) {
  // Address space for a full run up front: capacity doubling would otherwise
  // overshoot the budget, and untouched pages cost no memory.
  items_.reserve(run_bytes_ / (sizeof(Item) + 2 * sizeof(Key)) + 1);
}

std::vector<IntervalSorter::Key> IntervalSorter::sorted_keys() const {
  const std::size_t n = items_.size();
  std::vector<Key> keys(n);
  std::int64_t lo = 0, hi = 0;
  for (std::size_t k = 0; k < n; ++k) {
    keys[k] = {items_[k].iv.start, items_[k].iv.line, static_cast<std::uint32_t>(k)};
    lo = k ? std::min(lo, keys[k].start) : keys[k].start;
    hi = k ? std::max(hi, keys[k].start) : keys[k].start;
  }
  if (n < 1024) {
    std::sort(keys.begin(), keys.end());
    return keys;
  }
  // LSD radix sort on start - lo, 16 bits per pass, only as many passes as
  // the range needs (two for a 10^8-cycle run). Items arrive in file order,
  // so the stable passes keep equal starts in line order, as start_before
  // wants.
  const auto range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  const int bits = range == 0 ? 0 : 64 - __builtin_clzll(range);
  std::vector<Key> tmp(n);
  std::vector<std::uint32_t> count(1 << 16);
  for (int shift = 0; shift < bits; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    const auto digit = [lo, shift](const Key& key) {
      return static_cast<std::uint32_t>(((static_cast<std::uint64_t>(key.start) - static_cast<std::uint64_t>(lo)) >> shift) & 0xffff);
    };
    for (const Key& key : keys) ++count[digit(key)];
    std::uint32_t sum = 0;
    for (std::uint32_t& c : count) {
      const std::uint32_t here = c;
      c = sum;
      sum += here;
    }
    for (const Key& key : keys) tmp[count[digit(key)]++] = key;
    keys.swap(tmp);
  }
  return keys;
}

IntervalSorter::~IntervalSorter() {
  for (Run& r : runs_) std::fclose(r.file);
}

void IntervalSorter::add(const Interval& iv, std::string_view payload) {
  Item item{iv, arena_.size()};
  item.iv.payload = static_cast<std::uint32_t>(payload.size());
  arena_.append(payload);
  items_.push_back(item);
  ++count_;
  // Budget: the item, and two keys while sorting (radix sort's scratch).
  if (items_.size() * (sizeof(Item) + 2 * sizeof(Key)) + arena_.size() >= run_bytes_) spill();
}

void IntervalSorter::spill() {
  const std::vector<Key> keys = sorted_keys();
  Run run{make_spill_file(), std::make_unique<char[]>(kRunBuffer)};
  std::FILE* f = run.file;
  // Set before any I/O on the stream, as setvbuf requires; kept for reading.
  std::setvbuf(f, run.buffer.get(), _IOFBF, kRunBuffer);
  runs_.push_back(std::move(run));
  for (const Key& key : keys) {
    const Item& it = items_[key.item];
    write_all(f, &it.iv, sizeof it.iv);
    write_all(f, arena_.data() + it.offset, it.iv.payload);
  }
  if (std::fflush(f) != 0) throw std::runtime_error(fmt::format("writing a sort run failed: {}", std::strerror(errno)));
  std::rewind(f);
  items_.clear();
  arena_.clear();
}

void IntervalSorter::drain(const std::function<void(const Interval&, std::string_view)>& fn) {
  if (runs_.empty()) {
    for (const Key& key : sorted_keys()) {
      const Item& it = items_[key.item];
      fn(it.iv, std::string_view(arena_.data() + it.offset, it.iv.payload));
    }
    items_.clear();
    arena_.clear();
    return;
  }
  if (!items_.empty()) spill();
  std::vector<RunCursor> cursors;
  cursors.reserve(runs_.size());
  for (Run& r : runs_) cursors.push_back(RunCursor{r.file, {}, {}, {}});
  auto later = [&cursors](std::size_t a, std::size_t b) { return start_before(cursors[b].iv, cursors[a].iv); };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> heap(later);
  for (std::size_t k = 0; k < cursors.size(); ++k)
    if (cursors[k].advance()) heap.push(k);
  while (!heap.empty()) {
    const std::size_t k = heap.top();
    heap.pop();
    fn(cursors[k].iv, cursors[k].payload);
    if (cursors[k].advance()) heap.push(k);
  }
}

}  // namespace vp::trace
