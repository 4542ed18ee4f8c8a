#include "vp/platform/chip_size.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace vp::platform {
namespace {

// Resident bytes one core costs once built (its SystemC thread's stack, the
// module, its scoreboard and program store): 78 KiB measured as the peak
// RSS growth from 25 to 6400 cores (sidra-y1, loop.s), rounded up. A
// crossbar's slot before it is programmed is two pointers.
constexpr uint64_t kBytesPerCore = 96 * 1024;
constexpr uint64_t kBytesPerCrossbarSlot = 16;

// Crossbar and core numbers are 32-bit throughout the models and the ISA.
constexpr uint64_t kMaxCrossbars = UINT32_MAX;

std::string gib(uint64_t bytes) {
  const double g = static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", g);
  return buf;
}

uint64_t saturating_mul(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
uint64_t saturating_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

}  // namespace

MachineLimits this_machine() {
  MachineLimits m;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) m.ram_bytes = saturating_mul(static_cast<uint64_t>(pages), static_cast<uint64_t>(page));
  return m;
}

void check_chip_size(const hw::ChipConfig& c, const MachineLimits& machine) {
  const uint64_t cores = saturating_mul(c.clusters, c.cus_per_cluster);
  const uint64_t crossbars = saturating_mul(cores, c.xbars_per_cu);
  if (crossbars > kMaxCrossbars)
    throw ChipSizeError("chip.clusters (" + std::to_string(c.clusters) + ") x chip.cus_per_cluster (" +
                        std::to_string(c.cus_per_cluster) + ") x chip.xbars_per_cu (" +
                        std::to_string(c.xbars_per_cu) + ") = " + std::to_string(crossbars) +
                        " crossbars, more than the " + std::to_string(kMaxCrossbars) +
                        " a 32-bit crossbar number can name; reduce one of them");

  // Memories are reserved address space, zero pages until touched.
  const uint64_t reserved = saturating_add(
      saturating_add(c.memory.gmem_bytes, saturating_mul(c.clusters, c.memory.sram_bytes)),
      saturating_add(saturating_mul(cores, c.memory.spad_bytes), c.memory.cp_dmem_bytes));
  if (reserved > machine.address_bytes)
    throw ChipSizeError("gmem.size_mib + chip.clusters x cluster.sram_kib + cores x cu.spad_kib reserve " +
                        gib(reserved) + " of address space, more than the " + gib(machine.address_bytes) +
                        " a process can map; reduce the largest of them (gmem " + gib(c.memory.gmem_bytes) +
                        ", cluster SRAMs " + gib(saturating_mul(c.clusters, c.memory.sram_bytes)) + ", scratchpads " +
                        gib(saturating_mul(cores, c.memory.spad_bytes)) + ")");

  // Cores and crossbar slots are built up front and stay resident.
  const uint64_t resident =
      saturating_add(saturating_mul(cores, kBytesPerCore), saturating_mul(crossbars, kBytesPerCrossbarSlot));
  if (machine.ram_bytes != 0 && resident > machine.ram_bytes)
    throw ChipSizeError("chip.clusters (" + std::to_string(c.clusters) + ") x chip.cus_per_cluster (" +
                        std::to_string(c.cus_per_cluster) + ") = " + std::to_string(cores) + " cores with " +
                        std::to_string(crossbars) + " crossbars need about " + gib(resident) +
                        " to build, more than this machine's " + gib(machine.ram_bytes) +
                        " of memory; reduce chip.clusters or chip.cus_per_cluster");

  // The cluster SRAMs' global window must end where a 32-bit DMA address reaches.
  const uint64_t window_end =
      saturating_add(c.memory.sram_global_base, saturating_mul(c.clusters, c.memory.sram_bytes));
  if (c.memory.sram_global_base != 0 && window_end > (uint64_t{1} << 32))
    throw ChipSizeError("cluster.sram.global_base_mib: the " + std::to_string(c.clusters) + " clusters' SRAMs (" +
                        gib(saturating_mul(c.clusters, c.memory.sram_bytes)) + ") from " +
                        std::to_string(c.memory.sram_global_base >> 20) +
                        " MiB end past 4 GiB, beyond a 32-bit DMA address; lower it, or 0 to leave them unmapped");
}

}  // namespace vp::platform
