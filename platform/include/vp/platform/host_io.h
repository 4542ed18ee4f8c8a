// What vp-run's --input and --output options mean for one model: files
// placed at explicit addresses (FILE@ADDR, FILE@ADDR:BYTES[:DTYPE]) and files
// bound to the model's .input/.output declarations, in declaration order,
// for each element of a batch.
//
// A bound input file holds the binding's codes (a raw file, or a .npy of
// the binding's dtype), or, for a binding with a scale (vp-cc's models),
// float32 values in the model's shape and order (a float32 .npy), which
// are quantized exactly as vp-cc --quantize-input does (float_io.h).
//
// Bound inputs: with I input bindings and a batch of N, either I x N files
// (element-major: element 0's inputs first) or I files each holding N
// elements back to back (a stacked .npy). Without --batch, N is the number
// of bound files divided by I. Bound outputs: the k-th `--output FILE`
// without '@' receives the k-th output binding of every element, stacked
// (.npy shape [N, dims...] for N > 1, the binding's own shape for N = 1).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "vp/obj/object.h"
#include "vp/platform/tensor_file.h"

namespace vp::platform {

struct HostIoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ExplicitInput {
  std::string path;
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

struct ExplicitOutput {
  std::string path;
  uint64_t address = 0, bytes = 0;
  std::string npy_dtype = "<i1";
};

struct BoundOutput {
  std::string path;    // the file, without a :DTYPE suffix
  size_t binding = 0;  // index into Object::io
  // float32 values (dequantized, the model's shape and order) rather than
  // the codes: the default for a .npy of a binding with a scale, or asked
  // for with FILE:float32; FILE:<the binding's dtype> asks for the codes.
  bool as_float = false;
};

struct HostIo {
  std::vector<ExplicitInput> explicit_inputs;
  std::vector<ExplicitOutput> explicit_outputs;
  std::vector<size_t> input_bindings, output_bindings;  // indices into Object::io, declaration order
  uint32_t batch = 1;                                   // elements (1 when nothing is bound)
  // batch_inputs[e][k]: bytes of input binding input_bindings[k] for element e.
  std::vector<std::vector<std::vector<uint8_t>>> batch_inputs;
  std::vector<BoundOutput> bound_outputs;
};

// A bound input's contents and how messages name it ("--input x.npy").
struct BoundInput {
  std::string what;
  TensorData data;
};

// Reads the input files and matches every option to the model. batch = 0
// infers it from the files. Throws HostIoError naming the file and binding.
HostIo plan_host_io(const obj::Object& model, const std::vector<std::string>& inputs,
                    const std::vector<std::string>& outputs, uint32_t batch);
// The same for bound inputs already in memory (the Python module's arrays),
// in the order vp-run's bound --input files would come.
HostIo plan_host_io(const obj::Object& model, std::vector<BoundInput> bound, const std::vector<std::string>& outputs,
                    uint32_t batch);

// "y.npy:int8" -> {"y.npy", "int8"}; {spec, ""} without a dtype suffix.
std::pair<std::string, std::string> split_output_suffix(const std::string& spec);

// numpy descr of a binding dtype ("int8" -> "<i1", "float32" -> "<f4").
std::string npy_dtype(const std::string& dtype);
// "input 'x' (64 bytes, int8 1x64)" for messages.
std::string describe(const obj::IoBinding& b);

}  // namespace vp::platform
