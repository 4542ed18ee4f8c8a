// Interned names seen in a trace: units (tracks), mnemonics and layers.
//
// Conversion keeps one small integer per record for each, so the bulk data
// that flows through sorting is fixed-size; the tables themselves grow with
// the chip and the program, never with the trace length.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vp/trace/record.hpp"

namespace vp::trace {

// String -> dense id; the strings live as long as the interner.
class Interner {
 public:
  std::uint32_t intern(std::string_view s);
  const std::string& name(std::uint32_t id) const { return *names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::deque<std::string> storage_;
  std::vector<const std::string*> names_;
  std::unordered_map<std::string_view, std::uint32_t> ids_;
};

// One execution resource: a unit of a CU, the control processor, or (for
// ZeBu traces, which carry no location) an instruction class of the core.
struct TrackInfo {
  bool zebu = false;
  std::int64_t chip = -1;     // a system's chip ('chip' in the mapping); -1 = one chip
  std::int64_t cluster = -1;  // -1 = control processor
  std::int64_t cu = -1;
  std::string unit;           // 'xbar', 'dma', ... or ZeBu class 'PE', 'LD', ...
  std::string scope;          // VCD scope path below the chip, dot separated
  std::string label;          // short human name, e.g. "c0.cu2 xbar"
  std::uint32_t rank = 0;     // display order (cluster, cu, unit)
};

struct LayerInfo {
  std::int64_t id = -1;  // 'slyr'
  std::string name;      // 'layer' or a name made from the id
  std::uint32_t order = 0;  // order of first appearance in the trace
};

// The ZeBu instruction class of a mnemonic: its first two letters upper-cased
// (ct_ -> CT, lda_/ldw_ -> LD, lw_ -> LW, sta_ -> ST, dt_, pe_, vp_), the
// names the traces themselves use in Prev_Insts / Next_Insts.
std::string zebu_class(std::string_view mnemonic);

class Catalog {
 public:
  std::uint32_t opcode_of(std::string_view mnemonic) { return opcodes_.intern(mnemonic); }
  // `opcode` is opcode_of(r.mnemonic): ZeBu records are placed by mnemonic.
  std::uint32_t track_of(const TraceRecord& r, std::uint32_t opcode);
  std::uint32_t layer_of(const TraceRecord& r);

  const std::vector<TrackInfo>& tracks() const { return tracks_; }
  const std::vector<LayerInfo>& layers() const { return layers_; }
  const Interner& opcodes() const { return opcodes_; }
  const std::string& opcode_name(std::uint32_t id) const { return opcodes_.name(id); }

  // Recomputes TrackInfo::rank so that tracks list cluster by cluster, CU by
  // CU, units in the chip's order. Call once all records are in.
  void finalize_ranks();
  // Track ids in display order.
  std::vector<std::uint32_t> tracks_in_order() const;

 private:
  struct TrackKey {
    std::int64_t chip, cluster, cu;
    std::uint32_t unit;
    bool operator==(const TrackKey& o) const {
      return chip == o.chip && cluster == o.cluster && cu == o.cu && unit == o.unit;
    }
  };
  struct TrackKeyHash {
    std::size_t operator()(const TrackKey& k) const {
      return std::hash<std::int64_t>()((k.chip * 1000003 + k.cluster) * 1000003 + k.cu) ^
             (std::hash<std::uint32_t>()(k.unit) << 1);
    }
  };

  Interner units_;
  Interner opcodes_;
  std::unordered_map<TrackKey, std::uint32_t, TrackKeyHash> track_ids_;
  std::vector<std::int64_t> zebu_track_of_opcode_;  // cache, -1 = not yet placed
  std::vector<TrackInfo> tracks_;
  std::unordered_map<std::int64_t, std::uint32_t> layer_by_id_;
  std::unordered_map<std::string_view, std::uint32_t> layer_by_name_;
  Interner layer_names_;
  std::vector<LayerInfo> layers_;
};

}  // namespace vp::trace
