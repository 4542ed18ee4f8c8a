// The chip's size as the models and the compiler need it, derived once from
// a ParamSet so nobody recomputes mesh rows or crossbar counts by hand. The
// compiler's Target (compiler/include/vp/cc/target.h) is filled from it.
#pragma once

#include <cstdint>

#include "vp/config/param_set.h"

namespace vp::config {

// The arithmetic of the shape, shared with the compiler's Target.
// Bit slices of one signed weight over adjacent columns.
constexpr std::int64_t weight_slices(std::int64_t weight_bits, std::int64_t cell_bits) {
  return ceil_div(weight_bits, cell_bits);
}
// Columns one signed weight occupies: its slices, doubled for a differential pair.
constexpr std::int64_t weight_columns(std::int64_t weight_bits, std::int64_t cell_bits, bool differential) {
  return weight_slices(weight_bits, cell_bits) * (differential ? 2 : 1);
}
// Router hops between two clusters of the row-major mesh (XY routing).
constexpr std::int64_t mesh_hops(std::int64_t cluster_a, std::int64_t cluster_b, std::int64_t mesh_cols) {
  const std::int64_t dx = cluster_a % mesh_cols - cluster_b % mesh_cols;
  const std::int64_t dy = cluster_a / mesh_cols - cluster_b / mesh_cols;
  return (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

struct ChipShape {
  std::int64_t clusters = 0;
  std::int64_t mesh_cols = 0;
  std::int64_t mesh_rows = 0;         // clusters / mesh_cols (validate() checks)
  std::int64_t cus_per_cluster = 0;
  std::int64_t xbars_per_cu = 0;
  std::int64_t xbar_rows = 0;
  std::int64_t xbar_cols = 0;
  std::int64_t cell_bits = 0;
  std::int64_t weight_bits = 0;
  bool differential = false;          // xbar.signed_encoding == differential
  std::int64_t rows_per_dac_step = 0; // dac.rows_per_step capped at xbar.rows
  std::int64_t adcs_per_xbar = 0;     // ceil(cols / adc.columns_per_adc)
  // Memories the compiler places data in, in bytes or instruction words.
  std::int64_t spad_bytes = 0;        // cu.spad_kib
  std::int64_t sram_bytes = 0;        // cluster.sram_kib
  std::int64_t gmem_bytes = 0;        // gmem.size_mib
  std::int64_t imem_words = 0;        // cu.imem_kinstr
  std::int64_t gmem_attach_cluster = 0;
  std::int64_t sram_global_base = 0;      // cluster.sram.global_base_mib (0: not mapped)
  std::int64_t sram_interleave_bytes = 0; // cluster.sram.interleave_bytes
  std::int64_t noc_link_bits = 0;         // noc.link_bits

  std::int64_t total_cus() const { return clusters * cus_per_cluster; }
  std::int64_t total_crossbars() const { return total_cus() * xbars_per_cu; }
  std::int64_t cells_per_crossbar() const { return xbar_rows * xbar_cols; }
  std::int64_t total_cells() const { return total_crossbars() * cells_per_crossbar(); }
  // Columns one signed weight occupies: its bit slices over adjacent columns,
  // doubled for a differential pair.
  std::int64_t columns_per_weight() const { return weight_columns(weight_bits, cell_bits, differential); }
  // Levels a cell distinguishes: 2^cell_bits.
  std::int64_t cell_levels() const { return std::int64_t{1} << cell_bits; }
  // Mesh coordinates of a cluster (row-major, cluster 0 at the north-west).
  std::int64_t cluster_x(std::int64_t cluster) const { return cluster % mesh_cols; }
  std::int64_t cluster_y(std::int64_t cluster) const { return cluster / mesh_cols; }
};

ChipShape chip_shape(const ParamSet& params);

}  // namespace vp::config
