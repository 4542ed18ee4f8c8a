// The core's NoC port: blocking send and receive of scratchpad bytes between
// cores. The environment moves and times the packets; a send holds the
// core's issue until its packet is injected, a receive until its packet has
// arrived, so nothing after a recv (a DMA of the rows its token announces)
// starts before the token is there.
#include "executors/issue.h"

namespace vp::hw {

void exec_SEND(Issue& is, const isa::ops::SEND& o) {
  const uint64_t addr = is.reg(o.rs1), n = is.reg(o.rn);
  const uint32_t peer = is.reg(o.rdst);
  if (!is.reads(addr, n, "send reads")) return;
  is.wait_for_memory();
  CoreFault f;
  const uint64_t end = is.env().send(peer, o.tag, is.spad().at(addr), n, is.start(), f);
  is.stats().noc_bytes_sent += n;
  if (!is.ok(f)) return;
  is.end_at(end);
  is.hold_issue();
}

void exec_RECV(Issue& is, const isa::ops::RECV& o) {
  const uint64_t addr = is.reg(o.rd), n = is.reg(o.rn);
  const uint32_t peer = is.reg(o.rsrc);
  if (!is.writes(addr, n, "recv writes")) return;
  is.wait_for_memory();
  CoreFault f;
  is.waiting_for("recv from core " + std::to_string(peer) + " tag " + std::to_string(o.tag));
  const uint64_t end = is.env().recv(peer, o.tag, is.spad().at(addr), n, is.start(), f);
  is.done_waiting();
  if (!is.ok(f)) return;
  is.end_at(end);
  is.hold_issue();
}

}  // namespace vp::hw
