// Shared by the vp-sweep tests: a scratch folder per test, files written
// into it, and the tools run as a user runs them.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace sweep_test {

namespace fs = std::filesystem;

inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int code = -1;
  std::string out, err;
};

class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = fs::absolute(env_or("VP_SOURCE_DIR", ".")).string();
    bin_ = fs::absolute(env_or("VP_BIN_DIR", "build/bin")).string();
    tmp_ = fs::temp_directory_path() / ("vp_sweep_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(tmp_);
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(tmp_ / name, std::ios::binary) << text;
    return (tmp_ / name).string();
  }
  std::string path(const std::string& name) const { return (tmp_ / name).string(); }
  // Runs a shell command line with stdout/stderr captured.
  Result sh(const std::string& cmd) {
    const std::string full = cmd + " >'" + path("out.txt") + "' 2>'" + path("err.txt") + "'";
    const int st = std::system(full.c_str());
    Result r;
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(path("out.txt"));
    r.err = slurp(path("err.txt"));
    return r;
  }
  Result sweep(const std::string& args) { return sh("'" + bin_ + "/vp-sweep' " + args); }

  // The MLP example with its input and reference, addressed absolutely.
  std::string mlp_header(const std::string& name) const {
    return "name: " + name + "\nmodel: " + src_ + "/examples/mlp.s\npreset: small\ninputs: [" + src_ +
           "/examples/data/mlp.x.bin@0]\noutputs: [logits.bin@0x1000:80:int32]\ninferences_per_run: 2\n";
  }

  std::string src_, bin_;
  fs::path tmp_;
};

}  // namespace sweep_test
