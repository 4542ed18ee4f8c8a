#include "vp/config/chip_shape.h"

#include <algorithm>

#include "vp/config/param_units.h"

namespace vp::config {

ChipShape chip_shape(const ParamSet& p) {
  ChipShape s;
  s.clusters = p.get_int("chip.clusters");
  s.mesh_cols = p.get_int("chip.mesh_cols");
  s.mesh_rows = ceil_div(s.clusters, s.mesh_cols);
  s.cus_per_cluster = p.get_int("chip.cus_per_cluster");
  s.xbars_per_cu = p.get_int("chip.xbars_per_cu");
  s.xbar_rows = p.get_int("xbar.rows");
  s.xbar_cols = p.get_int("xbar.cols");
  s.cell_bits = p.get_int("xbar.cell_bits");
  s.weight_bits = p.get_int("xbar.weight_bits");
  s.differential = p.get_string("xbar.signed_encoding") == "differential";
  s.rows_per_dac_step = std::min(p.get_int("dac.rows_per_step"), s.xbar_rows);
  s.adcs_per_xbar = ceil_div(s.xbar_cols, std::min(p.get_int("adc.columns_per_adc"), s.xbar_cols));
  s.spad_bytes = static_cast<std::int64_t>(unit::kib_to_bytes(p.get_int("cu.spad_kib")));
  s.sram_bytes = static_cast<std::int64_t>(unit::kib_to_bytes(p.get_int("cluster.sram_kib")));
  s.gmem_bytes = static_cast<std::int64_t>(unit::mib_to_bytes(p.get_int("gmem.size_mib")));
  s.imem_words = static_cast<std::int64_t>(unit::kinstr_to_words(p.get_int("cu.imem_kinstr")));
  s.gmem_attach_cluster = p.get_int("gmem.attach_cluster");
  s.sram_global_base = static_cast<std::int64_t>(unit::mib_to_bytes(p.get_int("cluster.sram.global_base_mib")));
  s.sram_interleave_bytes = p.get_int("cluster.sram.interleave_bytes");
  s.noc_link_bits = p.get_int("noc.link_bits");
  return s;
}

}  // namespace vp::config
