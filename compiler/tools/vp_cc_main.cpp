// vp-cc: ONNX model -> Sidra VP assembly (+ crossbar weight image).
//
//   vp-cc MODEL.onnx -o MODEL.asm [--chip NAME] [--set k=v]... [--calib X.npy]...
//         [--dump-ir DIR] [--report] [--io auto|on|off] [--replicate auto|none|N] [--placement pipeline|shared]
//         [--lanes auto|N] [--average-reads N[:LAYER,...]] [--redundancy N[:LAYER,...]]
//         [--input-bits N[:LAYER,...]] [--weight-bits N[:LAYER,...]] [--encoding offset|differential[:LAYER,...]]
//   vp-cc MODEL.onnx --reference IN.npy -o OUT.npy   golden model (int8 output codes)
//   vp-cc MODEL.onnx --fp32 IN.npy -o OUT.npy        FP32 reference (dequantized form)
//   (IN.npy: one image, or N stacked along a first dimension of N)
//   vp-cc MODEL.onnx --quantize-input IN.npy -o IN.bin   bytes for vp-run --input
//
// Every mode runs the same deterministic front end and calibration, so the
// reference and the compiled program agree on every scale.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "vp/cc/driver.h"
#include "vp/common/atomic_file.h"
#include "vp/common/large_heap.h"
#include "vp/common/parse_number.h"
#include "vp/config/config_error.h"

namespace {

const char* kUsage =
    "usage: vp-cc MODEL.onnx -o OUT.asm [--chip NAME] [--set key=value]... [--calib X.npy[,X2.npy]]...\n"
    "             [--calib-percentile P] [--test IN.npy]... [--test-dir DIR] [--dump-ir DIR] [--report]\n"
    "             [--threads N] [--batch N] [--adc-ranges PROFILE.json [--adc-headroom H]]\n"
    "             [--io auto|on|off] [--replicate auto|none|N] [--placement pipeline|shared] [--lanes auto|N]\n"
    "             [--average-reads N[:LAYER,...]] [--redundancy N[:LAYER,...]]\n"
    "             [--weight-bits N[:LAYER,...]] [--encoding offset|differential[:LAYER,...]]\n"
    "             [--input-bits N[:LAYER,...]] [--ir-drop-compensate] [--chips N [--link pcie|d2d]]\n"
    "             [--handover-tables auto|memory] [--stream-release rows|images]\n"
    "             [--stream-buffers 2|1] [--shared-loads on|off] [--hand-rows auto|on|off]\n"
    "             [--balance-links auto|on|off]\n"
    "             [--copy-prices whole-rows|as-loaded|auto] [--late-row-ends auto|on|off]\n"
    "             [--rows-ahead auto|on|off] [--row-pitch auto|on|off] [--rings plain|bordered|auto]\n"
    "       vp-cc MODEL.onnx [--calib ...] (--reference|--fp32|--quantize-input) IN.npy -o OUT\n"
    "       vp-cc MODEL.onnx [--calib ...] --layer-error IN.npy   per layer: golden model vs FP32\n"
    "\n"
    "  --calib FILES    one calibration input per option (float32 .npy, the model's input shape;\n"
    "                   comma-separated for models with several inputs); default: 4 N(0,1) inputs\n"
    "  --test IN.npy    also write DIR/<stem>.in.bin (the int8 bytes vp-run reads) and\n"
    "                   DIR/<stem>.golden.bin (the golden model's output bytes, as vp-run writes them)\n"
    "  --test-dir DIR   where --test files go (default: the directory of -o)\n"
    "  --batch N        stream N images per start through the pipeline (default 1): the bindings hold\n"
    "                   N images back to back; each --test file's .in.bin/.golden.bin then hold N\n"
    "                   images, the k-th test's element e being test (k + e) mod T of the T given\n"
    "  --calib-percentile P   activation range = the P-th percentile of |x| (default 100: the maximum)\n"
    "  --threads N      host threads for the calibration inputs and the golden model's convolutions\n"
    "                   (default 0: one per core, at most 8);\n"
    "                   the result is the same for every N\n"
    "  --placement P    pipeline (default): each CU runs one layer, all layers at once, when one copy of\n"
    "                   every layer fits the CUs (else shared); shared: CUs hold loads of many layers\n"
    "  --lanes L        pipeline placement: copies of a CU's load side by side on its crossbars, each\n"
    "                   on its own pixel (auto, the default: as many as fit and help; 1: none)\n"
    "  --adc-ranges PROFILE.json   set each crossbar's ADC range (xadc) to the finest that covers the\n"
    "                   largest column sum a calibration run measured (vp-run --adc-profile)\n"
    "  --adc-headroom H multiply the measured sums by H >= 1 first (default 1)\n"
    "  --average-reads N[:LAYER,...]   read every MVM of the named Conv layers (all without names) N times\n"
    "                   and average (N = 1, 2, 4, 8 or 16): read noise / sqrt(N), N x their crossbar time\n"
    "  --ir-drop-compensate   pre-distort every programmed weight against the chip's IR drop\n"
    "                   (nonideal.ir_drop_ohm_per_cell, device.g_max_us: give them with --set)\n"
    "  --stream-release rows|images   with --batch N > 1: a writer overwrites a row of the last image\n"
    "                   once its readers have read that row (rows, the default), or begins a layer's\n"
    "                   next image once they have finished the last (images)\n"
    "  --stream-buffers 2|1   with --batch N > 1 and row releases: a tensor in two buffers where the\n"
    "                   memory has room, images alternating between them, so a writer overwrites rows of\n"
    "                   two images back (2, the default; the program's image loop is emitted twice over),\n"
    "                   or every tensor in one buffer (1)\n"
    "  --shared-loads on|off   pipeline placement: a line-buffered Conv whose copies span several CUs\n"
    "                   puts each copy's CUs in one cluster; the first brings each row step's input rows\n"
    "                   into a slot of that cluster's SRAM and the others copy them from there (on, the\n"
    "                   default), or every CU loads its own rows over the mesh (off)\n"
    "  --hand-rows auto|on|off   pipeline placement: a 1x1 Conv reading a residual block's output,\n"
    "                   stored by a Conv whose copies each compute every channel on one CU, takes as\n"
    "                   many copies, each beside its writer's in one cluster, which hands it each row\n"
    "                   through that cluster's SRAM (on), or it loads its rows over the mesh (off);\n"
    "                   auto (the default): off for one image; for --batch N > 1 it maps both ways\n"
    "                   and keeps the pairs when the report's estimate finds them at least 5 %\n"
    "                   faster (--report says which)\n"
    "  --balance-links auto|on|off   once the memory is planned, CUs trade clusters (a copy that\n"
    "                   shares its loads, and a pair of handed rows, as one) while that lowers the\n"
    "                   busiest of the mesh's links and ports as the report models them, and the memory\n"
    "                   is planned again (on), or the CUs stay where the placement dealt them (off);\n"
    "                   auto (the default): off for one image; for --batch N > 1 it keeps the trade\n"
    "                   when the report's estimate finds it faster (--report says which)\n"
    "  --rows-ahead auto|on|off   a Conv whose CU loads its own line buffer takes the next row's\n"
    "                   tokens and loads its rows into a second buffer while the current row computes\n"
    "                   (on), or loads each row's rows at its start (off); auto (the default): on for\n"
    "                   --batch N > 1, off for one image\n"
    "  --late-row-ends auto|on|off   with its rows loaded ahead, a Conv waits for each row's stores\n"
    "                   and tells the row's readers once the next row's first MVMs are fired (on), or at\n"
    "                   the row's end (off); auto (the default): on for --batch N > 1, off for one image\n"
    "  --row-pitch auto|on|off   a small map in the cluster SRAMs' window takes a granule per row, so its\n"
    "                   rows lie in many SRAMs and their readers' loads spread over those SRAMs' ports\n"
    "                   (on), or packs its rows (off); auto (the default): on\n"
    "  --copy-prices whole-rows|as-loaded|auto   the copy choice prices a Conv's line buffer at kh rows\n"
    "                   of the whole output row per row (whole-rows) or as it is loaded (as-loaded);\n"
    "                   auto (the default) chooses the copies at both and keeps as-loaded when the\n"
    "                   report's estimate finds it at least 10 % faster (--report says which)\n"
    "  --rings plain|bordered|auto   a stream whose maps do not fit the SRAMs holds values as rings of\n"
    "                   rows: only those read row by row without a border (plain), or also those read\n"
    "                   by windows of several rows or with a border (bordered); auto (the default) plans\n"
    "                   both and keeps bordered when the report's estimate finds it at least 5 % faster\n"
    "  --handover-tables auto|memory   where each core keeps its row hand-over tables: among its\n"
    "                   parameters, or (memory, and auto for a core whose scratchpad would overflow)\n"
    "                   in global memory, each layer's loaded into its scratch at the layer's start\n"
    "  --input-bits N[:LAYER,...]   the named Conv layers (all without names) read N of their inputs' 8 bits\n"
    "                   (N = 2 to 8; the low bits rounded off, golden model too): N DAC steps per MVM instead\n"
    "                   of 8. Repeatable, one width per option; a layer named twice is an error\n"
    "  --weight-bits N[:LAYER,...]   the named Conv layers' (all without names) weights in N bits (N = 2 to 12,\n"
    "                   golden model too) on crossbars of N-bit weights: ceil(N / xbar.cell_bits) slices, so\n"
    "                   more output channels per crossbar below 8 bits, finer weights above. Repeatable; a\n"
    "                   layer named twice is an error\n"
    "  --encoding offset|differential[:LAYER,...]   the named Conv layers' (all without names) crossbars hold\n"
    "                   offset-binary slices or differential pairs (twice the columns; no offset error).\n"
    "                   Repeatable. A layer whose format is not the chip's has it set by xfmt\n"
    "  --redundancy N[:LAYER,...]   hold the named Conv layers' weights (all without names) N times on\n"
    "                   crossbars of their own and add their column sums (N = 1, 2, 4, 8 or 16): programming\n"
    "                   error and read noise / sqrt(N), N x their crossbars and conversions\n"
    "  --chips N        cut the model over N chips (layer-wise pipeline balanced by the cost model):\n"
    "                   OUT.chipK.asm (.xbar, .io.json) per chip and OUT.system.json, which vp-run --system runs\n"
    "  --link L         the chip-to-chip link the system file names: pcie (default) or d2d\n"
    "  Compiling also writes OUT.io.json: per input and output the ONNX dims, the chip layout,\n"
    "  int8 scale, zero point, address and bytes.\n";

using namespace vp::cc;

// Everything the command line says; parse_options() fills it.
struct Options : CompileOptions {
  bool report = false;
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A whole number in [lo, hi] for option `name`, strictly (no sign, no wrap).
std::uint64_t count(const std::string& name, const std::string& v, std::uint64_t lo, std::uint64_t hi,
                    const std::string& what) {
  std::uint64_t n = 0;
  try {
    n = vp::common::parse_uint(v, name, hi);
  } catch (const vp::common::NumberError& e) {
    throw UsageError(std::string(e.what()) + " (" + what + ")");
  }
  if (n < lo) throw UsageError(name + " " + v + ": expected " + what);
  return n;
}

// An auto|on|off option's value as its enum (off, on, automatic).
template <class E>
E auto_on_off(const std::string& name, const std::string& v) {
  if (v == "on") return E::on;
  if (v == "off") return E::off;
  if (v == "auto") return E::automatic;
  throw UsageError(name + " " + v + ": expected auto, on or off");
}

// A compiler option parser's value; its CompileError is a usage error.
// What parse() returns; its CompileError (a bad option value) as a UsageError.
template <class Parse>
auto usage_of(Parse parse) {
  try {
    return parse();
  } catch (const CompileError& e) {
    throw UsageError(e.what());
  }
}

// Throws UsageError for anything the usage line does not allow; values are
// parsed strictly (vp/common/parse_number.h) so a typo is never a default.
Options parse_options(int argc, char** argv, bool& help) {
  Options o;
  help = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "-o") o.out = next();
    else if (a == "--chip") o.chip = next();
    else if (a == "--set") o.sets.push_back(next());
    else if (a == "--calib") o.calib.push_back(next());
    else if (a == "--calib-percentile") {
      const std::string v = next();
      try {
        o.percentile = vp::common::parse_real(v, "--calib-percentile", 0.0, 100.0);
      } catch (const vp::common::NumberError& e) {
        throw UsageError(std::string(e.what()) + " (a percentile above 0, at most 100)");
      }
      if (!(o.percentile > 0)) throw UsageError("--calib-percentile " + v + ": expected a percentile above 0, at most 100");
    } else if (a == "--threads") {
      o.threads = static_cast<unsigned>(count(a, next(), 0, 256, "a thread count, 0 for one per core"));
    } else if (a == "--batch") {
      o.batch = static_cast<int>(count(a, next(), 1, 4096, "images per start, 1 to 4096"));
    } else if (a == "--chips") {
      o.chips = static_cast<int>(count(a, next(), 1, 64, "chips, 1 to 64"));
    } else if (a == "--link") {
      o.link = next();
      if (o.link != "pcie" && o.link != "d2d") throw UsageError("--link " + o.link + ": expected pcie or d2d");
    } else if (a == "--test") o.tests.push_back(next());
    else if (a == "--test-dir") o.test_dir = next();
    else if (a == "--dump-ir") o.dump_dir = next();
    else if (a == "--report") o.report = true;
    else if (a == "--io") {
      o.io = next();
      if (o.io != "auto" && o.io != "on" && o.io != "off") throw UsageError("--io " + o.io + ": expected auto, on or off");
    } else if (a == "--adc-ranges") {
      o.adc_profile = next();
    } else if (a == "--adc-headroom") {
      const std::string v = next();
      try {
        o.adc_headroom = vp::common::parse_real(v, "--adc-headroom", 1.0, 1e6);
      } catch (const vp::common::NumberError& e) {
        throw UsageError(std::string(e.what()) + " (a factor from 1 to 1e6)");
      }
    } else if (a == "--replicate") {
      o.replicate = usage_of([&] { return parse_replicate(next()); });
    } else if (a == "--lanes") {
      o.lanes = usage_of([&] { return parse_lanes(next()); });
    } else if (a == "--average-reads") {
      o.average_reads = usage_of([&] { return parse_average_reads(next(), o.average_layers); });
    } else if (a == "--ir-drop-compensate") {
      o.ir_drop_compensate = true;
    } else if (a == "--stream-release") {
      const std::string v = next();
      if (v != "rows" && v != "images") throw UsageError("--stream-release " + v + ": expected rows or images");
      o.image_releases = v == "images";
    } else if (a == "--stream-buffers") {
      const std::string v = next();
      if (v != "1" && v != "2") throw UsageError("--stream-buffers " + v + ": expected 1 or 2");
      o.twin_buffers = v == "2";
    } else if (a == "--copy-prices") {
      const std::string v = next();
      using P = vp::cc::CompileOptions::CopyPrices;
      if (v == "whole-rows") {
        o.copy_prices = P::whole_rows;
      } else if (v == "as-loaded") {
        o.copy_prices = P::as_loaded;
      } else if (v == "auto") {
        o.copy_prices = P::automatic;
      } else {
        throw UsageError("--copy-prices " + v + ": expected whole-rows, as-loaded or auto");
      }
    } else if (a == "--rings") {
      const std::string v = next();
      using R = vp::cc::CompileOptions::Rings;
      if (v == "plain") {
        o.rings = R::plain;
      } else if (v == "bordered") {
        o.rings = R::bordered;
      } else if (v == "auto") {
        o.rings = R::automatic;
      } else {
        throw UsageError("--rings " + v + ": expected plain, bordered or auto");
      }
    } else if (a == "--shared-loads") {
      const std::string v = next();
      if (v != "on" && v != "off") throw UsageError("--shared-loads " + v + ": expected on or off");
      o.shared_loads = v == "on";
    } else if (a == "--hand-rows") {
      o.hand_rows = auto_on_off<CompileOptions::HandRows>(a, next());
    } else if (a == "--balance-links") {
      o.balance_links = auto_on_off<CompileOptions::BalanceLinks>(a, next());
    } else if (a == "--rows-ahead") {
      o.rows_ahead = auto_on_off<CompileOptions::RowsAhead>(a, next());
    } else if (a == "--late-row-ends") {
      o.late_row_ends = auto_on_off<CompileOptions::LateRowEnds>(a, next());
    } else if (a == "--row-pitch") {
      o.row_pitch = auto_on_off<CompileOptions::RowPitch>(a, next());
    } else if (a == "--handover-tables") {
      const std::string v = next();
      if (v != "auto" && v != "memory") throw UsageError("--handover-tables " + v + ": expected auto or memory");
      o.tables_in_memory = v == "memory";
    } else if (a == "--input-bits" || a == "--weight-bits") {
      // Repeatable: N[:LAYER,...], one width per option.
      std::vector<std::string> layers;
      const int bits = usage_of([&] { return parse_layer_value(a, next(), 2, a == "--input-bits" ? 8 : 12, false, layers); });
      (a == "--input-bits" ? o.input_bits : o.weight_bits).emplace_back(bits, layers);
    } else if (a == "--encoding") {
      std::vector<std::string> layers;
      const bool differential = usage_of([&] { return parse_layer_encoding(next(), layers); });
      o.encodings.emplace_back(differential, layers);
    } else if (a == "--redundancy") {
      o.redundancy = usage_of([&] { return parse_layer_count("--redundancy", next(), o.redundancy_layers); });
    } else if (a == "--placement") {
      const std::string v = next();
      if (v != "pipeline" && v != "shared") throw UsageError("--placement " + v + ": expected pipeline or shared");
      o.pipeline = v == "pipeline";
    } else if (a == "--reference" || a == "--fp32" || a == "--quantize-input" || a == "--layer-error") {
      if (!o.mode.empty() && o.mode != a) throw UsageError(o.mode + " and " + a + " exclude each other");
      o.mode = a;
      o.mode_in = next();
    } else if (a == "-h" || a == "--help") {
      help = true;
      return o;
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError("unknown option " + a);
    } else if (!o.model.empty()) {
      throw UsageError("two models given: " + o.model + " and " + a);
    } else {
      o.model = a;
    }
  }
  if (o.model.empty()) throw UsageError("no model given");
  if (o.out.empty() && o.mode != "--layer-error") throw UsageError("no output given (-o)");
  return o;
}

int compile(const Options& o) {
  const CompileResult r = compile_model(o);
  if (o.mode == "--layer-error") {
    std::cout << r.text;
    return 0;
  }
  if (!o.mode.empty()) return 0;
  // The report whole before the summary: a caller reading both streams
  // from one pipe (check_model.py) must not get the summary inside a row.
  if (o.report) std::cout << r.report << std::flush;
  std::fprintf(stderr, "vp-cc: %s\n", r.summary.c_str());
  return 0;
}

}  // namespace

// Exit codes: 0 done; 1 the model, an input file or an output could not be
// used (the message names it); 2 usage. Any other failure is reported as an
// internal error, also with exit 1, and never leaves an output behind.
int main(int argc, char** argv) {
  Options o;
  try {
    bool help = false;
    o = parse_options(argc, argv, help);
    if (help) {
      std::cout << kUsage;
      return 0;
    }
  } catch (const UsageError& e) {
    std::cerr << "vp-cc: " << e.what() << "\n" << kUsage;
    return 2;
  }
  // A large model's weights are copied several times over (large_heap.h).
  std::error_code size_error;
  const auto model_bytes = std::filesystem::file_size(o.model, size_error);
  if (!size_error) vp::common::prefer_large_heap(argc, argv, model_bytes);
  try {
    return compile(o);
  } catch (const CompileError& e) {
    std::cerr << "vp-cc: error: " << e.what() << "\n";
  } catch (const vp::common::OutputError& e) {
    std::cerr << "vp-cc: error: " << e.what() << "\n";
  } catch (const vp::config::ConfigError& e) {
    std::cerr << "vp-cc: error: " << e.what() << "\n";
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "vp-cc: error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    std::cerr << "vp-cc: error: out of memory while compiling " << o.model << "\n";
  } catch (const std::exception& e) {
    std::cerr << "vp-cc: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "vp-cc: internal error: unknown exception\n";
  }
  return 1;
}
