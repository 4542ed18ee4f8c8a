// libFuzzer target for the trace line parser and the streaming reader:
// arbitrary bytes must never crash, hang or read out of bounds, and every
// record the reader accepts must satisfy the record invariants.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "vp/trace/reader.hpp"
#include "vp/trace/value.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void drain(const std::string& text, bool strict) {
  vp::trace::ReaderOptions opts;
  opts.strict = strict;
  opts.buffer_bytes = 4096;
  auto reader = vp::trace::TraceReader::from_string(text, "fuzz", opts);
  vp::trace::TraceRecord r;
  std::string json;
  try {
    while (reader.next(r)) {
      check(!r.mnemonic.empty());
      check(r.mapping.is_dict() && r.params.is_dict());
      if (r.timed) check(r.start >= 0 && r.end >= r.start);
      check(vp::trace::equal(r.params, r.params));
      json.clear();
      vp::trace::append_json(json, r.params);
      check(!json.empty());
    }
  } catch (const vp::trace::TraceError&) {
    check(strict);  // only strict mode may throw on bad input
  }
  const auto& s = reader.stats();
  check(s.records + s.malformed + s.blank <= s.lines);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  drain(text, false);
  drain(text, true);
  return 0;
}
