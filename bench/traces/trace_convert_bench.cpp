// Conversion throughput on a generated trace (default 10 million lines):
// writing it with TraceWriter, reading it, and converting it to each output.
// Every phase runs in a child process so its peak RSS is its own; the
// lighter phases are repeated and the median reported.
//
//   bench_trace_convert [--lines N] [--repeat R] [--dir DIR] [--keep]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "vp/trace/convert.hpp"
#include "vp/trace/reader.hpp"
#include "vp/trace/writer.hpp"

namespace fs = std::filesystem;
using namespace vp::trace;

namespace {

// A chip-shaped workload: 4 clusters x 8 CUs x 5 units plus the control
// processor, 64 layers, instructions issued round-robin across units (so the
// file is not in start order, as a decoupled simulation writes it).
void generate(const std::string& path, std::uint64_t lines) {
  TraceWriter w(path);
  std::mt19937_64 rng(42);
  const Unit units[] = {Unit::Scalar, Unit::Xbar, Unit::Vector, Unit::Dma, Unit::Noc};
  const char* mnem[] = {"addi", "mvm", "vmax", "dma_ld", "send"};
  constexpr int kClusters = 4, kCus = 8, kUnits = 5;
  std::vector<std::int64_t> clock(kClusters * kCus * kUnits, 0);
  char layer_name[32];
  for (std::uint64_t k = 0; k < lines; ++k) {
    const std::size_t slot = rng() % clock.size();
    const int unit = static_cast<int>(slot % kUnits);
    const int cu = static_cast<int>(slot / kUnits % kCus);
    const int cluster = static_cast<int>(slot / kUnits / kCus);
    const std::int64_t start = clock[slot] + static_cast<std::int64_t>(rng() % 8);
    const std::int64_t end = start + 1 + static_cast<std::int64_t>(rng() % (unit == 1 ? 64 : 16));
    clock[slot] = end;
    const int layer = static_cast<int>(k * 64 / lines);
    std::snprintf(layer_name, sizeof layer_name, "conv%d", layer);
    const Param params[] = {Param::integer("rd", static_cast<std::int64_t>(k % 32)),
                            Param::integer("rs1", static_cast<std::int64_t>((k >> 5) % 32)),
                            Param::integer("imm", static_cast<std::int64_t>(k % 4096) - 2048),
                            Param::string("dt", "i8")};
    WriteRecord r;
    r.mnemonic = mnem[unit];
    r.cluster = cluster;
    r.cu = cu;
    r.unit = units[unit];
    r.layer_id = layer;
    r.layer_name = layer_name;
    r.pc = static_cast<std::int64_t>(k % 65536) * 8;
    r.inst_idx = static_cast<std::int64_t>(k + 1);
    r.start = start;
    r.end = end;
    r.params = params;
    w.write(r);
  }
  w.close();
}

struct Measurement {
  double seconds = 0;      // wall
  double cpu_seconds = 0;  // user + system of the child: stable on a busy machine
  long peak_rss_kb = 0;
};

// Runs `fn` in a child; wall time and the child's own peak RSS.
Measurement in_child(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      fn();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "bench: %s\n", e.what());
      std::_Exit(1);
    }
    std::_Exit(0);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  const auto t1 = std::chrono::steady_clock::now();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "bench: phase failed\n");
    std::exit(1);
  }
  const auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return {std::chrono::duration<double>(t1 - t0).count(), secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_maxrss};
}

void phase(const std::string& name, std::uint64_t lines, int repeat, const std::function<void()>& fn) {
  std::vector<Measurement> runs;
  for (int k = 0; k < repeat; ++k) runs.push_back(in_child(fn));
  std::vector<double> wall, cpu;
  long peak = 0;
  for (const Measurement& m : runs) {
    wall.push_back(m.seconds);
    cpu.push_back(m.cpu_seconds);
    peak = std::max(peak, m.peak_rss_kb);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  const double w = wall[wall.size() / 2], c = cpu[cpu.size() / 2];
  const double n = static_cast<double>(lines) / 1e6;
  fmt::print("{:<40} wall {:>7.2f} s {:>6.2f} M rec/s | cpu {:>7.2f} s {:>6.2f} M rec/s | peak RSS {:>6.1f} MiB\n", name, w,
             n / w, c, n / c, static_cast<double>(peak) / 1024.0);
  std::fflush(stdout);
}

void convert_quietly(ConvertOptions o) {
  std::ostringstream out, err;
  convert(o, out, err);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t lines = 10'000'000;
  int repeat = 3;
  std::string dir = (fs::temp_directory_path() / "vp-trace-bench").string();
  bool keep = false;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--lines" && k + 1 < argc) lines = std::stoull(argv[++k]);
    else if (a == "--repeat" && k + 1 < argc) repeat = std::max(1, std::atoi(argv[++k]));
    else if (a == "--dir" && k + 1 < argc) dir = argv[++k];
    else if (a == "--keep") keep = true;
    else {
      std::fprintf(stderr, "usage: %s [--lines N] [--repeat R] [--dir DIR] [--keep]\n", argv[0]);
      return 2;
    }
  }
  fs::create_directories(dir);
  const std::string trace = dir + "/bench.trace";
  fmt::print("vp-trace conversion benchmark: {} lines, median of {} runs, in {}\n", lines, repeat, dir);
  phase("write (TraceWriter)", lines, 1, [&] { generate(trace, lines); });
  fmt::print("trace size: {:.1f} MiB\n", static_cast<double>(fs::file_size(trace)) / (1 << 20));

  phase("read + parse (TraceReader)", lines, repeat, [&] {
    TraceReader reader(trace);
    TraceRecord r;
    std::uint64_t n = 0;
    while (reader.next(r)) n += static_cast<std::uint64_t>(r.end >= r.start);
    if (n != lines) throw std::runtime_error("record count mismatch");
  });
  ConvertOptions base;
  base.input = trace;
  phase("convert --stats", lines, repeat, [&] {
    ConvertOptions o = base;
    o.stats_table = true;
    convert_quietly(o);
  });
  phase("convert --vcd", lines, repeat, [&] {
    ConvertOptions o = base;
    o.vcd = dir + "/bench.vcd";
    convert_quietly(o);
  });
  // The JSON phases write gigabytes at 10 M lines: one run each.
  phase("convert --perfetto --no-args", lines, 1, [&] {
    ConvertOptions o = base;
    o.perfetto = dir + "/bench.json";
    o.perfetto_args = false;
    convert_quietly(o);
  });
  phase("convert --perfetto (with args)", lines, 1, [&] {
    ConvertOptions o = base;
    o.perfetto = dir + "/bench.json";
    convert_quietly(o);
  });
  phase("convert --vcd --perfetto --stats --plot", lines, 1, [&] {
    ConvertOptions o = base;
    o.vcd = dir + "/bench.vcd";
    o.perfetto = dir + "/bench.json";
    o.stats_table = true;
    o.plot_timeline = dir + "/bench.svg";
    convert_quietly(o);
  });
  if (!keep) fs::remove_all(dir);
  return 0;
}
