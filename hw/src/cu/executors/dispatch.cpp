// The opcode -> executor table, built from the instruction table: a row in
// instructions.def and its exec_NAME are all an instruction needs.
#include <array>

#include "executors/issue.h"

namespace vp::hw {
namespace {

template <class Ops, void (*Run)(Issue&, const Ops&)>
void decode_and_run(Issue& is, const isa::Instruction& in) {
  Run(is, Ops(in));
}

struct Row {
  isa::Opcode opcode;
  Executor run;
};

constexpr Row kRows[] = {
#define VP_INST(NAME, CODE, MNEM, UNIT, FIELDS, TIMING, SEM) \
  {isa::Opcode::NAME, &decode_and_run<isa::ops::NAME, &exec_##NAME>},
#include "vp/isa/instructions.def"
};

const std::array<Executor, 256> kByOpcode = [] {
  std::array<Executor, 256> t{};
  for (const Row& r : kRows) t[static_cast<uint8_t>(r.opcode)] = r.run;
  return t;
}();

}  // namespace

// Programs are decoded against the same table before they run, so every
// opcode that reaches the issue stage has a row here.
Executor executor_for(isa::Opcode op) { return kByOpcode[static_cast<uint8_t>(op)]; }

}  // namespace vp::hw
