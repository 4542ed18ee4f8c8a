// End to end: compile small models for a chip preset, run them on the
// platform with vp-run (ideal mode), and require the output bytes to equal
// the golden model's exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <unistd.h>

#include "compiler_test_util.h"
#include "balance_links.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

namespace fs = std::filesystem;

std::string bin_dir() {
  const char* d = std::getenv("VP_BIN_DIR");
  return d ? d : "build/bin";
}

struct RunResult {
  std::vector<std::int8_t> platform, golden;
  int status = -1;
  double cosine_fp32 = 0;   // dequantized platform output vs the FP32 reference
  bool top1_fp32 = false;
  int max_replicas = 0;     // the most copies (or cores) any layer got
  bool split_tile = false;  // some column tile spans CUs
  int fused_adds = 0;       // residual Adds computed by their Conv
  int fused_tables = 0;     // table activations computed by their Conv
  int table_layers = 0;     // table activations with cores of their own
  bool core_per_layer = true;  // no core runs two layers (the pipelined placement)
  int on_chip = 0;          // activations in the cluster SRAMs' global window
  int max_lanes = 1;        // the most lanes (copies side by side on one CU) any layer got
  bool lanes_of_some_channels = false;  // a CU with lanes computes only some of its layer's channels
  std::int64_t cycles = 0;  // the run's, as vp-run reports it
  std::int64_t min_strip = 0;  // the narrowest column strip of any Conv copy's share (0: no strips)
  bool pipelined = false;   // some Conv's pixels are software-pipelined (a store one pixel back)
  int ahead_loops = 0;      // row loops that load the next row ahead (a `lastrow` label each)
  int residual_ahead = 0;   // a fused Add's residual pixels read from a row of them loaded with the rows (r15's half)
  std::size_t reuse_orders = 0;  // (layer, later layer) pairs whose SRAM the later one reuses
  bool layers_spread = true;     // every layer's CUs in distinct clusters while there are clusters left
  bool border_shared = false;    // an SRAM range holding a border also holds another value (reuse)
  int pitched = 0;               // values at a granule's pitch (Buffer::pitch)
  bool pitch_rows_whole = true;  // each such value's rows start on a granule and fit it
  // Per Concat (by its inputs' count): loads (dma.gl) per row loop (dbnz
  // r20) in its cores' code; a pass per input loads one input per loop.
  std::map<std::size_t, double> concat_loads_per_loop;
  // The most loads (dma.gl) inside one column loop (a row's pixels) of a
  // Mul of two activations' cores; -1 with no such Mul.
  int mul_loads_per_pixel = -1;
  int rings = 0;  // values held as rings of rows (Buffer::ring_rows)
  int bordered_rings = 0;  // of them, with a border (Buffer::pad) or read by windows of several rows
  int twins = 0;  // values with a second buffer (Buffer::alt)
  bool twin_code = false;  // the program's image loop emitted twice over (EmitResult::twin_buffers)
  int shared_copies = 0;   // copies whose CUs share their row loads (Node::staging)
  bool shared_in_one_cluster = true;  // every such copy's CUs in one cluster
  int handed = 0;          // Convs handed their rows through a cluster's SRAM (Node::handed_from)
  bool handed_beside = true;  // each such copy in its writer's copy's cluster
  int slot_stores = 0;     // dma.ls in the program (a writer's rows into a slot)
  int moved = 0;           // CUs the link balance moved (balance_links.h)
  int late_loops = 0;      // row loops whose rows end under the next row's first MVMs (a `heldend` label each)
};

// Compiles `m` for `chip` (+ sets), runs one seeded input through vp-run
// and the golden model; with batch > 1 a stream of that many inputs (seeds
// seed, seed + 1, ...) in one start.
RunResult compile_and_run(const TestModel& m, const std::string& chip, const std::vector<std::string>& sets = {},
                    std::uint64_t seed = 5, const MapOptions& map = {}, int batch = 1, bool twin_buffers = true,
                    bool rows_ahead = false, bool row_pitch = false, bool balance = false, bool late = false) {
  const fs::path dir = fs::temp_directory_path() / ("vp_cc_e2e_" + m.name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Target t = load_target(chip, sets);
  Graph g = import_onnx_bytes(m.onnx, m.name);
  canonicalize(g);
  quantize(g, default_calibration(g));
  g.rows_ahead = rows_ahead;
  g.late_row_ends = late;
  map_crossbars(g, t, map);
  g.batch = batch;
  g.twin_buffers = twin_buffers;
  g.row_pitch = row_pitch;
  plan_memory(g, t);
  // --balance-links on: CUs trade clusters, and the memory is planned again.
  const int moved = balance ? balance_links(g, t) : 0;
  if (moved > 0) plan_memory(g, t);
  EmitOptions eo;
  eo.asm_path = (dir / "model.asm").string();
  eo.io_directives = false;
  const EmitResult emitted = emit_program(g, t, eo);

  const QTensor q = quantize_input(g, 0, default_calibration(g, 1, seed)[0][0]);
  std::vector<std::int8_t> in;
  std::vector<std::int8_t> golden;
  for (int e = 0; e < batch; ++e) {
    const QTensor qe = quantize_input(g, 0, default_calibration(g, 1, seed + static_cast<std::uint64_t>(e))[0][0]);
    const auto x = to_hwc(qe), y = to_hwc(run_golden(g, {qe})[0]);
    in.insert(in.end(), x.begin(), x.end());
    golden.insert(golden.end(), y.begin(), y.end());
  }
  std::ofstream((dir / "x.bin").string(), std::ios::binary).write(reinterpret_cast<const char*>(in.data()),
                                                                   static_cast<std::streamsize>(in.size()));
  RunResult r;
  r.moved = moved;
  std::map<int, int> layer_of_core;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (int c : g.nodes[i].cores)
      if (!layer_of_core.emplace(c, static_cast<int>(i)).second) r.core_per_layer = false;
  for (const Value& v : g.values) r.on_chip += t.sram_global_base > 0 && v.buf.addr >= t.sram_global_base;
  for (const Value& v : g.values) r.rings += v.buf.ring_rows > 0;
  for (const Value& v : g.values) r.bordered_rings += v.buf.ring_rows > 0 && v.buf.pad > 0;
  for (const Value& v : g.values) r.twins += v.buf.alt >= 0;
  for (const Value& v : g.values) {
    if (v.buf.pitch <= 0) continue;
    ++r.pitched;
    // Each row in a granule of its own: the window's granule boundaries
    // never cut one, and two rows never share a granule.
    const std::int64_t G = t.sram_interleave_bytes;
    for (const std::int64_t base : {v.buf.addr, v.buf.alt}) {
      if (base < 0) continue;
      r.pitch_rows_whole = r.pitch_rows_whole && v.buf.pitch == G && (base - t.sram_global_base) % G == 0 &&
                           v.buf.wp(v.shape) * v.shape.c <= G;
    }
  }
  r.twin_code = emitted.twin_buffers;
  r.reuse_orders = g.reuse_after.size();
  // A border is written when the program loads: no other value may take
  // its range, or the next start reads that value's bytes as the border.
  for (const Value& a : g.values) {
    if (a.is_const || a.buf.addr < t.sram_global_base || a.buf.pad == 0) continue;
    for (const Value& b : g.values) {
      if (&a == &b || b.is_const || b.buf.addr < 0) continue;
      const bool overlap = a.buf.addr < b.buf.addr + b.buf.held(b.shape) && b.buf.addr < a.buf.addr + a.buf.held(a.shape);
      r.border_shared = r.border_shared || overlap;
    }
  }
  for (const Node& n : g.nodes) {
    std::map<int, std::set<int>> copy_clusters;
    for (const auto& ct : n.tiles)
      for (const auto& p : ct.parts) copy_clusters[ct.copy].insert(t.cluster_of(p.core));
    for (std::size_t k = 0; k < n.staging.size(); ++k) {
      if (n.staging[k] < 0) continue;
      ++r.shared_copies;
      r.shared_in_one_cluster = r.shared_in_one_cluster && copy_clusters[static_cast<int>(k)].size() == 1;
    }
    // A copy sharing its loads keeps its CUs together.
    if (std::any_of(n.staging.begin(), n.staging.end(), [](std::int64_t a) { return a >= 0; })) continue;
    std::set<int> clusters;
    for (int c : n.cores) clusters.insert(t.cluster_of(c));
    r.layers_spread = r.layers_spread &&
                      static_cast<int>(clusters.size()) == std::min<int>(t.clusters, static_cast<int>(n.cores.size()));
  }
  for (const Node& n : g.nodes) {
    if (n.handed_from < 0) continue;
    ++r.handed;
    const Node& w = g.nodes[static_cast<std::size_t>(n.handed_from)];
    for (const auto& ct : n.tiles)
      for (const auto& wt : w.tiles)
        if (ct.copy == wt.copy)
          r.handed_beside = r.handed_beside && t.cluster_of(ct.parts[0].core) == t.cluster_of(wt.parts[0].core);
  }
  for (const Node& n : g.nodes) {
    r.max_replicas = std::max(r.max_replicas, n.replicas);
    r.max_lanes = std::max(r.max_lanes, n.lanes);
    if (n.lanes > 1) {
      std::map<int, int> cols;
      for (const auto& ct : n.tiles) cols[ct.parts[0].core] += ct.ncols;
      for (const auto& [core, k] : cols) r.lanes_of_some_channels = r.lanes_of_some_channels || k < g.val(n.out[0]).shape.c;
    }
    for (const auto& ct : n.tiles) r.split_tile = r.split_tile || ct.parts.size() > 1;
    r.fused_adds += n.fused && n.op == OpKind::Add ? 1 : 0;
    r.fused_tables += n.fused && op_has(n.op, op_table) ? 1 : 0;
    r.table_layers += !n.fused && op_has(n.op, op_table) ? 1 : 0;
    // Strips as share_loop cuts them (emit_loops.h): S = min(R, OW /
    // min_strip) strips when every copy has two rows or more, else blocks.
    if (n.op == OpKind::Conv && n.replicas > 1) {
      const Shape& o = g.val(n.out[0]).shape;
      const std::int64_t S = std::min<std::int64_t>(n.replicas, o.w / g.min_strip);
      if (o.h >= 2 * n.replicas && S > 1)
        r.min_strip = r.min_strip ? std::min(r.min_strip, o.w / S) : o.w / S;
    }
  }
  r.golden = golden;
  {
    // emit_conv's pipelined finish stores the pixel before the pointers.
    std::ifstream asm_in((dir / "model.asm").string());
    std::map<std::string, std::size_t> concat_inputs;  // layer name -> inputs
    for (const Node& n : g.nodes)
      if (n.op == OpKind::Concat && n.gather.empty()) concat_inputs[n.name] = n.in.size();
    std::set<std::string> muls;  // Muls of two activations, by layer name
    for (const Node& n : g.nodes)
      if (n.op == OpKind::Mul && !g.val(n.in[1]).is_const) muls.insert(n.name);
    std::set<int> mul_layer;
    bool in_mul = false, in_cols = false;
    int loads = 0;
    std::map<int, std::size_t> concat_layer;  // layer id -> inputs
    std::map<std::size_t, std::pair<int, int>> counts;  // inputs -> (loads, row loops)
    std::size_t current = 0;
    for (std::string line; std::getline(asm_in, line);) {
      r.pipelined = r.pipelined || line.find("addi r10, r25, -") != std::string::npos;
      r.ahead_loops += line.find("_lastrow") != std::string::npos && line.back() == ':';
      r.late_loops += line.find("_heldend") != std::string::npos && line.back() == ':';
      r.residual_ahead += line.find("add r11, r11, r15") != std::string::npos;
      r.slot_stores += line.find("dma.ls ") != std::string::npos;
      int id = 0;
      char name[256] = {};
      if (std::sscanf(line.c_str(), ".layer %d, \"%255[^\"]\"", &id, name) == 2 && concat_inputs.count(name))
        concat_layer[id] = concat_inputs[name];
      if (std::sscanf(line.c_str(), ".layer %d, \"%255[^\"]\"", &id, name) == 2 && muls.count(name))
        mul_layer.insert(id);
      if (std::sscanf(line.c_str(), " layer %d", &id) == 1) {
        current = concat_layer.count(id) ? concat_layer[id] : 0;
        in_mul = mul_layer.count(id) > 0;
      }
      if (line.rfind(".core ", 0) == 0) {  // a core's code before its first layer is no layer's
        current = 0;
        in_mul = false;
      }
      if (in_mul && line.find("_col") != std::string::npos && line.back() == ':') in_cols = true, loads = 0;
      if (in_mul && in_cols) loads += line.find("dma.gl ") != std::string::npos;
      if (in_mul && in_cols && line.find("dbnz r23,") != std::string::npos) {
        in_cols = false;
        r.mul_loads_per_pixel = std::max(r.mul_loads_per_pixel, loads);
      }
      if (!current) continue;
      counts[current].first += line.find("dma.gl ") != std::string::npos;
      counts[current].second += line.find("dbnz r20,") != std::string::npos;
    }
    for (const auto& [k, c] : counts) r.concat_loads_per_loop[k] = c.second ? double(c.first) / c.second : 0;
  }
  const FTensor ref = run_fp32(g, default_calibration(g, 1, seed)[0])[0];
  const Value& out = g.val(g.outputs[0]);
  // Every program is also checked for races: each shared-memory access
  // must follow the ones it conflicts with by the program's own messages
  // (exit 7 otherwise), whatever the timing.
  std::string cmd = bin_dir() + "/vp-run --check-races --chip " + chip;
  for (const auto& s : sets) cmd += " --set " + s;
  cmd += " " + eo.asm_path + " --input " + (dir / "x.bin").string() + "@" + std::to_string(g.input_plain[0]) +
         " --output " + (dir / "y.bin").string() + "@" + std::to_string(g.output_addr(0)) + ":" +
         std::to_string(out.shape.numel() * batch) + " > " + (dir / "log.txt").string() + " 2>&1";
  r.status = std::system(cmd.c_str());
  std::ifstream f((dir / "y.bin").string(), std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  r.platform.assign(bytes.begin(), bytes.end());
  {
    std::ifstream log((dir / "log.txt").string());
    std::stringstream all;
    all << log.rdbuf();
    const std::string text = all.str();
    const auto at = text.find("completed after ");
    if (at != std::string::npos) r.cycles = std::atoll(text.c_str() + at + 16);
  }
  if (r.platform.size() == r.golden.size()) {
    // The first image's output against the FP32 reference.
    const std::vector<std::int8_t> first(r.platform.begin(), r.platform.begin() + out.shape.numel());
    const FTensor got = dequantize(g, g.outputs[0], from_hwc(out.shape, first));
    r.cosine_fp32 = cosine(got.data, ref.data);
    r.top1_fp32 = std::max_element(got.data.begin(), got.data.end()) - got.data.begin() ==
                  std::max_element(ref.data.begin(), ref.data.end()) - ref.data.begin();
  }
  bool same = r.platform.size() == r.golden.size();
  for (std::size_t i = 0; same && i < r.golden.size(); ++i) same = r.platform[i] == r.golden[i];
  if (r.status == 0 && !same && batch == 1) {
    // Name the first layer whose output differs from the golden model.
    const auto all = run_golden_all(g, {q});
    std::string dbg = bin_dir() + "/vp-run -q --chip " + chip + " " + eo.asm_path + " --input " +
                      (dir / "x.bin").string() + "@" + std::to_string(g.input_plain[0]);
    for (const Node& n : g.nodes) {
      const Value& v = g.val(n.out[0]);
      dbg += " --output " + (dir / (std::to_string(n.out[0]) + ".bin")).string() + "@" + std::to_string(v.buf.addr) +
             ":" + std::to_string(v.buf.bytes(v.shape));
    }
    if (std::system(dbg.c_str()) == 0) {
      for (const Node& n : g.nodes) {
        const Value& v = g.val(n.out[0]);
        std::ifstream vf((dir / (std::to_string(n.out[0]) + ".bin")).string(), std::ios::binary);
        std::vector<char> b((std::istreambuf_iterator<char>(vf)), std::istreambuf_iterator<char>());
        const auto want = to_hwc(all[static_cast<std::size_t>(n.out[0])]);
        const auto wp = v.buf.wp(v.shape);
        int bad = 0;
        for (std::int64_t h = 0; h < v.shape.h; ++h)
          for (std::int64_t w = 0; w < v.shape.w; ++w)
            for (std::int64_t c = 0; c < v.shape.c; ++c) {
              const auto got = b[static_cast<std::size_t>(((h + v.buf.pad) * wp + w + v.buf.pad) * v.shape.c + c)];
              bad += got != want[static_cast<std::size_t>((h * v.shape.w + w) * v.shape.c + c)];
            }
        if (bad) {
          ADD_FAILURE() << "first differing layer: " << n.name << " (" << n.op << "), " << bad << " of "
                        << v.shape.numel() << " values";
          break;
        }
      }
    }
  }
  if (r.status != 0) {
    std::ifstream log((dir / "log.txt").string());
    std::cerr << log.rdbuf();
  }
  if (r.status != 0 || !same) std::cerr << "kept " << dir.string() << "\n";
  else fs::remove_all(dir);
  return r;
}

void expect_exact(const RunResult& r) {
  ASSERT_EQ(r.status, 0);
  ASSERT_EQ(r.platform.size(), r.golden.size());
  int diff = 0;
  for (std::size_t i = 0; i < r.golden.size(); ++i) diff += r.platform[i] != r.golden[i];
  EXPECT_EQ(diff, 0) << "of " << r.golden.size() << " bytes";
}

TEST(EndToEnd, MlpOnSmallChip) { expect_exact(compile_and_run(mlp_model(), "small")); }
TEST(EndToEnd, CnnOnSmallChip) { expect_exact(compile_and_run(cnn_model(), "small")); }
// The residual Add is computed by the Conv feeding it (no layer of its own).
TEST(EndToEnd, ResidualOnSmallChip) {
  const RunResult r = compile_and_run(residual_model(), "small");
  expect_exact(r);
  EXPECT_GT(r.fused_adds, 0);
}
// Two crossbars per CU: column tiles of 3 and 4 row tiles span two CUs, whose
// partial sums travel over the NoC.
TEST(EndToEnd, TilesSplitAcrossCus) {
  expect_exact(compile_and_run(residual_model(), "small", {"chip.xbars_per_cu=2"}));
}
// ResNet-18 as torchvision shapes it (stem, 8 basic blocks, projection
// shortcuts, a 4608-row layer split over two CUs) on 64x64 images.
TEST(EndToEnd, ResNet18OnSidraY1) {
  const RunResult r = compile_and_run({"resnet18", resnet_onnx(18, 1000, 224)}, "sidra-y1");
  expect_exact(r);
  // INT8 with per-tensor activation scales over 20 layers: the logits keep
  // their direction (measured 0.9998 on this model) and the top class.
  std::cout << "ResNet-18 cosine vs FP32: " << r.cosine_fp32 << ", top-1 " << (r.top1_fp32 ? "same" : "differs") << "\n";
  EXPECT_GT(r.cosine_fp32, 0.99);
}
TEST(EndToEnd, MixedOpsOnSmallChip) { expect_exact(compile_and_run(mixed_model(), "small")); }
// A squeeze-and-excitation gate is one vector for the whole map: its cores
// load and widen it once a row (after the row's tokens), and each pixel
// loads only the map's channels. Exact on one core and on several (strips
// of the map), and in a stream.
TEST(EndToEnd, GateIsLoadedOnceARow) {
  const std::vector<std::pair<std::string, int>> runs{{"small", 1}, {"sidra-y1", 1}, {"sidra-y1", 3}};
  for (const auto& [chip, batch] : runs) {
    SCOPED_TRACE(chip + " batch " + std::to_string(batch));
    const RunResult r = compile_and_run(se_model(), chip, {}, 5, {}, batch);
    expect_exact(r);
    EXPECT_EQ(r.mul_loads_per_pixel, 1);
  }
}
// A Concat of up to seven inputs walks its share once, each pixel taking
// every input's channels: a row is whole, and handed over, after one step.
// One of eight inputs (more than the loop's pointers) takes a pass per
// input. Alone and over several cores, each equal to the golden model.
TEST(EndToEnd, AConcatOfUpToSevenInputsWritesWholeRows) {
  OnnxBuilder b("concats", 13, 16);
  auto x = b.input("x", {1, 4, 8, 8});
  auto p = b.relu(b.conv(x, 4, 3, 3, 1, 1));
  auto q = b.relu(b.conv(x, 4, 5, 1, 1, 0));
  auto u = b.relu(b.conv(x, 4, 2, 3, 1, 1));
  auto c3 = b.concat({p, q, u});
  auto v = b.relu(b.conv(c3, 10, 6, 3, 1, 1));
  auto c4 = b.concat({v, p, q, u});
  auto w = b.relu(b.conv(c4, 16, 4, 1));
  auto c8 = b.concat({w, p, q, u, v, w, p, q});
  b.output(b.relu(b.conv(c8, 32, 8, 1)));
  const TestModel m{"concats", b.serialize()};
  for (int rep : {1, 3}) {
    SCOPED_TRACE("--replicate " + std::to_string(rep));
    const RunResult res = compile_and_run(m, "small", {}, 5, MapOptions{rep});
    expect_exact(res);
    ASSERT_EQ(res.concat_loads_per_loop.size(), 3u);
    EXPECT_EQ(res.concat_loads_per_loop.at(3), 3.0);
    EXPECT_EQ(res.concat_loads_per_loop.at(4), 4.0);
    EXPECT_EQ(res.concat_loads_per_loop.at(8), 1.0);
  }
}
// The table activations, alone and shared among cores: each a vlut of the
// table the golden model reads. Each of activations_model's seven reads a
// Conv's output that nothing else reads, so each runs in that Conv's cores
// (fuse_tables) and none has cores of its own; a table whose Conv output
// another layer also reads keeps its own.
TEST(EndToEnd, TableActivationsOnSmallChip) {
  {
    OnnxBuilder b("shared_table", 13, 14);
    auto c = b.conv(b.input("x", {1, 4, 8, 8}), 4, 6, 3, 1, 1);
    b.output(b.conv(b.concat({c, b.sigmoid(c)}), 12, 4, 1));
    const RunResult r = compile_and_run({"shared_table", b.serialize()}, "small");
    expect_exact(r);
    EXPECT_EQ(r.fused_tables, 0);
    EXPECT_EQ(r.table_layers, 1);
  }
  for (int rep : {1, 2, kReplicateAuto}) {
    SCOPED_TRACE("--replicate " + std::to_string(rep));
    const RunResult r = compile_and_run(activations_model(), "small", {}, 5, MapOptions{rep});
    expect_exact(r);
    EXPECT_EQ(r.fused_tables, 7);
    EXPECT_EQ(r.table_layers, 0);
    std::cout << "activations, --replicate " << (rep == kReplicateAuto ? std::string("auto") : std::to_string(rep)) << ": cosine vs FP32 " << r.cosine_fp32 << "\n";
    EXPECT_GT(r.cosine_fp32, 0.98);
  }
}

// Softmax on the chip (max, exponentials by table, sum, recip, vrqs):
// byte for byte the golden model's, alone and shared among cores.
// Each model on the small chip, one core per layer and replicated as the
// cost model chooses: the golden model's bytes, and within cosine 0.98 of FP32.
void expect_exact_on_small_chip(const std::vector<TestModel>& models) {
  for (const TestModel& m : models)
    for (int rep : {1, kReplicateAuto}) {
      SCOPED_TRACE(m.name + " --replicate " + std::to_string(rep));
      const RunResult r = compile_and_run(m, "small", {}, 5, MapOptions{rep});
      expect_exact(r);
      std::cout << m.name << ": cosine vs FP32 " << r.cosine_fp32 << "\n";
      EXPECT_GT(r.cosine_fp32, 0.98);
    }
}

TEST(EndToEnd, SoftmaxOnSmallChip) { expect_exact_on_small_chip({softmax_model(), softmax_map_model()}); }

// Attention on the digital path: q @ k^T and scores @ v as MatMuls of two
// activations on the vector unit, the causal Softmax between them; byte for
// byte the golden model's, on one core per layer and shared among cores.
TEST(EndToEnd, AttentionOnSmallChip) {
  expect_exact_on_small_chip({attention_model(true), attention_model(false), attention_model(true, 1)});
  // A stream of three sequences per start: each core loads all of the keys
  // and values again for every sequence.
  expect_exact(compile_and_run(attention_model(true), "small", {}, 5, MapOptions{}, 3));
}

// A vision transformer's tokens: the patches' map read as rows of a [T, C]
// matrix, the class token and the position embedding preloaded in global
// memory, the Concat along the rows, the class token's row read alone;
// byte for byte the golden model's, in one copy and replicated, one image
// and a stream of three.
TEST(EndToEnd, VisionTransformerTokensOnSmallChip) {
  expect_exact_on_small_chip({vit_tokens_model()});
  expect_exact(compile_and_run(vit_tokens_model(), "small", {}, 5, MapOptions{}, 3));
}

// Attention whose keys or values do not fit a core's scratchpad as int32
// (a vision transformer's 197 tokens; here 128 of 64 channels): the operand
// kept as int8 and widened row by row (32 KiB), then its heads in groups
// over several cores, each writing its heads' part of every output row
// (the small chip's 16 KiB); byte for byte the golden model's either way.
TEST(EndToEnd, AttentionInGroupsOfHeads) {
  const TestModel m = wide_attention_model(128, 64, 4);
  Graph g = import_onnx_bytes(m.onnx, m.name);
  canonicalize(g);
  for (const auto& [kib, groups] : {std::pair<int, int>{32, 1}, {16, 2}}) {
    SCOPED_TRACE(std::to_string(kib) + " KiB scratchpad");
    const std::vector<std::string> sets{"cu.spad_kib=" + std::to_string(kib)};
    const Target t = load_target("small", sets);
    for (const Node& n : g.nodes)
      if (n.op == OpKind::MatMul) {
        EXPECT_EQ(matmul_head_groups(g, n, t), groups);
      }
    for (int rep : {1, kReplicateAuto}) expect_exact(compile_and_run(m, "small", sets, 5, MapOptions{rep}));
  }
}

// Attention with a constant added to its scores, a banded mask of -100s
// and a bias inside the band (as Swin's windows add theirs): the platform
// runs the bias as a preloaded map and the mask as the Softmax's second
// input, equal to the golden model in one copy and replicated.
TEST(EndToEnd, AttentionWithABandMaskAndABias) {
  const int T = 16, c = 32;
  std::vector<float> add(static_cast<std::size_t>(T * T));
  for (int t = 0; t < T; ++t)
    for (int u = 0; u < T; ++u)
      add[static_cast<std::size_t>(t * T + u)] = std::abs(t - u) > 3 ? -100.f : 0.5f - 0.125f * float(std::abs(t - u));
  OnnxBuilder b("band_attention", 17, 29);
  auto x = b.gemm(b.input("x", {T, 16}), 16, c);
  b.output(b.gemm(b.attention_plus(x, T, c, 4, add), c, 8));
  const TestModel m{"band_attention", b.serialize()};
  for (int rep : {1, kReplicateAuto}) expect_exact(compile_and_run(m, "small", {}, 5, MapOptions{rep}));
}

// Replication: every layer in N copies (each a share of the output pixels,
// partial rows included), or the cost model's choice; operators without
// weights share their rows or pixels among as many cores.
TEST(EndToEnd, ReplicatedSchedulesOnSmallChip) {
  for (const TestModel& m : {cnn_model(), residual_model(), mixed_model()})
    for (int rep : {1, 2, 3, kReplicateAuto}) {
      SCOPED_TRACE(m.name + " --replicate " + std::to_string(rep));
      const RunResult r = compile_and_run(m, "small", {}, 5, MapOptions{rep});
      expect_exact(r);
      if (rep == 1) EXPECT_EQ(r.max_replicas, 1);
      else EXPECT_GT(r.max_replicas, 1);
    }
}
// Copies of a layer whose column tiles span two CUs: each copy's helper CUs
// send their partial sums to that copy's owner.
TEST(EndToEnd, ReplicatedSplitTilesAcrossCus) {
  for (int rep : {2, kReplicateAuto}) {
    SCOPED_TRACE("--replicate " + std::to_string(rep));
    const RunResult r = compile_and_run(residual_model(), "small", {"chip.xbars_per_cu=2"}, 5, MapOptions{rep});
    expect_exact(r);
    EXPECT_TRUE(r.split_tile);
    EXPECT_GT(r.max_replicas, 1);
  }
}
// Shared loads: with two crossbars per CU the 3x3 Convs' column tiles span
// two CUs, so each copy's CUs sit in one cluster and its first CU brings
// every row step's input rows into a slot of that cluster's SRAM, from
// which both copy them. One image and a stream of three, with the
// activations in the SRAMs' window and in global memory, equal the golden
// model, and vp-run --check-races finds every access to a slot ordered by
// the copy's messages. Off, no copy shares and each CU loads its own rows.
TEST(EndToEnd, CopiesSpanningCusShareTheirRowLoadsThroughTheirClusterSram) {
  for (bool window : {true, false})
    for (int batch : {1, 3})
      for (bool on : {true, false}) {
        SCOPED_TRACE(std::string(window ? "sram" : "gmem") + " batch " + std::to_string(batch) +
                     (on ? " shared" : " own loads"));
        std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4", "chip.xbars_per_cu=2"};
        if (!window) sets.push_back("cluster.sram.global_base_mib=0");
        MapOptions mo{2, true};
        mo.batch = batch;
        mo.shared_loads = on;
        const RunResult r = compile_and_run(residual_model(), "small", sets, 5, mo, batch);
        expect_exact(r);
        EXPECT_TRUE(r.split_tile);
        if (on) {
          EXPECT_GT(r.shared_copies, 1);
          EXPECT_TRUE(r.shared_in_one_cluster);
        } else {
          EXPECT_EQ(r.shared_copies, 0);
        }
      }
}
// The same with whole tiles: 32 output channels take two column tiles of
// two crossbars each, a CU apiece, so a copy's second CU is no helper and
// only the slot's marks order its copies out of the slot before the first
// CU fills it again (the wait before each mark is what the race check
// holds to).
TEST(EndToEnd, CopiesOfWholeTilesShareTheirRowLoads) {
  OnnxBuilder b("wide", 13, 16);
  auto x = b.input("x", {1, 8, 8, 8});
  x = b.relu(b.conv(x, 8, 32, 3, 1, 1));
  b.output(b.relu(b.conv(x, 32, 8, 1)));
  const TestModel wide{"wide", b.serialize()};
  for (int batch : {1, 3}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    MapOptions mo{2, true};
    mo.batch = batch;
    const RunResult r =
        compile_and_run(wide, "small", {"chip.clusters=16", "chip.mesh_cols=4", "chip.xbars_per_cu=2"}, 5, mo, batch);
    expect_exact(r);
    EXPECT_FALSE(r.split_tile);
    EXPECT_GT(r.shared_copies, 1);
    EXPECT_TRUE(r.shared_in_one_cluster);
  }
}
// Rows ahead (--rows-ahead on; emit_loops.h, RowsAhead): each row of a
// Conv or pooling whose CU loads its own line buffer takes the next row's
// tokens and loads that row into the buffer's other half before it
// computes, and a Conv with a fused Add and grouped lanes brings the next
// row's residual pixels with them. One image and a stream of three, with
// the activations in the SRAMs' window and in global memory, equal the
// golden model, and vp-run --check-races finds every load ordered by the
// writers' tokens and every overwrite by the readers' releases.
TEST(EndToEnd, RowsAheadKeepOneImageAndStreamsExact) {
  OnnxBuilder b("block", 13, 19);
  auto x = b.input("x", {1, 8, 8, 32});
  x = b.maxpool(b.relu(b.conv(x, 8, 16, 3, 1, 1)), 3, 1, 1);
  auto y = b.relu(b.conv(x, 16, 16, 3, 1, 1));
  y = b.conv(y, 16, 16, 3, 1, 1);
  x = b.relu(b.add(y, x));
  b.output(b.flatten(b.global_avgpool(x)));
  const TestModel block{"block", b.serialize()};
  int residual = 0;
  // Five copies of an 8-row map: each copy's pixels a block of rows, its
  // first and last partial (runs of one row, which load no row ahead).
  for (const TestModel& m : {block, cnn_model(), residual_model()})
    for (bool window : {true, false})
      for (int batch : {1, 3})
        for (int rep : {2, 5}) {
        SCOPED_TRACE(m.name + (window ? " sram" : " gmem") + " batch " + std::to_string(batch) + " --replicate " +
                     std::to_string(rep));
        // Twelve crossbars per CU: the block's 3x3 Convs take three, so a
        // CU fires several pixels at once (lanes) and holds every channel.
        std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4", "chip.xbars_per_cu=12"};
        if (!window) sets.push_back("cluster.sram.global_base_mib=0");
        MapOptions mo{rep, true};
        mo.batch = batch;
        const RunResult r = compile_and_run(m, "small", sets, 5, mo, batch, true, true);
        expect_exact(r);
        if (rep == 2) {
          EXPECT_GT(r.ahead_loops, 0);
        }
        residual += r.residual_ahead;
      }
  EXPECT_GT(residual, 0);
}

// The small chip on a 4x4 mesh, its activations in the SRAMs' window or,
// without it, in global memory.
std::vector<std::string> mesh_sets(bool window) {
  std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4"};
  if (!window) sets.push_back("cluster.sram.global_base_mib=0");
  return sets;
}
std::string run_name(const TestModel& m, bool window, int batch, int rep) {
  return m.name + (window ? " sram" : " gmem") + " batch " + std::to_string(batch) + " --replicate " + std::to_string(rep);
}

// Small maps at a granule's pitch (vp-cc --row-pitch; plan_memory): each
// row at the start of a window granule of its own, so the rows lie in as
// many clusters' SRAMs. Every reader and writer walks them by the buffer's
// row pitch: one image and streams (whose second buffers take the pitch
// too), copies in strips and in blocks of pixels, windows from line
// buffers and gathered pixel by pixel, residuals, poolings, Concats and
// the padded input's copy. Without the window nothing is pitched.
TEST(EndToEnd, SmallMapsAtGranulePitchStayExact) {
  int pitched = 0;
  for (const TestModel& m : {cnn_model(), residual_model(), mixed_model()})
    for (bool window : {true, false})
      for (int batch : {1, 3})
        for (int rep : {2, kReplicateAuto}) {
          SCOPED_TRACE(run_name(m, window, batch, rep));
          MapOptions mo{rep, true};
          mo.batch = batch;
          const RunResult r = compile_and_run(m, "small", mesh_sets(window), 5, mo, batch, true, batch > 1, true);
          expect_exact(r);
          EXPECT_TRUE(r.pitch_rows_whole);
          if (!window) {
            EXPECT_EQ(r.pitched, 0);
          }
          pitched += r.pitched;
        }
  EXPECT_GT(pitched, 0);
}

// Both placements (one layer per CU, all at once; CUs shared by layers),
// with the activations in the cluster SRAMs' global window or all in global
// memory, fixed and chosen copies: the row hand-over keeps every schedule
// exact. A 16-cluster variant of the small chip has the CUs for the
// pipelined placement.
TEST(EndToEnd, PipelinedAndSharedPlacementsInSramAndGlobalMemory) {
  const std::vector<std::string> big = {"chip.clusters=16", "chip.mesh_cols=4"};
  for (const TestModel& m : {cnn_model(), residual_model(), mixed_model()})
    for (bool pipeline : {true, false})
      for (bool window : {true, false})
        for (int rep : {2, kReplicateAuto}) {
          SCOPED_TRACE(m.name + (pipeline ? " pipeline" : " shared") + (window ? " sram" : " gmem") + " --replicate " +
                       std::to_string(rep));
          std::vector<std::string> sets = big;
          if (!window) sets.push_back("cluster.sram.global_base_mib=0");
          MapOptions mo{rep, pipeline};
          const RunResult r = compile_and_run(m, "small", sets, 5, mo);
          expect_exact(r);
          EXPECT_EQ(r.core_per_layer, pipeline);
          if (window) EXPECT_GT(r.on_chip, 0);
          else EXPECT_EQ(r.on_chip, 0);
        }
}
// Lanes: copies of a CU's load side by side on its crossbars, each on its
// own pixel of a group (the rows' last group partial when the width is not
// a multiple), fired at once; with line buffers that keep the rows two
// consecutive output rows share, and residual Adds fused into their Conv.
// Two copies per layer, so the lanes shorten every stage and stay.
TEST(EndToEnd, LanesOnPipelinedPlacement) {
  const std::vector<std::string> big = {"chip.clusters=16", "chip.mesh_cols=4"};
  for (const TestModel& m : {cnn_model(), residual_model(), mixed_model()})
    for (int lanes : {1, 2, 3, 0})
      for (bool concurrent : {true, false}) {
        SCOPED_TRACE(m.name + " --lanes " + std::to_string(lanes) + (concurrent ? "" : " one mvm at a time"));
        std::vector<std::string> sets = big;
        if (!concurrent) sets.push_back("cu.xbar.concurrent_mvm=false");
        MapOptions mo;
        mo.replicate = 2;
        mo.lanes = lanes;
        const RunResult r = compile_and_run(m, "small", sets, 5, mo);
        expect_exact(r);
        if (lanes == 1) {
          EXPECT_EQ(r.max_lanes, 1);
        } else {
          EXPECT_GT(r.max_lanes, 1);
        }
        if (lanes > 1) {
          EXPECT_LE(r.max_lanes, lanes);
        }
      }
}
// Lanes on CUs that each compute some of a layer's channels: a grouped
// convolution's column tiles read different windows, so each has a CU of
// its own with crossbars to spare; every lane stores its own pixel's
// channels and reads its own channels of the residual Add fused into it.
TEST(EndToEnd, LanesOnCusWithSomeOfTheChannels) {
  OnnxBuilder b("grouped_residual", 13, 21);
  auto x = b.input("x", {1, 16, 8, 8});
  auto a = b.conv(x, 16, 32, 1);
  auto y = b.conv(x, 16, 32, 3, 1, 1, 2);
  b.output(b.relu(b.add(y, a)));
  const TestModel m{"grouped_residual", b.serialize()};
  for (int lanes : {2, 0}) {
    SCOPED_TRACE("--lanes " + std::to_string(lanes));
    MapOptions mo;
    mo.replicate = 2;
    mo.lanes = lanes;
    const RunResult r = compile_and_run(m, "small", {"chip.clusters=16", "chip.mesh_cols=4"}, 5, mo);
    expect_exact(r);
    EXPECT_TRUE(r.lanes_of_some_channels);
    EXPECT_EQ(r.fused_adds, 1);
  }
}
// A stream of images (vp-cc --batch): every core loops over them, the
// buffers are the same for each, and readers release a writer's rows
// before it overwrites them with the next image. Distinct images, both
// placements, activations on chip and in global memory: every byte of
// every image equals the golden model.
TEST(EndToEnd, StreamedImagesOnBothPlacements) {
  const std::vector<std::string> big = {"chip.clusters=16", "chip.mesh_cols=4"};
  for (const TestModel& m : {mlp_model(), cnn_model(), residual_model(), mixed_model()})
    for (bool pipeline : {true, false})
      for (bool window : {true, false}) {
        SCOPED_TRACE(m.name + (pipeline ? " pipeline" : " shared") + (window ? " sram" : " gmem"));
        std::vector<std::string> sets = big;
        if (!window) sets.push_back("cluster.sram.global_base_mib=0");
        MapOptions mo{2, pipeline};
        expect_exact(compile_and_run(m, "small", sets, 5, mo, 3));
      }
}
// The stream overlaps images: on the pipelined placement four images in
// one start take well under four single-image runs.
TEST(EndToEnd, StreamedImagesOverlapInThePipeline) {
  const std::vector<std::string> big = {"chip.clusters=16", "chip.mesh_cols=4"};
  for (const TestModel& m : {cnn_model(), residual_model()}) {
    SCOPED_TRACE(m.name);
    const RunResult one = compile_and_run(m, "small", big, 5, MapOptions{2, true}, 1);
    const RunResult four = compile_and_run(m, "small", big, 5, MapOptions{2, true}, 4);
    expect_exact(four);
    ASSERT_GT(one.cycles, 0);
    ASSERT_GT(four.cycles, 0);
    EXPECT_LT(four.cycles, 4 * one.cycles * 9 / 10) << "one image " << one.cycles << " cycles, four " << four.cycles;
  }
}
// A stream's tensors in two buffers where memory has room (plan_memory,
// Buffer::alt), the images alternating between them and each core's image
// loop emitted twice over: every image of an odd and an even stream equals
// the golden model, in the SRAMs and in global memory, with no access
// racing another. A writer then overwrites rows of two images back, not of
// the last: the mlp's layers, one row each, waited for their readers to
// finish the last image before writing the next (the pair in turn, not
// side by side), and each image past the second now takes under 80 % of
// the cycles it took with one buffer per tensor (the run's cycles at five
// images less those at two, over three: the weights' loading cancels).
TEST(EndToEnd, StreamsHoldTheirTensorsInTwoBuffers) {
  const std::vector<std::string> big = {"chip.clusters=16", "chip.mesh_cols=4"};
  for (const TestModel& m : {mlp_model(), cnn_model(), residual_model()})
    for (bool window : {true, false}) {
      std::map<std::pair<bool, int>, std::int64_t> cycles;  // (two buffers, batch)
      for (int batch : {2, 5}) {
        SCOPED_TRACE(m.name + (window ? " sram" : " gmem") + " batch " + std::to_string(batch));
        std::vector<std::string> sets = big;
        if (!window) sets.push_back("cluster.sram.global_base_mib=0");
        const RunResult two = compile_and_run(m, "small", sets, 5, MapOptions{2, true}, batch);
        expect_exact(two);
        EXPECT_TRUE(two.twin_code);
        EXPECT_GT(two.twins, 0);
        const RunResult one = compile_and_run(m, "small", sets, 5, MapOptions{2, true}, batch, false);
        expect_exact(one);
        EXPECT_FALSE(one.twin_code);
        EXPECT_EQ(one.twins, 0);
        ASSERT_GT(one.cycles, 0);
        cycles[{true, batch}] = two.cycles;
        cycles[{false, batch}] = one.cycles;
      }
      const std::int64_t two = cycles[{true, 5}] - cycles[{true, 2}], one = cycles[{false, 5}] - cycles[{false, 2}];
      if (m.name == "mlp") {
        EXPECT_LT(two * 5, one * 4) << "three more images: " << two << " cycles with two buffers, " << one << " with one";
      }
    }
}
// A stream whose maps do not fit the SRAMs holds the values read only by
// 1x1 Convs and residual Adds as rings of rows (plan_memory): 12 of a 24-row
// map, row h where row h - 12 was, written once its readers have read that
// row (row_release.cpp). Every image equals the golden model, with one copy
// per layer and with copies dealt rows in turn.
TEST(EndToEnd, RingsOfRowsHoldAStreamWhoseMapsDoNotFit) {
  OnnxBuilder b("bottleneck", 13, 24);
  auto x = b.input("x", {1, 8, 24, 24});
  auto s = b.relu(b.conv(x, 8, 16, 3, 1, 1));
  auto p = b.relu(b.conv(s, 16, 16, 1));
  auto q = b.conv(p, 16, 32, 1);
  auto d = b.conv(s, 16, 32, 1);
  b.output(b.global_avgpool(b.relu(b.add(q, d))));
  const TestModel m{"bottleneck", b.serialize()};
  const std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4", "cluster.sram_kib=3",
                                         "cluster.sram.interleave_bytes=1024"};
  for (int rep : {1, 3}) {
    SCOPED_TRACE("--replicate " + std::to_string(rep));
    const RunResult r = compile_and_run(m, "small", sets, 5, MapOptions{rep, true}, 3);
    expect_exact(r);
    EXPECT_EQ(r.rings, 3);  // s, p, and the Add's input its Conv does not compute
  }
}
// Rings for values read through line buffers (plan_memory's ring_rows_of,
// Graph::bordered_rings): a 3x3 Conv with a border and a max pooling with
// one read rings of 12 rows of 24-row maps, the border rows above and below
// the ring and never written, each row load finding where the ring holds
// its row (emit_loops.h, ring_address), a copy's windows wrapping past the
// ring's last row. Every image equals the golden model, with one copy per
// layer and with copies in strips, and vp-run --check-races finds every
// row's write ordered after the reads of the row it overwrites; planned
// without them (plain rings only) the same values stay whole.
TEST(EndToEnd, RingsOfRowsHoldBorderedMapsReadByWindows) {
  OnnxBuilder b("windows", 13, 25);
  auto x = b.input("x", {1, 8, 24, 24});
  auto s = b.relu(b.conv(x, 8, 16, 1));
  auto t = b.relu(b.conv(s, 16, 16, 3, 1, 1));
  auto u = b.relu(b.conv(t, 16, 16, 3, 1, 1));
  auto p = b.maxpool(u, 3, 2, 1);
  b.output(b.global_avgpool(b.conv(p, 16, 8, 1)));
  const TestModel m{"windows", b.serialize()};
  const std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4", "cluster.sram_kib=2",
                                         "cluster.sram.interleave_bytes=1024"};
  for (int rep : {1, 3}) {
    SCOPED_TRACE("--replicate " + std::to_string(rep));
    const RunResult r = compile_and_run(m, "small", sets, 5, MapOptions{rep, true}, 3);
    expect_exact(r);
    EXPECT_EQ(r.bordered_rings, 3);  // s and t, each read by a bordered 3x3 window, u by the pooling
    EXPECT_GE(r.rings, 3);
    EXPECT_FALSE(r.border_shared);
  }
}

// Two bottleneck blocks on a 12x12 map: 1x1, 3x3 and 1x1 Convs, the last
// computing the residual Add, the second block's first Conv reading the
// first block's output.
TestModel bottleneck_model() {
  OnnxBuilder b("bottlenecks", 13, 27);
  auto x = b.input("x", {1, 16, 12, 12});
  for (int k = 0; k < 2; ++k) {
    auto y = b.relu(b.conv(x, 16, 8, 1));
    y = b.relu(b.conv(y, 8, 8, 3, 1, 1));
    x = b.relu(b.add(b.conv(y, 8, 16, 1), x));
  }
  b.output(b.global_avgpool(x));
  return {"bottlenecks", b.serialize()};
}

// Handed rows (handed_rows.h): the second block's first 1x1 Conv takes
// each row of the first block's output (stored by the Conv that computes
// the residual Add) from its writer's copy through their cluster's SRAM
// instead of over the mesh. In a stream of three images, one copy each and
// in strips, every image equals the golden model, and vp-run
// --check-races finds the slot's writes and reads ordered by the pair's
// tokens and marks; without the pairs the reader loads its rows.
TEST(EndToEnd, ABlockOutputIsHandedToTheNext1x1ConvThroughItsClustersSram) {
  const TestModel m = bottleneck_model();
  const std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4"};
  for (int rep : {1, 3})
    for (bool hand : {false, true}) {
      SCOPED_TRACE("--replicate " + std::to_string(rep) + (hand ? " --hand-rows on" : " --hand-rows off"));
      MapOptions mo{rep, true};
      mo.batch = 3;
      mo.hand_rows = hand;
      const RunResult r = compile_and_run(m, "small", sets, 5, mo, 3, true, true);
      expect_exact(r);
      EXPECT_EQ(r.handed, hand ? 1 : 0);
      EXPECT_TRUE(r.handed_beside);
      EXPECT_EQ(r.slot_stores > 0, hand);
    }
}

// The link balance (balance_links.h) on the stream of bottleneck blocks
// above, with handed rows: CUs change clusters, each pair stays in one,
// every image equals the golden model, and vp-run --check-races finds
// every access ordered.
TEST(EndToEnd, CUsTradedBetweenClustersRunTheSameStream) {
  const TestModel m = bottleneck_model();
  const std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4"};
  for (int rep : {2, 3}) {
    SCOPED_TRACE("--replicate " + std::to_string(rep));
    MapOptions mo{rep, true};
    mo.batch = 3;
    mo.hand_rows = true;
    const RunResult r = compile_and_run(m, "small", sets, 5, mo, 3, true, true, false, true);
    expect_exact(r);
    EXPECT_GT(r.moved, 0);
    EXPECT_GT(r.handed, 0);
    EXPECT_TRUE(r.handed_beside);
  }
}

// Late row ends (RowsAhead::late): each row of a Conv that loads its rows
// ahead waits for its stores and sends its tokens once the next row's
// first MVMs are fired, then takes the row after's tokens and loads. On
// bottleneck blocks (handed rows, the residual Add's pixels loaded ahead),
// the residual stack and the small CNN (lanes, one lane software-
// pipelined, one copy and several in strips and blocks), in SRAM and in
// global memory, one image and every image of a stream of three equal
// the golden model, and vp-run --check-races finds every load after its
// writer's tokens and every overwrite after its readers' releases.
TEST(EndToEnd, LateRowEndsKeepStreamsExact) {
  int late = 0, pipelined = 0;
  for (const TestModel& m : {bottleneck_model(), residual_model(), cnn_model()})
    for (bool window : {true, false})
      for (int batch : {1, 3})
        for (int rep : {1, 3}) {
          SCOPED_TRACE(run_name(m, window, batch, rep));
          MapOptions mo{rep, true};
          mo.batch = batch;
          mo.hand_rows = m.name == "bottlenecks" && batch > 1;
          const RunResult r = compile_and_run(m, "small", mesh_sets(window), 5, mo, batch, true, true, false, false, true);
          expect_exact(r);
          if (rep == 1) {
            EXPECT_GT(r.late_loops, 0);  // one copy walks every row
          }
          EXPECT_LE(r.late_loops, r.ahead_loops);  // only rows loaded ahead end late
          late += r.late_loops;
          pipelined += r.pipelined;
        }
  EXPECT_GT(late, 0);
  EXPECT_GT(pipelined, 0);
}

// Strips of two or three pixels: copies that share a map's columns read
// line buffers of their strip plus the windows' overlap, write the strip's
// pixels of each row, and hand rows over to readers cut differently; with
// tiles split over CUs (partial sums), lanes, and a stream of images.
TEST(EndToEnd, NarrowStripsOnPipelinedPlacement) {
  const std::vector<std::string> big = {"chip.clusters=16", "chip.mesh_cols=4"};
  struct Case {
    TestModel m;
    std::vector<std::string> sets;
    int replicate;
  };
  std::vector<std::string> split = big;
  split.push_back("chip.xbars_per_cu=2");
  for (const Case& k : {Case{cnn_model(), big, 6}, Case{cnn_model(), big, 4}, Case{residual_model(), big, 2},
                        Case{residual_model(), split, 2}})
    for (int batch : {1, 3}) {
      SCOPED_TRACE(k.m.name + " --replicate " + std::to_string(k.replicate) + " --batch " + std::to_string(batch) +
                   (k.sets.size() > 2 ? " split tiles" : ""));
      const RunResult r = compile_and_run(k.m, "small", k.sets, 5, MapOptions{k.replicate, true}, batch);
      expect_exact(r);
      EXPECT_GT(r.min_strip, 0);
      EXPECT_LT(r.min_strip, 4);
      EXPECT_TRUE(r.pipelined);
      if (k.sets.size() > 2) {
        EXPECT_TRUE(r.split_tile);
      }
    }
}
// One image: a layer's CUs sit in distinct clusters (their row loads come
// in through distinct router ports), and values that did not fit the SRAMs
// take the ranges of values finished before their writer starts; the
// writer waits for a release from every core that used them. A chain of
// 1x1 convolutions whose maps fill 16 KiB of SRAM twice over: the last
// layers reuse the first layers' ranges, byte for byte equal to the golden
// model; a stream reuses nothing and keeps each layer's CUs together.
TEST(EndToEnd, SramReusedByLaterLayersForOneImage) {
  OnnxBuilder b("chain", 13, 15);
  auto x = b.input("x", {1, 64, 4, 4});
  for (int i = 0; i < 24; ++i) x = b.relu(b.conv(x, 64, 64, 1));
  b.output(x);
  const TestModel chain{"chain", b.serialize()};
  const std::vector<std::string> sets = {"chip.clusters=16", "chip.mesh_cols=4", "cluster.sram_kib=1", "cluster.sram.interleave_bytes=256"};
  const RunResult one = compile_and_run(chain, "small", sets, 5, MapOptions{1, true}, 1);
  expect_exact(one);
  EXPECT_TRUE(one.core_per_layer);
  EXPECT_GT(one.reuse_orders, 0u);
  EXPECT_TRUE(one.layers_spread);
  MapOptions stream{1, true};
  stream.batch = 3;
  const RunResult three = compile_and_run(chain, "small", sets, 5, stream, 3);
  expect_exact(three);
  EXPECT_EQ(three.reuse_orders, 0u);
  // 3x3 convolutions read bordered maps: those ranges are never reused.
  OnnxBuilder pb("padded_chain", 13, 15);
  auto px = pb.input("x", {1, 16, 8, 8});
  for (int i = 0; i < 24; ++i) px = pb.relu(i % 2 ? pb.conv(px, 16, 16, 3, 1, 1) : pb.conv(px, 16, 16, 1));
  pb.output(px);
  const RunResult padded = compile_and_run({"padded_chain", pb.serialize()}, "small", sets, 5, MapOptions{1, true}, 1);
  expect_exact(padded);
  EXPECT_GT(padded.reuse_orders, 0u);
  EXPECT_FALSE(padded.border_shared);
  EXPECT_FALSE(one.border_shared);
  // A residual block and a CNN with padded maps, tiles split over CUs.
  std::vector<std::string> split = {"chip.clusters=16", "chip.mesh_cols=4", "cluster.sram_kib=1", "cluster.sram.interleave_bytes=256", "chip.xbars_per_cu=2"};
  for (const TestModel& m : {residual_model(), cnn_model()}) {
    SCOPED_TRACE(m.name);
    expect_exact(compile_and_run(m, "small", split, 5, MapOptions{2, true}, 1));
  }
}
// A stream compiled as one (MapOptions::batch) takes strips of at least 4
// pixels, a single image strips of 2.
TEST(EndToEnd, StreamsTakeWiderStrips) {
  const std::vector<std::string> big = {"chip.clusters=16", "chip.mesh_cols=4"};
  MapOptions one{6, true}, stream{6, true};
  stream.batch = 3;
  const RunResult a = compile_and_run(cnn_model(), "small", big, 5, one, 1);
  const RunResult b = compile_and_run(cnn_model(), "small", big, 5, stream, 3);
  expect_exact(a);
  expect_exact(b);
  EXPECT_EQ(a.min_strip, 2);
  EXPECT_GE(b.min_strip, 4);
}
TEST(EndToEnd, LanesOptionParsing) {
  EXPECT_EQ(parse_lanes("auto"), 0);
  EXPECT_EQ(parse_lanes("1"), 1);
  EXPECT_EQ(parse_lanes("16"), 16);
  for (const char* bad : {"0", "-2", "2x", "", "many"}) EXPECT_THROW(parse_lanes(bad), CompileError) << bad;
}
TEST(EndToEnd, ReplicateOptionParsing) {
  EXPECT_EQ(parse_replicate("auto"), kReplicateAuto);
  EXPECT_EQ(parse_replicate("none"), 1);
  EXPECT_EQ(parse_replicate("4"), 4);
  for (const char* bad : {"0", "-2", "2x", "", "many"}) EXPECT_THROW(parse_replicate(bad), CompileError) << bad;
}

}  // namespace
}  // namespace vp::cc
