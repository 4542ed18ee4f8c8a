// Rules between parameters. Each names the key a user should change, so a
// sweep that sets chip.clusters=32 hears about chip.mesh_cols, not a crash
// in the NoC model.
#include <fmt/format.h>

#include <cmath>

#include "vp/config/chip_shape.h"
#include "vp/config/param_set.h"

namespace vp::config {
namespace {

[[noreturn]] void inconsistent(const std::string& key, const std::string& detail) {
  throw ConfigError(ConfigError::Kind::kConstraint, key, {}, detail);
}

}  // namespace

void ParamSet::validate() const {
  const std::int64_t clusters = get_int("chip.clusters");
  const std::int64_t mesh_cols = get_int("chip.mesh_cols");
  if (clusters % mesh_cols != 0) {
    inconsistent("chip.mesh_cols",
                 fmt::format("{} does not divide chip.clusters = {}: the mesh must be full",
                             mesh_cols, clusters));
  }
  if (get_int("gmem.attach_cluster") >= clusters) {
    inconsistent("gmem.attach_cluster",
                 fmt::format("{} is not a cluster (chip.clusters = {})",
                             get_int("gmem.attach_cluster"), clusters));
  }
  const std::int64_t levels = std::int64_t{1} << get_int("xbar.cell_bits");
  if (get_double("device.start_level") > static_cast<double>(levels - 1)) {
    inconsistent("device.start_level",
                 fmt::format("{} is above the top level {} of a {}-bit cell",
                             get_double("device.start_level"), levels - 1, get_int("xbar.cell_bits")));
  }
  const ChipShape shape = chip_shape(*this);
  if (shape.sram_global_base > 0) {
    // The window must not overlap global memory (that it ends inside the
    // 32-bit space a DMA address reaches is vp-run's size check).
    if (shape.sram_global_base < shape.gmem_bytes)
      inconsistent("cluster.sram.global_base_mib",
                   fmt::format("{} MiB is inside global memory (gmem.size_mib = {}); use 0 or at least {}",
                               get_int("cluster.sram.global_base_mib"), get_int("gmem.size_mib"),
                               get_int("gmem.size_mib")));
    if (shape.sram_bytes % shape.sram_interleave_bytes != 0)
      inconsistent("cluster.sram.interleave_bytes",
                   fmt::format("{} does not divide the cluster SRAM ({} bytes)", shape.sram_interleave_bytes,
                               shape.sram_bytes));
  }
  if (shape.columns_per_weight() > shape.xbar_cols) {
    inconsistent("xbar.weight_bits",
                 fmt::format("a weight needs {} columns, the crossbar has {} (xbar.cols)",
                             shape.columns_per_weight(), shape.xbar_cols));
  }
}

}  // namespace vp::config
