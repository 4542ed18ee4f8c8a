// bench_assembler [LINES] [INCBIN_MB]: generates a program of LINES lines
// (default 1,000,000: mixed instructions over several cores, labels, loops,
// .equ, comments) in a temporary folder and reports, as the median of 5
// runs: vp::as::assemble_file in memory, the vp-as binary end to end, and
// assembling + writing + loading an object holding a 100 MB .incbin.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "vp/as/assembler.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string generate(size_t lines) {
  std::mt19937_64 rng(42);
  std::string s;
  s.reserve(lines * 28);
  size_t n = 0;
  auto line = [&](const std::string& l) {
    s += l;
    s += '\n';
    ++n;
  };
  line("; generated benchmark program");
  for (int i = 0; i < 16; ++i) line(".equ K" + std::to_string(i) + ", " + std::to_string(i * 17 + 3));
  int core = 0, label = 0, fwd = 0;
  std::vector<int> pending;  // forward labels referenced, not yet placed
  const char* ops[] = {"add", "sub", "mul", "and", "or", "xor", "slt", "max"};
  while (n < lines) {
    if (n % 50000 < 1 || label == 0) {
      for (int f : pending) line("F" + std::to_string(f) + ":");
      pending.clear();
      line(".core " + std::to_string(core / 4) + ", " + std::to_string(core % 4));
      ++core;
      line("L0:");
      label = 1;
    }
    const int r = static_cast<int>(rng() % 100);
    const std::string a = "r" + std::to_string(rng() % 32), b = "r" + std::to_string(rng() % 32),
                      c = "r" + std::to_string(rng() % 32);
    if (r < 5) {
      line("L" + std::to_string(label++) + ":");
    } else if (r < 30) {
      line("    " + std::string(ops[rng() % 8]) + " " + a + ", " + b + ", " + c);
    } else if (r < 45) {
      line("    addi " + a + ", " + b + ", K" + std::to_string(rng() % 16) + " * 4 - 1");
    } else if (r < 55) {
      line("    li " + a + ", 0x" + std::to_string(rng() % 100000) + "  ; load a constant");
    } else if (r < 62) {
      line("    dbnz " + a + ", L" + std::to_string(label ? rng() % static_cast<uint64_t>(label) : 0));
    } else if (r < 66) {
      line("    bne " + a + ", " + b + ", F" + std::to_string(fwd));  // forward: resolved at the end
      pending.push_back(fwd++);
    } else if (r < 67 || pending.size() > 4) {
      if (pending.empty()) continue;
      line("F" + std::to_string(pending.front()) + ":");
      pending.erase(pending.begin());
    } else if (r < 75) {
      line("    mvm " + a + ", " + b + ", " + std::to_string(rng() % 16) + ", 0xF, 8, 32, sum, 1");
    } else if (r < 85) {
      line("    vadd " + a + ", " + b + ", " + c + ", r4, i8");
    } else if (r < 90) {
      line("    dma.gl " + a + ", " + b + ", " + c);
    } else if (r < 95) {
      line("    ld " + a + ", " + b + ", " + std::to_string(rng() % 4096));
    } else {
      line("    send " + a + ", " + b + ", " + c + ", 3");
    }
  }
  for (int f : pending) line("F" + std::to_string(f) + ":");
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t lines = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const uint64_t mb = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100;
  char tmpl[] = "/tmp/vp_asm_bench_XXXXXX";
  if (!::mkdtemp(tmpl)) return 1;
  const std::string dir = tmpl;

  const std::string src = generate(lines);
  const std::string path = dir + "/big.s";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(src.data(), 1, src.size(), f);
    std::fclose(f);
  }
  std::printf("program: %zu lines, %.1f MB\n", lines, static_cast<double>(src.size()) / 1e6);

  std::vector<double> t_lib, t_cli;
  size_t words = 0;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    vp::as::Result r = vp::as::assemble_file(path);
    t_lib.push_back(seconds_since(t0));
    if (!r.ok()) {
      std::fprintf(stderr, "%s", r.error_text().c_str());
      return 1;
    }
    words = 0;
    for (const auto& t : r.object.texts) words += t.words.size();
  }
  for (int i = 0; i < 5; ++i) {
    const auto t0 = Clock::now();
    const std::string cmd = std::string(VP_AS_PATH) + " " + path + " -o " + dir + "/big.vpo";
    if (std::system(cmd.c_str()) != 0) return 1;
    t_cli.push_back(seconds_since(t0));
  }
  const double ml = median(t_lib), mc = median(t_cli);
  std::printf("assemble in memory (vp::as::assemble_file): median %.3f s, %.2f M lines/s (%zu instructions)\n", ml,
              static_cast<double>(lines) / ml / 1e6, words);
  std::printf("vp-as end to end (read, assemble, write):   median %.3f s, %.2f M lines/s\n", mc,
              static_cast<double>(lines) / mc / 1e6);

  // 100 MB weight image through .incbin into cell programs.
  const std::string blob = dir + "/weights.bin";
  {
    std::vector<uint8_t> chunk(1 << 20);
    for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<uint8_t>(i % 4);
    FILE* f = std::fopen(blob.c_str(), "wb");
    for (uint64_t i = 0; i < mb; ++i) std::fwrite(chunk.data(), 1, chunk.size(), f);
    std::fclose(f);
  }
  std::string wsrc = ".chip cell_bits=2\n";
  const uint64_t per = 256 * 256;
  const uint64_t nx = mb * (1 << 20) / per;
  for (uint64_t x = 0; x < nx; ++x)
    wsrc += ".xbar " + std::to_string(x / 16 / 25) + ", " + std::to_string(x / 16 % 25) + ", " +
            std::to_string(x % 16) + ", 0, 0, 256, 256\n    .incbin \"weights.bin\", " + std::to_string(x * per) +
            ", 65536\n";
  const std::string wpath = dir + "/weights.s";
  if (FILE* f = std::fopen(wpath.c_str(), "wb")) {
    std::fwrite(wsrc.data(), 1, wsrc.size(), f);
    std::fclose(f);
  }
  std::vector<double> t_asm, t_write, t_load;
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    vp::as::Result r = vp::as::assemble_file(wpath);
    t_asm.push_back(seconds_since(t0));
    if (!r.ok()) {
      std::fprintf(stderr, "%s", r.error_text().c_str());
      return 1;
    }
    t0 = Clock::now();
    vp::obj::write_object(r.object, dir + "/weights.vpo");
    t_write.push_back(seconds_since(t0));
    t0 = Clock::now();
    vp::obj::Object o = vp::obj::load_object(dir + "/weights.vpo");
    t_load.push_back(seconds_since(t0));
    if (o.cell_count() != nx * per) return 1;
  }
  std::printf("%llu MB incbin (%llu crossbars of 256x256): assemble %.3f s, write %.3f s, load %.4f s (median)\n",
              static_cast<unsigned long long>(mb), static_cast<unsigned long long>(nx), median(t_asm),
              median(t_write), median(t_load));
  std::system(("rm -rf " + dir).c_str());
  return 0;
}
