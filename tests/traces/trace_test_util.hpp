// Shared helpers for the trace tests: where the reference traces are, a
// scratch directory, and a small independent VCD reader.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace vp::trace::test {

inline std::filesystem::path source_dir() {
  const char* s = std::getenv("VP_SOURCE_DIR");
  return s ? std::filesystem::path(s) : std::filesystem::current_path();
}

inline std::filesystem::path zebu_dir() { return source_dir() / ".." / "shared" / "reference" / "gemini-zebu"; }

inline std::filesystem::path bin_dir() {
  const char* s = std::getenv("VP_BIN_DIR");
  return s ? std::filesystem::path(s) : source_dir() / "build" / "bin";
}

// A fresh directory per test, removed afterwards.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    path_ = std::filesystem::temp_directory_path() /
            ("vp-trace-test-" + name + "-" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// Minimal VCD reader written from the IEEE 1364 description, independent of
// the writer: signal paths from $scope/$var, then value changes per signal.
struct VcdSignal {
  std::string path;  // e.g. "chip.core0.PE.busy"
  int width = 1;
  std::vector<std::pair<std::int64_t, std::string>> changes;  // (time, value)
};

struct VcdFile {
  std::string timescale;
  std::map<std::string, VcdSignal> by_path;
  std::int64_t last_time = 0;
};

inline VcdFile read_vcd(const std::string& path) {
  VcdFile vcd;
  std::map<std::string, std::vector<std::string>> ids;  // id -> paths
  std::ifstream in(path);
  std::string tok;
  std::vector<std::string> scope;
  std::int64_t now = 0;
  bool defs = true;
  while (in >> tok) {
    if (defs) {
      if (tok == "$scope") {
        std::string kind, name;
        in >> kind >> name >> tok;
        scope.push_back(name);
      } else if (tok == "$upscope") {
        in >> tok;
        scope.pop_back();
      } else if (tok == "$var") {
        std::string type, id, name;
        int width = 0;
        in >> type >> width >> id >> name >> tok;
        std::string p;
        for (const auto& s : scope) p += s + ".";
        p += name;
        vcd.by_path[p].path = p;
        vcd.by_path[p].width = width;
        ids[id].push_back(p);
      } else if (tok == "$timescale") {
        std::string part;
        while (in >> part && part != "$end") vcd.timescale += (vcd.timescale.empty() ? "" : " ") + part;
      } else if (tok == "$enddefinitions") {
        in >> tok;
        defs = false;
      } else if (tok[0] == '$') {
        while (tok != "$end" && in >> tok) {
        }
      }
      continue;
    }
    if (tok == "$dumpvars" || tok == "$end") continue;
    std::string id, value;
    if (tok[0] == '#') {
      now = std::stoll(tok.substr(1));
      vcd.last_time = now;
      continue;
    }
    if (tok[0] == 'b' || tok[0] == 'r' || tok[0] == 's') {
      value = tok.substr(1);
      in >> id;
    } else {
      value = tok.substr(0, 1);
      id = tok.substr(1);
    }
    for (const auto& p : ids[id]) vcd.by_path[p].changes.emplace_back(now, value);
  }
  return vcd;
}

// [start, end) intervals during which a 1-bit signal is 1.
inline std::vector<std::pair<std::int64_t, std::int64_t>> high_intervals(const VcdSignal& s, std::int64_t end_time) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  bool high = false;
  std::int64_t since = 0;
  for (const auto& [t, v] : s.changes) {
    const bool h = v == "1";
    if (h && !high) since = t;
    if (!h && high) out.emplace_back(since, t);
    high = h;
  }
  if (high) out.emplace_back(since, end_time);
  return out;
}

}  // namespace vp::trace::test
