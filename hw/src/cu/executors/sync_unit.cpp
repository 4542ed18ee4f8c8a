// Synchronisation: chip-wide barriers (timed by the environment) and waiting
// for this core's own units to drain.
#include "executors/issue.h"

namespace vp::hw {

void exec_BAR(Issue& is, const isa::ops::BAR& o) {
  CoreFault f;
  is.waiting_for("barrier " + std::to_string(o.id) + " (" + std::to_string(o.count) + " cores)");
  const uint64_t end = is.env().barrier(o.id, o.count, is.start(), f);
  is.done_waiting();
  if (!is.ok(f)) return;
  is.end_at(end);
  is.hold_issue();
}

// The mask's bits are the units' wait bits (units.def).
void exec_WAIT(Issue& is, const isa::ops::WAIT& o) {
  for (int u = 0; u < isa::kUnitCount; ++u) {
    const auto unit = static_cast<isa::Unit>(u);
    if (o.units & isa::wait_bit(unit)) is.start_after(is.scoreboard().unit_drained(unit));
  }
}

}  // namespace vp::hw
