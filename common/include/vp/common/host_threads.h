// Host threads for work whose result must not depend on them: a default
// count, and a loop that hands indices to threads and reports the error of
// the lowest failing index, as one thread in order would.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace vp::common {

// `asked`, or for 0 one per host core, at most 8.
inline unsigned host_threads(unsigned asked = 0) {
  return asked ? asked : std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
}

// fn(k) for every k < n on up to `threads` threads (the caller's one of
// them); each k runs once. Every index runs even after one fails; then the
// exception of the lowest failing index is rethrown.
template <class Fn>
void for_each_index(std::size_t n, unsigned threads, Fn fn) {
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k; (k = next++) < n;) {
      try {
        fn(k);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t extra = std::min<std::size_t>(std::max(1u, threads), n == 0 ? 1 : n) - 1;
  for (std::size_t t = 0; t < extra; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace vp::common
