// vp-run: builds the chip from a preset and overrides, loads a program
// (assembly or object), runs it, and writes the trace, statistics and outputs.
//
// By default the model runs under the firmware (firmware/, docs/firmware.md):
// vp-run is the host driver that writes the model image and starts the
// firmware on the control processor; --firmware none runs the object bare.
//
// Exit codes: 0 completed; 1 bad input (program, configuration, files);
// 2 usage; 3 deadlock; 4 --max-cycles reached; 5 a core faulted; 6 a trap
// (the firmware's error codes are reported in words); 128 + the signal
// (130 SIGINT, 143 SIGTERM) when interrupted: the run stops between two
// instructions and the trace ends at a line boundary.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <boost/program_options.hpp>
#include <systemc>

#include "vp/as/assembler.h"
#include "vp/common/atomic_file.h"
#include "vp/common/parse_number.h"
#include "vp/config/config_error.h"
#include "vp/config/param_set.h"
#include "vp/config/report.h"
#include "vp/hw/chip/chip.h"
#include "vp/platform/adc_profile.h"
#include "vp/platform/chip_builder.h"
#include "vp/platform/chip_size.h"
#include "vp/platform/float_io.h"
#include "vp/platform/host_io.h"
#include "vp/platform/firmware_report.h"
#include "vp/platform/model_image.h"
#include "vp/platform/program_loader.h"
#include "vp/platform/run_statistics.h"
#include "vp/platform/tensor_file.h"
#include "vp/platform/trace_recorder.h"
#include "vp/platform/fabric_recorder.h"
#include "vp/platform/waveform_export.h"

namespace po = boost::program_options;
using namespace vp;

namespace {

constexpr int kExitBadInput = 1, kExitUsage = 2, kExitDeadlock = 3, kExitMaxCycles = 4, kExitFault = 5, kExitTrap = 6;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// An object from a .vpo file or assembled from source.
obj::Object load_any(const std::string& path, const std::vector<std::string>& include_dirs) {
  if (ends_with(path, ".vpo")) return obj::load_object(path);
  as::Options ao;
  ao.include_dirs = include_dirs;
  as::Result r = as::assemble_file(path, ao);
  if (!r.ok()) throw std::runtime_error(r.error_text());
  return std::move(r.object);
}

#ifndef VP_FIRMWARE_PATH
#define VP_FIRMWARE_PATH "firmware/sidra_fw.vpo"
#endif

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
      ("model,m", po::value<std::string>(), "program: assembly (.s/.asm) or object (.vpo)")
      ("chip", po::value<std::string>()->default_value("sidra-y1"), "preset name or file")
      ("config", po::value(&configs)->composing(), "configuration file (YAML or JSON) over the preset; repeatable")
      ("set", po::value(&sets)->composing(), "override one parameter, path.to.param=value; repeatable")
      ("input", po::value(&inputs)->composing(),
       "FILE (the model's next .input: its codes as raw bytes or .npy, or float32 .npy values the binding's "
       "scale quantizes) or FILE@ADDR: .npy or raw bytes into global memory; repeatable")
      ("output", po::value(&outputs)->composing(),
       "FILE[:int8|float32] (the model's next .output: a .npy of a binding with a scale gets float32 values, "
       ":int8 the codes) or FILE@ADDR:BYTES[:int8|uint8|int16|int32|float32]: global memory after the run")
      ("batch", po::value<std::string>()->default_value("0"), "batch elements (0: one per set of bound --input files)")
      ("firmware", po::value<std::string>()->default_value(VP_FIRMWARE_PATH),
       "firmware run on the control processor (.vpo or assembly); 'none' runs the model bare")
      ("no-deploy", "crossbars assumed programmed: the platform writes the levels (untimed ISPP), the firmware skips deploy")
      ("deploy-retries", po::value<std::string>()->default_value("2"),
       "extra program-and-verify passes the firmware gives a row with failed cells (0 to 1000)")
      ("trace", po::value<std::string>(), "per-instruction trace (ZeBu line grammar)")
      ("vcd", po::value<std::string>(), "waveforms for GTKWave: every unit, NoC link and global memory")
      ("stats", po::value<std::string>(), "statistics as JSON ('-' for stdout)")
      ("adc-profile", po::value<std::string>(),
       "the largest column sum each crossbar's ADCs convert, as JSON (what vp-cc --adc-ranges reads)")
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
    for (const char* o : {"trace", "vcd", "stats", "dump-config"})
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

  config::ParamSet params;
  try {
    params.apply_preset(vm["chip"].as<std::string>());
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

  // --vcd converts the instruction trace (a temporary one when --trace is
  // not given) plus the fabric's activity after the run.
  const std::string vcd_path = vm.count("vcd") ? vm["vcd"].as<std::string>() : std::string();
  const std::string trace_path =
      vm.count("trace") ? vm["trace"].as<std::string>() : vcd_path.empty() ? std::string() : vcd_path + ".trace.tmp";
  // The VCD's scratch files go whatever way the run ends.
  struct ScratchFiles {
    std::vector<std::string> paths;
    ~ScratchFiles() {
      for (const auto& p : paths) std::remove(p.c_str());
    }
  } scratch;
  if (!vcd_path.empty()) {
    scratch.paths.push_back(vcd_path + ".fabric.tmp");
    if (!vm.count("trace")) scratch.paths.push_back(trace_path);
  }
  // The trace is a log: opened (and an older one replaced) only once the
  // program is loaded and the run is about to start, it keeps what executed
  // whatever the outcome. Every other file of the run is published at its
  // end, all together (common::commit_together): a run that cannot write
  // one of them leaves every older one as it was. The VCD's converter writes
  // a scratch file beside its temporary, which is then adopted.
  RunOutputs outputs_of_run;
  common::AtomicFile *vcd_out = nullptr, *stats_out = nullptr, *profile_out = nullptr;
  std::unique_ptr<platform::TraceRecorder> recorder;
  try {
    if (!trace_path.empty()) recorder = std::make_unique<platform::TraceRecorder>(trace_path, object.layer_names);
    if (!vcd_path.empty()) {
      vcd_out = &outputs_of_run.add(vcd_path);
      scratch.paths.push_back(vcd_out->temp_path() + ".part");
    }
    if (vm.count("stats") && vm["stats"].as<std::string>() != "-") stats_out = &outputs_of_run.add(vm["stats"].as<std::string>());
    if (vm.count("adc-profile")) profile_out = &outputs_of_run.add(vm["adc-profile"].as<std::string>());
    if (!dump_config.empty() && dump_config != "-") outputs_of_run.add(dump_config).write(config::dump_yaml(params));
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    return kExitBadInput;
  }

  catch_stop_signals();
  const auto t0 = std::chrono::steady_clock::now();
  hw::Chip chip("chip", cfg, recorder.get());
  chip.crossbars().profile_adc(profile_out != nullptr);
  std::unique_ptr<platform::FabricRecorder> fabric;
  if (!vcd_path.empty()) {
    try {
      fabric = std::make_unique<platform::FabricRecorder>(chip, vcd_path + ".fabric.tmp");
    } catch (const std::exception& e) {
      std::cerr << "vp-run: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  platform::LoadSummary load;
  platform::ModelImage image;
  try {
    auto place = [&](const std::string& what, uint64_t addr, const std::vector<uint8_t>& bytes) {
      if (addr > chip.global_memory().size() || bytes.size() > chip.global_memory().size() - addr)
        throw std::runtime_error(what + ": " + std::to_string(bytes.size()) + " bytes at " + std::to_string(addr) +
                                 " do not fit global memory of " + std::to_string(chip.global_memory().size()) + " bytes");
      std::copy(bytes.begin(), bytes.end(), chip.global_memory().data() + addr);
    };
    for (const auto& in : io.explicit_inputs) place(in.path, in.address, in.bytes);
    if (bare) {
      if (!io.batch_inputs.empty())
        for (size_t k = 0; k < io.input_bindings.size(); ++k) {
          const obj::IoBinding& b = object.io[io.input_bindings[k]];
          place(platform::describe(b), b.address, io.batch_inputs[0][k]);
        }
      load = platform::load_program(object, chip);
    } else {
      platform::ImageOptions opt;
      opt.deploy = vm.count("no-deploy") == 0;
      opt.retries = deploy_retries;
      image = platform::install_model(object, firmware, io, chip, opt);
      if (!opt.deploy) {
        load.cell_programs = image.cell_programs;
        load.cells = image.cells;
        load.preload_ispp_cycles = image.preload_ispp_cycles;
      }
      load.cu_programs = image.cu_programs;
      if (image.model_cp_replaced && !quiet)
        std::cerr << "vp-run: note: the model's control-processor code is replaced by the firmware "
                     "(--firmware none runs it bare)\n";
    }
    if (recorder) recorder->open();
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    return kExitBadInput;
  }

  // A progress line on long runs, only for a person at a terminal.
  std::atomic<bool> done{false};
  std::thread progress;
  if (!quiet && isatty(STDERR_FILENO)) {
    progress = std::thread([&] {
      int ticks = 0;
      while (!done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (++ticks % 10 == 0 && !done.load()) {
          const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          std::fprintf(stderr, "\rvp-run: %.0f s, %llu instructions so far", s,
                       static_cast<unsigned long long>(chip.progress_instructions()));
          std::fflush(stderr);
        }
      }
    });
  }
  hw::RunResult result = chip.run(max_cycles, &g_interrupt);
  done = true;
  if (progress.joinable()) {
    progress.join();
    std::fprintf(stderr, "\r\033[K");
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (result.status == hw::RunStatus::Interrupted) {
    // What executed is kept in the trace, whole lines only; the other
    // outputs describe a finished run and are not written.
    try {
      if (recorder) recorder->close();
    } catch (const std::exception& e) {
      std::cerr << "vp-run: " << e.what() << "\n";
    }
    std::cerr << "vp-run: " << result.message << " (signal " << static_cast<int>(g_signal) << ")\n";
    return 128 + static_cast<int>(g_signal);
  }

  int status = 0;
  platform::FirmwareReport fw_report;
  try {
    if (recorder) recorder->close();
    if (fabric) {
      fabric->close();
      platform::write_run_vcd(trace_path, vcd_path + ".fabric.tmp", vcd_out->temp_path() + ".part", cfg.clock_mhz);
      vcd_out->adopt(vcd_out->temp_path() + ".part");
    }
    platform::HostFigures host{wall, recorder && vm.count("trace") ? recorder->records() : 0};
    nlohmann::json stats = platform::run_statistics(chip, result, load, host);
    if (!bare) {
      fw_report = platform::read_firmware_report(chip, image);
      stats["firmware"] = platform::firmware_statistics(fw_report, image, cfg);
    }
    if (stats_out) stats_out->write(stats.dump(2) + "\n");
    if (profile_out) profile_out->write(platform::adc_profile_json(chip, cfg).dump(1) + "\n");
    if (result.status == hw::RunStatus::Completed) {
      auto read_back = [&](const std::string& path, uint64_t addr, uint64_t bytes) {
        if (addr > chip.global_memory().size() || bytes > chip.global_memory().size() - addr)
          throw std::runtime_error(path + ": global[" + std::to_string(addr) + " .. +" + std::to_string(bytes) +
                                   "] is outside global memory");
        const uint8_t* p = chip.global_memory().data() + addr;
        return std::vector<uint8_t>(p, p + bytes);
      };
      // Every output is read back before the first is written, so one that
      // cannot be read leaves all files as they were.
      struct Pending {
        std::string path;
        std::vector<uint8_t> bytes;
        std::string dtype;
        std::vector<uint64_t> shape;
      };
      std::vector<Pending> pending;
      for (const auto& o : io.explicit_outputs)
        pending.push_back({o.path, read_back(o.path, o.address, o.bytes), o.npy_dtype, {}});
      for (size_t k = 0; k < io.bound_outputs.size(); ++k) {
        const auto& o = io.bound_outputs[k];
        const obj::IoBinding& b = object.io[o.binding];
        // Every element's copy from the batch output area, stacked (the
        // bare run has one element, at the binding's own address).
        std::vector<uint8_t> all;
        const uint32_t elements = bare ? 1 : image.batch;
        for (uint32_t e = 0; e < elements; ++e) {
          const auto one = bare ? read_back(o.path, b.address, b.bytes)
                                : read_back(o.path, image.batch_out + e * image.batch_out_stride + image.output_offsets[k],
                                            b.bytes);
          all.insert(all.end(), one.begin(), one.end());
        }
        // Values in the model's shape; codes in the order the chip holds them.
        std::vector<uint64_t> shape = o.as_float ? b.shape : platform::stored_shape(b);
        if (elements > 1) {
          if (shape.empty()) shape.push_back(b.bytes / obj::io_dtype_size(b.dtype));
          shape.insert(shape.begin(), elements);
        }
        if (o.as_float) {
          const std::vector<float> y = platform::dequantize_binding(b, all);
          std::vector<uint8_t> bytes(y.size() * 4);
          std::memcpy(bytes.data(), y.data(), bytes.size());
          pending.push_back({o.path, std::move(bytes), "<f4", std::move(shape)});
        } else {
          pending.push_back({o.path, std::move(all), platform::npy_dtype(b.dtype), std::move(shape)});
        }
      }
      for (const auto& p : pending) {
        const std::vector<uint8_t> file = platform::encode_tensor_file(p.path, p.bytes, p.dtype, p.shape);
        outputs_of_run.add(p.path).write(file.data(), file.size());
      }
    }
    outputs_of_run.publish();
    if (vm.count("stats") && !stats_out) write_text_atomically("-", stats.dump(2) + "\n");
    if (!quiet) std::cerr << platform::run_summary(stats);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    status = kExitBadInput;
  }

  switch (result.status) {
    case hw::RunStatus::Completed: return status;
    case hw::RunStatus::Deadlock:
      std::cerr << "vp-run: " << result.message << "\n";
      for (const auto& w : result.waiting) std::cerr << "  " << w << "\n";
      return kExitDeadlock;
    case hw::RunStatus::MaxCycles:
      std::cerr << "vp-run: " << result.message
                << (bare ? std::string() : std::string(" (firmware phase: ") + platform::firmware_phase_name(fw_report.phase) + ")")
                << "\n";
      return kExitMaxCycles;
    case hw::RunStatus::Fault: std::cerr << "vp-run: fault: " << result.message << "\n"; return kExitFault;
    case hw::RunStatus::Interrupted: return 128 + static_cast<int>(g_signal);
    case hw::RunStatus::Trap: {
      const std::string words = bare ? std::string() : platform::firmware_error_message(result.trap_code, fw_report);
      if (!words.empty()) std::cerr << "vp-run: " << words << "\n";
      std::cerr << "vp-run: " << result.message << "\n";
      return kExitTrap;
    }
  }
  return status;
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
