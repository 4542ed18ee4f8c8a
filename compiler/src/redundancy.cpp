// Redundant weights (vp-cc --redundancy): the compiler's mitigation of
// programming error. Averaging reads (average_reads.cpp) cannot remove what
// is programmed into a cell: the verify window's residual, relaxation after
// programming, a stuck cell. N copies of a layer's weights on crossbars of
// their own, each programmed (and erring) independently, with their column
// sums added, divide those errors' spread by sqrt(N), as they do read noise.
//
// A tile's crossbars hold the N copies of its rows one after the other
// (ColumnTile::redundant, map_crossbars.cpp), the patch is repeated N times
// (emit_conv.cpp), so the `sum` MVM that already adds a tall tile's row
// tiles adds the copies too, all fired at once: N times the crossbars and
// conversions, not the MVM time. Bias and requantization shift scale as for
// averaged reads, so an exact crossbar's bytes equal the golden model's.
#include "vp/cc/passes.h"

namespace vp::cc {

void set_redundancy(Graph& g, int copies, const std::vector<std::string>& layers) {
  for (Node* n : named_convs(g, layers, "--redundancy")) n->redundancy = copies;
}

}  // namespace vp::cc
