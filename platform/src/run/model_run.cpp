#include "vp/platform/model_run.h"

#include "vp/platform/adc_profile.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "vp/as/assembler.h"
#include "vp/platform/fabric_recorder.h"
#include "vp/platform/float_io.h"
#include "vp/platform/program_loader.h"
#include "vp/platform/run_statistics.h"
#include "vp/platform/stream_images.h"
#include "vp/platform/trace_recorder.h"
#include "vp/platform/waveform_export.h"

namespace vp::platform {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The VCD's scratch files go whatever way the run ends.
struct ScratchFiles {
  std::vector<std::string> paths;
  ~ScratchFiles() {
    for (const auto& p : paths) std::remove(p.c_str());
  }
};

std::vector<uint8_t> read_back(hw::Chip& chip, const std::string& path, uint64_t addr, uint64_t bytes) {
  if (addr > chip.global_memory().size() || bytes > chip.global_memory().size() - addr)
    throw std::runtime_error(path + ": global[" + std::to_string(addr) + " .. +" + std::to_string(bytes) +
                             "] is outside global memory");
  const uint8_t* p = chip.global_memory().data() + addr;
  return std::vector<uint8_t>(p, p + bytes);
}

// Every output read back before the first is written, so one that cannot
// be read leaves all files as they were.
}  // namespace

std::vector<OutputTensor> read_outputs(hw::Chip& chip, const obj::Object& model, const HostIo& io,
                                       const ModelImage& image, bool bare) {
  std::vector<OutputTensor> pending;
  for (const auto& o : io.explicit_outputs)
    pending.push_back({o.path, read_back(chip, o.path, o.address, o.bytes), o.npy_dtype, {}});
  for (size_t k = 0; k < io.bound_outputs.size(); ++k) {
    const auto& o = io.bound_outputs[k];
    const obj::IoBinding& b = model.io[o.binding];
    // Every element's copy from the batch output area, stacked (the bare
    // run has one element, at the binding's own address).
    std::vector<uint8_t> all;
    const uint32_t elements = bare ? 1 : image.batch;
    for (uint32_t e = 0; e < elements; ++e) {
      const auto one =
          bare ? read_back(chip, o.path, b.address, b.bytes)
               : read_back(chip, o.path, image.batch_out + e * image.batch_out_stride + image.output_offsets[k], b.bytes);
      all.insert(all.end(), one.begin(), one.end());
    }
    // Values in the model's shape; codes in the order the chip holds them.
    std::vector<uint64_t> shape = o.as_float ? b.shape : stored_shape(b);
    if (elements > 1) {
      if (shape.empty()) shape.push_back(b.bytes / obj::io_dtype_size(b.dtype));
      shape.insert(shape.begin(), elements);
    }
    if (o.as_float) {
      const std::vector<float> y = dequantize_binding(b, all);
      std::vector<uint8_t> bytes(y.size() * 4);
      std::memcpy(bytes.data(), y.data(), bytes.size());
      pending.push_back({o.path, std::move(bytes), "<f4", std::move(shape)});
    } else {
      pending.push_back({o.path, std::move(all), npy_dtype(b.dtype), std::move(shape)});
    }
  }
  return pending;
}

obj::Object load_program_file(const std::string& path, const std::vector<std::string>& include_dirs) {
  if (ends_with(path, ".vpo")) return obj::load_object(path);
  as::Options ao;
  ao.include_dirs = include_dirs;
  as::Result r = as::assemble_file(path, ao);
  if (!r.ok()) throw std::runtime_error(r.error_text());
  return std::move(r.object);
}

RunOutcome run_model(const RunSetup& s) {
  const bool bare = s.firmware == nullptr;
  const obj::Object& object = *s.model;
  const HostIo& io = *s.io;
  // --vcd converts the instruction trace (a temporary one when no trace is
  // asked for) plus the fabric's activity after the run.
  const std::string trace_path =
      !s.trace_path.empty() ? s.trace_path : s.vcd_path.empty() ? std::string() : s.vcd_path + ".trace.tmp";
  ScratchFiles scratch;
  if (!s.vcd_path.empty()) {
    scratch.paths.push_back(s.vcd_path + ".fabric.tmp");
    if (s.trace_path.empty()) scratch.paths.push_back(trace_path);
  }
  // The trace file is opened (and an older one replaced) only once the
  // program is loaded and the run is about to start.
  std::unique_ptr<TraceRecorder> recorder;
  if (!trace_path.empty()) {
    try {
      recorder = std::make_unique<TraceRecorder>(trace_path, object.layer_names);
    } catch (const std::exception& e) {
      throw RunStartError(e.what());
    }
  }

  RunOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  hw::Chip chip("chip", s.cfg, recorder.get());
  chip.crossbars().profile_adc(s.adc_profile);
  std::unique_ptr<hw::RaceCheck> races;
  if (s.check_races) {
    races = std::make_unique<hw::RaceCheck>(chip.cores() + 1);
    for (uint32_t c = 0; c < chip.cores(); ++c) chip.core(c).set_race_check(races.get());
    chip.control_processor().set_race_check(races.get());
  }
  std::unique_ptr<FabricRecorder> fabric;
  if (!s.vcd_path.empty()) {
    try {
      fabric = std::make_unique<FabricRecorder>(chip, s.vcd_path + ".fabric.tmp");
    } catch (const std::exception& e) {
      throw RunStartError(e.what());
    }
  }
  LoadSummary load;
  ModelImage image;
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
          place(describe(b), b.address, io.batch_inputs[0][k]);
          if (b.indirect >= 0) {  // read through its word: the bytes are at the binding
            const uint32_t at = static_cast<uint32_t>(b.address);
            place(describe(b) + "'s indirect word", static_cast<uint64_t>(b.indirect),
                  std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(&at), reinterpret_cast<const uint8_t*>(&at) + 4));
          }
        }
      load = load_program(object, chip);
    } else {
      image = install_model(object, *s.firmware, io, chip, s.image);
      if (races) races->read_only(-1, image.read_only, image.read_only_end);
      if (!s.image.deploy) {
        load.cell_programs = image.cell_programs;
        load.cells = image.cells;
        load.preload_ispp_cycles = image.preload_ispp_cycles;
      }
      load.cu_programs = image.cu_programs;
      if (image.model_cp_replaced && s.notes)
        std::fprintf(stderr,
                     "vp-run: note: the model's control-processor code is replaced by the firmware "
                     "(--firmware none runs it bare)\n");
    }
    if (recorder) recorder->open();
  } catch (const std::exception& e) {
    throw RunStartError(e.what());
  }
  // A stream's output slots, each image's share of every output binding:
  // global memory marks the writes into them (stream_images.h).
  std::vector<OutputSlots> stream_slots;
  if (!bare && image.images_per_start > 1)
    for (const size_t k : io.output_bindings) {
      const obj::IoBinding& b = object.io[k];
      stream_slots.push_back({b.address, b.bytes / image.images_per_start});
      chip.global_memory().watch_writes(b.address, b.bytes);
    }

  // A progress line on long runs, only for a person at a terminal.
  std::atomic<bool> done{false};
  std::thread progress;
  if (s.progress && isatty(STDERR_FILENO)) {
    progress = std::thread([&] {
      int ticks = 0;
      while (!done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (++ticks % 10 == 0 && !done.load()) {
          const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          std::fprintf(stderr, "\rvp-run: %.0f s, %llu instructions so far", secs,
                       static_cast<unsigned long long>(chip.progress_instructions()));
          std::fflush(stderr);
        }
      }
    });
  }
  out.result = chip.run(s.max_cycles, s.interrupt);
  done = true;
  if (progress.joinable()) {
    progress.join();
    std::fprintf(stderr, "\r\033[K");
  }
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (out.result.status == hw::RunStatus::Interrupted) {
    // What executed is kept in the trace, whole lines only; the other
    // outputs describe a finished run and are not made.
    try {
      if (recorder) recorder->close();
    } catch (const std::exception& e) {
      out.error = e.what();
    }
    return out;
  }
  try {
    if (recorder) recorder->close();
    if (fabric) {
      fabric->close();
      write_run_vcd(trace_path, s.vcd_path + ".fabric.tmp", s.vcd_path, s.cfg.clock_mhz);
    }
    HostFigures host{out.wall_seconds, recorder && !s.trace_path.empty() ? recorder->records() : 0};
    nlohmann::json stats = run_statistics(chip, out.result, load, host);
    if (!bare) {
      out.firmware = read_firmware_report(chip, image);
      stats["firmware"] = firmware_statistics(out.firmware, image, s.cfg);
      if (!stream_slots.empty()) {
        const auto images_done = image_done_cycles(chip.global_memory().write_marks(), stream_slots,
                                                   image.images_per_start, out.firmware.inferences);
        stats["firmware"]["image_done_cycles"] = images_done;
        stats["firmware"]["stream_period_cycles"] = steady_period(images_done);
      }
    }
    if (races) {
      out.races_checked = true;
      out.race_accesses = races->accesses();
      out.races = races->races();
      for (const auto& r : races->first_races())
        out.race_lines.push_back(hw::RaceCheck::describe(r, &object.layer_names));
      stats["race_check"] = {{"accesses", out.race_accesses}, {"races", out.races}};
    }
    out.stats = std::move(stats);
    if (s.adc_profile) out.adc_profile = adc_profile_json(chip, s.cfg);
    if (out.result.status == hw::RunStatus::Completed) out.outputs = read_outputs(chip, object, io, image, bare);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

RunEnding run_ending(const RunOutcome& o, bool bare) {
  RunEnding end;
  const hw::RunResult& r = o.result;
  switch (r.status) {
    case hw::RunStatus::Completed:
      if (o.races > 0) {
        end.exit_code = 7;
        end.lines.push_back("--check-races: " + std::to_string(o.races) + " of " + std::to_string(o.race_accesses) +
                            " shared-memory accesses race with an earlier one (the first " +
                            std::to_string(o.race_lines.size()) + " below)");
        for (const auto& l : o.race_lines) end.lines.push_back("  " + l);
      }
      break;
    case hw::RunStatus::Interrupted: break;
    case hw::RunStatus::Deadlock:
      end.exit_code = 3;
      end.lines.push_back(r.message);
      for (const auto& w : r.waiting) end.lines.push_back("  " + w);
      break;
    case hw::RunStatus::MaxCycles:
      end.exit_code = 4;
      end.lines.push_back(r.message + (bare ? std::string()
                                            : std::string(" (firmware phase: ") +
                                                  firmware_phase_name(o.firmware.phase) + ")"));
      break;
    case hw::RunStatus::Fault:
      end.exit_code = 5;
      end.lines.push_back("fault: " + r.message);
      break;
    case hw::RunStatus::Trap: {
      end.exit_code = 6;
      const std::string words = bare ? std::string() : firmware_error_message(r.trap_code, o.firmware);
      if (!words.empty()) end.lines.push_back(words);
      end.lines.push_back(r.message);
      break;
    }
  }
  return end;
}

}  // namespace vp::platform
