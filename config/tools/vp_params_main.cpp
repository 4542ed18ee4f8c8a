// vp-params: print the parameter registry, an effective configuration, or
// the Markdown reference (docs/parameters.md). The same views vp-run offers
// with --list-params and --dump-config, without needing a model to run.
#include <boost/program_options.hpp>

#include <fstream>
#include <iostream>

#include "vp/common/atomic_file.h"
#include "vp/config/loader.h"
#include "vp/config/report.h"

namespace po = boost::program_options;
using namespace vp::config;

int main(int argc, char** argv) {
  po::options_description opts("vp-params [options]");
  // clang-format off
  opts.add_options()
    ("help,h", "show this help")
    ("list", "print every parameter: type, unit, default (or value), range, description")
    ("dump", "print the effective configuration as YAML that --config accepts")
    ("json", "print the effective configuration as JSON")
    ("markdown", "print the Markdown reference (docs/parameters.md)")
    ("presets", "print the names of the presets found")
    ("chip", po::value<std::string>(), "preset name or file (default sidra-y1)")
    ("config", po::value<std::vector<std::string>>()->composing(), "YAML/JSON configuration file")
    ("set", po::value<std::vector<std::string>>()->composing(), "key=value override (last wins)")
    ("output,o", po::value<std::string>(), "write to this file instead of stdout");
  // clang-format on
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, opts), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "vp-params: " << e.what() << "\n" << opts;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  const int views = static_cast<int>(vm.count("list") + vm.count("dump") + vm.count("json") +
                                     vm.count("markdown") + vm.count("presets"));
  if (views > 1) {
    std::cerr << "vp-params: choose one of --list, --dump, --json, --markdown, --presets\n";
    return 2;
  }

  try {
    const bool configured = vm.count("chip") || vm.count("config") || vm.count("set");
    LoadRequest request;
    if (vm.count("chip")) request.preset = vm["chip"].as<std::string>();
    if (vm.count("config")) request.config_files = vm["config"].as<std::vector<std::string>>();
    if (vm.count("set")) request.sets = vm["set"].as<std::vector<std::string>>();

    std::string text;
    if (vm.count("markdown")) {
      text = markdown_reference(builtin_config_dir());
    } else if (vm.count("presets")) {
      for (const auto& name : preset_names()) text += name + "\n";
    } else if (vm.count("dump") || vm.count("json")) {
      const ParamSet params = load_config(request);
      text = vm.count("json") ? dump_json(params) : dump_yaml(params);
    } else if (configured) {
      const ParamSet params = load_config(request);
      text = list_params(&params);
    } else {
      text = list_params();
    }

    if (vm.count("output")) {
      // Whole or not at all: a failed write leaves the old file in place.
      vp::common::write_file_atomically(vm["output"].as<std::string>(), text);
    } else {
      std::cout << text << std::flush;
      if (!std::cout) {
        std::cerr << "vp-params: standard output: write failed\n";
        return 1;
      }
    }
  } catch (const ConfigError& e) {
    std::cerr << "vp-params: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "vp-params: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
