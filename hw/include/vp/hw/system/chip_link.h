// The chip-to-chip interconnect of a system of chips: every chip's link
// port (a message-fabric participant beside its memory controller, Chip's
// link_port) and the links between them, chain, ring or switch.
//
// The link is a DMA engine driven by doorbells, as a PCIe peer-to-peer or a
// die-to-die (UCIe) transfer is: when a chip's firmware has put an
// element's outputs in its batch output area it rings its port (a 4-byte
// message, tag LINK_TAG_OUT); the engine moves every route of that chip
// from there into the destination chips' batch input areas and, once all of
// a destination's routes for the element have landed, rings that chip's
// control processor (tag LINK_TAG_IN). Timing per transfer: it starts when
// the doorbell is in and every directed link on its path is free, holds
// them for the serialization time (bytes over lanes x lane rate x encoding
// efficiency), and lands one hop latency per link later (cut-through).
// Energy is bits x hops x pJ per bit. The bytes themselves are copied
// between the global memories directly (a backdoor, as TLM's DMI is): the
// model's time is the link's, not the copy's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "vp/hw/system/link_config.h"

namespace vp::hw {

class Chip;

// One value carried for every batch element: from chip `from`'s global
// memory at src + e x src_stride to chip `to`'s at dst + e x dst_stride.
struct LinkRoute {
  uint32_t from = 0, to = 0;
  uint64_t src = 0, src_stride = 0, dst = 0, dst_stride = 0, bytes = 0;
};

// What one directed link did over the run.
struct LinkStats {
  int from = 0, to = 0;  // chip numbers; the switch is -1
  uint64_t transfers = 0, bytes = 0;
  uint64_t busy_cycles = 0;  // serializing
  uint64_t wait_cycles = 0;  // transfers waited for this link while it was busy (contention)
  double energy_pj = 0;
};

class ChipLink : public sc_core::sc_module {
 public:
  // `chips` built with link ports; `elements` batch elements each route
  // carries. Throws std::invalid_argument on a route naming a chip that is
  // not there.
  ChipLink(sc_core::sc_module_name name, const LinkConfig& cfg, std::vector<Chip*> chips,
           std::vector<LinkRoute> routes, uint32_t elements);

  const LinkConfig& config() const { return cfg_; }
  std::vector<LinkStats> stats() const;
  uint64_t transfers() const { return transfers_; }
  double energy_pj() const;
  // The first fault a doorbell met ("" when none).
  const std::string& fault() const { return fault_; }
  // Directed links a transfer from `a` to `b` crosses, in order.
  std::vector<std::pair<int, int>> path(int a, int b) const;
  // Serialization of `bytes` on one link, and one hop's latency, in cycles.
  uint64_t serialization_cycles(uint64_t bytes) const;
  uint64_t hop_cycles() const;

 private:
  void engine(uint32_t chip);  // one thread per chip that sends
  uint64_t reserve(uint32_t from, uint32_t to, uint64_t bytes, uint64_t ready);

  LinkConfig cfg_;
  std::vector<Chip*> chips_;
  std::vector<LinkRoute> routes_;
  uint32_t elements_;
  std::vector<uint32_t> routes_into_;
  // per destination chip, per element: routes landed, the latest landing
  std::vector<std::vector<std::pair<uint32_t, uint64_t>>> landed_;
  std::map<std::pair<int, int>, LinkStats> links_;
  std::map<std::pair<int, int>, uint64_t> free_at_;
  uint64_t transfers_ = 0;
  std::string fault_;
};

}  // namespace vp::hw
