#include "vp_run_system.h"

#include <iostream>
#include <memory>

#include "vp/common/atomic_file.h"
#include "vp/config/report.h"
#include "vp/platform/chip_builder.h"
#include "vp/platform/chip_size.h"
#include "vp/platform/model_run.h"
#include "vp/platform/program_loader.h"
#include "vp/platform/system_run.h"
#include "vp/platform/tensor_file.h"

using namespace vp;

namespace {
constexpr int kExitBadInput = 1;

int bad(const std::string& message) {
  std::cerr << "vp-run: " << message << "\n";
  return kExitBadInput;
}
}  // namespace

int run_system_command(const SystemRunOptions& o) {
  const platform::SystemFile& sys = *o.system;
  if (o.firmware == "none") return bad(sys.path + ": a system of chips runs under the firmware; drop --firmware none");
  std::vector<obj::Object> models(sys.chips());
  obj::Object firmware;
  for (uint32_t k = 0; k < sys.chips(); ++k) {
    try {
      models[k] = platform::load_program_file(sys.programs[k]);
      platform::check_has_code(models[k]);
    } catch (const std::exception& e) {
      return bad(sys.path + ": chip " + std::to_string(k) + " program " + sys.programs[k] + ": " + e.what());
    }
  }
  try {
    firmware = platform::load_program_file(o.firmware);
  } catch (const std::exception& e) {
    return bad("firmware " + o.firmware + ": " + e.what());
  }

  platform::SystemSetup setup;
  try {
    setup.io.push_back(platform::plan_host_io(models[0], o.inputs, {}, o.batch));
    if (setup.io[0].batch_inputs.empty() && !setup.io[0].input_bindings.empty())
      throw platform::HostIoError("the first chip's inputs are the model's: give them with --input");
    for (uint32_t k = 1; k < sys.chips(); ++k)
      setup.io.push_back(platform::link_fed_io(models[k], setup.io[0].batch,
                                               k + 1 == sys.chips() ? o.outputs : std::vector<std::string>{}));
    setup.cfg = platform::chip_config_from(*o.params);
    platform::check_chip_size(setup.cfg);
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  for (const auto& m : models) setup.models.push_back(&m);
  setup.firmware = &firmware;
  setup.routes = sys.routes;
  setup.image.deploy = o.deploy;
  setup.image.retries = o.retries;
  setup.max_cycles = o.max_cycles;
  setup.trace_path = o.trace;
  setup.interrupt = o.interrupt;

  platform::SystemOutcome out;
  try {
    out = platform::run_system(setup);
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  if (out.result.status == hw::RunStatus::Interrupted) {
    std::cerr << "vp-run: " << out.result.message << "\n";
    return kInterrupted;
  }
  int status = 0;
  try {
    if (!out.error.empty()) throw std::runtime_error(out.error);
    // Outputs, statistics and the configuration appear together or not at all.
    std::vector<std::unique_ptr<common::AtomicFile>> files;
    auto add = [&](const std::string& path) -> common::AtomicFile& {
      files.push_back(std::make_unique<common::AtomicFile>(path));
      return *files.back();
    };
    for (const auto& p : out.outputs) {
      const std::vector<uint8_t> file = platform::encode_tensor_file(p.path, p.bytes, p.dtype, p.shape);
      add(p.path).write(file.data(), file.size());
    }
    if (!o.stats.empty() && o.stats != "-") add(o.stats).write(out.stats.dump(2) + "\n");
    if (!o.dump_config.empty() && o.dump_config != "-") add(o.dump_config).write(config::dump_yaml(*o.params));
    std::vector<common::AtomicFile*> all;
    for (auto& f : files) all.push_back(f.get());
    common::commit_together(all);
    if (o.stats == "-") std::cout << out.stats.dump(2) << "\n" << std::flush;
    if (!o.quiet) std::cerr << platform::system_summary(out.stats);
  } catch (const std::exception& e) {
    std::cerr << "vp-run: " << e.what() << "\n";
    status = kExitBadInput;
  }
  // A chip that did not complete ends the run as a single chip would.
  platform::RunOutcome one;
  one.result = out.result;
  const std::string prefix = out.result.message.substr(0, out.result.message.find(':'));
  for (size_t k = 0; k < out.firmware.size(); ++k)
    if (prefix == "chip " + std::to_string(k)) one.firmware = out.firmware[k];
  const platform::RunEnding ending = platform::run_ending(one, false);
  for (const auto& line : ending.lines) std::cerr << (line.rfind("  ", 0) == 0 ? "" : "vp-run: ") << line << "\n";
  return ending.exit_code ? ending.exit_code : status;
}
