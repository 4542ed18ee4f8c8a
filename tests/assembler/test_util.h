// Small helpers shared by the assembler tests: temporary folders, files,
// running the built tools.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "vp/as/assembler.h"
#include "vp/isa/isa.h"

namespace vp_test {

inline std::string make_temp_dir() {
  std::string t = testing::TempDir();
  if (t.empty() || t.back() != '/') t += '/';
  t += "vpasmXXXXXX";
  char* p = ::mkdtemp(t.data());
  EXPECT_NE(p, nullptr);
  return t;
}

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

inline std::string bin_dir() {
  const char* b = std::getenv("VP_BIN_DIR");
  return b ? b : "build/bin";
}

inline std::string source_dir() {
  const char* s = std::getenv("VP_SOURCE_DIR");
  return s ? s : ".";
}

// Runs a shell command, returns its exit status; stdout/stderr into *out.
inline int run(const std::string& cmd, std::string* out = nullptr) {
  const std::string tmp = make_temp_dir() + "/out.txt";
  const int rc = std::system(("( " + cmd + " ) > " + tmp + " 2>&1").c_str());
  if (out) *out = read_file(tmp);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

inline vp::as::Result assemble(const std::string& src, const vp::as::Options& opt = {}) {
  return vp::as::assemble_string(src, "test.s", opt);
}

// Assembles and expects success.
inline vp::obj::Object ok(const std::string& src, const vp::as::Options& opt = {}) {
  vp::as::Result r = assemble(src, opt);
  EXPECT_TRUE(r.ok()) << r.error_text() << "\nsource:\n" << src;
  return std::move(r.object);
}

// The decoded operand `field` of instruction `index` of core (cl, cu).
inline int64_t operand(const vp::obj::Object& o, vp::obj::CoreId core, uint32_t index, const std::string& field) {
  const auto* t = o.text_of(core);
  if (!t || index >= t->words.size()) {
    ADD_FAILURE() << "no instruction " << index;
    return 0;
  }
  auto d = vp::isa::decode(t->words[index]);
  if (!d) {
    ADD_FAILURE() << "does not decode";
    return 0;
  }
  return d->field(field);
}

}  // namespace vp_test
