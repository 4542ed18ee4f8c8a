// The mesh's links under one inference's memory traffic, for the report's
// stream period.
//
// With the layers of a stream overlapped, every value's bytes cross the
// mesh between the clusters of the CUs that read or write them and the
// clusters that hold them: the SRAM window interleaves each value granule by
// granule over every cluster, global memory sits at one router. On
// ResNet-50 at batch 16 the busiest links were busy two thirds of the run
// and blocked for much of the rest: the mesh, not the crossbars, set the
// period.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

struct MeshLoad {
  double busiest_flits = 0;  // flits per inference on the busiest link between routers
  std::string busiest;       // its name, as vp-run's statistics name links: "r(x,y)->r(x,y)"
  // The same for the ports between routers and what is attached to them,
  // each way: a cluster's CUs share one ("local(x,y)->r(x,y)",
  // "r(x,y)->local(x,y)"), each cluster's SRAM has its own ("sram<c>"),
  // global memory one ("gmem").
  double busiest_port_flits = 0;
  std::string busiest_port;
};

// Every mapped node's memory bytes (memory_bytes_of) routed XY: reads from
// where the value lives to each of the node's CUs' clusters, writes back,
// shared evenly among its CUs; window bytes spread evenly over the
// clusters (a cluster's own sixteenth stays off the mesh), global memory's
// from its router. Link flits of the default
// noc.link_bits, as the rest of the cost model (schedule_cost.cpp) counts
// them; packet headers are not counted.
MeshLoad mesh_load(const Graph& g, const Target& t);

// The same flits node by node: for each node, one entry per directed link
// between routers, then per port between a router and what hangs on it
// (mesh_load's order); empty for nodes without CUs.
std::vector<std::vector<double>> node_traffic(const Graph& g, const Target& t);

// Where a resource's flits come from: a link's and an eject port's from one
// of its router's inputs (a link arriving heading east, west, south or
// north; the CUs', an SRAM's or global memory's inject port), an inject
// port's from none (kFirstHop). Flits that came in over the same input
// reach the resource one after the other, as the input let them out, so
// they do not queue for it behind each other (contended_times.cpp).
constexpr int kMeshInputs = 8, kFirstHop = 7;

// node_traffic's flits by input: for each node, kMeshInputs entries per
// resource, in node_traffic's order; each resource's sum is node_traffic's.
std::vector<std::vector<double>> node_traffic_entering(const Graph& g, const Target& t);

// The flits (node_traffic's order) one of node n's CUs puts on the mesh and
// its ports with its share of n's bytes (as node_traffic counts them), were
// that CU in cluster k, for every k: what the placement weighs where a CU
// may go by (balance_links.h).
std::vector<std::vector<double>> cu_traffic(const Graph& g, const Node& n, const Target& t);

}  // namespace vp::cc
