#include "vp/platform/fabric_recorder.h"

#include <stdexcept>

namespace vp::platform {

FabricRecorder::FabricRecorder(hw::Chip& chip, const std::string& path) : path_(path) {
  out_ = std::fopen(path.c_str(), "w");
  if (!out_) throw std::runtime_error(path + ": cannot write");
  std::setvbuf(out_, nullptr, _IOFBF, 1 << 20);
  for (const auto& l : chip.noc().links()) link_units_.push_back("link." + l.name);
  chip.noc().set_link_listener([this](hw::noc::LinkId link, uint64_t packet, uint64_t start, uint64_t end) {
    line("flit", link_units_[link], start, end, "packet", packet);
  });
  chip.global_memory().set_listener([this](uint64_t start, uint64_t end, uint64_t bytes, bool read) {
    line(read ? "read" : "write", "gmem", start, end, "bytes", bytes);
  });
}

FabricRecorder::~FabricRecorder() {
  if (out_) std::fclose(out_);
}

void FabricRecorder::line(const std::string& mnemonic, const std::string& unit, uint64_t start, uint64_t end,
                          const char* key, uint64_t value) {
  ++records_;
  if (std::fprintf(out_,
                   "[%s, {'slyr': -1, 'layer': '', 'cluster': -1, 'cu': -1, 'unit': '%s', 'pc': -1}, "
                   "{'inst_idx': %llu, 'time': [%llu, %llu]}, {'%s': %llu}]\n",
                   mnemonic.c_str(), unit.c_str(), static_cast<unsigned long long>(records_),
                   static_cast<unsigned long long>(start), static_cast<unsigned long long>(end), key,
                   static_cast<unsigned long long>(value)) < 0)
    failed_ = true;
}

void FabricRecorder::close() {
  if (!out_) return;
  const bool ok = std::fclose(out_) == 0 && !failed_;
  out_ = nullptr;
  if (!ok) throw std::runtime_error(path_ + ": write failed");
}

}  // namespace vp::platform
