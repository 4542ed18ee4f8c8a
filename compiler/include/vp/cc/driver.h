// vp-cc's whole run as a library: the model through every pass in order
// (passes.h), the calibration from files or from memory, and the outputs
// (program, weight image, io.json, --test files) published all together or
// not at all. vp-cc's main parses the command line around it; the Python
// module (python/) calls it with its arrays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vp/cc/passes.h"

namespace vp::cc {

struct CompileOptions {
  std::string model, out, chip = "sidra-y1", dump_dir, io = "auto", test_dir;
  // "" compiles; "--reference", "--fp32", "--quantize-input" or
  // "--layer-error" run that mode on mode_in instead.
  std::string mode, mode_in;
  int replicate = kReplicateAuto, lanes = 0;
  bool pipeline = true;
  std::vector<std::string> sets, calib, tests;
  // Calibration sets given in memory: per set, per model input, the values
  // in ONNX order; named "calib[i]" in messages. Used after `calib`'s files.
  std::vector<std::vector<std::vector<float>>> calib_values;
  double percentile = 100.0;
  unsigned threads = 0;
  int batch = 1;
  // --average-reads N[:LAYER,...]: N reads of every MVM of the named Convs
  // (all of them when none is named); parse_average_reads.
  int average_reads = 1;
  std::vector<std::string> average_layers;
  // --redundancy N[:LAYER,...]: N copies of the named Convs' weights (all
  // when none is named), their column sums added (redundancy.cpp).
  int redundancy = 1;
  std::vector<std::string> redundancy_layers;
  // --input-bits N[:LAYER,...], repeatable: the named Convs (all when none
  // is named) read N of their inputs' 8 bits (input_bits.cpp); the golden
  // model too. A layer named by two of them is an error.
  std::vector<std::pair<int, std::vector<std::string>>> input_bits;
  // --weight-bits N[:LAYER,...] (N = 2 to 12) and --encoding offset|differential[:LAYER,...],
  // repeatable: the named Convs' (all when none is named) weight bits and
  // signed encoding (weight_format.cpp). A layer named twice is an error.
  std::vector<std::pair<int, std::vector<std::string>>> weight_bits;
  std::vector<std::pair<bool, std::vector<std::string>>> encodings;
  bool ir_drop_compensate = false;  // --ir-drop-compensate (EmitOptions)
  bool tables_in_memory = false;    // --handover-tables memory (EmitOptions)
  bool image_releases = false;      // --stream-release images (EmitOptions)
  bool twin_buffers = true;         // --stream-buffers 2 (Graph::twin_buffers)
  bool shared_loads = true;         // --shared-loads on (MapOptions::shared_loads)
  // --hand-rows on|off|auto (MapOptions::hand_rows): auto, the default,
  // is off for one image; for a stream it maps with the pairs and without
  // and keeps the pairs when the report's estimate finds them at least 5 %
  // faster (driver.cpp, kHandRowsMargin).
  enum class HandRows { off, on, automatic } hand_rows = HandRows::automatic;
  // --balance-links on|off|auto (balance_links.h): once the memory is
  // planned, CUs trade clusters to even out the mesh's links, and the plan
  // is made again. auto, the default, is off for one image; for a stream
  // paced by its mesh it keeps the trade when the report's estimate finds
  // it at least 4 % faster (driver.cpp, kMeshPaced and kBalanceMargin).
  enum class BalanceLinks { off, on, automatic } balance_links = BalanceLinks::automatic;
  // --rows-ahead on|off|auto (Graph::rows_ahead): auto, the default, is on
  // for a stream (--batch > 1) and off for one image, where taking the next
  // row's tokens first holds each layer's row back until its writer is a row
  // further on (ResNet-50 807,294 cycles against 741,542).
  enum class RowsAhead { off, on, automatic } rows_ahead = RowsAhead::automatic;
  // --late-row-ends on|off|auto (Graph::late_row_ends): a Conv that loads
  // its rows ahead waits for each row's stores, and tells the row's readers,
  // once the next row's first MVMs are fired, so the stores complete under
  // them (emit_loops.h, RowsAhead::late). auto, the default, is on for a
  // stream, where the rows are loaded ahead (ResNet-50's stream of 16:
  // 269,884 cycles per inference against 288,653, a period of 243,070
  // against 263,417), and off for one image.
  enum class LateRowEnds { off, on, automatic } late_row_ends = LateRowEnds::automatic;
  // --row-pitch auto|on|off (Graph::row_pitch): a granule's pitch for small
  // maps in the SRAM window (plan_memory). auto, the default, is on: no run
  // measured slower with it (docs/compiler.md, "Rows at a granule's pitch").
  // It was on for streams only while the estimate missed the second row
  // step of a copy whose block spans two rows, and fell out of 10 % of the
  // small CNNs' runs at one image.
  enum class RowPitch { off, on, automatic } row_pitch = RowPitch::automatic;
  // --copy-prices whole-rows|as-loaded|auto (MapOptions::rows_as_loaded):
  // auto maps at both and keeps as-loaded when the report's estimate finds
  // it at least 10 % faster (driver.cpp, kCopyPricesMargin).
  enum class CopyPrices { whole_rows, as_loaded, automatic } copy_prices = CopyPrices::automatic;
  // --rings plain|bordered|auto (Graph::bordered_rings): which values a
  // stream whose maps do not fit may hold as rings of rows. auto plans both
  // and keeps bordered when the report's estimate finds it at least 5 %
  // faster (driver.cpp, kBorderedRingsMargin).
  enum class Rings { plain, bordered, automatic } rings = Rings::automatic;
  std::string adc_profile;    // --adc-ranges: a vp-run --adc-profile file
  double adc_headroom = 1.0;  // its sums are multiplied by this before ranges are chosen
  // --chips N: the model cut over N chips of `chip` (partition_chips.cpp),
  // one program per chip and OUT.system.json; `link` names the chip-to-chip
  // link the system file asks for (pcie or d2d).
  int chips = 1;
  std::string link = "pcie";
};

struct CompileResult {
  EmitResult emit;
  std::int64_t crossbars = 0;        // crossbars holding weights, every copy counted
  std::int64_t chip_crossbars = 0;   // crossbars on the target
  std::size_t calibration_sets = 0;
  std::string asm_path, xbar_path, io_path;  // the first chip's with --chips
  std::string system_path;                   // --chips: OUT.system.json
  std::string report;   // the --report table
  std::string summary;  // the line vp-cc prints on stderr (without "vp-cc: ")
  std::string text;     // --layer-error: the table vp-cc prints on stdout
};

// Runs vp-cc as `o` says. Throws CompileError (a model, an input or an
// output that cannot be used; the message names it), vp::config::ConfigError
// (the chip), vp::common::OutputError; no output appears on an error.
CompileResult compile_model(const CompileOptions& o);

// Crossbars holding the mapped graph's weights, every copy and lane counted.
std::int64_t crossbars_used(const Graph& g);

}  // namespace vp::cc
