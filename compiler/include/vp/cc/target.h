// What the compiler needs to know about the chip: the `recompile`
// parameters of docs/parameters.md, read from the same presets vp-run uses.
// Defaults are the parameter table's (sidra-y1); load_target() fills the
// rest from config::ChipShape, the one description of the chip's shape.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "vp/config/chip_shape.h"
#include "vp/config/cycles.h"
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
  // link load in flits of it.
  int noc_link_bits = config::param_default::noc_link_bits;
  // The timing the cost model prices a schedule at (schedule_cost.cpp):
  // the chip's, so that a program is planned for the chip it will run on
  // and --report's estimate is of that chip. Each is the parameter of the
  // same name (docs/parameters.md).
  struct Timing {
    double chip_clock_mhz = config::param_default::chip_clock_mhz;
    double noc_clock_mhz = config::param_default::noc_clock_mhz;
    int noc_hop_cycles = config::param_default::noc_hop_cycles;                    // NoC cycles
    int noc_local_port_cycles = config::param_default::noc_local_port_cycles;      // NoC cycles
    int noc_packet_header_flits = config::param_default::noc_packet_header_flits;
    double gmem_latency_ns = config::param_default::gmem_latency_ns;
    double gmem_bandwidth_gbps = config::param_default::gmem_bandwidth_gbps;
    int sram_latency_cycles = config::param_default::cluster_sram_latency_cycles;
    int dma_setup_cycles = config::param_default::cu_dma_setup_cycles;
    int vector_lanes = config::param_default::cu_vector_lanes;
    int vector_startup_cycles = config::param_default::cu_vector_startup_cycles;
    int vector_lut_cycles_per_group = config::param_default::cu_vector_lut_cycles_per_group;
    // One MVM (hw::MvmTiming, the platform's own formula).
    double dac_latency_ns = config::param_default::dac_latency_ns;
    double xbar_read_ns = config::param_default::xbar_read_ns;
    double xbar_sample_hold_ns = config::param_default::xbar_sample_hold_ns;
    double adc_conversion_ns = config::param_default::adc_conversion_ns;
    double xbar_shift_add_ns = config::param_default::xbar_shift_add_ns;
    bool xbar_pipelined = config::param_default::xbar_pipelined;
    bool adc_pipelined = config::param_default::adc_pipelined;
    int adc_columns_per_adc = config::param_default::adc_columns_per_adc;
    // Chip cycles of a span of NoC cycles (the mesh may run on its own
    // clock); exact when the clocks are equal.
    std::int64_t noc_to_chip(std::int64_t noc_cycles) const {
      return noc_clock_mhz == chip_clock_mhz
                 ? noc_cycles
                 : static_cast<std::int64_t>(std::ceil(static_cast<double>(noc_cycles) * chip_clock_mhz / noc_clock_mhz));
    }
    // Global memory's first-byte latency in chip cycles.
    std::int64_t gmem_latency_cycles() const {
      return static_cast<std::int64_t>(config::ns_to_cycles(gmem_latency_ns, chip_clock_mhz));
    }
  } timing;
  // Bytes one link moves per chip cycle.
  double link_bytes_per_cycle() const { return noc_link_bits / 8.0 * timing.noc_clock_mhz / timing.chip_clock_mhz; }

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
