// Helpers shared by the configuration tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "vp/config/config_error.h"

namespace vp::config::test {

// A file in a fresh temporary directory, removed with the object.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& text) {
    static int counter = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("vp-config-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
    path_ = dir_ / name;
    std::ofstream(path_) << text;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return path_.string(); }
  std::string dir() const { return dir_.string(); }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

// Runs fn, expects a ConfigError of `kind` whose message contains every
// needle; returns the error for further checks.
template <typename Fn>
ConfigError expect_config_error(Fn&& fn, ConfigError::Kind kind,
                                std::initializer_list<std::string> needles) {
  try {
    fn();
  } catch (const ConfigError& e) {
    EXPECT_EQ(kind_name(e.kind()), std::string(kind_name(kind))) << e.what();
    for (const auto& n : needles) {
      EXPECT_NE(std::string(e.what()).find(n), std::string::npos)
          << "message '" << e.what() << "' lacks '" << n << "'";
    }
    return e;
  }
  ADD_FAILURE() << "no ConfigError thrown";
  return ConfigError(kind, "", "", "not thrown");
}

inline std::string source_dir() {
  const char* dir = std::getenv("VP_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

}  // namespace vp::config::test
