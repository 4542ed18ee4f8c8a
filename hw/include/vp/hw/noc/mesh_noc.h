// The chip's network-on-chip: a 2D mesh of routers, one per cluster, with
// XY routing and per-link contention. Pure C++ and untimed by itself: the
// platform's SystemC wrapper calls send() at the simulated time a transfer
// becomes ready, in global time order, and the model answers when the packet
// leaves the source and when it arrives. docs/noc.md gives the formula.
//
// Why this shape:
// - One router per cluster, cluster c at x = c % mesh_cols, y = c / mesh_cols
//   (row-major, cluster 0 at the north-west corner, y grows southwards), the
//   same numbering as vp::config::ChipShape.
// - XY routing (all X hops first, then Y) is deadlock-free on a mesh and makes
//   the route a pure function of (src, dst), so link statistics and the
//   compiler's placement cost agree with the simulator.
// - Virtual cut-through approximation: the head advances one hop per
//   noc.hop_cycles; every link a packet crosses is reserved for the packet's
//   serialization time from the moment the head reaches it, but never before
//   the link is free (per-link free_at). Router buffers are assumed to hold a
//   whole packet, so a packet blocked downstream does not hold upstream links.
// - Reservations are back-filled: a link keeps the intervals it is reserved
//   for, and a packet takes the first gap at or after its head's arrival
//   that holds its whole serialization. A packet's later hops, and the
//   response of a read, are reserved ahead of the calls other cores make at
//   earlier simulated times; without back-filling every such call would
//   queue behind them, as no router does (it grants the link to the packet
//   that is there). The wrapper tells the model the simulated time with
//   advance(), so intervals that ended before it are forgotten. Results
//   depend only on the sequence of calls and advance() values (no clocks,
//   no randomness).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "vp/hw/noc/cycle_math.h"
#include "vp/hw/param_defaults.h"

namespace vp::hw::noc {

// Every field carries the dotted parameter name it comes from and its unit.
// The defaults (the parameter table's) serve stand-alone use; the platform
// fills the struct from its ParamSet.
struct MeshNocConfig {
  std::uint32_t clusters = param_default::chip_clusters;    // chip.clusters [clusters]
  std::uint32_t mesh_cols = param_default::chip_mesh_cols;  // chip.mesh_cols [routers]
  std::uint32_t hop_cycles = param_default::noc_hop_cycles;  // noc.hop_cycles [NoC cycles] router + link
  std::uint32_t link_bits = param_default::noc_link_bits;    // noc.link_bits [bits] flit width = link width
  double clock_mhz = param_default::noc_clock_mhz;           // noc.clock_mhz [MHz] NoC clock
  double core_clock_mhz = param_default::chip_clock_mhz;     // chip.clock_mhz [MHz] core clock, unit of results
  std::uint32_t packet_header_flits = param_default::noc_packet_header_flits;  // [flits] per packet
  std::uint32_t local_port_cycles = param_default::noc_local_port_cycles;  // [NoC cycles] injection or ejection

  // Throws std::invalid_argument naming the offending parameter.
  void validate() const;
};

using LinkId = std::uint32_t;
inline constexpr LinkId kNoLink = 0xFFFFFFFFu;

enum class LinkKind : std::uint8_t {
  kMesh,    // router -> neighbouring router
  kInject,  // local port (cluster or attached device) -> its router
  kEject,   // router -> local port
};

// Direction of a mesh link leaving a router; y grows southwards.
enum class Direction : std::uint8_t { kEast = 0, kWest = 1, kSouth = 2, kNorth = 3 };

struct LinkStats {
  std::uint64_t bytes = 0;           // payload bytes carried
  std::uint64_t flits = 0;           // flits carried, header flits included
  std::uint64_t packets = 0;
  Cycle busy_cycles = 0;             // sum of reservations (serialization times)
  Cycle blocked_cycles = 0;          // sum of waits of a head for this link to free up
};

struct Link {
  LinkKind kind = LinkKind::kMesh;
  std::uint32_t from_router = 0;     // for kInject: the router it feeds
  std::uint32_t to_router = 0;       // for kEject: the router it leaves
  std::uint32_t port = 0;            // local port index for kInject/kEject (0 = the cluster)
  std::string name;                  // "r(1,2)->r(2,2)", "local(1,2)->r(1,2)", "gmem->r(0,0)"
  Cycle free_at = 0;                 // end of its last reservation
  LinkStats stats;
  // Reserved intervals [start, end), sorted, none ending before the model's
  // simulated time (advance()).
  std::vector<std::pair<Cycle, Cycle>> busy = {};
};

// A place a packet enters or leaves the mesh: a router and one of its local
// ports. Port 0 is the cluster at that router; ports >= 1 are devices added
// with attach_device() (the global-memory controller).
struct Endpoint {
  std::uint32_t router = 0;
  std::uint32_t port = 0;
  bool operator==(const Endpoint& o) const { return router == o.router && port == o.port; }
};

// Timing of one packet, all in core cycles.
struct NocTransfer {
  std::uint64_t packet_id = 0;       // 0, 1, 2, ... in call order
  Cycle ready_cycle = 0;             // as passed to send()
  Cycle start_cycle = 0;             // injection port granted (>= ready_cycle)
  Cycle inject_done_cycle = 0;       // tail has left the source port: start + serialization
  Cycle head_arrival_cycle = 0;      // head delivered at the destination port
  Cycle arrival_cycle = 0;           // tail delivered: head_arrival + serialization
  std::uint32_t hops = 0;            // router-to-router links crossed
  std::uint64_t flits = 0;           // header + payload flits
  Cycle serialization_cycles = 0;    // time the packet occupies each link
  Cycle contention_cycles = 0;       // arrival - zero-load arrival (sum of waits)
  Cycle latency() const { return arrival_cycle - ready_cycle; }
};

// Chip-wide counters; energy = flit_hops * (energy per flit per link) +
// flit_router_traversals * (energy per flit per router), with the energy
// parameters supplied by the caller.
struct NocTotals {
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;
  std::uint64_t flits = 0;
  std::uint64_t flit_hops = 0;               // flits x router-to-router links crossed
  std::uint64_t flit_router_traversals = 0;  // flits x routers crossed (hops + 1)
  Cycle contention_cycles = 0;
};

class MeshNoc {
 public:
  // Called for every link reservation (e.g. to draw NoC links in a VCD):
  // the link, the packet, and the busy interval [start, end).
  using LinkListener = std::function<void(LinkId link, std::uint64_t packet_id, Cycle start, Cycle end)>;

  explicit MeshNoc(const MeshNocConfig& config);

  const MeshNocConfig& config() const { return config_; }
  std::uint32_t clusters() const { return config_.clusters; }
  std::uint32_t mesh_cols() const { return config_.mesh_cols; }
  std::uint32_t mesh_rows() const { return rows_; }
  std::uint32_t x_of(std::uint32_t cluster) const { return cluster % config_.mesh_cols; }
  std::uint32_t y_of(std::uint32_t cluster) const { return cluster / config_.mesh_cols; }

  // Adds a local port pair (device->router, router->device) at `router`,
  // named "<name>->r(x,y)" and "r(x,y)-><name>". Returns its endpoint.
  Endpoint attach_device(std::uint32_t router, const std::string& name);

  // ---- derived timing, core cycles -------------------------------------
  // core cycles per NoC cycle, chip.clock_mhz / noc.clock_mhz as a fraction.
  Rational core_per_noc_cycle() const { return ratio_; }
  // H = ceil(noc.hop_cycles * ratio): head latency across one router + link.
  Cycle hop_latency() const { return hop_core_; }
  // P = ceil(noc.local_port_cycles * ratio): head latency of a local port.
  Cycle port_latency() const { return port_core_; }
  // F = noc.packet_header_flits + ceil(bytes * 8 / noc.link_bits).
  std::uint64_t flits_for(std::uint64_t bytes) const;
  // S = ceil(F * ratio): one flit per NoC cycle per link.
  Cycle serialization(std::uint64_t flits) const { return ceil_mul(flits, ratio_); }
  // Manhattan distance between the routers of two clusters.
  std::uint32_t hops(std::uint32_t src_cluster, std::uint32_t dst_cluster) const;
  // 2P + hops*H + S: latency of a packet on an idle network.
  Cycle zero_load_latency(std::uint32_t src_cluster, std::uint32_t dst_cluster,
                          std::uint64_t bytes) const;

  // ---- routes -------------------------------------------------------------
  // Links a packet crosses in order: injection port, the XY mesh links,
  // ejection port. src == dst gives the two local ports only.
  std::vector<LinkId> route(Endpoint src, Endpoint dst) const;
  std::vector<LinkId> route(std::uint32_t src_cluster, std::uint32_t dst_cluster) const {
    return route(cluster_endpoint(src_cluster), cluster_endpoint(dst_cluster));
  }
  // Same, as link names.
  std::vector<std::string> route_names(std::uint32_t src_cluster, std::uint32_t dst_cluster) const;

  // ---- transfers ------------------------------------------------------------
  // Reserves the route for a packet of `bytes` payload ready at ready_cycle.
  NocTransfer send(Endpoint src, Endpoint dst, std::uint64_t bytes, Cycle ready_cycle);
  NocTransfer send(std::uint32_t src_cluster, std::uint32_t dst_cluster, std::uint64_t bytes,
                   Cycle ready_cycle) {
    return send(cluster_endpoint(src_cluster), cluster_endpoint(dst_cluster), bytes, ready_cycle);
  }

  // ---- links and statistics ---------------------------------------------
  // All links: mesh links first (by router, then E, W, S, N), then local
  // ports (by router: cluster inject, cluster eject), then attached devices
  // in attach order. Ids are stable for the life of the model.
  std::size_t link_count() const { return links_.size(); }
  const Link& link(LinkId id) const { return links_.at(id); }
  const std::vector<Link>& links() const { return links_; }
  // kNoLink at the mesh edge.
  LinkId mesh_link(std::uint32_t router, Direction dir) const;
  LinkId inject_link(Endpoint e) const;
  LinkId eject_link(Endpoint e) const;
  // Id of the link with this name, kNoLink if none.
  LinkId find_link(const std::string& name) const;
  const NocTotals& totals() const { return totals_; }

  void set_link_listener(LinkListener listener) { listener_ = std::move(listener); }

  // Frees every link and clears the statistics; attached devices remain.
  void reset();
  // The simulated time now: no later call has a ready cycle before it, so
  // reservations that ended by then are dropped. Never moves back.
  void advance(Cycle now) { now_ = std::max(now_, now); }

  Endpoint cluster_endpoint(std::uint32_t cluster) const;

 private:
  struct Port {
    LinkId inject = kNoLink;
    LinkId eject = kNoLink;
  };

  void check_endpoint(Endpoint e) const;
  std::string router_name(std::uint32_t router) const;
  // The mesh link a packet at `at` takes next towards `dst` (XY).
  LinkId next_hop(std::uint32_t at, std::uint32_t dst, std::uint32_t* next_router) const;
  // Reserves one link for a head arriving at `head`; returns the start cycle.
  Cycle reserve(LinkId id, Cycle head, Cycle serialization, std::uint64_t bytes,
                std::uint64_t flits, std::uint64_t packet_id);

  MeshNocConfig config_;
  std::uint32_t rows_ = 0;
  Rational ratio_;
  Cycle hop_core_ = 0;
  Cycle port_core_ = 0;
  std::vector<Link> links_;
  std::vector<LinkId> mesh_out_;             // router * 4 + Direction
  std::vector<std::vector<Port>> ports_;     // per router; [0] = the cluster
  NocTotals totals_;
  std::uint64_t next_packet_id_ = 0;
  Cycle now_ = 0;  // advance()
  LinkListener listener_;
};

// "r(x,y)" coordinates helper for docs and tests: the name of the mesh link
// between two neighbouring routers, e.g. "r(1,2)->r(2,2)".
std::string mesh_link_name(std::uint32_t from_x, std::uint32_t from_y, std::uint32_t to_x,
                           std::uint32_t to_y);

}  // namespace vp::hw::noc
