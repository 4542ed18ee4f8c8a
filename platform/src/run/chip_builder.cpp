// hw::ChipConfig from a ParamSet: one assignment per row of the parameter
// table, expanded from its FIELD column (vp/config/params.def), then the few
// values the models need in more than one place.
#include "vp/platform/chip_builder.h"

#include <string>

#include "vp/config/param_columns.h"
#include "vp/config/param_units.h"

namespace vp::platform {
namespace {

// The enum conversions of the FIELD column; the others are config::unit's.
hw::SignedEncoding signed_encoding(const std::string& s) { return hw::parse_signed_encoding(s); }
hw::AdcMode adc_mode(const std::string& s) { return hw::parse_adc_mode(s); }
hw::Relaxation relaxation(const std::string& s) { return hw::parse_relaxation(s); }
hw::LinkTopology link_topology(const std::string& s) { return hw::parse_link_topology(s); }

}  // namespace

hw::ChipConfig chip_config_from(const config::ParamSet& p) {
  using namespace config::unit;
  hw::ChipConfig c;

  // HW(conversion, member): c.member = conversion(value of the row).
#define HW(conversion, member) c.member = static_cast<decltype(c.member)>(conversion(value()));
#define DERIVED(member)
#define NO_HW(why)
#define VP_PARAM(id, name, type, unit, def, lo, hi, use, desc, src, field) \
  {                                                                        \
    const auto value = [&] { return p.VP_PARAM_GET_##type(name); };        \
    (void)value;                                                           \
    field                                                                  \
  }
#include "vp/config/params.def"
#undef HW
#undef DERIVED
#undef NO_HW

  // The clock and the mesh as every model that counts in them sees them.
  c.mvm_timing.clock_mhz = c.clock_mhz;
  c.ispp.clock_mhz = c.clock_mhz;
  c.noc.core_clock_mhz = c.clock_mhz;
  c.noc.clusters = c.clusters;
  c.noc.mesh_cols = c.mesh_cols;
  c.link.clock_mhz = c.clock_mhz;

  // The control processor is the CU's core with its own scalar and memory
  // latencies (the cp.* rows): the rest of its timing is the CU's.
  c.cp_core.issue_cycles = c.core.issue_cycles;
  c.cp_core.vector_lanes = c.core.vector_lanes;
  c.cp_core.vector_startup_cycles = c.core.vector_startup_cycles;
  c.cp_core.dma_setup_cycles = c.core.dma_setup_cycles;
  c.cp_core.barrier_cycles = c.core.barrier_cycles;
  c.cp_core.quantum_cycles = c.core.quantum_cycles;
  c.cp_core.concurrent_mvm = c.core.concurrent_mvm;
  c.cp_core.dma_outstanding = c.core.dma_outstanding;

  // DERIVED rows: the NoC model counts flits, the table prices bits.
  c.energy.noc_pj_per_flit_hop = p.get_double("energy.noc_pj_per_bit_hop") * c.noc.link_bits;
  return c;
}

}  // namespace vp::platform
