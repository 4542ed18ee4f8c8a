// Every parameter named anywhere exists in the parameter table: the ISA
// table's timing column, the presets, the docs. And every row of the table
// is complete and spelt consistently.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "config_test_util.h"
#include "vp/config/param_set.h"
#include "vp/config/registry.h"

namespace vp::config {
namespace {

namespace fs = std::filesystem;

// Dotted lowercase names in `text` ("cu.scalar.alu_cycles", also inside a
// formula such as "xbar.read_ns + 2*noc.hop_cycles" or "--set k=v"). A name
// glued to a path or a file name ("configs/small.yaml", "sidra-y1.yaml") is
// not one.
std::vector<std::string> dotted_names(const std::string& text) {
  std::vector<std::string> names;
  const auto word = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
           c == '_' || c == '.';
  };
  std::size_t i = 0;
  while (i < text.size()) {
    if (!word(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && word(text[i])) ++i;
    const char before = start == 0 ? ' ' : text[start - 1];
    const char after = i == text.size() ? ' ' : text[i];
    std::string token = text.substr(start, i - start);
    while (!token.empty() && token.back() == '.') token.pop_back();  // end of a sentence
    static const std::regex pattern("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+");
    // Nor is a call or a member ("noc.send(", "noc.links()[id]"), a pattern
    // ("ispp.preload_*") or a scope ("chip.cp.<unit>").
    const bool glued = std::isalnum(static_cast<unsigned char>(before)) || before == '/' ||
                       before == '-' || std::isupper(static_cast<unsigned char>(after)) ||
                       std::string_view("/-(*<[").find(after) != std::string_view::npos;
    if (!glued && std::regex_match(token, pattern)) names.push_back(token);
  }
  return names;
}

std::set<std::string> parameter_groups() {
  std::set<std::string> groups;
  for (const auto& d : registry()) groups.insert(d.name.substr(0, d.name.find('.')));
  return groups;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ParamNames, DottedNamesAreFoundInText) {
  EXPECT_EQ(dotted_names("xbar.read_ns + 2 * noc.hop_cycles"),
            (std::vector<std::string>{"xbar.read_ns", "noc.hop_cycles"}));
  EXPECT_EQ(dotted_names("--set xbar.read_ns=50, see configs/small.yaml."),
            (std::vector<std::string>{"xbar.read_ns"}));
  EXPECT_TRUE(dotted_names("sidra-y1.yaml Chip.Name 12.5 x. noc.send(p) chip.cp.<unit>").empty());
}

TEST(ParamNames, TableRowsAreComplete) {
  // The table's text columns as data, checked in one loop (the checks
  // expanded per row made this file the slowest of the build to compile).
  struct Row {
    const char *id, *name, *unit, *desc, *src;
  };
  static const Row rows[] = {
#define VP_PARAM(id, name, type, unit, def, lo, hi, use, desc, src, field) {#id, name, unit, desc, src},
#include "vp/config/params.def"
  };
  for (const Row& r : rows) {
    EXPECT_NE(find_param(r.name), nullptr) << r.name;
    EXPECT_STRNE(r.unit, "") << r.name << ": every row has a unit (\"-\" when it has none)";
    EXPECT_STRNE(r.desc, "") << r.name << ": every row has a description";
    EXPECT_STRNE(r.src, "") << r.name << ": every row cites the source of its default";
    std::string spelt = r.name;
    std::replace(spelt.begin(), spelt.end(), '.', '_');
    EXPECT_EQ(spelt, r.id) << r.name << ": the id column is the name with '.' -> '_'";
  }
  EXPECT_EQ(std::size(rows), registry().size());
}

TEST(ParamNames, IsaTimingColumnNamesParameters) {
  std::size_t named = 0;
  const auto check = [&](const char* mnemonic, const std::string& timing) {
    const auto names = dotted_names(timing);
    EXPECT_FALSE(names.empty()) << mnemonic << ": timing column '" << timing << "' names no parameter";
    for (const auto& n : names) {
      ++named;
      EXPECT_NE(find_param(n), nullptr)
          << mnemonic << ": timing column names '" << n << "', which is not a parameter"
          << (suggest_param(n).empty() ? "" : " (did you mean " + suggest_param(n) + "?)");
    }
  };
#define VP_INST(NAME, opcode, mnemonic, unit, fields, timing, semantics) check(mnemonic, timing);
#include "vp/isa/instructions.def"
  EXPECT_GT(named, 50u);
}

TEST(ParamNames, PresetsSetOnlyParameters) {
  const fs::path dir = fs::path(test::source_dir()) / "configs";
  std::size_t presets = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++presets;
    ParamSet p;
    // Unknown keys throw ConfigError(kUnknownKey) naming the key and the file.
    EXPECT_NO_THROW(p.apply_preset(entry.path().string())) << entry.path();
    // And every dotted key written in the file is a parameter (or a group).
    for (const auto& n : dotted_names(read_file(entry.path()))) {
      const auto group = n.substr(0, n.find('.'));
      if (parameter_groups().count(group) == 0) continue;  // a comment's "params.md"
      EXPECT_TRUE(find_param(n) != nullptr || is_param_group(n)) << entry.path() << ": " << n;
    }
  }
  EXPECT_GE(presets, 4u);
}

// Run statistics share the ispp and noc groups with parameters (stats.json,
// docs/vp-sweep.md): these names are counters, not settings.
const std::set<std::string>& statistics_names() {
  static const std::set<std::string> names = {
      "ispp.rows_programmed", "ispp.cells_programmed", "ispp.pulses",
      "ispp.verify_reads", "ispp.failed_cells", "ispp.row_cycles_total",
      "ispp.energy_pj", "ispp.rows_read_back", "ispp.preloaded_cells",
      "ispp.preloaded_cell_programs", "ispp.preload_row_serial_cycles",
      "noc.packets", "noc.bytes", "noc.flits", "noc.flit_hops",
      "noc.contention_cycles", "noc.core_to_core_bytes", "noc.links", "noc.busiest_link",
      "noc.busiest_link.busy_cycles", "noc.busiest_link.share_of_run",
  };
  return names;
}

TEST(ParamNames, StatisticsAreNotParameters) {
  for (const auto& n : statistics_names()) EXPECT_EQ(find_param(n), nullptr) << n;
}

// A name in `code spans` of the docs whose first component is a parameter
// group (xbar, cu, noc, ...) is a parameter, unless it is a statistic.
TEST(ParamNames, DocsNameOnlyParameters) {
  const fs::path root = test::source_dir();
  std::vector<fs::path> docs = {root / "README.md"};
  for (const auto& entry : fs::directory_iterator(root / "docs")) {
    if (entry.path().extension() == ".md") docs.push_back(entry.path());
  }
  const auto groups = parameter_groups();
  std::set<std::string> checked_docs;
  std::size_t mentions = 0;
  for (const auto& doc : docs) {
    const std::string text = read_file(doc);
    std::size_t open = text.find('`');
    while (open != std::string::npos) {
      const std::size_t close = text.find('`', open + 1);
      if (close == std::string::npos) break;
      for (const auto& n : dotted_names(text.substr(open + 1, close - open - 1))) {
        if (groups.count(n.substr(0, n.find('.'))) == 0 || statistics_names().count(n) != 0) continue;
        ++mentions;
        checked_docs.insert(doc.filename().string());
        EXPECT_TRUE(find_param(n) != nullptr || is_param_group(n))
            << doc.filename() << " names `" << n << "`, which is not a parameter"
            << (suggest_param(n).empty() ? "" : " (did you mean " + suggest_param(n) + "?)");
      }
      open = text.find('`', close + 1);
    }
  }
  for (const char* doc : {"parameters.md", "chip-model.md", "firmware.md"}) {
    EXPECT_EQ(checked_docs.count(doc), 1u) << doc << " mentions no parameter?";
  }
  EXPECT_GT(mentions, 200u);
}

}  // namespace
}  // namespace vp::config
