#include "vp/platform/stream_images.h"

#include <algorithm>

namespace vp::platform {

std::vector<std::vector<uint64_t>> image_done_cycles(const std::vector<hw::SharedMemory::WriteMark>& marks,
                                                     const std::vector<OutputSlots>& outputs, uint32_t images,
                                                     const std::vector<std::pair<uint64_t, uint64_t>>& starts) {
  std::vector<std::vector<uint64_t>> done(starts.size(), std::vector<uint64_t>(images, 0));
  for (const auto& m : marks) {
    // The start whose window holds the write (starts are in time order and
    // do not overlap).
    const auto it = std::find_if(starts.begin(), starts.end(),
                                 [&](const auto& s) { return s.first <= m.end_cycle && m.end_cycle <= s.second; });
    if (it == starts.end()) continue;
    std::vector<uint64_t>& row = done[static_cast<size_t>(it - starts.begin())];
    for (const OutputSlots& o : outputs) {
      if (o.image_bytes == 0 || m.addr + m.bytes <= o.addr || m.addr >= o.addr + o.image_bytes * images) continue;
      // Every slot the write touches.
      const uint64_t lo = m.addr > o.addr ? (m.addr - o.addr) / o.image_bytes : 0;
      const uint64_t hi = std::min<uint64_t>(images, (m.addr + m.bytes - o.addr + o.image_bytes - 1) / o.image_bytes);
      for (uint64_t i = lo; i < hi; ++i) row[i] = std::max(row[i], m.end_cycle - it->first);
    }
  }
  return done;
}

double steady_period(const std::vector<std::vector<uint64_t>>& done) {
  // The slope between the ends of the middle half: the gaps themselves
  // jitter by a tenth or more (an image's last rows meet its neighbours'
  // traffic), their sum does not.
  double sum = 0;
  for (const auto& row : done) {
    const size_t n = row.size(), a = n / 4, b = 3 * n / 4;
    if (n < 4) return 0;
    for (size_t i = a + 1; i <= b; ++i)
      if (row[i] == 0 || row[i - 1] == 0 || row[i] < row[i - 1]) return 0;
    sum += static_cast<double>(row[b] - row[a]) / static_cast<double>(b - a);
  }
  return done.empty() ? 0 : sum / static_cast<double>(done.size());
}

}  // namespace vp::platform
