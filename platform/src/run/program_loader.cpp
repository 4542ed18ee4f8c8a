#include "vp/platform/program_loader.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "vp/common/host_threads.h"

namespace vp::platform {

namespace {
void require(uint32_t need, uint64_t have, const char* what) {
  if (need != 0 && need > have)
    throw LoadError("the program needs " + std::to_string(need) + " " + what + ", the chip has " + std::to_string(have));
}
void require_equal(uint32_t need, uint64_t have, const char* what) {
  if (need != 0 && need != have)
    throw LoadError("the program was built for " + std::string(what) + " = " + std::to_string(need) +
                    ", the chip has " + std::to_string(have));
}
std::string core_name(const obj::CoreId& c) {
  return c.is_control() ? "the control processor" : "cluster " + std::to_string(c.cluster) + " cu " + std::to_string(c.cu);
}
}  // namespace

void check_has_code(const obj::Object& obj) {
  if (!obj.cells.empty()) return;  // a model to deploy, even without code
  for (const auto& t : obj.texts)
    if (!t.words.empty()) return;
  throw LoadError(obj.texts.empty() ? "no code: the object has no core text and no cell program (nothing to run or deploy)"
                                    : "no code: none of the object's " + std::to_string(obj.texts.size()) +
                                          " core texts has an instruction and it has no cell program (nothing to run or deploy)");
}

void check_fits(const obj::Object& obj, const hw::ChipConfig& cfg) {
  require(obj.chip.clusters, cfg.clusters, "clusters");
  require(obj.chip.cus_per_cluster, cfg.cus_per_cluster, "CUs per cluster");
  require(obj.chip.xbars_per_cu, cfg.xbars_per_cu, "crossbars per CU");
  require_equal(obj.chip.rows, static_cast<uint64_t>(cfg.xbar.rows), "xbar.rows");
  require_equal(obj.chip.cols, static_cast<uint64_t>(cfg.xbar.cols), "xbar.cols");
  require_equal(obj.chip.cell_bits, static_cast<uint64_t>(cfg.xbar.cell_bits), "xbar.cell_bits");
  for (const auto& t : obj.texts) {
    if (t.core.is_control()) continue;
    if (t.core.cluster < 0 || static_cast<uint32_t>(t.core.cluster) >= cfg.clusters || t.core.cu < 0 ||
        static_cast<uint32_t>(t.core.cu) >= cfg.cus_per_cluster)
      throw LoadError("the program has code for " + core_name(t.core) + ", which this chip does not have (" +
                      std::to_string(cfg.clusters) + " clusters x " + std::to_string(cfg.cus_per_cluster) + " CUs)");
  }
  for (const auto& c : obj.cells) {
    if (c.cluster < 0 || static_cast<uint32_t>(c.cluster) >= cfg.clusters || c.cu < 0 ||
        static_cast<uint32_t>(c.cu) >= cfg.cus_per_cluster || c.xbar < 0 ||
        static_cast<uint32_t>(c.xbar) >= cfg.xbars_per_cu)
      throw LoadError("a cell program targets crossbar " + std::to_string(c.xbar) + " of cluster " +
                      std::to_string(c.cluster) + " cu " + std::to_string(c.cu) + ", which this chip does not have");
    if (uint64_t{c.row0} + c.rows > static_cast<uint64_t>(cfg.xbar.rows) ||
        uint64_t{c.col0} + c.cols > static_cast<uint64_t>(cfg.xbar.cols))
      throw LoadError("a cell program for crossbar " + std::to_string(c.xbar) + " of cluster " +
                      std::to_string(c.cluster) + " cu " + std::to_string(c.cu) + " covers rows " +
                      std::to_string(c.row0) + "+" + std::to_string(c.rows) + " and columns " +
                      std::to_string(c.col0) + "+" + std::to_string(c.cols) + ", beyond the " +
                      std::to_string(cfg.xbar.rows) + "x" + std::to_string(cfg.xbar.cols) + " crossbar");
  }
}

uint64_t load_data_segments(const obj::Object& obj, hw::Chip& chip, bool skip_missing) {
  const hw::ChipConfig& cfg = chip.config();
  uint64_t bytes = 0;
  for (const auto& d : obj.data) {
    uint8_t* base = nullptr;
    uint64_t size = 0;
    std::string where;
    switch (d.space) {
      case obj::DataSegment::Space::Global:
        base = chip.global_memory().data();
        size = chip.global_memory().size();
        where = "global memory";
        break;
      case obj::DataSegment::Space::Sram:
        if (d.core.cluster < 0 || static_cast<uint32_t>(d.core.cluster) >= cfg.clusters) {
          if (skip_missing) continue;
          throw LoadError("data for the SRAM of cluster " + std::to_string(d.core.cluster) + ", which does not exist");
        }
        base = chip.sram(static_cast<uint32_t>(d.core.cluster)).data();
        size = chip.sram(static_cast<uint32_t>(d.core.cluster)).size();
        where = "the SRAM of cluster " + std::to_string(d.core.cluster);
        break;
      case obj::DataSegment::Space::Local: {
        if (!d.core.is_control() && (static_cast<uint32_t>(d.core.cluster) >= cfg.clusters || d.core.cu < 0 ||
                                     static_cast<uint32_t>(d.core.cu) >= cfg.cus_per_cluster)) {
          if (skip_missing) continue;
          throw LoadError("data for the scratchpad of " + core_name(d.core) + ", which this chip does not have");
        }
        hw::CoreModule& m = d.core.is_control() ? chip.control_processor()
                                                : chip.core(chip.core_index(static_cast<uint32_t>(d.core.cluster),
                                                                            static_cast<uint32_t>(d.core.cu)));
        base = m.core().scratchpad().at(0);
        size = m.core().scratchpad().size();
        where = "the scratchpad of " + core_name(d.core);
        break;
      }
    }
    if (d.address > size || d.bytes.size > size - d.address)
      throw LoadError("data at " + std::to_string(d.address) + " (+" + std::to_string(d.bytes.size) + " bytes) does not fit " +
                      where + " of " + std::to_string(size) + " bytes");
    if (d.bytes.size) std::memcpy(base + d.address, d.bytes.data, d.bytes.size);
    bytes += d.bytes.size;
  }
  return bytes;
}

void check_levels(const obj::Object& obj, const hw::ChipConfig& cfg) {
  const uint32_t max_level = (1u << cfg.xbar.cell_bits) - 1;
  for (const auto& c : obj.cells) {
    // The largest level first, in a loop without an exit the compiler
    // vectorizes (ResNet-50's image is 343 M levels); the offender is
    // looked for only when there is one.
    uint8_t most = 0;
    for (uint64_t i = 0; i < c.levels.size; ++i) most = std::max(most, c.levels.data[i]);
    if (most <= max_level) continue;
    for (uint64_t i = 0; i < c.levels.size; ++i)
      if (c.levels.data[i] > max_level)
        throw LoadError("cell program of crossbar " + std::to_string(c.xbar) + " (cluster " + std::to_string(c.cluster) +
                        " cu " + std::to_string(c.cu) + ") row " + std::to_string(c.row0 + i / c.cols) + " column " +
                        std::to_string(c.col0 + i % c.cols) + ": level " + std::to_string(c.levels.data[i]) +
                        " exceeds " + std::to_string(max_level) + " for " + std::to_string(cfg.xbar.cell_bits) +
                        "-bit cells");
  }
}

PreloadResult preload_cells(const obj::Object& obj, hw::Chip& chip) {
  const hw::ChipConfig& cfg = chip.config();
  check_levels(obj, cfg);
  hw::CrossbarBank& bank = chip.crossbars();
  const hw::CrossbarBankStats before = bank.stats();
  PreloadResult p;
  std::vector<hw::CrossbarBank::RowWrite> writes;
  for (const auto& c : obj.cells) {
    const uint32_t id = chip.core_index(static_cast<uint32_t>(c.cluster), static_cast<uint32_t>(c.cu)) * cfg.xbars_per_cu +
                        static_cast<uint32_t>(c.xbar);
    for (uint32_t r = 0; r < c.rows; ++r)
      writes.push_back({id, c.row0 + r, c.col0, c.cols, c.levels.data + uint64_t{r} * c.cols});
    p.programs++;
    p.cells += uint64_t{c.rows} * c.cols;
  }
  // Crossbars on every host core: the result does not depend on how many.
  p.cycles = bank.program_rows(writes, common::host_threads());
  p.pulses = bank.stats().ispp_pulses - before.ispp_pulses;
  p.failed = bank.stats().ispp_failed_cells - before.ispp_failed_cells;
  return p;
}

LoadSummary load_program(const obj::Object& obj, hw::Chip& chip) {
  check_fits(obj, chip.config());
  LoadSummary s;
  for (const auto& t : obj.texts) {
    hw::CoreModule& m = t.core.is_control()
                            ? chip.control_processor()
                            : chip.core(chip.core_index(static_cast<uint32_t>(t.core.cluster), static_cast<uint32_t>(t.core.cu)));
    std::string why;
    if (!m.core().load_program(t.words.data(), t.words.size(), 0, &why))
      throw LoadError("code for " + core_name(t.core) + ": " + why);
    if (t.core.is_control()) s.has_control_program = true;
    else s.cu_programs++;
  }
  s.data_bytes = load_data_segments(obj, chip, false);
  const PreloadResult p = preload_cells(obj, chip);
  s.cell_programs = p.programs;
  s.cells = p.cells;
  s.preload_ispp_cycles = p.cycles;
  if (s.has_control_program) {
    const obj::CoreText* t = obj.text_of(obj::CoreId{});
    chip.control_processor().start(t->entry, 0);
  } else {
    for (const auto& t : obj.texts)
      chip.core(chip.core_index(static_cast<uint32_t>(t.core.cluster), static_cast<uint32_t>(t.core.cu))).start(t.entry, 0);
  }
  return s;
}

}  // namespace vp::platform
