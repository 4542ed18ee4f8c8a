// The emit context's own parts (emit_context.h): each core's text and
// data, its scratchpad's parameters (from the top down) and per-layer
// scratch (from the bottom up), labels, and the replay of parameters for
// the second copy of a twin image loop.
#include <algorithm>
#include <string>
#include <vector>

#include "emit_context.h"

namespace vp::cc::emit {

Ctx::Ctx(const Graph& graph, const Target& target) : g(graph), t(target), batch(graph.batch) {}

CoreCode& Ctx::core(int c) {
  auto it = cores.find(c);
  if (it == cores.end()) {
    it = cores.emplace(c, CoreCode{}).first;
    it->second.param_bottom = t.spad_bytes;
  }
  return it->second;
}

void word_lines(std::ostream& os, const std::vector<std::int32_t>& w) {
  for (std::size_t i = 0; i < w.size(); i += 16) {
    os << "    .word ";
    for (std::size_t j = i; j < std::min(w.size(), i + 16); ++j) os << (j > i ? ", " : "") << w[j];
    os << "\n";
  }
}

std::int64_t Ctx::replayed(int c, const std::string& key) {
  if (!twin || !odd) return -1;
  // The second copy makes the first one's requests in the same order; one
  // whose contents differ (they name a buffer's address) gets its own.
  const std::size_t i = replay_at_[c]++;
  const auto& list = params_[c];
  return i < list.size() && list[i].first == key ? list[i].second : -1;
}

void Ctx::remember(int c, std::string key, std::int64_t at) {
  if (twin && !odd) params_[c].emplace_back(std::move(key), at);
}

std::int64_t Ctx::state_word(int c) {
  CoreCode& k = core(c);
  k.param_bottom = (k.param_bottom - 4) / 8 * 8;
  k.data << ".data local, " << k.param_bottom << "\n";
  word_lines(k.data, {0});
  return k.param_bottom;
}

std::int64_t Ctx::words(int c, const std::vector<std::int32_t>& w) {
  // The key only where a twin image loop replays it.
  std::string key = twin ? "w" + std::string(reinterpret_cast<const char*>(w.data()), w.size() * sizeof(std::int32_t))
                         : std::string();
  if (const std::int64_t at = replayed(c, key); at >= 0) return at;
  CoreCode& k = core(c);
  k.param_bottom = (k.param_bottom - static_cast<std::int64_t>(w.size()) * 4) / 8 * 8;
  k.data << ".data local, " << k.param_bottom << "\n";
  word_lines(k.data, w);
  remember(c, std::move(key), k.param_bottom);
  return k.param_bottom;
}

std::int64_t Ctx::bytes(int c, const std::vector<std::int8_t>& b) {
  std::string key = twin ? "b" + std::string(reinterpret_cast<const char*>(b.data()), b.size()) : std::string();
  if (const std::int64_t at = replayed(c, key); at >= 0) return at;
  CoreCode& k = core(c);
  k.param_bottom = (k.param_bottom - static_cast<std::int64_t>(b.size())) / 8 * 8;
  k.data << ".data local, " << k.param_bottom << "\n";
  for (std::size_t i = 0; i < b.size(); i += 32) {
    k.data << "    .byte ";
    for (std::size_t j = i; j < std::min(b.size(), i + 32); ++j) k.data << (j > i ? ", " : "") << int(b[j]);
    k.data << "\n";
  }
  remember(c, std::move(key), k.param_bottom);
  return k.param_bottom;
}

std::int64_t Ctx::scratch(int c, std::int64_t n) {
  std::int64_t& next = scratch_next_[c];
  const std::int64_t a = next;
  next = (next + n + 7) / 8 * 8;
  CoreCode& k = core(c);
  k.scratch_top = std::max(k.scratch_top, next);
  return a;
}

std::string Ctx::label(int c, const std::string& base) {
  return "L" + std::to_string(layer) + "_" + base + std::to_string(core(c).labels++);
}

void Ctx::ins(int c, const std::string& line) {
  CoreCode& k = core(c);
  k.text << "    " << line << "\n";
  ++k.instructions;
}

void Ctx::li(int c, int reg, std::int64_t v) {
  if (v < INT32_MIN || v > UINT32_MAX) throw CompileError("emit: constant " + std::to_string(v) + " exceeds 32 bits");
  // Registers hold 32 bits: an address at or above 2 GiB (the cluster SRAMs'
  // global window) is the same bits as a negative immediate.
  if (v > INT32_MAX) v -= std::int64_t{1} << 32;
  ins(c, "li r" + std::to_string(reg) + ", " + std::to_string(v));
}

void Ctx::put_label(int c, const std::string& l) { core(c).text << l << ":\n"; }

}  // namespace vp::cc::emit
