// The vp-run fixture shared by the vp-run test files: runs the built tool
// from the source tree in a per-test temporary folder.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace vp_run_test {

inline std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class VpRun : public ::testing::Test {
 protected:
  void SetUp() override {
    src_ = env_or("VP_SOURCE_DIR", ".");
    bin_ = env_or("VP_BIN_DIR", "build/bin");
    tmp_ = fs::temp_directory_path() / ("vp_run_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
  }
  void TearDown() override { fs::remove_all(tmp_); }

  // `env`: VAR=value assignments for vp-run alone (not the shell).
  Result run(const std::string& args, const std::string& env = "") {
    const std::string cmd = "cd '" + src_ + "' && " + env + " '" + bin_ + "/vp-run' " + args + " >'" + (tmp_ / "out").string() +
                            "' 2>'" + (tmp_ / "err").string() + "'";
    const int st = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(tmp_ / "out");
    r.err = slurp(tmp_ / "err");
    return r;
  }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(tmp_ / name) << text;
    return (tmp_ / name).string();
  }
  std::string path(const std::string& name) const { return (tmp_ / name).string(); }

  std::string src_, bin_;
  fs::path tmp_;
};

}  // namespace vp_run_test
