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

// Outputs of one run published together: the third rename fails (its
// destination became a directory after the temporaries were made), so the
// first two are put back as they were, an old file restored and a new one
// removed, and no temporary or kept link remains.
TEST_F(AtomicFileTest, CommitTogetherPutsBackWhatItMovedWhenARenameFails) {
  const auto a = (dir_ / "a.txt").string(), b = (dir_ / "b.txt").string(), c = (dir_ / "c.txt").string();
  { std::ofstream(a) << "old a"; }
  {
    AtomicFile fa(a), fb(b), fc(c);
    fa.write("new a");
    fb.write("new b");
    fc.write("new c");
    fs::create_directory(c);
    { std::ofstream(fs::path(c) / "inside") << "x"; }  // non-empty: rename over it fails
    try {
      vp::common::commit_together({&fa, &fb, &fc});
      ADD_FAILURE() << "published over a directory";
    } catch (const OutputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(c + ": cannot move the finished output into place"), std::string::npos) << msg;
      EXPECT_NE(msg.find("the 2 outputs already moved are put back"), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(read(a), "old a");
  EXPECT_FALSE(fs::exists(b));
  EXPECT_TRUE(fs::is_directory(c));
  EXPECT_EQ(entries(), 2);  // a.txt and the directory c.txt
}

TEST_F(AtomicFileTest, CommitTogetherPublishesEveryOutput) {
  const auto a = (dir_ / "a").string(), b = (dir_ / "b").string();
  { std::ofstream(b) << "old b"; }
  AtomicFile fa(a), fb(b);
  fa.write("1");
  fb.write("2");
  vp::common::commit_together({&fa, &fb});
  EXPECT_EQ(read(a), "1");
  EXPECT_EQ(read(b), "2");
  EXPECT_EQ(entries(), 2);  // no temporary, no kept link
  EXPECT_THROW(fa.commit(), OutputError);  // published once
}

TEST_F(AtomicFileTest, CommitTogetherPublishesNothingWhenOneCannotBeFinished) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const auto a = (dir_ / "a").string(), b = (dir_ / "b").string();
  AtomicFile fa(a), fb(b);
  fa.write("1");
  ASSERT_NE(std::freopen("/dev/full", "wb", fb.stream()), nullptr);
  fb.write(std::string(100, 'x'));  // buffered; the flush in finish() fails
  EXPECT_THROW(vp::common::commit_together({&fa, &fb}), OutputError);
  EXPECT_EQ(entries(), 0);
}

TEST_F(AtomicFileTest, AdoptTakesAnotherWritersFileAsTheOutput) {
  const auto a = (dir_ / "a").string(), b = (dir_ / "b").string();
  { std::ofstream(b) << "old b"; }
  AtomicFile fa(a), fb(b);
  fa.write("dropped");  // what was written before adopt() does not count
  const std::string part = fa.temp_path() + ".part";
  { std::ofstream(part) << "written elsewhere"; }
  fa.adopt(part);
  EXPECT_FALSE(fs::exists(part));
  EXPECT_FALSE(fs::exists(a));  // not yet in place
  fb.write("2");
  vp::common::commit_together({&fa, &fb});
  EXPECT_EQ(read(a), "written elsewhere");
  EXPECT_EQ(read(b), "2");
  EXPECT_EQ(entries(), 2);
}

TEST_F(AtomicFileTest, AdoptingAMissingFileFailsAndLeavesNothing) {
  const auto a = (dir_ / "a").string();
  { std::ofstream(a) << "old"; }
  AtomicFile fa(a);
  EXPECT_THROW(fa.adopt((dir_ / "nothing.part").string()), OutputError);
  EXPECT_THROW(fa.commit(), OutputError);
  EXPECT_EQ(read(a), "old");
  EXPECT_EQ(entries(), 1);
}

TEST_F(AtomicFileTest, SameFileSeesThroughPaths) {
  const auto p = (dir_ / "a").string();
  { std::ofstream(p) << "1"; }
  EXPECT_TRUE(vp::common::same_file(p, (dir_ / "." / "a").string()));
  EXPECT_FALSE(vp::common::same_file(p, (dir_ / "b").string()));
}

}  // namespace
