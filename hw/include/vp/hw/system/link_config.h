// The chip-to-chip link's parameters (the link.* rows of the parameter
// table): every chip of a system has a link port, and the links between
// them are all alike.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "vp/hw/param_defaults.h"

namespace vp::hw {

enum class LinkTopology { Chain, Ring, Switch };
inline LinkTopology parse_link_topology(const std::string& s) {
  if (s == "chain") return LinkTopology::Chain;
  if (s == "ring") return LinkTopology::Ring;
  if (s == "switch") return LinkTopology::Switch;
  throw std::invalid_argument("link topology '" + s + "': expected chain, ring or switch");
}
inline const char* link_topology_name(LinkTopology t) {
  return t == LinkTopology::Chain ? "chain" : t == LinkTopology::Ring ? "ring" : "switch";
}

struct LinkConfig {
  uint32_t lanes = param_default::link_lanes;
  double lane_gtps = param_default::link_lane_gtps;  // transfers per second per lane, in 10^9
  double encoding = param_default::link_encoding;    // payload bits per line bit
  double latency_ns = param_default::link_latency_ns;  // one hop
  double pj_per_bit = param_default::link_pj_per_bit;  // per hop
  LinkTopology topology = parse_link_topology(std::string(param_default::link_topology));
  double clock_mhz = param_default::chip_clock_mhz;  // the chips' clock, in which cycles are counted
  // Payload bytes per second of one directed link, in 10^9.
  double gbytes_per_s() const { return lanes * lane_gtps * encoding / 8.0; }
};

}  // namespace vp::hw
