// Configurations for the SystemC model tests whose timing reads as plain
// integers: NoC at the core clock (1 GHz), H = 2 cycles per hop, P = 1 cycle
// per local port, 256-bit links (32-byte flits) with one header flit, so a
// packet of B bytes serialises in S(B) = 1 + ceil(B / 32) cycles
// (docs/noc.md). Tests state their expected cycles from these numbers.
#pragma once

#include <cstdint>
#include "vp/hw/chip/chip_config.h"
#include "vp/hw/noc/mesh_noc.h"

namespace vp::hw::test {

inline noc::MeshNocConfig plain_mesh(uint32_t clusters, uint32_t mesh_cols) {
  noc::MeshNocConfig c;
  c.clusters = clusters;
  c.mesh_cols = mesh_cols;
  c.hop_cycles = 2;
  c.local_port_cycles = 1;
  c.link_bits = 256;
  c.packet_header_flits = 1;
  c.clock_mhz = 1000;
  c.core_clock_mhz = 1000;
  return c;
}

// S(B): flits of a packet carrying `bytes`, header included.
inline uint64_t flits(uint64_t bytes) { return 1 + (bytes + 31) / 32; }

// Two clusters on a 2x1 mesh, two CUs of two 16x16 crossbars each, the
// plain NoC above and memories small enough to allocate per test.
inline ChipConfig plain_chip() {
  ChipConfig c;
  c.clusters = 2;
  c.mesh_cols = 2;
  c.cus_per_cluster = 2;
  c.xbars_per_cu = 2;
  c.xbar.rows = c.xbar.cols = 16;
  c.noc = plain_mesh(2, 2);
  c.memory.gmem_bytes = 1 << 20;
  c.memory.sram_bytes = 1 << 16;
  c.memory.spad_bytes = 4096;
  c.memory.imem_words = 1024;
  return c;
}

}  // namespace vp::hw::test
