// Link balance: the pipelined placement of a stream deals its CUs over the
// clusters in turn, which leaves the clusters unevenly loaded (ResNet-50's
// stream: the three clusters dealt last moved 1.5 to 2.0 MB an image, the
// others 2.6 to 3.0 MB), and with them the mesh's links: its middle links
// carried 144 k to 233 k flits an image, and the busiest one paces the
// stream. Here CUs trade clusters, whole groups that must share a cluster
// at once, while that lowers the mesh's load where it is highest, as
// mesh_load routes every CU's bytes (the SRAM window spread evenly over the
// clusters, as it counts before plan_memory places the values).
#pragma once

#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

// Moves the mapped nodes' CUs between clusters (Node::cores, the tiles'
// parts): the CUs of a copy that shares its loads, and a handed pair's two
// CUs, stay in one cluster; CUs within a cluster are alike, so only their
// cluster changes what the program does. Returns the CUs moved.
int balance_links(Graph& g, const Target& t);

}  // namespace vp::cc
