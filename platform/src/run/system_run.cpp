#include "vp/platform/system_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "vp/hw/system/chip_link.h"
#include "vp/platform/run_statistics.h"
#include "vp/platform/trace_recorder.h"

namespace vp::platform {

using nlohmann::json;

HostIo link_fed_io(const obj::Object& model, uint32_t batch, const std::vector<std::string>& outputs) {
  HostIo io = plan_host_io(model, std::vector<BoundInput>{}, outputs, batch);
  // The firmware copies each element's inputs from its area into the
  // bindings, so the areas exist although the host writes nothing there.
  io.batch_inputs.assign(io.batch, std::vector<std::vector<uint8_t>>(io.input_bindings.size()));
  for (auto& element : io.batch_inputs)
    for (size_t k = 0; k < io.input_bindings.size(); ++k) element[k].assign(model.io[io.input_bindings[k]].bytes, 0);
  return io;
}

std::string system_trace_path(const std::string& path, uint32_t chip) {
  std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  p.replace_extension(".chip" + std::to_string(chip) + ext);
  return p.string();
}

namespace {

// A route's addresses in the two images, checked against both bindings.
hw::LinkRoute link_route(const SystemRoute& r, const SystemSetup& s, const std::vector<ModelImage>& images) {
  auto chip = [](uint32_t k) { return "chip " + std::to_string(k); };
  const HostIo& from = s.io[r.from];
  const HostIo& to = s.io[r.to];
  if (r.output >= from.output_bindings.size())
    throw RunStartError("route of '" + r.value + "': " + chip(r.from) + "'s program has " +
                        std::to_string(from.output_bindings.size()) + " output(s), not " + std::to_string(r.output + 1));
  if (r.input >= to.input_bindings.size())
    throw RunStartError("route of '" + r.value + "': " + chip(r.to) + "'s program has " +
                        std::to_string(to.input_bindings.size()) + " input(s), not " + std::to_string(r.input + 1));
  const obj::IoBinding& out = s.models[r.from]->io[from.output_bindings[r.output]];
  const obj::IoBinding& in = s.models[r.to]->io[to.input_bindings[r.input]];
  if (out.bytes != in.bytes || out.bytes != r.bytes)
    throw RunStartError("route of '" + r.value + "': " + chip(r.from) + "'s " + describe(out) + " and " + chip(r.to) +
                        "'s " + describe(in) + " differ (the system file says " + std::to_string(r.bytes) + " bytes)");
  hw::LinkRoute l;
  l.from = r.from;
  l.to = r.to;
  l.bytes = r.bytes;
  l.src = images[r.from].batch_out + images[r.from].output_offsets[r.output];
  l.src_stride = images[r.from].batch_out_stride;
  l.dst = images[r.to].batch_in + images[r.to].input_offsets[r.input];
  l.dst_stride = images[r.to].batch_in_stride;
  return l;
}

json link_statistics(const hw::ChipLink& link) {
  const hw::LinkConfig& c = link.config();
  json links = json::array();
  for (const hw::LinkStats& s : link.stats())
    links.push_back({{"from", s.from < 0 ? json("switch") : json(s.from)},
                     {"to", s.to < 0 ? json("switch") : json(s.to)},
                     {"transfers", s.transfers},
                     {"bytes", s.bytes},
                     {"busy_cycles", s.busy_cycles},
                     {"wait_cycles", s.wait_cycles},
                     {"energy_pj", s.energy_pj}});
  return {{"topology", hw::link_topology_name(c.topology)},
          {"lanes", c.lanes},
          {"lane_gtps", c.lane_gtps},
          {"gbytes_per_s", c.gbytes_per_s()},
          {"latency_ns", c.latency_ns},
          {"pj_per_bit", c.pj_per_bit},
          {"transfers", link.transfers()},
          {"energy_pj", link.energy_pj()},
          {"links", links}};
}

}  // namespace

SystemOutcome run_system(const SystemSetup& s) {
  const uint32_t n = static_cast<uint32_t>(s.models.size());
  if (n < 2 || s.io.size() != n || !s.firmware) throw RunStartError("a system needs two or more chips and the firmware");
  SystemOutcome out;
  std::vector<std::unique_ptr<TraceRecorder>> recorders(n);
  if (!s.trace_path.empty())
    for (uint32_t k = 0; k < n; ++k) {
      try {
        recorders[k] = std::make_unique<TraceRecorder>(system_trace_path(s.trace_path, k), s.models[k]->layer_names,
                                                      static_cast<int>(k));
      } catch (const std::exception& e) {
        throw RunStartError(e.what());
      }
    }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<hw::Chip>> chips;
  std::vector<hw::Chip*> chip_ptrs;
  for (uint32_t k = 0; k < n; ++k) {
    const std::string name = "chip" + std::to_string(k);
    chips.push_back(std::make_unique<hw::Chip>(name.c_str(), s.cfg, recorders[k].get(), true));
    chip_ptrs.push_back(chips.back().get());
  }
  std::vector<bool> fed(n, false), feeds(n, false);
  for (const SystemRoute& r : s.routes) {
    if (r.from >= n || r.to >= n) throw RunStartError("a route names a chip the system does not have");
    fed[r.to] = true;
    feeds[r.from] = true;
  }
  std::vector<ModelImage> images(n);
  std::vector<LoadSummary> loads(n);
  for (uint32_t k = 0; k < n; ++k) {
    ImageOptions opt = s.image;
    opt.link_participant = chips[k]->link_participant();
    opt.link_in = fed[k];
    opt.link_out = feeds[k];
    try {
      images[k] = install_model(*s.models[k], *s.firmware, s.io[k], *chips[k], opt);
    } catch (const std::exception& e) {
      throw RunStartError("chip " + std::to_string(k) + ": " + e.what());
    }
    if (!opt.deploy) {
      loads[k].cell_programs = images[k].cell_programs;
      loads[k].cells = images[k].cells;
      loads[k].preload_ispp_cycles = images[k].preload_ispp_cycles;
    }
    loads[k].cu_programs = images[k].cu_programs;
  }
  std::vector<hw::LinkRoute> routes;
  for (const SystemRoute& r : s.routes) routes.push_back(link_route(r, s, images));
  hw::ChipLink link("link", s.cfg.link, chip_ptrs, routes, s.io[0].batch);
  for (auto& r : recorders)
    if (r) r->open();

  for (auto& c : chips) c->arm(s.max_cycles, s.interrupt);
  sc_core::sc_start();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<hw::RunResult> results;
  for (auto& c : chips) results.push_back(c->outcome());
  out.result.status = hw::RunStatus::Completed;
  for (const auto& r : results) out.result.cycles = std::max(out.result.cycles, r.cycles);
  for (uint32_t k = 0; k < n; ++k)
    if (results[k].status != hw::RunStatus::Completed) {
      out.result = results[k];
      out.result.message = "chip " + std::to_string(k) + ": " + out.result.message;
      for (auto& w : out.result.waiting) w = "chip " + std::to_string(k) + ": " + w;
      break;
    }
  if (!link.fault().empty() && out.result.status == hw::RunStatus::Completed) {
    out.result.status = hw::RunStatus::Fault;
    out.result.message = link.fault();
  }
  try {
    for (auto& r : recorders)
      if (r) r->close();
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  if (out.result.status == hw::RunStatus::Interrupted || !out.error.empty()) return out;
  try {
    json per_chip = json::array();
    double energy = link.energy_pj();
    for (uint32_t k = 0; k < n; ++k) {
      HostFigures host{out.wall_seconds, recorders[k] ? recorders[k]->records() : 0};
      json st = run_statistics(*chips[k], results[k], loads[k], host);
      out.firmware.push_back(read_firmware_report(*chips[k], images[k]));
      st["firmware"] = firmware_statistics(out.firmware.back(), images[k], s.cfg);
      // Each element's (start, end) cycle: a chip fed by the link starts an
      // element when its inputs have landed.
      json times = json::array();
      for (const auto& [t0e, t1e] : out.firmware.back().inferences) times.push_back({t0e, t1e});
      st["firmware"]["inference_times"] = std::move(times);
      energy += st["energy_pj"]["total"].get<double>();
      per_chip.push_back(std::move(st));
    }
    // The pipeline's figures: element 0 from the first chip's start to the
    // last chip's end, and the interval between the last chip's results.
    json sys = {{"chips", n}, {"cycles", out.result.cycles}, {"elements", s.io[0].batch}};
    const auto& first = out.firmware.front().inferences;
    const auto& last = out.firmware.back().inferences;
    if (!first.empty() && !last.empty()) {
      sys["latency_cycles"] = last.front().second - first.front().first;
      if (last.size() > 1)
        sys["interval_cycles"] = (last.back().second - last.front().second) / (last.size() - 1);
    }
    sys["energy_pj"] = energy;
    sys["link"] = link_statistics(link);
    out.stats = {{"system", sys}, {"chips", per_chip}};
    if (out.result.status == hw::RunStatus::Completed)
      out.outputs = read_outputs(*chips.back(), *s.models.back(), s.io.back(), images.back(), false);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

std::string system_summary(const json& stats) {
  const json& s = stats.at("system");
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "system:      %u chips, %s link (%.1f GB/s, %.0f ns per hop)\n",
                s["chips"].get<unsigned>(), s["link"]["topology"].get<std::string>().c_str(),
                s["link"]["gbytes_per_s"].get<double>(), s["link"]["latency_ns"].get<double>());
  out += line;
  std::snprintf(line, sizeof line, "cycles:      %llu\n", static_cast<unsigned long long>(s["cycles"].get<uint64_t>()));
  out += line;
  if (s.contains("latency_cycles")) {
    std::snprintf(line, sizeof line, "latency:     %llu cycles (element 0, first chip in to last chip out)\n",
                  static_cast<unsigned long long>(s["latency_cycles"].get<uint64_t>()));
    out += line;
  }
  if (s.contains("interval_cycles")) {
    std::snprintf(line, sizeof line, "interval:    %llu cycles between results\n",
                  static_cast<unsigned long long>(s["interval_cycles"].get<uint64_t>()));
    out += line;
  }
  uint64_t bytes = 0;
  for (const auto& l : s["link"]["links"]) bytes += l["bytes"].get<uint64_t>();
  std::snprintf(line, sizeof line, "link:        %llu transfers, %llu bytes over links, %.3f uJ\n",
                static_cast<unsigned long long>(s["link"]["transfers"].get<uint64_t>()),
                static_cast<unsigned long long>(bytes), s["link"]["energy_pj"].get<double>() * 1e-6);
  out += line;
  std::snprintf(line, sizeof line, "energy:      %.3f uJ (chips and link)\n", s["energy_pj"].get<double>() * 1e-6);
  out += line;
  return out;
}

}  // namespace vp::platform
