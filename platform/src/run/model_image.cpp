#include "vp/platform/model_image.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <numeric>

#include "vp/common/host_threads.h"
#include "vp/isa/isa.h"
#include "vp/platform/program_loader.h"

namespace vp::platform {

namespace {

uint64_t align64(uint64_t x) { return (x + 63) & ~uint64_t{63}; }

// Global memory above kBootAddress, handed out in 64-byte-aligned pieces.
class ImageWriter {
 public:
  explicit ImageWriter(hw::Chip& chip) : mem_(chip.global_memory().data()), size_(chip.global_memory().size()) {
    if (size_ <= fw::kBootAddress)
      throw LoadError("global memory of " + std::to_string(size_) + " bytes has no room for the firmware region at " +
                      std::to_string(fw::kBootAddress));
  }
  uint64_t take(uint64_t bytes, const std::string& what) {
    const uint64_t at = next_;
    if (bytes > size_ - at)
      throw LoadError("the model image does not fit global memory: " + what + " (" + std::to_string(bytes) +
                      " bytes) would end at " + std::to_string(at + bytes) + ", beyond " + std::to_string(size_));
    next_ = std::min(size_, align64(at + bytes));
    return at;
  }
  void put32(uint64_t at, uint32_t v) { std::memcpy(mem_ + at, &v, 4); }
  uint8_t* at(uint64_t a) { return mem_ + a; }
  void put(uint64_t at, const void* p, uint64_t n) {
    if (n) std::memcpy(mem_ + at, p, n);
  }
  uint64_t end() const { return next_; }

 private:
  uint8_t* mem_;
  uint64_t size_;
  uint64_t next_ = fw::kBootAddress;
};

// Whole levels to a byte, Bits each: every byte from its own 8 / Bits
// levels.
template <unsigned Bits>
void pack_whole(uint8_t* out, const uint8_t* in, uint64_t bytes) {
  constexpr unsigned per = 8 / Bits;
  for (uint64_t k = 0; k < bytes; ++k) {
    unsigned v = 0;
    for (unsigned j = 0; j < per; ++j) v |= static_cast<unsigned>(in[k * per + j]) << (j * Bits);
    out[k] = static_cast<uint8_t>(v);
  }
}

// A whole-row cell program's levels, row_bytes a row: level k of a row from
// bit (k x bits) mod 8 of byte (k x bits) / 8 up, as xprogn unpacks them. The
// levels were checked against the cells' bits at load (check_levels).
void pack_levels(ImageWriter& w, uint64_t at, const obj::CellProgram& c, uint64_t row_bytes) {
  const uint64_t bits = row_bytes * 8 / c.cols;
  uint8_t* out = w.at(at);
  const uint64_t bytes = uint64_t{c.rows} * row_bytes;
  if (bits == 2 && bytes % 2 == 0) {
    // Eight 2-bit levels (a byte each, below 4) to two bytes at once: the
    // pairs first (l0 l1 into bits 0-3, l2 l3 into 16-19, ...), then the
    // pairs of pairs into bits 0-7 and 32-39. ResNet-50's 340 M cells take
    // a few hundredths of a second so, where a bit at a time took 0.2 s.
    const uint8_t* in = c.levels.data;
    for (uint64_t k = 0; k < bytes; k += 2) {
      uint64_t v;
      std::memcpy(&v, in + 4 * k, 8);
      v |= v >> 6;
      v |= v >> 12;
      out[k] = static_cast<uint8_t>(v);
      out[k + 1] = static_cast<uint8_t>(v >> 32);
    }
    return;
  }
  switch (bits) {
    case 1: return pack_whole<1>(out, c.levels.data, bytes);
    case 2: return pack_whole<2>(out, c.levels.data, bytes);
    case 4: return pack_whole<4>(out, c.levels.data, bytes);
    case 8: return pack_whole<8>(out, c.levels.data, bytes);
    default: break;
  }
  std::memset(out, 0, c.rows * row_bytes);
  for (uint64_t r = 0; r < c.rows; ++r) {
    const uint8_t* in = c.levels.data + r * c.cols;
    uint8_t* row = out + r * row_bytes;
    for (uint64_t k = 0; k < c.cols; ++k) {
      // A level may straddle two bytes (3 bits at bit 6: two in this byte,
      // one in the next).
      const uint64_t at_bit = k * bits, off = at_bit % 8;
      row[at_bit / 8] |= static_cast<uint8_t>(in[k] << off);
      if (off + bits > 8) row[at_bit / 8 + 1] |= static_cast<uint8_t>(in[k] >> (8 - off));
    }
  }
}

bool exceeds_chip(const obj::ChipRequirements& r, const hw::ChipConfig& c) {
  return r.clusters > c.clusters || r.cus_per_cluster > c.cus_per_cluster || r.xbars_per_cu > c.xbars_per_cu ||
         (r.rows && r.rows != static_cast<uint32_t>(c.xbar.rows)) ||
         (r.cols && r.cols != static_cast<uint32_t>(c.xbar.cols));
}

uint32_t core_on_chip(const hw::ChipConfig& c, int32_t cluster, int32_t cu) {
  if (cluster < 0 || cu < 0 || static_cast<uint32_t>(cluster) >= c.clusters ||
      static_cast<uint32_t>(cu) >= c.cus_per_cluster)
    return fw::kNotOnChip;
  return static_cast<uint32_t>(cluster) * c.cus_per_cluster + static_cast<uint32_t>(cu);
}

uint32_t xbar_on_chip(const hw::ChipConfig& c, const obj::CellProgram& p) {
  const uint32_t core = core_on_chip(c, p.cluster, p.cu);
  if (core == fw::kNotOnChip || p.xbar < 0 || static_cast<uint32_t>(p.xbar) >= c.xbars_per_cu) return fw::kNotOnChip;
  return core * c.xbars_per_cu + static_cast<uint32_t>(p.xbar);
}

void check_region(const std::string& what, uint64_t address, uint64_t bytes) {
  if (address + bytes > fw::kBootAddress)
    throw LoadError(what + " at " + std::to_string(address) + " (+" + std::to_string(bytes) +
                    " bytes) reaches into the firmware region, which starts at " + std::to_string(fw::kBootAddress));
}

void load_firmware(const obj::Object& firmware, hw::Chip& chip) {
  const obj::CoreText* cp = firmware.text_of(obj::CoreId{});
  if (!cp) throw LoadError("the firmware has no control-processor program (.cp)");
  std::string why;
  if (!chip.control_processor().core().load_program(cp->words.data(), cp->words.size(), 0, &why))
    throw LoadError("firmware: " + why);
  for (const auto& d : firmware.data)
    if (d.space != obj::DataSegment::Space::Local || !d.core.is_control())
      throw LoadError("the firmware may only initialise the control processor's data memory");
  load_data_segments(firmware, chip, false);
}

}  // namespace

uint32_t images_per_start(const obj::Object& model) {
  uint64_t n = 0;
  for (const auto& b : model.io) {
    if (!b.quantized() || b.shape.size() < 2) return 1;
    if (n && b.shape[0] != n) return 1;
    n = b.shape[0];
  }
  return n > 1 && n <= UINT32_MAX ? static_cast<uint32_t>(n) : 1;
}

// The rows the deploy kernels will write, for the bank to compute ahead
// (hw::DeployAhead): each CU's cell programs in its deploy table's order,
// row by row.
static void plan_deployment(const obj::Object& model, const std::vector<size_t>& order, hw::Chip& chip) {
  const hw::ChipConfig& cfg = chip.config();
  std::vector<hw::DeployAhead::Row> rows;
  for (size_t i : order) {
    const obj::CellProgram& c = model.cells[i];
    const uint32_t id = xbar_on_chip(cfg, c);
    if (id == fw::kNotOnChip) continue;
    for (uint32_t r = 0; r < c.rows; ++r)
      rows.push_back({id, c.row0 + r, c.col0, c.cols, c.levels.data + uint64_t{r} * c.cols});
  }
  // VP_DEPLOY_AHEAD=0 leaves every row to the simulation thread (the same
  // results; bench/platform/resnet_speed.sh measures both).
  const char* env = std::getenv("VP_DEPLOY_AHEAD");
  const bool off = env != nullptr && std::string(env) == "0";
  chip.crossbars().plan_deployment(std::move(rows), off ? 1 : common::host_threads());
}

// The firmware starts the CUs in the order of its program table, a few
// cycles each (act_cnn's 394 CUs: about 2 k cycles). A program that marks
// its layers (`layer`) runs them as a pipeline in that order: each CU goes
// into the table by the first layer it runs, so the pipeline's head starts
// first and its tail by the time its first rows come (in core order
// act_cnn's stem, spread over the clusters, waited for the last cluster's
// CUs, 1,775 cycles after the first). Texts without a marker keep core
// order, after the marked ones. vp-cc's estimate assumes this order
// (path_with_starts in compiler/src/report.cpp).
static std::vector<const obj::CoreText*> in_start_order(const std::vector<const obj::CoreText*>& programs) {
  std::vector<std::pair<int64_t, size_t>> first(programs.size());
  for (size_t i = 0; i < programs.size(); ++i) {
    first[i] = {std::numeric_limits<int64_t>::max(), i};
    for (uint64_t w : programs[i]->words) {
      const auto ins = isa::decode(w);
      if (ins && ins->opcode == isa::Opcode::LAYER) {
        first[i].first = ins->operand[0];
        break;
      }
    }
  }
  std::stable_sort(first.begin(), first.end());
  std::vector<const obj::CoreText*> ordered;
  for (const auto& f : first) ordered.push_back(programs[f.second]);
  return ordered;
}

ModelImage install_model(const obj::Object& model, const obj::Object& firmware, const HostIo& io, hw::Chip& chip,
                         const ImageOptions& options) {
  const hw::ChipConfig& cfg = chip.config();
  ModelImage img;
  img.deploy = options.deploy;
  img.batch = io.batch;
  img.images_per_start = images_per_start(model);
  const bool too_big = exceeds_chip(model.chip, cfg);

  const obj::CoreText* kernel = nullptr;
  for (const auto& t : firmware.texts)
    if (!t.core.is_control()) {
      if (kernel) throw LoadError("the firmware has more than one CU text; its one CU text is the deploy kernel");
      kernel = &t;
    }
  if (!kernel) throw LoadError("the firmware has no deploy kernel (its one CU text)");

  for (const auto& d : model.data)
    if (d.space == obj::DataSegment::Space::Global) check_region("model data", d.address, d.bytes.size);
  for (const auto& b : model.io) check_region(describe(b), b.address, b.bytes);
  check_levels(model, cfg);

  std::vector<const obj::CoreText*> programs;
  for (const auto& t : model.texts) {
    if (t.core.is_control()) img.model_cp_replaced = true;
    else programs.push_back(&t);
  }
  programs = in_start_order(programs);
  img.cu_programs = static_cast<uint32_t>(programs.size());
  if (fw::kCpProgramCache + programs.size() * fw::kProgRecord > cfg.memory.cp_dmem_bytes)
    throw LoadError(std::to_string(programs.size()) + " CU programs do not fit the firmware's table in the control "
                    "processor's data memory");
  if (fw::kKernelRowBuffer + static_cast<uint64_t>(cfg.xbar.cols) > cfg.memory.spad_bytes)
    throw LoadError("a crossbar row of " + std::to_string(cfg.xbar.cols) + " cells does not fit the deploy kernel's "
                    "buffer in a CU scratchpad");

  // Cell programs in crossbar order, so each CU's are consecutive.
  std::vector<size_t> order(model.cells.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return xbar_on_chip(cfg, model.cells[a]) < xbar_on_chip(cfg, model.cells[b]);
  });

  ImageWriter w(chip);
  const uint32_t ncores = cfg.cores();
  // Bytes of a whole row's levels packed (0: a row of them is not whole bytes).
  const uint64_t row_bits = static_cast<uint64_t>(cfg.xbar.cols) * static_cast<uint64_t>(cfg.xbar.cell_bits);
  const uint64_t packed_row = row_bits % 8 == 0 ? row_bits / 8 : 0;
  const uint64_t boot = w.take(fw::kBootSize, "boot block");
  img.status = w.take(fw::kStatusSize, "status block");
  img.times = w.take(fw::kTimeRecord * io.batch, "inference times");
  const uint64_t results = w.take(fw::kResultRecord * ncores, "deploy results");
  const uint64_t prog = w.take(fw::kProgRecord * programs.size(), "CU program table");
  const uint64_t cells = w.take(fw::kCellRecord * order.size(), "cell-program table");
  const uint64_t deploy = w.take(fw::kDeployRecord * ncores, "deploy table");
  const uint64_t ktext = w.take(kernel->words.size() * 8, "deploy kernel");
  w.put(ktext, kernel->words.data(), kernel->words.size() * 8);

  for (size_t i = 0; i < programs.size(); ++i) {
    const obj::CoreText& t = *programs[i];
    const uint64_t text = w.take(t.words.size() * 8, "CU program text");
    w.put(text, t.words.data(), t.words.size() * 8);
    const uint64_t r = prog + i * fw::kProgRecord;
    w.put32(r + 0, core_on_chip(cfg, t.core.cluster, t.core.cu));
    w.put32(r + 4, static_cast<uint32_t>(text));
    w.put32(r + 8, static_cast<uint32_t>(t.words.size()));
    w.put32(r + 12, t.entry);
  }

  std::vector<uint32_t> deploy_cores;
  std::vector<uint32_t> first(ncores, 0), count(ncores, 0);
  for (size_t i = 0; i < order.size(); ++i) {
    const obj::CellProgram& c = model.cells[order[i]];
    // Whole rows go packed (xprogn), cell_bits a level: a 2-bit cell in a
    // quarter of a byte, so the deployment moves a quarter of the bytes
    // through global memory's one mesh port, which bounded it.
    const bool whole = c.col0 == 0 && c.cols == static_cast<uint32_t>(cfg.xbar.cols) && packed_row > 0;
    const uint64_t levels = w.take(whole ? uint64_t{c.rows} * packed_row : c.levels.size, "cell levels");
    if (whole)
      pack_levels(w, levels, c, packed_row);
    else
      w.put(levels, c.levels.data, c.levels.size);
    const uint32_t id = xbar_on_chip(cfg, c);
    const uint64_t r = cells + i * fw::kCellRecord;
    w.put32(r + 0, id);
    w.put32(r + 4, c.row0);
    w.put32(r + 8, c.col0);
    w.put32(r + 12, c.rows);
    w.put32(r + 16, c.cols);
    w.put32(r + 20, static_cast<uint32_t>(levels));
    w.put32(r + fw::kCellPackedField, whole ? static_cast<uint32_t>(packed_row) : 0u);
    img.cell_programs++;
    img.cells += uint64_t{c.rows} * c.cols;
    // A program for a crossbar the chip lacks goes to core 0's kernel, which
    // stops with ERR_CELLS when it reaches it.
    const uint32_t core = id == fw::kNotOnChip ? 0 : id / cfg.xbars_per_cu;
    if (count[core]++ == 0) {
      first[core] = static_cast<uint32_t>(i);
      deploy_cores.push_back(core);
    }
  }
  // The scratchpad a kernel may fill with a block of rows: from K_BUF up to
  // the first byte of the model's own data on that core (the host wrote it
  // before the firmware runs, and the kernel must leave it).
  std::vector<uint64_t> free_end(ncores, cfg.memory.spad_bytes);
  for (const auto& d : model.data) {
    if (d.space != obj::DataSegment::Space::Local || d.core.is_control() || d.bytes.size == 0) continue;
    const uint32_t core = core_on_chip(cfg, d.core.cluster, d.core.cu);
    if (core == fw::kNotOnChip || d.address + d.bytes.size <= fw::kKernelRowBuffer) continue;
    free_end[core] = std::min(free_end[core], std::max(d.address, fw::kKernelRowBuffer));
  }
  for (uint32_t c = 0; c < ncores; ++c) {
    // One row of byte levels must fit (a partial row is read back there);
    // blocks of whole rows hold packed ones.
    const uint64_t room = free_end[c] - fw::kKernelRowBuffer;
    const uint64_t fit = room / (packed_row > 0 ? packed_row : static_cast<uint64_t>(cfg.xbar.cols));
    if (options.deploy && count[c] > 0 && room < static_cast<uint64_t>(cfg.xbar.cols))
      throw LoadError("core " + std::to_string(c) + " deploys cell programs, but its own scratchpad data at " +
                      std::to_string(free_end[c]) + " leaves no room for the deploy kernel's row of " +
                      std::to_string(cfg.xbar.cols) + " levels at " + std::to_string(fw::kKernelRowBuffer) +
                      " (keep local data at or above " +
                      std::to_string(fw::kKernelRowBuffer + static_cast<uint64_t>(cfg.xbar.cols)) + ")");
    w.put32(deploy + fw::kDeployRecord * c, first[c]);
    w.put32(deploy + fw::kDeployRecord * c + 4, count[c]);
    w.put32(deploy + fw::kDeployRecord * c + 8, static_cast<uint32_t>(std::min<uint64_t>(fit, fw::kKernelBlockRows)));
    w.put32(deploy + fw::kDeployRecord * c + 12, 0);
  }
  const uint64_t dcores = w.take(4 * deploy_cores.size(), "deploy core list");
  for (size_t i = 0; i < deploy_cores.size(); ++i) w.put32(dcores + 4 * i, deploy_cores[i]);
  img.read_only = prog;
  img.read_only_end = dcores + 4 * deploy_cores.size();

  // io tables and the batch's areas; inputs are copied only when bound files
  // were given (otherwise whatever the host placed at the binding stays:
  // an input read through a pointer gets its own address there).
  const bool bind_inputs = !io.batch_inputs.empty();
  const size_t nin = bind_inputs ? io.input_bindings.size() : 0;
  const uint64_t in_table = w.take(fw::kIoRecord * nin, "input table");
  for (size_t k = 0; !bind_inputs && k < io.input_bindings.size(); ++k) {
    const obj::IoBinding& b = model.io[io.input_bindings[k]];
    if (b.indirect < 0) continue;
    if (static_cast<uint64_t>(b.indirect) + 4 > chip.global_memory().size())
      throw LoadError("input '" + b.name + "': its indirect word at " + std::to_string(b.indirect) +
                      " is outside global memory");
    w.put32(static_cast<uint64_t>(b.indirect), static_cast<uint32_t>(b.address));
  }
  const uint64_t out_table = w.take(fw::kIoRecord * io.output_bindings.size(), "output table");
  uint64_t in_stride = 0, out_stride = 0;
  std::vector<uint64_t> in_offsets;
  for (size_t k = 0; k < nin; ++k) {
    in_offsets.push_back(in_stride);
    const obj::IoBinding& b = model.io[io.input_bindings[k]];
    // (An input read through a pointer: the firmware writes the element's
    // address into its word instead of copying.)
    w.put32(in_table + k * fw::kIoRecord, static_cast<uint32_t>(b.indirect >= 0 ? b.indirect : b.address));
    w.put32(in_table + k * fw::kIoRecord + 4, static_cast<uint32_t>(b.bytes));
    w.put32(in_table + k * fw::kIoRecord + 8, static_cast<uint32_t>(in_stride));
    w.put32(in_table + k * fw::kIoRecord + fw::kIoIndirect, b.indirect >= 0 ? 1 : 0);
    in_stride = align64(in_stride + b.bytes);
  }
  for (size_t k = 0; k < io.output_bindings.size(); ++k) {
    const obj::IoBinding& b = model.io[io.output_bindings[k]];
    w.put32(out_table + k * fw::kIoRecord, static_cast<uint32_t>(b.address));
    w.put32(out_table + k * fw::kIoRecord + 4, static_cast<uint32_t>(b.bytes));
    w.put32(out_table + k * fw::kIoRecord + 8, static_cast<uint32_t>(out_stride));
    img.output_offsets.push_back(out_stride);
    out_stride = align64(out_stride + b.bytes);
  }
  const uint64_t bin = w.take(in_stride * io.batch, "batch input area");
  img.batch_in = bin;
  img.batch_in_stride = in_stride;
  img.input_offsets = in_offsets;
  for (uint32_t e = 0; bind_inputs && e < io.batch; ++e)
    for (size_t k = 0; k < nin; ++k) {
      const auto& bytes = io.batch_inputs[e][k];
      w.put(bin + e * in_stride + in_offsets[k], bytes.data(), bytes.size());
    }
  img.batch_out = w.take(out_stride * io.batch, "batch output area");
  img.batch_out_stride = out_stride;
  img.end = w.end();
  if (img.end > 0xFFFFFFFFull)
    throw LoadError("the model image ends at " + std::to_string(img.end) +
                    ", beyond the 4 GiB the firmware's 32-bit registers address");

  const uint32_t fields[][2] = {
      {fw::kMagicField, fw::kMagic},
      {fw::kVersionField, fw::kVersion},
      {fw::kClusters, model.chip.clusters},
      {fw::kCus, model.chip.cus_per_cluster},
      {fw::kXbars, model.chip.xbars_per_cu},
      {fw::kRows, model.chip.rows},
      {fw::kCols, model.chip.cols},
      {fw::kFlags, (options.deploy ? fw::kFlagDeploy : 0u) | (options.link_in ? fw::kFlagLinkIn : 0u) |
                       (options.link_out ? fw::kFlagLinkOut : 0u)},
      {fw::kNProg, static_cast<uint32_t>(programs.size())},
      {fw::kProg, static_cast<uint32_t>(prog)},
      {fw::kNCell, static_cast<uint32_t>(order.size())},
      {fw::kCell, static_cast<uint32_t>(cells)},
      {fw::kNDCore, static_cast<uint32_t>(deploy_cores.size())},
      {fw::kDCores, static_cast<uint32_t>(dcores)},
      {fw::kDeploy, static_cast<uint32_t>(deploy)},
      {fw::kKernel, static_cast<uint32_t>(ktext)},
      {fw::kKWords, static_cast<uint32_t>(kernel->words.size())},
      {fw::kNIn, static_cast<uint32_t>(nin)},
      {fw::kIn, static_cast<uint32_t>(in_table)},
      {fw::kNOut, static_cast<uint32_t>(io.output_bindings.size())},
      {fw::kOut, static_cast<uint32_t>(out_table)},
      {fw::kBatch, io.batch},
      {fw::kBin, static_cast<uint32_t>(bin)},
      {fw::kBinStride, static_cast<uint32_t>(in_stride)},
      {fw::kBout, static_cast<uint32_t>(img.batch_out)},
      {fw::kBoutStride, static_cast<uint32_t>(out_stride)},
      {fw::kStatus, static_cast<uint32_t>(img.status)},
      {fw::kTimes, static_cast<uint32_t>(img.times)},
      {fw::kResults, static_cast<uint32_t>(results)},
      {fw::kRetries, options.retries},
      {fw::kLink, options.link_participant},
  };
  for (const auto& f : fields) w.put32(boot + f[0], f[1]);

  load_data_segments(model, chip, too_big);
  if (options.deploy && !too_big) plan_deployment(model, order, chip);
  if (!options.deploy && !too_big) {
    const PreloadResult p = preload_cells(model, chip);
    img.preload_ispp_cycles = p.cycles;
    img.preload_pulses = p.pulses;
    img.preload_failed = p.failed;
  }
  load_firmware(firmware, chip);
  chip.control_processor().start(firmware.text_of(obj::CoreId{})->entry, 0);
  return img;
}

}  // namespace vp::platform
