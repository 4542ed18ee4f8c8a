// What the compiler needs to know about the chip: the `recompile`
// parameters of docs/parameters.md, read from the same presets vp-run uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vp::cc {

struct Target {
  std::string name = "sidra-y1";
  int clusters = 16, mesh_cols = 4, cus_per_cluster = 25, xbars_per_cu = 16;
  int rows = 256, cols = 256, cell_bits = 2, weight_bits = 8;
  bool differential = false;
  std::int64_t spad_bytes = 64 << 10;
  std::int64_t sram_bytes = 512 << 10;
  std::int64_t gmem_bytes = std::int64_t{2048} << 20;
  int imem_instructions = 16 * 1024;
  int gmem_attach_cluster = 0;

  int slices() const { return (weight_bits + cell_bits - 1) / cell_bits; }
  int cols_per_weight() const { return slices() * (differential ? 2 : 1); }
  int lcols() const { return cols / cols_per_weight(); }
  int cores() const { return clusters * cus_per_cluster; }
  std::int64_t crossbars() const { return std::int64_t{cores()} * xbars_per_cu; }
  int cluster_of(int core) const { return core / cus_per_cluster; }
  int cu_of(int core) const { return core % cus_per_cluster; }
  // Mesh hops between the routers of two cores' clusters (XY routing).
  int hops(int core_a, int core_b) const;
};

// Preset name or YAML path plus "key=value" overrides, as vp-run takes them.
Target load_target(const std::string& preset, const std::vector<std::string>& sets = {});

}  // namespace vp::cc
