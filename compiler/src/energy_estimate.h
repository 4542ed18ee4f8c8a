// --report's energy per layer and the memory traffic it shares with the
// cost model's memory floor (report.cpp). Private to compiler/src.
#pragma once

#include <cstdint>
#include <vector>

#include "vp/cc/graph.h"
#include "vp/cc/target.h"

namespace vp::cc {

// A node's bytes between the CUs and memory per inference
// (Node::memory_bytes), split by where plan_memory put each value: the
// cluster SRAMs' window, or global memory proper. Its output is written
// once; the rest is reads, split over its inputs by their size. Before
// plan_memory every value counts as in the window. Of each, the bytes
// written (the output) are counted apart too.
struct MemoryBytes {
  std::int64_t window = 0, dram = 0;
  std::int64_t window_written = 0, dram_written = 0;
};
MemoryBytes memory_bytes_of(const Graph& g, const Node& n, const Target& t);

// The same bytes value by value: the output written, each input read.
struct ValueBytes {
  const Value* value = nullptr;
  std::int64_t bytes = 0;
  bool written = false;
  bool window = false;  // in the SRAMs' window, else global memory proper
};
std::vector<ValueBytes> memory_bytes_by_value(const Graph& g, const Node& n, const Target& t);

// Energy of one inference of a mapped node, in pJ, priced as vp-run's
// statistics price events (energy.*):
//  - crossbar: every activation of a crossbar (output pixels x the
//    crossbars of one copy's lane x averaged reads) drives its rows for
//    each DAC step (dac, the read of every cell, sample-and-hold) and
//    converts every column (ADC, shift-and-add): exact, the same counts
//    the platform makes;
//  - vector: elements the vector unit touches (windows assembled, bias,
//    requantization, clamp, pooling, residual adds, digital MatMuls at two
//    per MAC): an estimate of the emitted code;
//  - memory: its bytes at the SRAM or global memory's price, and across
//    the mesh at the average hop count (between clusters, or from the
//    memory's router): an estimate.
struct LayerEnergy {
  double crossbar_pj = 0, vector_pj = 0, memory_pj = 0;
  double total() const { return crossbar_pj + vector_pj + memory_pj; }
};
LayerEnergy layer_energy(const Graph& g, const Node& n, const Target& t);

}  // namespace vp::cc
