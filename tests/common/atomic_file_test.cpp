#include "vp/common/atomic_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using vp::common::AtomicFile;
using vp::common::OutputError;

namespace {

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vp_atomic_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string read(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  int entries() {
    int n = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(dir_)) ++n;
    return n;
  }
  fs::path dir_;
};

TEST_F(AtomicFileTest, CommitPublishesWholeFile) {
  const auto p = (dir_ / "out.bin").string();
  {
    AtomicFile f(p);
    f.write("hello ");
    EXPECT_FALSE(fs::exists(p));  // nothing visible before commit
    f.write("world");
    f.commit();
  }
  EXPECT_EQ(read(p), "hello world");
  EXPECT_EQ(entries(), 1);  // no temporary left
}

TEST_F(AtomicFileTest, DestroyedWithoutCommitKeepsOldFile) {
  const auto p = (dir_ / "out.txt").string();
  { std::ofstream(p) << "good"; }
  {
    AtomicFile f(p);
    f.write("half-writ");
  }
  EXPECT_EQ(read(p), "good");
  EXPECT_EQ(entries(), 1);
}

TEST_F(AtomicFileTest, ExceptionUnwindsTemporary) {
  const auto p = (dir_ / "x").string();
  try {
    AtomicFile f(p);
    f.write("abc");
    throw std::runtime_error("model failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(fs::exists(p));
  EXPECT_EQ(entries(), 0);
}

TEST_F(AtomicFileTest, DirectoryAsOutputIsNamedError) {
  try {
    AtomicFile f(dir_.string());
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

TEST_F(AtomicFileTest, MissingDirectoryIsNamedError) {
  const auto p = (dir_ / "no" / "such" / "out").string();
  try {
    AtomicFile f(p);
    FAIL() << "expected OutputError";
  } catch (const OutputError& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

TEST_F(AtomicFileTest, FullDiskFailsAndLeavesNothing) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  // The temporary's stream is pointed at /dev/full: every write fails with
  // ENOSPC, as on a full disk. Either the write or the commit must throw,
  // and neither the destination nor the temporary may remain.
  const auto p = (dir_ / "y").string();
  {
    AtomicFile f(p);
    ASSERT_NE(std::freopen("/dev/full", "wb", f.stream()), nullptr);
    EXPECT_THROW(
        {
          f.write(std::string(1 << 16, 'x'));
          f.commit();
        },
        OutputError);
  }
  EXPECT_FALSE(fs::exists(p));
  EXPECT_EQ(entries(), 0);
}

TEST_F(AtomicFileTest, SameFileSeesThroughPaths) {
  const auto p = (dir_ / "a").string();
  { std::ofstream(p) << "1"; }
  EXPECT_TRUE(vp::common::same_file(p, (dir_ / "." / "a").string()));
  EXPECT_FALSE(vp::common::same_file(p, (dir_ / "b").string()));
}

}  // namespace
