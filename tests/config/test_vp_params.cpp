// vp-params end to end: the built tool, its exit codes and its output.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "config_test_util.h"
#include "vp/config/loader.h"
#include "vp/config/report.h"

namespace vp::config {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct ToolRun {
  int status;
  std::string output;  // stdout and stderr
};

ToolRun vp_params(const std::string& args) {
  const std::string cmd = std::string(VP_PARAMS_BIN) + " " + args + " 2>&1";
  ToolRun run{-1, {}};
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) run.output.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

TEST(VpParams, ListsTheRegistry) {
  const ToolRun r = vp_params("--list");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, list_params());
}

TEST(VpParams, MarkdownIsTheReference) {
  const ToolRun r = vp_params("--markdown");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output, markdown_reference(builtin_config_dir()));
}

TEST(VpParams, DumpLoadsBack) {
  test::TempFile out("dump.yaml", "");
  const ToolRun r = vp_params("--chip small --set adc.bits=6 --set xbar.rows=32 --dump -o " + out.path());
  ASSERT_EQ(r.status, 0) << r.output;
  LoadRequest req;
  req.preset = "small";
  req.sets = {"adc.bits=6", "xbar.rows=32"};
  const ParamSet expected = load_config(req);
  LoadRequest back;
  back.preset = "";
  back.config_files = {out.path()};
  EXPECT_EQ(load_config(back), expected);
}

// The output appears whole or not at all, and a full stdout is an error.
TEST(VpParams, OutputErrorsAreNamedAndLeaveTheOldFile) {
  test::TempFile out("keep.yaml", "chip.clusters: 2\n");
  ToolRun r = vp_params("--dump --config " + out.dir() + " -o " + out.path());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("is a directory, expected a YAML or JSON file"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(out.path()), "chip.clusters: 2\n");
  r = vp_params("--dump -o " + out.dir());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("is a directory"), std::string::npos) << r.output;
  r = vp_params("--dump -o " + out.dir() + "/none/x.yaml");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot create output"), std::string::npos) << r.output;
  const int raw = std::system((std::string(VP_PARAMS_BIN) + " --dump >/dev/full 2>/dev/null").c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 1);
}

// A configuration or preset that is a device used to be read until memory
// ran out (std::bad_alloc from --config /dev/zero) or called "no such file".
TEST(VpParams, DevicesAreNotConfigurations) {
  if (!std::ifstream("/dev/zero").good()) GTEST_SKIP() << "no /dev/zero";
  ToolRun r = vp_params("--dump --config /dev/zero");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("/dev/zero: is a device, expected a YAML or JSON file"), std::string::npos) << r.output;
  EXPECT_NE(vp_params("--dump --config /dev/stdin < /dev/zero").output.find("is a device"), std::string::npos);
  // A pipe is read (up to 64 MiB): --config <(...) works.
  const auto piped = [](const std::string& producer) {
    const std::string cmd = producer + " | " + std::string(VP_PARAMS_BIN) + " --dump --config /dev/stdin 2>&1";
    ToolRun run{-1, {}};
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (!pipe) return run;
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) run.output.append(buf.data(), n);
    const int raw = ::pclose(pipe);
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return run;
  };
  r = piped("printf 'chip.clusters: 8\\n'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("clusters: 8"), std::string::npos) << r.output;
  r = piped("head -c 70000000 /dev/zero");
  EXPECT_EQ(r.status, 1) << r.output.substr(0, 300);
  EXPECT_NE(r.output.find("/dev/stdin: larger than 64 MiB"), std::string::npos) << r.output.substr(0, 300);
  r = vp_params("--dump --chip /dev/zero");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("not a regular file (a device or pipe), expected a preset file"), std::string::npos)
      << r.output;
  test::TempFile some("x.yaml", "chip.clusters: 2\n");
  r = vp_params("--dump --chip " + some.dir() + "/");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("is a directory, expected a preset file"), std::string::npos) << r.output;
}

TEST(VpParams, ListsPresets) {
  const ToolRun r = vp_params("--presets");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("sidra-y1\n"), std::string::npos);
  EXPECT_NE(r.output.find("isaac-like\n"), std::string::npos);
}

TEST(VpParams, BadConfigurationExitsOneNamingTheKey) {
  ToolRun r = vp_params("--set xbar.rowz=3 --dump");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("xbar.rowz"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("did you mean xbar.rows"), std::string::npos) << r.output;
  r = vp_params("--chip nosuchchip --dump");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("nosuchchip"), std::string::npos) << r.output;
  r = vp_params("--set chip.clusters=7 --list");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("chip.mesh_cols"), std::string::npos) << r.output;
}

TEST(VpParams, UsageErrorsExitTwo) {
  EXPECT_EQ(vp_params("--no-such-option").status, 2);
  EXPECT_EQ(vp_params("--list --dump").status, 2);
}

}  // namespace
}  // namespace vp::config
