// vp-cc's run (driver.h): front end, calibration, quantization, mapping,
// planning and emission in order, every output staged and published
// together. The passes themselves are one file each (passes.h).
#include "vp/cc/driver.h"

#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string_view>

#include "balance_links.h"
#include "vp/as/assembler.h"
#include "vp/cc/io_bindings.h"
#include "vp/cc/mesh_load.h"
#include "vp/cc/npy.h"
#include "vp/common/atomic_file.h"
#include "vp/common/host_threads.h"

namespace vp::cc {

namespace {

// One graph input from a float .npy in ONNX order (any dtype numpy writes
// for real numbers is converted). Calibration and test data must be finite:
// a NaN would otherwise become a scale of 1 without a word.
FTensor input_from_values(const Graph& g, const std::string& path, const std::vector<float>& data, std::size_t index) {
  if (index >= g.inputs.size())
    throw CompileError(path + ": the model has " + std::to_string(g.inputs.size()) + " input(s)");
  const Value& v = g.val(g.inputs[index]);
  if (static_cast<std::int64_t>(data.size()) != v.shape.numel())
    throw CompileError(path + ": has " + std::to_string(data.size()) + " elements, input '" + v.name + "' needs " +
                       std::to_string(v.shape.numel()));
  for (std::size_t i = 0; i < data.size(); ++i)
    if (!std::isfinite(data[i]))
      throw CompileError(path + ": element " + std::to_string(i) + " is " + (std::isnan(data[i]) ? "NaN" : "infinite") +
                         "; expected finite input values");
  return from_onnx_order(v, data);
}

FTensor load_input(const Graph& g, const std::string& path, std::size_t index = 0) {
  if (index >= g.inputs.size())
    throw CompileError(path + ": the model has " + std::to_string(g.inputs.size()) + " input(s)");
  return input_from_values(g, path, read_npy(path).as_float(), index);
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
  if (images == 1) return {input_from_values(g, path, data, 0)};
  if (!stacked)
    throw CompileError(path + ": has " + std::to_string(data.size()) + " elements, input '" + v.name + "' needs " +
                       std::to_string(per) + " (one image) or N x " + std::to_string(per) +
                       " with a first dimension of N (N images)");
  std::vector<FTensor> out;
  for (std::size_t k = 0; k < images; ++k)
    out.push_back(input_from_values(
        g, path + " image " + std::to_string(k),
        std::vector<float>(data.begin() + static_cast<std::ptrdiff_t>(k * per),
                           data.begin() + static_cast<std::ptrdiff_t>((k + 1) * per)),
        0));
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

// "dir/m.asm" -> "dir/m.chip2.asm": chip 2's program of a --chips run.
std::string chip_program_path(const std::string& out, int chip) {
  std::filesystem::path p(out);
  const std::string ext = p.extension().string();
  p.replace_extension(".chip" + std::to_string(chip) + ext);
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

// The copy choice at the prices --copy-prices asks for. With auto, the copies
// are chosen at both and each mapping estimated (the report's estimate per
// inference, before addresses and messages: a value's bytes spread over the
// SRAMs); as-loaded is kept when it is at least kCopyPricesMargin faster.
// The whole-row charge stood in for the mesh's contention and measured
// better on ResNet-18 and -50; priced as loaded, MobileNetV2's copies took
// 11 to 18 % less (docs/compiler.md, "Cost model"). The margin is the
// estimate's own error on the tested runs (ResNet-18's stream of 16: as
// loaded estimated 6 % faster, measured 3 % slower). Returns the report's
// line saying which was kept (empty unless auto).
constexpr double kCopyPricesMargin = 0.10;
// A copy of g for another mapping: mapping rewrites only the nodes (and
// sets Graph::min_strip alike) and reads the values' shapes and
// quantization, never their contents, so the copy goes without them
// (ResNet-50's 100 MB of FP32 weights).
Graph without_contents(Graph& g) {
  std::vector<std::vector<float>> data(g.values.size());
  std::vector<std::vector<std::int8_t>> codes(g.values.size());
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    data[i].swap(g.values[i].data);
    codes[i].swap(g.values[i].codes);
  }
  Graph copy = g;
  for (std::size_t i = 0; i < g.values.size(); ++i) {
    data[i].swap(g.values[i].data);
    codes[i].swap(g.values[i].codes);
  }
  return copy;
}

std::string map_at_prices(Graph& g, const Target& t, const CompileOptions& o, const std::string& tag, bool hand_rows) {
  MapOptions mo{o.replicate, o.pipeline, o.lanes, o.batch, !o.image_releases, o.shared_loads};
  mo.hand_rows = hand_rows;
  using P = CompileOptions::CopyPrices;
  if (o.copy_prices != P::automatic) {
    mo.rows_as_loaded = o.copy_prices == P::as_loaded;
    map_crossbars(g, t, mo);
    return {};
  }
  // The second mapping runs on a copy without the values' contents, on a
  // second host thread where there is one (the two took 0.3 s of
  // ResNet-50's 1.9 s compile one after the other).
  Graph as_loaded = without_contents(g);
  MapOptions lo = mo;
  lo.rows_as_loaded = true;
  const auto map_as_loaded = [&] {
    map_crossbars(as_loaded, t, lo);
    return inference_estimate_cycles(as_loaded, t);
  };
  const bool side_by_side = vp::common::host_threads(o.threads) > 1;
  std::future<std::int64_t> other;
  if (side_by_side) other = std::async(std::launch::async, map_as_loaded);
  std::int64_t whole = 0;
  try {
    map_crossbars(g, t, mo);
    whole = inference_estimate_cycles(g, t);
  } catch (...) {
    if (other.valid()) other.wait();
    throw;
  }
  const std::int64_t loaded = side_by_side ? other.get() : map_as_loaded();
  const bool keep_loaded = static_cast<double>(loaded) <= (1 - kCopyPricesMargin) * static_cast<double>(whole);
  if (keep_loaded) g.nodes = std::move(as_loaded.nodes);
  return "copy prices" + (tag.empty() ? std::string() : " (" + tag.substr(1) + ")") + ": " +
         (keep_loaded ? "as loaded" : "whole rows") + " (est. " + std::to_string(loaded) + " cycles per inference as loaded, " +
         std::to_string(whole) + " at whole rows, before addresses and messages)\n";
}

// The mapping at --hand-rows: with the pairs of handed rows (handed_rows.h)
// or without. auto, for a stream, maps both ways and keeps the pairs when
// the report's estimate (before addresses and messages) finds them at
// least kHandRowsMargin faster: a reader's copies follow its writer's,
// which suits a stream paced by the mesh (ResNet-50's stream of 16:
// 293,857 cycles per inference with them, 322,177 without) and not one
// paced by its stages (MobileNetV2's: 312,696 against 281,312). One image
// is paced by its path, not the mesh, and goes without (ResNet-50 719,984
// cycles with them, 717,601 without, where the estimate had them 5.4 %
// faster; MobileNetV2 476,495 and 492,589). Returns the report's lines
// saying which was kept.
constexpr double kHandRowsMargin = 0.05;
std::string map_choosing_hands(Graph& g, const Target& t, const CompileOptions& o, const std::string& tag) {
  using H = CompileOptions::HandRows;
  if (o.hand_rows != H::automatic || o.batch <= 1)
    return map_at_prices(g, t, o, tag, o.hand_rows == H::on);
  Graph plain = without_contents(g);
  const std::string with_note = map_at_prices(g, t, o, tag, true);
  if (std::none_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.handed_from >= 0; }))
    return with_note;
  const std::int64_t with = inference_estimate_cycles(g, t);
  const std::string plain_note = map_at_prices(plain, t, o, tag, false);
  const std::int64_t without = inference_estimate_cycles(plain, t);
  const bool keep = static_cast<double>(with) <= (1 - kHandRowsMargin) * static_cast<double>(without);
  if (!keep) g.nodes = std::move(plain.nodes);
  return (keep ? with_note : plain_note) + "hand rows" + (tag.empty() ? std::string() : " (" + tag.substr(1) + ")") +
         ": " + (keep ? "on" : "off") + " (est. " + std::to_string(with) + " cycles per inference with them, " +
         std::to_string(without) + " without, before addresses and messages)\n";
}

// The stream's memory plan at --rings: plain rings only, or bordered ones
// too. auto plans both and keeps bordered when the report's estimate finds
// it at least kBorderedRingsMargin faster: a ring's writer waits for its
// slowest reader's releases a ring's rows back, which the estimate does not
// price, and on sidra-y1 the rings bordered values would take cost more
// than the window they free brings (ResNet-50's stream of 16: 327,769
// cycles per inference with them, 322,177 without; estimates 360,860 and
// 357,891); with half the SRAM they keep maps out of global memory
// (ResNet-50 1,150,134 against 1,297,087, MobileNetV2 333,057 against
// 594,974; docs/compiler.md, "Streams of images"). Returns the report's
// line saying which was kept (empty unless both were planned).
constexpr double kBorderedRingsMargin = 0.05;
std::string plan_rings(Graph& g, const Target& t, const CompileOptions& o, const std::string& tag) {
  using R = CompileOptions::Rings;
  g.bordered_rings = o.rings != R::plain;
  plan_memory(g, t);
  if (o.rings != R::automatic) return {};
  bool bordered = false;
  for (const Value& v : g.values) bordered = bordered || (v.buf.ring_rows > 0 && v.buf.pad > 0);
  if (!bordered) return {};
  const std::int64_t with = inference_estimate_cycles(g, t);
  g.bordered_rings = false;
  plan_memory(g, t);
  const std::int64_t without = inference_estimate_cycles(g, t);
  const bool keep = static_cast<double>(with) <= (1 - kBorderedRingsMargin) * static_cast<double>(without);
  if (keep) {
    g.bordered_rings = true;
    plan_memory(g, t);
  }
  return "rings" + (tag.empty() ? std::string() : " (" + tag.substr(1) + ")") + ": " + (keep ? "bordered" : "plain") +
         " (est. " + std::to_string(with) + " cycles per inference with bordered values in rings, " +
         std::to_string(without) + " without)\n";
}

// The planned stream with its CUs traded between clusters (balance_links.h)
// and its memory planned again, at --balance-links. auto, for a stream
// paced by its mesh (the busiest link's flits, as mesh_load counts them,
// at least kMeshPaced of the estimate per inference as placed), keeps the
// trade when the report's estimate (before messages) finds it at least
// kBalanceMargin faster; one image is paced by its path. The estimate
// counts the waits the even links save on every stream, and overstates
// them where the stages pace it (sidra-y1, streams of 16, cycles per
// inference as placed and balanced: ResNet-50 estimated 4.9 % faster,
// measured 293,857 -> 288,653; MobileNetV2 3.5 %, 281,312 -> 279,437;
// ConvNeXt-Tiny at 64x64, whose busiest link carries 0.32 of its estimate,
// 7.0 %, 122,192 -> 122,758; docs/compiler.md, "Link balance"). Returns
// the report's lines: plan_rings', and for auto one saying what was kept.
constexpr double kMeshPaced = 0.5, kBalanceMargin = 0.04;
std::string plan_balanced(Graph& g, const Target& t, const CompileOptions& o, const std::string& tag) {
  using B = CompileOptions::BalanceLinks;
  std::string note = plan_rings(g, t, o, tag);
  if (o.balance_links == B::off || (o.balance_links == B::automatic && o.batch <= 1)) return note;
  const std::int64_t placed = inference_estimate_cycles(g, t);
  const double link = mesh_load(g, t).busiest_flits * t.timing.chip_clock_mhz / t.timing.noc_clock_mhz;
  if (o.balance_links == B::automatic && link < kMeshPaced * static_cast<double>(placed))
    return note + "balance links" + (tag.empty() ? std::string() : " (" + tag.substr(1) + ")") +
           ": off (the busiest link " + std::to_string(static_cast<std::int64_t>(link)) + " cycles of " +
           std::to_string(placed) + " per inference as placed: not paced by the mesh)\n";
  const std::vector<Node> as_placed = g.nodes;
  const int moved = balance_links(g, t);
  const std::string balanced_note = moved > 0 ? plan_rings(g, t, o, tag) : note;
  const std::int64_t balanced = moved > 0 ? inference_estimate_cycles(g, t) : placed;
  if (o.balance_links == B::on) return balanced_note;
  const bool keep = moved > 0 && static_cast<double>(balanced) <= (1 - kBalanceMargin) * static_cast<double>(placed);
  if (moved > 0 && !keep) {
    g.nodes = as_placed;
    plan_rings(g, t, o, tag);
  }
  return (keep ? balanced_note : note) + "balance links" + (tag.empty() ? std::string() : " (" + tag.substr(1) + ")") +
         ": " + (keep ? "on" : "off") + " (" + std::to_string(moved) + " CUs moved; est. " + std::to_string(balanced) +
         " cycles per inference balanced, " + std::to_string(placed) + " as placed)\n";
}

void dump(const std::string& dir, int i, const std::string& stage, const Graph& g, const Target* t = nullptr) {
  if (dir.empty()) return;
  std::filesystem::create_directories(dir);
  vp::common::write_file_atomically(dir + "/" + std::to_string(i) + "-" + stage + ".json", ir_json(g, stage, t) + "\n");
}

// --layer-error: where INT8 loses accuracy, each layer's golden-model
// output, dequantized, against the FP32 interpreter on the same input.
std::string layer_error_table(const Graph& g, const FTensor& x) {
  std::string out;
  char line[512];
  const auto f = run_fp32_all(g, {x});
  const auto q = run_golden_all(g, {quantize_input(g, 0, x)});
  std::snprintf(line, sizeof line, "%-40s %-18s %10s %10s %9s %9s\n", "layer", "op", "cosine", "max err", "err/max",
                "saturated");
  out += line;
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
    std::snprintf(line, sizeof line, "%-40.40s %-18s %10.6f %10.4g %8.2f%% %8.3f%%\n", n.name.c_str(),
                  op_name(n.op).c_str(), aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 1.0, err,
                  mx > 0 ? 100 * err / mx : 0.0, r.empty() ? 0.0 : 100.0 * double(sat) / double(r.size()));
    out += line;
  }
  return out;
}

}  // namespace

CompileResult compile_model(const CompileOptions& o) {
  CompileResult res;
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
  for (std::size_t s = 0; s < o.calib_values.size(); ++s) {
    const std::string name = "calib[" + std::to_string(s) + "]";
    if (o.calib_values[s].size() != g.inputs.size())
      throw CompileError(name + ": " + std::to_string(o.calib_values[s].size()) + " tensor(s) for a model with " +
                         std::to_string(g.inputs.size()) + " input(s)");
    std::vector<FTensor> set;
    for (std::size_t i = 0; i < o.calib_values[s].size(); ++i)
      set.push_back(input_from_values(g, name, o.calib_values[s][i], i));
    sets_in.push_back(std::move(set));
  }
  if (sets_in.empty()) sets_in = default_calibration(g);
  res.calibration_sets = sets_in.size();
  const double t_front = since(t0);
  const auto t1 = std::chrono::steady_clock::now();
  set_weight_bits(g, target, o.weight_bits);
  set_encoding(g, o.encodings);
  quantize(g, sets_in, o.percentile, o.threads);
  // Part of the quantized network: the golden model computes with it.
  set_input_bits(g, o.input_bits);
  const double t_quant = since(t1);
  dump(o.dump_dir, 3, "quantized", g);

  if (o.mode == "--layer-error") {
    res.text = layer_error_table(g, load_input(g, o.mode_in));
    return res;
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
    return res;
  }
  if (o.mode == "--quantize-input") {
    std::vector<std::uint8_t> bytes;
    for (const auto& x : load_images(g, o.mode_in)) {
      const auto one = to_hwc(quantize_input(g, 0, x));
      bytes.insert(bytes.end(), one.begin(), one.end());
    }
    outs.add(o.out, bytes.data(), bytes.size());
    outs.publish();
    return res;
  }
  const auto t2 = std::chrono::steady_clock::now();
  set_average_reads(g, o.average_reads, o.average_layers);
  set_redundancy(g, o.redundancy, o.redundancy_layers);
  // The bindings are vp-cc's own (with_io_directives): the emitter writes
  // only its comments on them.
  const bool io_directives = o.io == "on" || (o.io == "auto" && assembler_has_io());
  if (o.chips > 1 && o.batch > 1)
    throw CompileError("--batch " + std::to_string(o.batch) + " streams images through one chip; with --chips " +
                       std::to_string(o.chips) + " a batch flows through the chips (vp-run --batch)");
  if (o.chips > 1 && !o.adc_profile.empty())
    throw CompileError("--adc-ranges takes one chip's profile; it cannot be combined with --chips");
  // One chip runs the whole graph; with --chips N each chip its part of it
  // (partition_chips.cpp), compiled as a model of its own.
  Partition partition;
  std::vector<Graph> parts;
  std::vector<Graph*> chip_graphs{&g};
  std::vector<std::string> chip_outs{o.out};
  if (o.chips > 1) {
    // Cut by work, then refined by each part's estimated time per image
    // as it will be mapped.
    const MapOptions mo{o.replicate, o.pipeline, o.lanes, o.batch};
    try {
      partition = partition_chips(g, target, o.chips, &mo);
    } catch (const CompileError&) {
      // No cut of whole layers fits: spread the layers wider than half a
      // chip over two or more, then cut again (the first error stands when
      // there is none to split).
      if (split_wide_layers(g, target, target.crossbars() / 2) == 0) throw;
      dump(o.dump_dir, 3, "split", g);
      partition = partition_chips(g, target, o.chips, &mo);
    }
    chip_graphs.clear();
    chip_outs.clear();
    for (int k = 0; k < o.chips; ++k) parts.push_back(chip_graph(g, partition, k));
    for (int k = 0; k < o.chips; ++k) {
      chip_graphs.push_back(&parts[static_cast<std::size_t>(k)]);
      chip_outs.push_back(chip_program_path(o.out, k));
    }
  }
  struct ChipOutput {
    EmitOptions eo;
    EmitResult r;
    std::string out, xbar, io_path, io_text, directives;
  };
  std::vector<ChipOutput> emitted;
  std::string copy_prices_note;
  const std::string stage = outs.stage_dir(o.out);
  for (std::size_t k = 0; k < chip_graphs.size(); ++k) {
    Graph& cg = *chip_graphs[k];
    const std::string tag = o.chips > 1 ? ".chip" + std::to_string(k) : "";
    cg.batch = o.batch;
    cg.rows_ahead = o.rows_ahead == CompileOptions::RowsAhead::on ||
                    (o.rows_ahead == CompileOptions::RowsAhead::automatic && o.batch > 1);
    cg.late_row_ends = o.late_row_ends == CompileOptions::LateRowEnds::on ||
                       (o.late_row_ends == CompileOptions::LateRowEnds::automatic && o.batch > 1);
    copy_prices_note += map_choosing_hands(cg, target, o, tag);
    dump(o.dump_dir, 4, "mapped" + tag, cg, &target);
    cg.row_releases = !o.image_releases;
    cg.twin_buffers = o.twin_buffers;
    cg.row_pitch = o.row_pitch != CompileOptions::RowPitch::off;
    copy_prices_note += plan_balanced(cg, target, o, tag);
    dump(o.dump_dir, 5, "planned" + tag, cg, &target);
    // The emitter writes the program and the weight image by path: into a
    // private folder, under the final names (the program names its image).
    ChipOutput c;
    c.out = chip_outs[k];
    c.xbar = with_extension(c.out, ".xbar");
    c.io_path = with_extension(c.out, ".io.json");
    outs.check(c.out);
    outs.check(c.xbar);
    outs.check(c.io_path);
    c.eo.asm_path = stage + "/" + std::filesystem::path(c.out).filename().string();
    c.eo.image_path = stage + "/" + std::filesystem::path(c.xbar).filename().string();
    c.eo.io_directives = false;
    if (!o.adc_profile.empty()) c.eo.adc_ranges = adc_ranges_from_profile(o.adc_profile, target, o.adc_headroom);
    c.eo.ir_drop_compensate = o.ir_drop_compensate;
    c.eo.tables_in_memory = o.tables_in_memory;
    c.eo.image_releases = o.image_releases;
    c.r = emit_program(cg, target, c.eo);
    // Second buffers the program does not use (its doubled code did not fit).
    if (!c.r.twin_buffers)
      for (Value& v : cg.values) v.buf.alt = -1;
    for (std::size_t i = 0; i < cg.nodes.size(); ++i) cg.nodes[i].sync_tokens = c.r.node_tokens[i];
    dump(o.dump_dir, 6, "emitted" + tag, cg, &target);
    c.io_text = io_json(cg);
    c.directives = io_directives ? vp::cc::io_directives(cg) : std::string();
    emitted.push_back(std::move(c));
  }
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
  for (const ChipOutput& c : emitted) {
    outs.add(c.io_path, c.io_text);
    outs.publish_staged(c.eo.image_path, c.xbar);
  }
  if (o.chips > 1) {
    std::vector<std::string> programs;
    for (const ChipOutput& c : emitted) programs.push_back(std::filesystem::path(c.out).filename().string());
    res.system_path = with_extension(o.out, ".system.json");
    outs.add(res.system_path, system_json(g, partition, programs, target.name, o.link) + "\n");
  }
  // Last: the programs are what tools wait for.
  for (const ChipOutput& c : emitted) {
    std::ifstream f(c.eo.asm_path, std::ios::binary);
    std::stringstream program;
    program << f.rdbuf();
    if (!f) throw CompileError("cannot read back '" + c.eo.asm_path + "'");
    outs.add(c.out, with_io_directives(program.str(), c.directives));
  }
  outs.publish();
  const double secs = since(t0);
  EmitResult r;
  for (std::size_t k = 0; k < emitted.size(); ++k) {
    const EmitResult& e = emitted[k].r;
    r.instructions += e.instructions;
    r.image_bytes += e.image_bytes;
    r.cores_used += e.cores_used;
    r.row_tokens += e.row_tokens;
    res.crossbars += crossbars_used(*chip_graphs[k]);
    res.chip_crossbars += target.crossbars();
    if (o.chips > 1) res.report += "chip " + std::to_string(k) + " (" + emitted[k].out + "):\n";
    res.report += layer_report(*chip_graphs[k], target);
  }
  if (o.chips > 1) res.report = partition_report(g, partition, target) + res.report;
  res.report += copy_prices_note;
  res.emit = r;
  res.asm_path = emitted[0].out;
  res.xbar_path = emitted[0].xbar;
  res.io_path = emitted[0].io_path;
  char line[512];
  std::snprintf(line, sizeof line,
                "%s -> %s: %d CUs, %lld instructions, %lld-byte weight image, %.2f s "
                "(parse+canonicalize %.2f s, calibrate+quantize %.2f s on %zu input(s), map+plan+emit %.2f s",
                o.model.c_str(), o.chips > 1 ? res.system_path.c_str() : o.out.c_str(), r.cores_used,
                static_cast<long long>(r.instructions), static_cast<long long>(r.image_bytes), secs, t_front, t_quant,
                sets_in.size(), t_back);
  res.summary = line;
  if (o.chips > 1) res.summary += ", " + std::to_string(o.chips) + " chips";
  if (!o.tests.empty()) {
    std::snprintf(line, sizeof line, ", %zu test input(s) %.2f s", o.tests.size(), t_tests);
    res.summary += line;
  }
  res.summary += ")";
  return res;
}

std::int64_t crossbars_used(const Graph& g) {
  std::int64_t n = 0;
  for (const Node& node : g.nodes)
    if (op_has(node.op, op_crossbar))
      for (const auto& ct : node.tiles)
        for (const auto& p : ct.parts) n += p.crossbars();
  return n;
}

}  // namespace vp::cc
