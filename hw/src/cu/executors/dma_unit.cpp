// The DMA unit: copies between the scratchpad (local), the cluster's SRAM
// and global memory, in order and asynchronously to issue. Only the
// scratchpad side is the core's to order; the environment times the
// transfer from the cycle its setup is done.
#include "executors/issue.h"

namespace vp::hw {
namespace {

bool to_local(DmaDirection d) { return d == DmaDirection::GlobalToLocal || d == DmaDirection::SramToLocal; }
bool from_local(DmaDirection d) { return d == DmaDirection::LocalToGlobal || d == DmaDirection::LocalToSram; }

void transfer(Issue& is, DmaDirection dir, uint32_t dst, uint32_t src, uint32_t bytes) {
  const uint64_t n = bytes;
  if (to_local(dir) && !is.writes(dst, n, "dma writes")) return;
  if (from_local(dir) && !is.reads(src, n, "dma reads")) return;
  is.wait_for_memory();
  CoreFault f;
  const uint64_t end = is.env().dma(dir, dst, src, n, is.start() + is.timing().dma_setup_cycles, f);
  if (!is.ok(f)) return;
  is.end_at(end);
  is.stats().dma_bytes += n;
  // Between the scratchpad and its own cluster's SRAM: off the mesh.
  if (dir == DmaDirection::SramToLocal || dir == DmaDirection::LocalToSram) is.stats().dma_cluster_bytes += n;
}

}  // namespace

void exec_DMA_GL(Issue& is, const isa::ops::DMA_GL& o) {
  transfer(is, DmaDirection::GlobalToLocal, is.reg(o.rl), is.reg(o.rg), is.reg(o.rn));
}
void exec_DMA_LG(Issue& is, const isa::ops::DMA_LG& o) {
  transfer(is, DmaDirection::LocalToGlobal, is.reg(o.rg), is.reg(o.rl), is.reg(o.rn));
}
void exec_DMA_SL(Issue& is, const isa::ops::DMA_SL& o) {
  transfer(is, DmaDirection::SramToLocal, is.reg(o.rl), is.reg(o.rs), is.reg(o.rn));
}
void exec_DMA_LS(Issue& is, const isa::ops::DMA_LS& o) {
  transfer(is, DmaDirection::LocalToSram, is.reg(o.rs), is.reg(o.rl), is.reg(o.rn));
}
void exec_DMA_GS(Issue& is, const isa::ops::DMA_GS& o) {
  transfer(is, DmaDirection::GlobalToSram, is.reg(o.rs), is.reg(o.rg), is.reg(o.rn));
}
void exec_DMA_SG(Issue& is, const isa::ops::DMA_SG& o) {
  transfer(is, DmaDirection::SramToGlobal, is.reg(o.rg), is.reg(o.rs), is.reg(o.rn));
}

}  // namespace vp::hw
