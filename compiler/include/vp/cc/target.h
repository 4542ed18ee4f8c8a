// What the compiler needs to know about the chip: the `recompile`
// parameters of docs/parameters.md, read from the same presets vp-run uses.
// Defaults are the parameter table's (sidra-y1); load_target() fills the
// rest from config::ChipShape, the one description of the chip's shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/config/chip_shape.h"
#include "vp/config/param_defaults.h"

namespace vp::cc {

struct Target {
  std::string name{config::param_default::chip_name};
  int clusters = config::param_default::chip_clusters;
  int mesh_cols = config::param_default::chip_mesh_cols;
  int cus_per_cluster = config::param_default::chip_cus_per_cluster;
  int xbars_per_cu = config::param_default::chip_xbars_per_cu;
  int rows = config::param_default::xbar_rows;
  int cols = config::param_default::xbar_cols;
  int cell_bits = config::param_default::xbar_cell_bits;
  int weight_bits = config::param_default::xbar_weight_bits;
  bool differential = config::param_default::xbar_signed_encoding == "differential";
  std::int64_t spad_bytes = config::unit::kib_to_bytes(config::param_default::cu_spad_kib);
  std::int64_t sram_bytes = config::unit::kib_to_bytes(config::param_default::cluster_sram_kib);
  std::int64_t gmem_bytes = config::unit::mib_to_bytes(config::param_default::gmem_size_mib);
  int imem_instructions = config::unit::kinstr_to_words(config::param_default::cu_imem_kinstr);
  int adc_bits = config::param_default::adc_bits;  // what an xadc range's top code is counted in
  // The crossbars' IR drop (nonideal.ir_drop_ohm_per_cell at device.g_max_us),
  // which --ir-drop-compensate pre-distorts the programmed levels against.
  double ir_drop_ohm_per_cell = config::param_default::nonideal_ir_drop_ohm_per_cell;
  double g_max_us = config::param_default::device_g_max_us;
  // What --report's energy estimate counts (energy.*, docs/parameters.md):
  // pJ per event, as vp-run's statistics price them.
  struct Energy {
    double dac_pj = config::param_default::energy_dac_pj;
    double xbar_read_pj_per_cell = config::param_default::energy_xbar_read_pj_per_cell;
    double sample_hold_pj = config::param_default::energy_sample_hold_pj;
    double adc_pj = config::param_default::energy_adc_pj;  // at the chip's adc.bits
    double shift_add_pj = config::param_default::energy_shift_add_pj;
    double vector_pj_per_element = config::param_default::energy_vector_pj_per_element;
    double sram_pj_per_byte = config::param_default::energy_sram_pj_per_byte;
    double gmem_pj_per_byte = config::param_default::energy_gmem_pj_per_byte;
    double noc_pj_per_bit_hop = config::param_default::energy_noc_pj_per_bit_hop;
  } energy;
  int dac_bits = config::param_default::dac_bits;
  int dac_rows_per_step = config::param_default::dac_rows_per_step;
  int gmem_attach_cluster = config::param_default::gmem_attach_cluster;
  // The cluster SRAMs in the global address space (0: not mapped), interleaved.
  std::int64_t sram_global_base =
      static_cast<std::int64_t>(config::unit::mib_to_bytes(config::param_default::cluster_sram_global_base_mib));
  std::int64_t sram_interleave_bytes = config::param_default::cluster_sram_interleave_bytes;
  // The mesh's flit width: the cost model prices every DMA, packet and
  // link load in flits of it (the rest of its timing is the defaults').
  int noc_link_bits = config::param_default::noc_link_bits;

  // A crossbar's weight format: the chip's (xbar.weight_bits,
  // xbar.signed_encoding), or a layer's own, set by xfmt (vp-cc
  // --weight-bits, --encoding; weight_format.cpp).
  struct Format {
    int weight_bits;
    bool differential;
    bool operator==(const Format& o) const { return weight_bits == o.weight_bits && differential == o.differential; }
    bool operator!=(const Format& o) const { return !(*this == o); }
  };
  Format format() const { return {weight_bits, differential}; }
  int slices() const { return static_cast<int>(config::weight_slices(weight_bits, cell_bits)); }
  int cols_per_weight() const { return cols_per_weight(format()); }
  int cols_per_weight(const Format& f) const {
    return static_cast<int>(config::weight_columns(f.weight_bits, cell_bits, f.differential));
  }
  int lcols() const { return cols / cols_per_weight(); }
  int lcols(const Format& f) const { return cols / cols_per_weight(f); }
  int cores() const { return clusters * cus_per_cluster; }
  std::int64_t crossbars() const { return std::int64_t{cores()} * xbars_per_cu; }
  int cluster_of(int core) const { return core / cus_per_cluster; }
  int cu_of(int core) const { return core % cus_per_cluster; }
  // Mesh hops between the routers of two cores' clusters (XY routing).
  int hops(int core_a, int core_b) const;
};

// The compiler's view of a chip shape.
Target target_from(const std::string& name, const config::ChipShape& shape);

// Preset name or YAML path plus "key=value" overrides, as vp-run takes them.
Target load_target(const std::string& preset, const std::vector<std::string>& sets = {});

}  // namespace vp::cc
