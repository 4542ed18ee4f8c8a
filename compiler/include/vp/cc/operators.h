// The operator table (operators.def): every operator vp-cc knows, as an
// OpKind the passes switch on, with the properties they ask about.
//
// The ONNX op_type strings appear only in the table; the importer maps a
// node's op_type to its OpKind once (op_from_onnx) and every later pass
// reads Node::op. Which passes handle a kind follows from its role:
//
//   constant  import (a constant value)
//   alias     canonicalize (dropped, or absorbed by the Gemm/MatMul reading it)
//   to_conv   canonicalize (rewritten into a Conv)
//   host      canonicalize (removed; the host applies it to the output)
//   chip      canonicalize (checks, fusion), the FP32 interpreter, quantize,
//             the golden model, map, plan, emit, the reports
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace vp::cc {

enum class OpKind : std::uint8_t {
#define VP_OP(kind, onnx, role, flags) kind,
#include "vp/cc/operators.def"
#undef VP_OP
};

enum class OpRole : std::uint8_t { chip, to_conv, alias, rewrite, fold, host, constant };

// Properties (OpDef::flags).
// Weights stay on crossbars (MVM); every other chip operator runs on the
// vector unit of one CU.
inline constexpr unsigned op_crossbar = 1u << 0;
// Reads its input through kh x kw windows with strides, dilations and pads
// (Node::geom): the input's buffer gets a border as wide as the pads.
inline constexpr unsigned op_window = 1u << 1;
// An activation canonicalize fuses into the op_takes_activation node before
// it (as Node::act) when that node's output has no other reader.
inline constexpr unsigned op_activation = 1u << 2;
// Applies a fused activation as the clamp of its requantized output.
inline constexpr unsigned op_takes_activation = 1u << 3;
// Same meaning since opset 1: accepted under an older opset import.
inline constexpr unsigned op_since_opset1 = 1u << 4;
// A function of one int8 code with a per-tensor scale in and out: one
// 256-entry table (QuantParams::lut, table_function.h) that the golden model
// reads and the vector unit applies with `vlut`, so both agree by
// construction.
inline constexpr unsigned op_table = 1u << 5;

struct OpDef {
  OpKind kind;
  const char* onnx;  // the ONNX op_type
  OpRole role;
  unsigned flags;
  constexpr bool has(unsigned f) const { return (flags & f) != 0; }
  constexpr bool on_chip() const { return role == OpRole::chip; }
};

inline constexpr OpDef kOpTable[] = {
#define VP_OP(kind, onnx, role, flags) OpDef{OpKind::kind, onnx, OpRole::role, flags},
#include "vp/cc/operators.def"
#undef VP_OP
};
inline constexpr std::size_t kOpCount = sizeof kOpTable / sizeof kOpTable[0];

constexpr const OpDef& op_def(OpKind k) { return kOpTable[static_cast<std::size_t>(k)]; }
constexpr bool op_has(OpKind k, unsigned f) { return op_def(k).has(f); }

// The operator's name: its ONNX op_type (what dumps, reports and error
// messages print).
const std::string& op_name(OpKind k);
// The one place an ONNX op_type string is looked up; nullopt when unknown.
std::optional<OpKind> op_from_onnx(const std::string& op_type);

// Operators the compiler accepts from ONNX, in table order; anything else is
// a CompileError naming the node, its op type and this list.
const std::vector<std::string>& supported_ops();

std::ostream& operator<<(std::ostream& os, OpKind k);
// For callers that name operators by their ONNX op_type (tests, tools).
inline bool operator==(OpKind k, const std::string& name) { return op_name(k) == name; }
inline bool operator==(const std::string& name, OpKind k) { return op_name(k) == name; }
inline bool operator!=(OpKind k, const std::string& name) { return !(k == name); }
inline bool operator!=(const std::string& name, OpKind k) { return !(k == name); }

}  // namespace vp::cc
