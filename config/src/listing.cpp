// Human-readable views of the registry: `--list-params` and the Markdown
// reference committed as docs/parameters.md.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>

#include "param_table.h"
#include "param_tree.h"
#include "vp/config/chip_shape.h"
#include "vp/config/report.h"

namespace vp::config {
namespace {

// Section titles for the Markdown reference; a group missing here is still
// documented, under its bare name.
const std::map<std::string, std::string> kGroupTitles = {
    {"chip", "Chip shape and clock"},
    {"xbar", "Crossbar array"},
    {"dac", "Input DACs"},
    {"adc", "Column ADCs"},
    {"ispp", "ISPP program-and-verify"},
    {"device", "Device model of the write path"},
    {"nonideal", "Analog non-idealities (all off = ideal)"},
    {"cu", "Compute unit"},
    {"cluster", "Cluster"},
    {"noc", "Network-on-chip (2D mesh, XY routing)"},
    {"gmem", "Global memory"},
    {"sync", "Synchronisation"},
    {"cp", "Control processor"},
    {"energy", "Energy per operation"},
};

std::string md_cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string shown_value(const ParamDef& def, const Value& v) {
  const std::string text = format_value(def, v);
  return def.type == ParamType::kString ? "\"" + text + "\"" : text;
}

std::string group_of(const std::string& name) { return name.substr(0, name.find('.')); }

void presets_section(const std::string& presets_dir, std::string& out) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(presets_dir, ec)) {
    const auto ext = entry.path().extension();
    if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(entry.path());
  }
  // sidra-y1 first: it is the default every other column is compared with.
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    const bool ay = a.stem() == "sidra-y1";
    const bool by = b.stem() == "sidra-y1";
    return ay != by ? ay : a.stem() < b.stem();
  });
  if (files.empty()) return;

  std::vector<std::string> names;
  std::vector<ParamSet> sets;
  for (const auto& f : files) {
    ParamSet p;
    // Origins would embed absolute paths; the table needs only values.
    p.apply_file(f.string());
    p.validate();
    names.push_back(f.stem().string());
    sets.push_back(std::move(p));
  }
  out += "## Presets\n\n";
  out += "`--chip NAME` loads `configs/NAME.yaml` (searched in `$VP_CONFIG_DIR`, then, for an installed "
         "tool, `share/sidra-vp/configs/` of its prefix, then the source tree's `configs/`); "
         "`--chip path/to/file.yaml` loads a file. A preset lists only what "
         "differs from the defaults (sidra-y1); the table shows every parameter that some preset "
         "changes.\n\n";
  // sidra-y1 stands for the defaults: a test keeps the two identical.
  out += fmt::format("| parameter | {} |\n", fmt::join(names, " | "));
  out += "|---|";
  for (std::size_t i = 0; i < names.size(); ++i) out += "---|";
  out += "\n";
  const ParamSet defaults;
  for (std::size_t i = 0; i < registry().size(); ++i) {
    const ParamDef& def = registry()[i];
    const bool differs = std::any_of(sets.begin(), sets.end(), [&](const ParamSet& p) {
      return p.value_at(i) != defaults.value_at(i);
    });
    if (!differs) continue;
    out += fmt::format("| `{}` |", def.name);
    for (const auto& p : sets) out += fmt::format(" {} |", md_cell(shown_value(def, p.value_at(i))));
    out += "\n";
  }
  const auto derived_row = [&](const char* label, auto fn) {
    out += fmt::format("| {} |", label);
    for (const auto& p : sets) out += fmt::format(" {} |", fn(chip_shape(p)));
    out += "\n";
  };
  derived_row("*crossbars (derived)*", [](const ChipShape& s) { return s.total_crossbars(); });
  derived_row("*cells (derived)*", [](const ChipShape& s) { return s.total_cells(); });
  out += "\n";
}

}  // namespace

std::string list_params(const ParamSet* current) {
  const ParamSet defaults;
  const ParamSet& shown = current != nullptr ? *current : defaults;
  const std::array<const char*, 5> heads = {"name", "type", "unit", current ? "value" : "default",
                                            "range"};
  std::vector<std::array<std::string, 6>> rows;
  for (std::size_t i = 0; i < registry().size(); ++i) {
    const ParamDef& def = registry()[i];
    rows.push_back({def.name, type_label(def), def.unit, shown_value(def, shown.value_at(i)),
                    range_text(def), def.description});
  }
  std::array<std::size_t, 5> width{};
  for (std::size_t c = 0; c < width.size(); ++c) {
    width[c] = std::string_view(heads[c]).size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  std::string out;
  const auto line = [&](const auto& cells, const std::string& last) {
    for (std::size_t c = 0; c < width.size(); ++c) out += fmt::format("{:<{}}  ", cells[c], width[c]);
    out += last + "\n";
  };
  line(heads, "description");
  for (const auto& r : rows) line(r, r[5]);
  return out;
}

std::string markdown_reference(const std::string& presets_dir) {
  std::string out =
      "# Parameters\n\n"
      "<!-- Generated by `vp-params --markdown` from config/include/vp/config/params.def.\n"
      "     Do not edit: run `vp-params --markdown -o docs/parameters.md` (or the\n"
      "     `params-docs` build target); a test fails when this file is stale. -->\n\n"
      "Every hardware parameter of the Sidra VP chip model: its type, unit, default (the\n"
      "`sidra-y1` chip), allowed range and the source of the default. A configuration is\n"
      "built in layers, the last setting winning: defaults, then a preset (`--chip NAME`),\n"
      "then configuration files (`--config FILE`, YAML or JSON, nested maps such as\n"
      "`xbar: {rows: 128}` or dotted keys such as `xbar.rows: 128`), then\n"
      "`--set key=value`. Unknown keys, wrong types, out-of-range values and inconsistent\n"
      "combinations are errors naming the key. `vp-params --list` prints this table;\n"
      "`vp-params --chip small --dump` prints an effective configuration that loads back.\n\n"
      "Each parameter is one row of `config/include/vp/config/params.def`, which also names\n"
      "the model field it sets: the registry, the defaults of the hardware models'\n"
      "configuration structs, the chip builder, the compiler's target and this page are\n"
      "all expanded from that row, so adding a parameter is adding a row (and the code\n"
      "that reads its field).\n\n"
      "Sources: *params.md* is `../shared/reference/params.md` (published figures with\n"
      "their origin); *derived* is arithmetic on cited figures; *chosen* marks a value that\n"
      "no public source gives, picked for this model and meant to be swept. *recompile*\n"
      "marks the parameters the compiler reads: changing one needs a new program; every\n"
      "other parameter changes only timing, energy or analog behaviour of the same program.\n"
      "*model field* is the member of `hw::ChipConfig c` the chip builder sets from the\n"
      "value, with the conversion from the parameter's unit when there is one.\n\n";
  presets_section(presets_dir, out);

  std::string group;
  for (const auto& def : registry()) {
    if (group_of(def.name) != group) {
      group = group_of(def.name);
      const auto title = kGroupTitles.find(group);
      out += fmt::format("## `{}`: {}\n\n", group,
                         title == kGroupTitles.end() ? group : title->second);
      out += "| name | type | unit | default | range | description | source | recompile | model field |\n";
      out += "|---|---|---|---|---|---|---|---|---|\n";
    }
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n", def.name, type_label(def),
                       md_cell(def.unit), md_cell(shown_value(def, def.default_value)),
                       md_cell(range_text(def)), md_cell(def.description), md_cell(def.source),
                       def.affects_program ? "yes" : "", md_cell(detail::model_field_text(def.name)));
    const auto next = &def + 1;
    if (next == registry().data() + registry().size() || group_of(next->name) != group) out += "\n";
  }
  // One trailing newline, as editors save files.
  while (out.size() > 1 && out[out.size() - 2] == '\n') out.pop_back();
  return out;
}

}  // namespace vp::config
