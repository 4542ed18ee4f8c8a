// A system of chips as vp-cc --chips writes it (OUT.system.json) and vp-run
// --system reads it: the chip preset, the link, one program per chip (file
// names relative to the system file) and the routes that carry values from
// one chip's outputs to another's inputs. docs/multi-chip.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vp::platform {

struct SystemFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SystemRoute {
  std::string value;           // the tensor's name in the model
  uint32_t from = 0, output = 0;  // chip, index among its .output bindings
  uint32_t to = 0, input = 0;     // chip, index among its .input bindings
  uint64_t bytes = 0;             // per batch element
};

struct SystemFile {
  std::string path;
  std::string chip;   // preset
  std::string link;   // pcie | d2d
  std::vector<std::string> programs;  // resolved against the file's folder
  std::vector<SystemRoute> routes;
  uint32_t chips() const { return static_cast<uint32_t>(programs.size()); }
};

// Throws SystemFileError naming the file and the field on anything
// malformed: not JSON, a missing or mistyped field, a route to a chip or
// binding that is not there, a chip fed by no route.
SystemFile load_system_file(const std::string& path);
SystemFile parse_system_file(const std::string& text, const std::string& path);

}  // namespace vp::platform
