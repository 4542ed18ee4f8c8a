// vp-cc: ONNX model -> Sidra VP assembly (+ crossbar weight image).
//
//   vp-cc MODEL.onnx -o MODEL.asm [--chip NAME] [--set k=v]... [--calib X.npy]...
//         [--dump-ir DIR] [--report] [--io auto|on|off] [--replicate auto|none|N] [--placement pipeline|shared]
//         [--lanes auto|N]
//   vp-cc MODEL.onnx --reference IN.npy -o OUT.npy   golden model (int8 output codes)
//   vp-cc MODEL.onnx --fp32 IN.npy -o OUT.npy        FP32 reference (dequantized form)
//   (IN.npy: one image, or N stacked along a first dimension of N)
//   vp-cc MODEL.onnx --quantize-input IN.npy -o IN.bin   bytes for vp-run --input
//
// Every mode runs the same deterministic front end and calibration, so the
// reference and the compiled program agree on every scale.
#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "vp/as/assembler.h"
#include "vp/cc/io_bindings.h"
#include "vp/cc/npy.h"
#include "vp/cc/passes.h"
#include "vp/common/atomic_file.h"
#include "vp/common/parse_number.h"
#include "vp/config/config_error.h"

namespace {

const char* kUsage =
    "usage: vp-cc MODEL.onnx -o OUT.asm [--chip NAME] [--set key=value]... [--calib X.npy[,X2.npy]]...\n"
    "             [--calib-percentile P] [--test IN.npy]... [--test-dir DIR] [--dump-ir DIR] [--report]\n"
    "             [--threads N] [--batch N] [--adc-ranges PROFILE.json [--adc-headroom H]]\n"
    "             [--io auto|on|off] [--replicate auto|none|N] [--placement pipeline|shared] [--lanes auto|N]\n"
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
    "  Compiling also writes OUT.io.json: per input and output the ONNX dims, the chip layout,\n"
    "  int8 scale, zero point, address and bytes.\n";

using namespace vp::cc;

// Everything the command line says; parse_options() fills it.
struct Options {
  std::string model, out, chip = "sidra-y1", dump_dir, mode, mode_in, io = "auto", test_dir;
  int replicate = kReplicateAuto, lanes = 0;
  bool pipeline = true;
  std::vector<std::string> sets, calib, tests;
  bool report = false;
  double percentile = 100.0;
  unsigned threads = 0;
  int batch = 1;
  std::string adc_profile;    // --adc-ranges: a vp-run --adc-profile file
  double adc_headroom = 1.0;  // its sums are multiplied by this before ranges are chosen
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

// A compiler option parser's value; its CompileError is a usage error.
int usage_of(int (*parse)(const std::string&), const std::string& v) {
  try {
    return parse(v);
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
      o.replicate = usage_of(parse_replicate, next());
    } else if (a == "--lanes") {
      o.lanes = usage_of(parse_lanes, next());
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

// One graph input from a float .npy in ONNX order (any dtype numpy writes
// for real numbers is converted). Calibration and test data must be finite:
// a NaN would otherwise become a scale of 1 without a word.
FTensor load_input(const Graph& g, const std::string& path, std::size_t index = 0) {
  if (index >= g.inputs.size())
    throw CompileError(path + ": the model has " + std::to_string(g.inputs.size()) + " input(s)");
  const Value& v = g.val(g.inputs[index]);
  const NpyArray a = read_npy(path);
  const auto data = a.as_float();
  if (static_cast<std::int64_t>(data.size()) != v.shape.numel())
    throw CompileError(path + ": has " + std::to_string(data.size()) + " elements, input '" + v.name + "' needs " +
                       std::to_string(v.shape.numel()));
  for (std::size_t i = 0; i < data.size(); ++i)
    if (!std::isfinite(data[i]))
      throw CompileError(path + ": element " + std::to_string(i) + " is " + (std::isnan(data[i]) ? "NaN" : "infinite") +
                         "; expected finite input values");
  return from_onnx_order(v, data);
}

// One image, or a test set of N stacked along the first dimension (an
// array of N times the input's elements whose first dimension is N): the
// --fp32, --reference and --quantize-input modes take a whole set at once.
std::vector<FTensor> load_images(const Graph& g, const std::string& path) {
  if (g.inputs.empty()) throw CompileError(path + ": the model has no input");
  const Value& v = g.val(g.inputs[0]);
  const NpyArray a = read_npy(path);
  const auto data = a.as_float();
  const auto per = static_cast<std::size_t>(v.shape.numel());
  const std::size_t images = per > 0 && data.size() % per == 0 ? data.size() / per : 0;
  const bool stacked = images > 1 && !a.shape.empty() && a.shape[0] == static_cast<std::int64_t>(images);
  if (images != 1 && !stacked)
    throw CompileError(path + ": has " + std::to_string(data.size()) + " elements, input '" + v.name + "' needs " +
                       std::to_string(per) + " (one image) or N x " + std::to_string(per) +
                       " with a first dimension of N (N images)");
  for (std::size_t i = 0; i < data.size(); ++i)
    if (!std::isfinite(data[i]))
      throw CompileError(path + ": element " + std::to_string(i) + " is " + (std::isnan(data[i]) ? "NaN" : "infinite") +
                         "; expected finite input values");
  std::vector<FTensor> out;
  for (std::size_t k = 0; k < images; ++k)
    out.push_back(from_onnx_order(v, std::vector<float>(data.begin() + k * per, data.begin() + (k + 1) * per)));
  return out;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// "dir/name.ext" -> "name"
std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

std::string with_extension(const std::string& path, const char* ext) {
  std::filesystem::path p(path);
  p.replace_extension(ext);
  return p.string();
}

// The outputs of one run, held as temporaries until every step has
// succeeded: publish() renames them all into place; on an error none of
// them appears and files already at those paths are left as they were.
class Outputs {
 public:
  explicit Outputs(std::vector<std::string> inputs) : inputs_(std::move(inputs)) {}
  ~Outputs() {
    files_.clear();
    if (!stage_.empty()) std::filesystem::remove_all(stage_, ec_);
  }
  // Refuses a path that names one of the inputs (the model, a calibration
  // or test file) or an output of this run already.
  void check(const std::string& path) {
    for (const auto& in : inputs_)
      if (vp::common::same_file(path, in))
        throw CompileError(path + ": is also an input of this run (" + in + "); choose another output name");
    for (const auto& f : files_)
      if (f->path() == path) throw CompileError(path + ": written twice by this run; use distinct names");
  }
  void add(const std::string& path, const void* data, std::size_t bytes) {
    check(path);
    if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
      std::filesystem::create_directories(parent);
    files_.push_back(std::make_unique<vp::common::AtomicFile>(path));
    files_.back()->write(data, bytes);
  }
  void add(const std::string& path, const std::string& text) { add(path, text.data(), text.size()); }
  // A private folder beside `out` for writers that take a path (the
  // emitter); publish_staged() moves what they wrote into the outputs.
  std::string stage_dir(const std::string& out) {
    const auto parent = std::filesystem::path(out).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    std::string tmpl = (parent.empty() ? std::string(".") : parent.string()) + "/.vp-cc-stage-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw CompileError(out + ": cannot create a temporary folder beside it");
    stage_ = tmpl;
    return stage_;
  }
  // Copied in pieces: the weight image of a ResNet-50 is 100 MB, and a
  // whole copy in memory costs more than the write.
  void publish_staged(const std::string& staged, const std::string& dest) {
    std::ifstream f(staged, std::ios::binary);
    if (!f) throw CompileError("cannot read back '" + staged + "'");
    add(dest, nullptr, 0);
    std::vector<char> chunk(std::size_t{1} << 20);
    while (f.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || f.gcount() > 0)
      files_.back()->write(chunk.data(), static_cast<std::size_t>(f.gcount()));
    if (f.bad()) throw CompileError("cannot read back '" + staged + "'");
  }
  // All or nothing: a rename that fails puts back the outputs moved before it.
  void publish() {
    std::vector<vp::common::AtomicFile*> all;
    for (auto& f : files_) all.push_back(f.get());
    vp::common::commit_together(all);
    files_.clear();
  }

 private:
  std::vector<std::string> inputs_;
  std::vector<std::unique_ptr<vp::common::AtomicFile>> files_;
  std::string stage_;
  std::error_code ec_;
};

// The program with vp-cc's .input/.output bindings (io_bindings.cpp, the
// same description io.json is written from) placed after the emitter's
// comments on the inputs and outputs, before the first core.
std::string with_io_directives(const std::string& program, const std::string& directives) {
  std::size_t at = 0, pos = 0;
  while (pos < program.size()) {
    const std::size_t end = program.find('\n', pos);
    const std::size_t next = end == std::string::npos ? program.size() : end + 1;
    const std::string_view line(program.data() + pos, next - pos);
    if (line.rfind("; input '", 0) == 0 || line.rfind("; output '", 0) == 0 || line.rfind(".chip ", 0) == 0 ||
        line.rfind(".layer ", 0) == 0)
      at = next;
    else if (line.rfind(".core ", 0) == 0 || line.rfind(".data ", 0) == 0)
      break;
    pos = next;
  }
  return program.substr(0, at) + directives + program.substr(at);
}

// Does the assembler in this build know .input/.output yet?
bool assembler_has_io() {
  const auto r = vp::as::assemble_string(".input \"x\", 0, 1, \"int8\", 1\n", "<probe>");
  return r.ok();
}

void dump(const std::string& dir, int i, const std::string& stage, const Graph& g) {
  if (dir.empty()) return;
  std::filesystem::create_directories(dir);
  vp::common::write_file_atomically(dir + "/" + std::to_string(i) + "-" + stage + ".json", ir_json(g, stage) + "\n");
}

// --layer-error: where INT8 loses accuracy, each layer's golden-model
// output, dequantized, against the FP32 interpreter on the same input.
void print_layer_error(const Graph& g, const FTensor& x) {
  const auto f = run_fp32_all(g, {x});
  const auto q = run_golden_all(g, {quantize_input(g, 0, x)});
  std::printf("%-40s %-18s %10s %10s %9s %9s\n", "layer", "op", "cosine", "max err", "err/max", "saturated");
  for (const Node& n : g.nodes) {
    const int id = n.out[0];
    const FTensor d = dequantize(g, id, q[static_cast<std::size_t>(id)]);
    const auto& r = f[static_cast<std::size_t>(id)].data;
    double ab = 0, aa = 0, bb = 0, err = 0, mx = 0;
    std::size_t sat = 0;
    for (std::size_t i = 0; i < r.size() && i < d.data.size(); ++i) {
      ab += double(r[i]) * d.data[i];
      aa += double(r[i]) * r[i];
      bb += double(d.data[i]) * d.data[i];
      err = std::max(err, std::fabs(double(r[i]) - d.data[i]));
      mx = std::max(mx, std::fabs(double(r[i])));
      const int c = q[static_cast<std::size_t>(id)].data[i];
      sat += c == 127 || c == -128;
    }
    std::printf("%-40.40s %-18s %10.6f %10.4g %8.2f%% %8.3f%%\n", n.name.c_str(), op_name(n.op).c_str(),
                aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 1.0, err, mx > 0 ? 100 * err / mx : 0.0,
                r.empty() ? 0.0 : 100.0 * double(sat) / double(r.size()));
  }
}

int compile(const Options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  };
  std::vector<std::string> inputs{o.model};
  for (const auto& c : o.calib)
    for (const auto& f : split_commas(c)) inputs.push_back(f);
  inputs.insert(inputs.end(), o.tests.begin(), o.tests.end());
  if (!o.mode_in.empty()) inputs.push_back(o.mode_in);
  Outputs outs(inputs);
  // Refuse an output over an input, or one that cannot be a file, before
  // any work is done.
  if (!o.out.empty()) {
    std::error_code ec;
    if (std::filesystem::is_directory(o.out, ec) || std::filesystem::path(o.out).filename().empty())
      throw CompileError(o.out + ": is a directory; expected a file name for -o");
    outs.check(o.out);
  }

  const Target target = load_target(o.chip, o.sets);
  Graph g = import_onnx(o.model);
  dump(o.dump_dir, 1, "parse", g);
  try {
    canonicalize(g);
  } catch (const CompileError& e) {
    throw CompileError(o.model + ": " + e.what());  // the importer's errors name the file already
  }
  dump(o.dump_dir, 2, "canonical", g);
  std::vector<std::vector<FTensor>> sets_in;
  for (const auto& c : o.calib) {
    const auto files = split_commas(c);
    if (files.size() != g.inputs.size())
      throw CompileError("--calib " + c + ": " + std::to_string(files.size()) + " file(s) for a model with " +
                         std::to_string(g.inputs.size()) + " input(s)");
    std::vector<FTensor> set;
    for (std::size_t i = 0; i < files.size(); ++i) set.push_back(load_input(g, files[i], i));
    sets_in.push_back(std::move(set));
  }
  if (sets_in.empty()) sets_in = default_calibration(g);
  const double t_front = since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  quantize(g, sets_in, o.percentile, o.threads);
  const double t_quant = since(t1);
  dump(o.dump_dir, 3, "quantized", g);

  if (o.mode == "--layer-error") {
    print_layer_error(g, load_input(g, o.mode_in));
    return 0;
  }
  if (o.mode == "--fp32" || o.mode == "--reference") {
    const Value& y = g.val(g.outputs[0]);
    const std::vector<FTensor> xs = load_images(g, o.mode_in);
    // The graph's own output dims (a Flatten canonicalize dropped is still
    // in them), as ONNX Runtime gives them; the data is in that order. A
    // set of N images gives N outputs stacked the same way.
    auto dims = published_output_dims(g, 0);
    if (xs.size() > 1) {
      if (!dims.empty() && dims[0] == 1) dims[0] = static_cast<std::int64_t>(xs.size());
      else dims.insert(dims.begin(), static_cast<std::int64_t>(xs.size()));
    }
    if (o.mode == "--fp32") {
      std::vector<float> all;
      for (const auto& x : xs) {
        const auto one = to_onnx_order(y, run_fp32(g, {x})[0]);
        all.insert(all.end(), one.begin(), one.end());
      }
      outs.add(o.out, encode_npy(dims, all));
    } else {
      std::vector<std::int8_t> all;
      for (const auto& x : xs) {
        const auto one = to_onnx_order(y, run_golden(g, {quantize_input(g, 0, x)})[0]);
        all.insert(all.end(), one.begin(), one.end());
      }
      outs.add(o.out, encode_npy(dims, all));
    }
    outs.publish();
    return 0;
  }
  if (o.mode == "--quantize-input") {
    std::vector<std::uint8_t> bytes;
    for (const auto& x : load_images(g, o.mode_in)) {
      const auto one = to_hwc(quantize_input(g, 0, x));
      bytes.insert(bytes.end(), one.begin(), one.end());
    }
    outs.add(o.out, bytes.data(), bytes.size());
    outs.publish();
    return 0;
  }
  const auto t2 = std::chrono::steady_clock::now();
  map_crossbars(g, target, MapOptions{o.replicate, o.pipeline, o.lanes});
  dump(o.dump_dir, 4, "mapped", g);
  g.batch = o.batch;
  plan_memory(g, target);
  dump(o.dump_dir, 5, "planned", g);
  // The emitter writes the program and the weight image by path: into a
  // private folder, under the final names (the program names its image).
  const std::string xbar = with_extension(o.out, ".xbar"), io_path = with_extension(o.out, ".io.json");
  outs.check(xbar);
  outs.check(io_path);
  const std::string stage = outs.stage_dir(o.out);
  EmitOptions eo;
  eo.asm_path = stage + "/" + std::filesystem::path(o.out).filename().string();
  eo.image_path = stage + "/" + std::filesystem::path(xbar).filename().string();
  // The bindings are vp-cc's own (with_io_directives): the emitter writes
  // only its comments on them.
  const bool io_directives = o.io == "on" || (o.io == "auto" && assembler_has_io());
  eo.io_directives = false;
  if (!o.adc_profile.empty()) eo.adc_ranges = adc_ranges_from_profile(o.adc_profile, target, o.adc_headroom);
  const EmitResult r = emit_program(g, target, eo);
  const std::string io_text = io_json(g), directives = io_directives ? vp::cc::io_directives(g) : std::string();
  const double t_back = since(t2);
  const auto t3 = std::chrono::steady_clock::now();
  if (!o.tests.empty()) {
    if (g.inputs.size() != 1) throw CompileError("--test needs a model with one input");
    const std::string dir = !o.test_dir.empty() ? o.test_dir : std::filesystem::path(o.out).parent_path().string();
    const std::string pre = dir.empty() ? "" : dir + "/";
    std::vector<std::vector<std::int8_t>> ins, goldens;
    for (const auto& tpath : o.tests) {
      const QTensor q = quantize_input(g, 0, load_input(g, tpath));
      ins.push_back(to_hwc(q));
      goldens.push_back(to_hwc(run_golden(g, {q}, o.threads)[0]));
    }
    // A stream of N images: test k's files hold tests k, k + 1, ... (mod T).
    const std::size_t T = o.tests.size(), N = static_cast<std::size_t>(o.batch);
    for (std::size_t k = 0; k < T; ++k) {
      std::vector<std::int8_t> in, golden;
      for (std::size_t e = 0; e < N; ++e) {
        in.insert(in.end(), ins[(k + e) % T].begin(), ins[(k + e) % T].end());
        golden.insert(golden.end(), goldens[(k + e) % T].begin(), goldens[(k + e) % T].end());
      }
      outs.add(pre + stem_of(o.tests[k]) + ".in.bin", in.data(), in.size());
      outs.add(pre + stem_of(o.tests[k]) + ".golden.bin", golden.data(), golden.size());
    }
  }
  const double t_tests = since(t3);
  outs.add(io_path, io_text);
  outs.publish_staged(eo.image_path, xbar);
  {
    std::ifstream f(eo.asm_path, std::ios::binary);
    std::stringstream program;
    program << f.rdbuf();
    if (!f) throw CompileError("cannot read back '" + eo.asm_path + "'");
    outs.add(o.out, with_io_directives(program.str(), directives));  // last: the program is what tools wait for
  }
  outs.publish();
  const double secs = since(t0);
  if (o.report) std::cout << layer_report(g, target);
  std::fprintf(stderr,
               "vp-cc: %s -> %s: %d CUs, %lld instructions, %lld-byte weight image, %.2f s "
               "(parse+canonicalize %.2f s, calibrate+quantize %.2f s on %zu input(s), map+plan+emit %.2f s",
               o.model.c_str(), o.out.c_str(), r.cores_used, static_cast<long long>(r.instructions),
               static_cast<long long>(r.image_bytes), secs, t_front, t_quant, sets_in.size(), t_back);
  if (!o.tests.empty()) std::fprintf(stderr, ", %zu test input(s) %.2f s", o.tests.size(), t_tests);
  std::fprintf(stderr, ")\n");
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
