// vp-run: builds the chip from a preset and overrides, loads a program
// (assembly or object), runs it, and writes the trace, statistics and outputs.
//
// By default the model runs under the firmware (firmware/, docs/firmware.md):
// vp-run is the host driver that writes the model image and starts the
// firmware on the control processor; --firmware none runs the object bare.
//
// Exit codes: 0 completed; 1 bad input (program, configuration, files);
// 2 usage; 3 deadlock; 4 --max-cycles reached; 5 a core faulted; 6 a trap
// (the firmware's error codes are reported in words); 7 --check-races found
// a race (the run's outputs are written); 128 + the signal
// (130 SIGINT, 143 SIGTERM) when interrupted: the run stops between two
// instructions and the trace ends at a line boundary.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <systemc>

#include "vp/common/atomic_file.h"
#include "vp/common/large_heap.h"
#include "vp/common/parse_number.h"
#include "vp/config/config_error.h"
#include "vp/config/loader.h"
#include "vp/config/param_set.h"
#include "vp/config/report.h"
#include "vp/hw/chip/chip.h"
#include "vp/platform/chip_builder.h"
#include "vp/platform/chip_size.h"
#include "vp/platform/host_io.h"
#include "vp/platform/model_image.h"
#include "vp/platform/model_run.h"
#include "vp/platform/program_loader.h"
#include "vp/platform/run_statistics.h"
#include "vp/platform/system_file.h"
#include "vp/platform/system_run.h"
#include "vp/platform/tensor_file.h"
#include "vp_run_system.h"

namespace po = boost::program_options;
using namespace vp;

namespace {

// 3 deadlock, 4 max cycles, 5 fault, 6 trap: platform::run_ending().
constexpr int kExitBadInput = 1, kExitUsage = 2;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

obj::Object load_any(const std::string& path, const std::vector<std::string>& include_dirs) {
  return platform::load_program_file(path, include_dirs);
}

#ifndef VP_FIRMWARE_PATH
#define VP_FIRMWARE_PATH "firmware/sidra_fw.vpo"
#endif

// The build's firmware, or the installed one for an installed vp-run.
std::string default_firmware() {
  const std::string data = config::installed_data_dir();
  const std::string installed = data + "/firmware/sidra_fw.vpo";
  if (!data.empty() && access(installed.c_str(), R_OK) == 0) return installed;
  return VP_FIRMWARE_PATH;
}

// The files one run publishes together, in the order added.
class RunOutputs {
 public:
  common::AtomicFile& add(const std::string& path) {
    files_.push_back(std::make_unique<common::AtomicFile>(path));
    return *files_.back();
  }
  void publish() {
    std::vector<common::AtomicFile*> all;
    for (const auto& f : files_) all.push_back(f.get());
    common::commit_together(all);
    files_.clear();
  }

 private:
  std::vector<std::unique_ptr<common::AtomicFile>> files_;
};

void write_text_atomically(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    if (!std::cout) throw std::runtime_error("standard output: write failed");
    return;
  }
  common::write_file_atomically(path, text);
}

// SIGINT and SIGTERM ask the simulation to stop; the chip polls the flag
// between instructions, so the trace is closed at a line boundary and the
// process exits with 128 + the signal as a shell would report it.
std::atomic<bool> g_interrupt{false};
volatile sig_atomic_t g_signal = 0;
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler sets the flag");

extern "C" void on_stop_signal(int sig) {
  g_signal = sig;
  g_interrupt.store(true, std::memory_order_relaxed);
}

void catch_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (const int sig : {SIGINT, SIGTERM}) {
    // A signal the parent chose to ignore (nohup, a background job without
    // job control) stays ignored, as for any other program.
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &sa, nullptr);
  }
}

// A count, a limit or a seed typed on the command line: strict, no wrap
// ("-5" is an error, not 2^64 - 5). Throws common::NumberError naming it.
uint64_t count_option(const po::variables_map& vm, const char* name, uint64_t max) {
  return common::parse_uint(vm[name].as<std::string>(), std::string("--") + name, max);
}

// The file part of FILE@ADDR... specs.
std::string spec_file(const std::string& spec) {
  const size_t at = spec.rfind('@');
  return at == std::string::npos ? platform::split_output_suffix(spec).first : spec.substr(0, at);
}

int run(int argc, char** argv) {
  po::options_description opts("vp-run options");
  std::vector<std::string> configs, sets, inputs, outputs, include_dirs;
  opts.add_options()
      ("help,h", "this help")
      ("model,m", po::value<std::string>(), "program: assembly (.s/.asm) or object (.vpo); a .system.json runs as --system")
      ("chip", po::value<std::string>()->default_value("sidra-y1"), "preset name or file")
      ("system", po::value<std::string>(),
       "a system of chips (vp-cc --chips N writes OUT.system.json): one program per chip, the link between them")
      ("chips", po::value<std::string>(), "with --system: the number of chips it must have")
      ("link", po::value<std::string>(), "chip-to-chip link preset: pcie or d2d (default: the system file's)")
      ("config", po::value(&configs)->composing(), "configuration file (YAML or JSON) over the preset; repeatable")
      ("set", po::value(&sets)->composing(), "override one parameter, path.to.param=value; repeatable")
      ("input", po::value(&inputs)->composing(),
       "FILE (the model's next .input: its codes as raw bytes or .npy, or float32 .npy values the binding's "
       "scale quantizes) or FILE@ADDR: .npy or raw bytes into global memory; repeatable")
      ("output", po::value(&outputs)->composing(),
       "FILE[:int8|float32] (the model's next .output: a .npy of a binding with a scale gets float32 values, "
       ":int8 the codes) or FILE@ADDR:BYTES[:int8|uint8|int16|int32|float32]: global memory after the run")
      ("batch", po::value<std::string>()->default_value("0"), "batch elements (0: one per set of bound --input files)")
      ("firmware", po::value<std::string>()->default_value(default_firmware()),
       "firmware run on the control processor (.vpo or assembly); 'none' runs the model bare")
      ("no-deploy", "crossbars assumed programmed: the platform writes the levels (untimed ISPP), the firmware skips deploy")
      ("deploy-retries", po::value<std::string>()->default_value("2"),
       "extra program-and-verify passes the firmware gives a row with failed cells (0 to 1000)")
      ("trace", po::value<std::string>(), "per-instruction trace (ZeBu line grammar)")
      ("vcd", po::value<std::string>(), "waveforms for GTKWave: every unit, NoC link and global memory")
      ("stats", po::value<std::string>(), "statistics as JSON ('-' for stdout)")
      ("adc-profile", po::value<std::string>(),
       "the largest column sum each crossbar's ADCs convert, as JSON (what vp-cc --adc-ranges reads)")
      ("check-races", "check every access of global memory and the cluster SRAMs against the program's messages, "
                      "barriers and starts: a race is reported even when the timing hides it (exit 7)")
      ("seed", po::value<std::string>(), "seed of every random model (device, noise); same as --set device.seed=N")
      ("max-cycles", po::value<std::string>()->default_value("0"), "stop after this many cycles (0: no limit)")
      ("include,I", po::value(&include_dirs)->composing(), "include directory for assembly input")
      ("list-params", "print every parameter with type, unit, default and description, then exit")
      ("dump-config", po::value<std::string>(), "write the effective configuration (YAML, '-' for stdout)")
      ("quiet,q", "no summary or progress line");
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "vp-run: " << e.what() << "\n" << opts;
    return kExitUsage;
  }
  if (vm.count("help")) {
    std::cout << "usage: vp-run --model prog.s|prog.vpo [options]\n" << opts;
    return 0;
  }
  const bool quiet = vm.count("quiet") > 0;
  // A large model's deployment allocates and frees its rows' state over and
  // over (large_heap.h): the program and its weight image, vp-cc's
  // MODEL.xbar beside MODEL.asm, count.
  if (vm.count("model")) {
    const std::filesystem::path model = vm["model"].as<std::string>();
    std::error_code e1, e2;
    const auto bytes = std::filesystem::file_size(model, e1);
    const auto image = std::filesystem::file_size(std::filesystem::path(model).replace_extension(".xbar"), e2);
    common::prefer_large_heap(argc, argv, (e1 ? 0 : bytes) + (e2 ? 0 : image));
  }

  uint64_t max_cycles = 0, seed = 0;
  uint32_t batch = 0, deploy_retries = 0;
  try {
    max_cycles = count_option(vm, "max-cycles", UINT64_MAX);
    // The firmware's batch counter and retry count are 32-bit words.
    batch = static_cast<uint32_t>(count_option(vm, "batch", UINT32_MAX));
    deploy_retries = static_cast<uint32_t>(count_option(vm, "deploy-retries", 1000));
    if (vm.count("seed")) seed = count_option(vm, "seed", UINT64_MAX);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    return kExitUsage;
  }

  // No output may be written over one of the run's inputs.
  {
    std::vector<std::pair<std::string, std::string>> ins, outs;
    if (vm.count("model")) ins.emplace_back("--model", vm["model"].as<std::string>());
    if (vm["firmware"].as<std::string>() != "none") ins.emplace_back("--firmware", vm["firmware"].as<std::string>());
    for (const auto& c : configs) ins.emplace_back("--config", c);
    for (const auto& i : inputs) ins.emplace_back("--input", spec_file(i));
    for (const char* o : {"trace", "vcd", "stats", "dump-config", "adc-profile"})
      if (vm.count(o)) outs.emplace_back(std::string("--") + o, vm[o].as<std::string>());
    for (const auto& o : outputs) outs.emplace_back("--output", spec_file(o));
    for (const auto& [oname, opath] : outs)
      for (const auto& [iname, ipath] : ins)
        if (opath != "-" && common::same_file(opath, ipath)) {
          std::cerr << "vp-run: " << oname << " " << opath << " is the " << iname << " file " << ipath
                    << "; refusing to overwrite an input\n";
          return kExitBadInput;
        }
  }

  // A system of chips: the system file names the chip preset and the link,
  // --chip and --link override them.
  // A program that is a system file (OUT.system.json) runs as --system
  // does, so tools that pass one program (vp-sweep) run systems too.
  platform::SystemFile system;
  const bool model_is_system = vm.count("model") && ends_with(vm["model"].as<std::string>(), ".system.json");
  const bool is_system = vm.count("system") > 0 || model_is_system;
  if (is_system && vm.count("check-races")) {
    std::cerr << "vp-run: --check-races checks one chip's run, not a system of chips (--system)\n";
    return kExitUsage;
  }
  if (is_system) {
    try {
      system = platform::load_system_file(vm[model_is_system ? "model" : "system"].as<std::string>());
      if (vm.count("chips") && count_option(vm, "chips", 64) != system.chips())
        throw std::runtime_error(system.path + ": has " + std::to_string(system.chips()) + " chips, --chips says " +
                                 vm["chips"].as<std::string>());
    } catch (const std::exception& e) {
      std::cerr << "vp-run: " << e.what() << "\n";
      return kExitBadInput;
    }
    if (vm.count("model") && vm.count("system")) {
      std::cerr << "vp-run: --system runs the programs its file names; drop --model\n";
      return kExitUsage;
    }
  } else if (vm.count("chips")) {
    std::cerr << "vp-run: --chips needs --system (vp-cc --chips N writes the system file)\n";
    return kExitUsage;
  }
  const std::string link = vm.count("link") ? vm["link"].as<std::string>() : is_system ? system.link : "";
  if (!link.empty() && link != "pcie" && link != "d2d") {
    std::cerr << "vp-run: --link " << link << ": expected pcie or d2d\n";
    return kExitUsage;
  }

  config::ParamSet params;
  try {
    params.apply_preset(is_system && vm["chip"].defaulted() ? system.chip : vm["chip"].as<std::string>());
    if (!link.empty()) params.apply_file(config::find_link_preset(link));
    for (const auto& f : configs) params.apply_file(f);
    params.apply_sets(sets);
    if (vm.count("seed")) params.apply_set("device.seed=" + std::to_string(seed));
    params.validate();
  } catch (const std::exception& e) {
    std::cerr << "vp-run: configuration error: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (vm.count("list-params")) {
    std::cout << config::list_params(&params) << std::flush;
    if (!std::cout) {
      std::cerr << "vp-run: standard output: write failed\n";
      return kExitBadInput;
    }
    return 0;
  }
  // With a model, the configuration is published with the run's other
  // outputs at its end; alone, it is the whole output.
  const std::string dump_config = vm.count("dump-config") ? vm["dump-config"].as<std::string>() : std::string();
  if (!dump_config.empty() && (!vm.count("model") || dump_config == "-")) {
    try {
      write_text_atomically(dump_config, config::dump_yaml(params));
    } catch (const std::exception& e) {
      std::cerr << "vp-run: " << e.what() << "\n";
      return kExitBadInput;
    }
    if (!vm.count("model")) return 0;
  }
  if (is_system) {
    SystemRunOptions so;
    so.system = &system;
    so.params = &params;
    so.inputs = inputs;
    so.outputs = outputs;
    so.batch = batch;
    so.deploy = vm.count("no-deploy") == 0;
    so.retries = deploy_retries;
    so.max_cycles = max_cycles;
    so.firmware = vm["firmware"].as<std::string>();
    if (vm.count("trace")) so.trace = vm["trace"].as<std::string>();
    if (vm.count("stats")) so.stats = vm["stats"].as<std::string>();
    so.dump_config = dump_config;
    so.quiet = quiet;
    so.interrupt = &g_interrupt;
    catch_stop_signals();
    const int status = run_system_command(so);
    return status == kInterrupted ? 128 + static_cast<int>(g_signal) : status;
  }
  if (!vm.count("model")) {
    std::cerr << "vp-run: no --model given\n" << opts;
    return kExitUsage;
  }

  const std::string model = vm["model"].as<std::string>();
  const std::string fw_path = vm["firmware"].as<std::string>();
  const bool bare = fw_path == "none";
  obj::Object object, firmware;
  try {
    object = load_any(model, include_dirs);
    platform::check_has_code(object);
  } catch (const platform::LoadError& e) {
    std::cerr << "vp-run: " << model << ": " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << (ends_with(model, ".vpo") ? "vp-run: " : "") << e.what() << (ends_with(model, ".vpo") ? "\n" : "");
    return kExitBadInput;
  }
  if (!bare) {
    try {
      firmware = load_any(fw_path, {});
    } catch (const std::exception& e) {
      std::cerr << "vp-run: firmware " << fw_path << ": " << e.what() << "\n";
      return kExitBadInput;
    }
  }

  platform::HostIo io;
  try {
    io = platform::plan_host_io(object, inputs, outputs, batch);
    if (bare && io.batch > 1)
      throw platform::HostIoError("a batch of " + std::to_string(io.batch) + " needs the firmware (not --firmware none)");
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    return kExitBadInput;
  }

  hw::ChipConfig cfg;
  try {
    cfg = platform::chip_config_from(params);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: configuration error: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    // Before anything is allocated: a chip the machine cannot hold is
    // refused by the parameter that makes it too large.
    platform::check_chip_size(cfg);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: configuration error: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    // Under the firmware the boot code checks the model against the chip.
    if (bare) platform::check_fits(object, cfg);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << model << ": " << e.what() << "\n";
    return kExitBadInput;
  }

  platform::RunSetup setup;
  setup.cfg = cfg;
  setup.model = &object;
  setup.firmware = bare ? nullptr : &firmware;
  setup.io = &io;
  setup.image.deploy = vm.count("no-deploy") == 0;
  setup.image.retries = deploy_retries;
  setup.max_cycles = max_cycles;
  // The trace is a log: opened (and an older one replaced) only once the
  // run is about to start, it keeps what executed whatever the outcome.
  // Every other file of the run is published at its end, all together
  // (common::commit_together): a run that cannot write one of them leaves
  // every older one as it was. The VCD's converter writes a scratch file
  // beside its temporary, which is then adopted.
  RunOutputs outputs_of_run;
  common::AtomicFile *vcd_out = nullptr, *stats_out = nullptr, *profile_out = nullptr;
  std::string vcd_part;
  try {
    if (vm.count("vcd")) {
      vcd_out = &outputs_of_run.add(vm["vcd"].as<std::string>());
      vcd_part = vcd_out->temp_path() + ".part";
    }
    if (vm.count("stats") && vm["stats"].as<std::string>() != "-") stats_out = &outputs_of_run.add(vm["stats"].as<std::string>());
    if (vm.count("adc-profile")) profile_out = &outputs_of_run.add(vm["adc-profile"].as<std::string>());
    if (!dump_config.empty() && dump_config != "-") outputs_of_run.add(dump_config).write(config::dump_yaml(params));
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    return kExitBadInput;
  }
  // The VCD's scratch file goes whatever way the run ends.
  struct ScratchFile {
    std::string path;
    ~ScratchFile() {
      if (!path.empty()) std::remove(path.c_str());
    }
  } vcd_scratch{vcd_part};
  if (vm.count("trace")) setup.trace_path = vm["trace"].as<std::string>();
  setup.vcd_path = vcd_part;
  setup.adc_profile = profile_out != nullptr;
  setup.check_races = vm.count("check-races") > 0;
  setup.progress = !quiet;
  setup.notes = !quiet;
  setup.interrupt = &g_interrupt;

  catch_stop_signals();
  platform::RunOutcome outcome;
  try {
    outcome = platform::run_model(setup);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    return kExitBadInput;
  }

  if (outcome.result.status == hw::RunStatus::Interrupted) {
    // What executed is kept in the trace, whole lines only; the other
    // outputs describe a finished run and are not written.
    if (!outcome.error.empty()) std::cerr << "vp-run: " << outcome.error << "\n";
    std::cerr << "vp-run: " << outcome.result.message << " (signal " << static_cast<int>(g_signal) << ")\n";
    return 128 + static_cast<int>(g_signal);
  }

  int status = 0;
  try {
    if (!outcome.error.empty()) throw std::runtime_error(outcome.error);
    if (vcd_out) vcd_out->adopt(vcd_part);
    if (stats_out) stats_out->write(outcome.stats.dump(2) + "\n");
    if (profile_out) profile_out->write(outcome.adc_profile.dump(1) + "\n");
    for (const auto& p : outcome.outputs) {
      const std::vector<uint8_t> file = platform::encode_tensor_file(p.path, p.bytes, p.dtype, p.shape);
      outputs_of_run.add(p.path).write(file.data(), file.size());
    }
    outputs_of_run.publish();
    if (vm.count("stats") && !stats_out) write_text_atomically("-", outcome.stats.dump(2) + "\n");
    if (!quiet) std::cerr << platform::run_summary(outcome.stats);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    status = kExitBadInput;
  }

  const platform::RunEnding ending = platform::run_ending(outcome, bare);
  for (const auto& line : ending.lines) std::cerr << (line.rfind("  ", 0) == 0 ? "" : "vp-run: ") << line << "\n";
  return ending.exit_code ? ending.exit_code : status;
}

}  // namespace

// SystemC prints a banner when its kernel first starts, which can happen
// during static initialisation (a namespace-scope sc_time in a model
// library). vp-run's output is the user's: the banner is switched off in a
// constructor that runs before every ordinary static initialiser.
__attribute__((constructor(101))) static void quiet_systemc_banner() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
}

int sc_main(int argc, char** argv) {
  // The kernel's own notes ("Simulation stopped by user") repeat what vp-run
  // reports in words; warnings and errors still show.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    return kExitBadInput;
  }
}
