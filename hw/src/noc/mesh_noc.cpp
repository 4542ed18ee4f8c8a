#include "vp/hw/noc/mesh_noc.h"

#include <algorithm>
#include <stdexcept>

namespace vp::hw::noc {
namespace {

constexpr std::uint32_t kDirections = 4;

[[noreturn]] void bad_param(const std::string& name, const std::string& why) {
  throw std::invalid_argument(name + ": " + why);
}

std::uint32_t absdiff(std::uint32_t a, std::uint32_t b) { return a > b ? a - b : b - a; }

}  // namespace

void MeshNocConfig::validate() const {
  if (clusters == 0) bad_param("chip.clusters", "must be >= 1");
  if (mesh_cols == 0) bad_param("chip.mesh_cols", "must be >= 1");
  if (clusters % mesh_cols != 0) {
    bad_param("chip.mesh_cols", "chip.clusters (" + std::to_string(clusters) +
                                   ") must be a multiple of chip.mesh_cols (" +
                                   std::to_string(mesh_cols) + ")");
  }
  if (link_bits == 0) bad_param("noc.link_bits", "must be >= 1");
  if (!(clock_mhz > 0.0)) bad_param("noc.clock_mhz", "must be > 0");
  if (!(core_clock_mhz > 0.0)) bad_param("chip.clock_mhz", "must be > 0");
}

std::string mesh_link_name(std::uint32_t from_x, std::uint32_t from_y, std::uint32_t to_x,
                           std::uint32_t to_y) {
  return "r(" + std::to_string(from_x) + "," + std::to_string(from_y) + ")->r(" +
         std::to_string(to_x) + "," + std::to_string(to_y) + ")";
}

MeshNoc::MeshNoc(const MeshNocConfig& config) : config_(config) {
  config_.validate();
  rows_ = config_.clusters / config_.mesh_cols;
  // One conversion factor, held exactly; every NoC-cycle duration below is
  // converted as a whole and rounded up once (never per flit or per hop).
  ratio_ = rationalize(config_.core_clock_mhz / config_.clock_mhz);
  hop_core_ = ceil_mul(config_.hop_cycles, ratio_);
  port_core_ = ceil_mul(config_.local_port_cycles, ratio_);

  const std::uint32_t n = config_.clusters;
  mesh_out_.assign(static_cast<std::size_t>(n) * kDirections, kNoLink);
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::uint32_t x = x_of(r), y = y_of(r);
    const auto add = [&](Direction d, std::uint32_t tx, std::uint32_t ty) {
      Link l;
      l.kind = LinkKind::kMesh;
      l.from_router = r;
      l.to_router = ty * config_.mesh_cols + tx;
      l.name = mesh_link_name(x, y, tx, ty);
      mesh_out_[r * kDirections + static_cast<std::uint32_t>(d)] = static_cast<LinkId>(links_.size());
      links_.push_back(std::move(l));
    };
    if (x + 1 < config_.mesh_cols) add(Direction::kEast, x + 1, y);
    if (x > 0) add(Direction::kWest, x - 1, y);
    if (y + 1 < rows_) add(Direction::kSouth, x, y + 1);
    if (y > 0) add(Direction::kNorth, x, y - 1);
  }
  ports_.resize(n);
  for (std::uint32_t r = 0; r < n; ++r) {
    const std::string local = "local(" + std::to_string(x_of(r)) + "," + std::to_string(y_of(r)) + ")";
    Port p;
    p.inject = static_cast<LinkId>(links_.size());
    links_.push_back(Link{LinkKind::kInject, r, r, 0, local + "->" + router_name(r), 0, {}});
    p.eject = static_cast<LinkId>(links_.size());
    links_.push_back(Link{LinkKind::kEject, r, r, 0, router_name(r) + "->" + local, 0, {}});
    ports_[r].push_back(p);
  }
}

std::string MeshNoc::router_name(std::uint32_t router) const {
  return "r(" + std::to_string(x_of(router)) + "," + std::to_string(y_of(router)) + ")";
}

Endpoint MeshNoc::attach_device(std::uint32_t router, const std::string& name) {
  if (router >= config_.clusters) {
    throw std::out_of_range("attach_device: router " + std::to_string(router) + " outside the mesh");
  }
  if (name.empty()) throw std::invalid_argument("attach_device: empty device name");
  const auto port = static_cast<std::uint32_t>(ports_[router].size());
  Port p;
  p.inject = static_cast<LinkId>(links_.size());
  links_.push_back(Link{LinkKind::kInject, router, router, port, name + "->" + router_name(router), 0, {}});
  p.eject = static_cast<LinkId>(links_.size());
  links_.push_back(Link{LinkKind::kEject, router, router, port, router_name(router) + "->" + name, 0, {}});
  ports_[router].push_back(p);
  return Endpoint{router, port};
}

Endpoint MeshNoc::cluster_endpoint(std::uint32_t cluster) const {
  if (cluster >= config_.clusters) {
    throw std::out_of_range("cluster " + std::to_string(cluster) + " outside the mesh of " +
                            std::to_string(config_.clusters) + " clusters");
  }
  return Endpoint{cluster, 0};
}

void MeshNoc::check_endpoint(Endpoint e) const {
  if (e.router >= config_.clusters || e.port >= ports_[e.router].size()) {
    throw std::out_of_range("endpoint router " + std::to_string(e.router) + " port " +
                            std::to_string(e.port) + " does not exist");
  }
}

std::uint64_t MeshNoc::flits_for(std::uint64_t bytes) const {
  // bytes * 8 overflows only past 2^61 bytes; split to stay exact anyway.
  const std::uint64_t lb = config_.link_bits;
  const std::uint64_t whole = bytes / lb;            // lb bytes = 8 flits exactly
  const std::uint64_t rest_bits = (bytes % lb) * 8;  // < 8 * lb
  return config_.packet_header_flits + whole * 8 + ceil_div(rest_bits, lb);
}

std::uint32_t MeshNoc::hops(std::uint32_t src_cluster, std::uint32_t dst_cluster) const {
  cluster_endpoint(src_cluster);
  cluster_endpoint(dst_cluster);
  return absdiff(x_of(src_cluster), x_of(dst_cluster)) + absdiff(y_of(src_cluster), y_of(dst_cluster));
}

Cycle MeshNoc::zero_load_latency(std::uint32_t src_cluster, std::uint32_t dst_cluster,
                                 std::uint64_t bytes) const {
  return 2 * port_core_ + static_cast<Cycle>(hops(src_cluster, dst_cluster)) * hop_core_ +
         serialization(flits_for(bytes));
}

LinkId MeshNoc::mesh_link(std::uint32_t router, Direction dir) const {
  if (router >= config_.clusters) return kNoLink;
  return mesh_out_[router * kDirections + static_cast<std::uint32_t>(dir)];
}

LinkId MeshNoc::inject_link(Endpoint e) const {
  check_endpoint(e);
  return ports_[e.router][e.port].inject;
}

LinkId MeshNoc::eject_link(Endpoint e) const {
  check_endpoint(e);
  return ports_[e.router][e.port].eject;
}

LinkId MeshNoc::find_link(const std::string& name) const {
  for (std::size_t i = 0; i < links_.size(); ++i) {
    if (links_[i].name == name) return static_cast<LinkId>(i);
  }
  return kNoLink;
}

LinkId MeshNoc::next_hop(std::uint32_t at, std::uint32_t dst, std::uint32_t* next_router) const {
  const std::uint32_t x = x_of(at), y = y_of(at), dx = x_of(dst), dy = y_of(dst);
  // X first, then Y: dimension order, deadlock-free on a mesh.
  Direction d;
  if (dx > x) {
    d = Direction::kEast;
  } else if (dx < x) {
    d = Direction::kWest;
  } else if (dy > y) {
    d = Direction::kSouth;
  } else {
    d = Direction::kNorth;
  }
  const LinkId id = mesh_out_[at * kDirections + static_cast<std::uint32_t>(d)];
  *next_router = links_[id].to_router;
  return id;
}

std::vector<LinkId> MeshNoc::route(Endpoint src, Endpoint dst) const {
  check_endpoint(src);
  check_endpoint(dst);
  std::vector<LinkId> out;
  out.push_back(ports_[src.router][src.port].inject);
  for (std::uint32_t at = src.router; at != dst.router;) {
    out.push_back(next_hop(at, dst.router, &at));
  }
  out.push_back(ports_[dst.router][dst.port].eject);
  return out;
}

std::vector<std::string> MeshNoc::route_names(std::uint32_t src_cluster, std::uint32_t dst_cluster) const {
  std::vector<std::string> names;
  for (LinkId id : route(src_cluster, dst_cluster)) names.push_back(links_[id].name);
  return names;
}

Cycle MeshNoc::reserve(LinkId id, Cycle head, Cycle serialization, std::uint64_t bytes,
                       std::uint64_t flits, std::uint64_t packet_id) {
  Link& l = links_[id];
  // Forget what ended before now, then take the first gap at or after the
  // head that holds the whole packet. The busy intervals are disjoint, in
  // order and never empty, so their ends ascend strictly: the first one
  // still busy at the head is found from the back (a congested link holds
  // dozens, and a new packet's head is mostly past all but the last few),
  // and from there every interval ends after the start being tried.
  std::size_t gone = 0;
  while (gone < l.busy.size() && l.busy[gone].second <= now_) ++gone;
  if (gone) l.busy.erase(l.busy.begin(), l.busy.begin() + static_cast<std::ptrdiff_t>(gone));
  Cycle start = head;
  std::size_t at = l.busy.size();
  while (at > 0 && l.busy[at - 1].second > start) --at;
  for (; at < l.busy.size(); ++at) {
    if (start + serialization <= l.busy[at].first) break;
    start = l.busy[at].second;
  }
  if (serialization > 0) l.busy.insert(l.busy.begin() + static_cast<std::ptrdiff_t>(at), {start, start + serialization});
  l.free_at = std::max(l.free_at, start + serialization);
  l.stats.bytes += bytes;
  l.stats.flits += flits;
  l.stats.packets += 1;
  l.stats.busy_cycles += serialization;
  l.stats.blocked_cycles += start - head;
  if (listener_) listener_(id, packet_id, start, start + serialization);
  return start;
}

NocTransfer MeshNoc::send(Endpoint src, Endpoint dst, std::uint64_t bytes, Cycle ready_cycle) {
  check_endpoint(src);
  check_endpoint(dst);
  NocTransfer t;
  t.packet_id = next_packet_id_++;
  t.ready_cycle = ready_cycle;
  t.flits = flits_for(bytes);
  t.serialization_cycles = serialization(t.flits);
  const Cycle s = t.serialization_cycles;

  // Injection port: the head enters the router P after the port is granted;
  // the port is busy until the tail has left, S after the grant.
  t.start_cycle = reserve(ports_[src.router][src.port].inject, ready_cycle, s, bytes, t.flits, t.packet_id);
  t.inject_done_cycle = t.start_cycle + s;
  Cycle head = t.start_cycle + port_core_;

  // Mesh links: each starts when the head is there and the link is free; the
  // head reaches the next router H later.
  for (std::uint32_t at = src.router; at != dst.router;) {
    const LinkId id = next_hop(at, dst.router, &at);
    head = reserve(id, head, s, bytes, t.flits, t.packet_id) + hop_core_;
    ++t.hops;
  }

  // Ejection port: the head is delivered P after the grant, the tail S later.
  head = reserve(ports_[dst.router][dst.port].eject, head, s, bytes, t.flits, t.packet_id) + port_core_;
  t.head_arrival_cycle = head;
  t.arrival_cycle = head + s;
  const Cycle zero_load = ready_cycle + 2 * port_core_ + static_cast<Cycle>(t.hops) * hop_core_ + s;
  t.contention_cycles = t.arrival_cycle - zero_load;

  totals_.packets += 1;
  totals_.bytes += bytes;
  totals_.flits += t.flits;
  totals_.flit_hops += t.flits * t.hops;
  totals_.flit_router_traversals += t.flits * (static_cast<std::uint64_t>(t.hops) + 1);
  totals_.contention_cycles += t.contention_cycles;
  return t;
}

void MeshNoc::reset() {
  now_ = 0;
  for (Link& l : links_) {
    l.free_at = 0;
    l.busy.clear();
    l.stats = LinkStats{};
  }
  totals_ = NocTotals{};
  next_packet_id_ = 0;
}

}  // namespace vp::hw::noc
