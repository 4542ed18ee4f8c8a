// The ONNX backend node conformance tests (scripts/models/gen_node_tests.py)
// through the compiler and the platform:
//
//   every case: compile (calibrated on the case's own inputs) for the `small`
//   chip, run with vp-run, require the output bytes to equal the golden
//   model's, dequantize and compare with the expected output within the
//   quantization tolerance below;
//   the cases listed in kExcluded must be rejected with a CompileError whose
//   message contains the listed text (never a crash, never silently run).
//
// Tolerance, in int8 steps of the compiled output (its scale; zero point 0):
//   * operators without weights (pooling, clamps, Concat, the table
//     activations): 0.5 + 0.5 * L * s_in / s_out steps. The input's rounding
//     costs at most half an input step (s_in), which the operator carries
//     through with a gain of at most L, the largest slope of its function:
//     1 for averaging, max, clamps, copies, LeakyRelu and Tanh; 1/4 for
//     Sigmoid; alpha for HardSigmoid; 3/2 for HardSwish (at x = 3);
//     2/sqrt(pi) for Erf (at 0); Mul(x, f(x)), one table after canonicalize:
//     1.0998 for SiLU (x * Sigmoid(x), at x = 2.40), max(1, 2 - beta, beta)
//     for x * HardSigmoid(x) (at its knees). The output's own rounding adds
//     half an output step (s_out). Clamps and MaxPool keep the input's step (1 step
//     in all); an average and a table have their own steps.
//   * Conv, Gemm, MatMul, BatchNormalization, Mul by a constant: 3 steps. Each output also
//     carries the per-channel weight rounding (half a weight step) times the
//     inputs summed over the patch; it grows with the patch length, and is
//     1.8 steps at most on these cases (a 7x7x3 patch). 3 steps is 2.4% of
//     a calibrated output's range.
//   * LayerNormalization over C channels: 1 + 0.5 * L * s_in / s_out steps,
//     L = max |gamma| * (2 + sqrt(C)) / sigma_min. The derivative of output c
//     by input j is gamma_c / sigma * (delta_cj - 1/C - n_c n_j / C), whose
//     absolute values sum to at most 2 + |n_c| <= 2 + sqrt(C); sigma_min is
//     the smallest standard deviation over the channels of any pixel of the
//     case's input. The chip adds its own roundings of the mean (to 2^-f),
//     of the output and of beta's codes: one step instead of half.
//   * Gelu (Erf written out, one table): L = 1.129, the largest slope of
//     x * Phi(x) (at x = 1.414...).
//   * MatMul of two graph inputs (the digital path): 0.5 + max over outputs
//     of sum_k (|a_k| s_b + |b_k| s_a) / 2 + s_a s_b / 4, in output steps:
//     both operands' roundings carried through the sum.
// Any real arithmetic error (a wrong tap, channel, pad, stride, scale or
// layout) moves outputs by many steps. The case's own inputs calibrate it,
// so the output step is its range / 127.
// VP_NODE_TESTS names the generated directory (list.json inside).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "vp/cc/npy.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

namespace fs = std::filesystem;

constexpr double kStepsWeights = 3.0;

// Cases the compiler does not support, and the text its error must contain.
const std::map<std::string, std::string>& excluded() {
  static const std::map<std::string, std::string> m = {
      // Batch > 1 of feature maps (a 3-D [N, C, H] or 4-D [N, C, H, W] with N > 1).
      {"extra_conv_1x1_bias", "only batch 1"},
      {"test_add", "only batch 1"},
      {"test_add_bcast", "only batch 1"},
      {"test_batchnorm_epsilon", "only batch 1"},
      {"test_batchnorm_example", "only batch 1"},
      {"test_batchnorm_epsilon_training_mode", "only batch 1"},
      {"test_batchnorm_example_training_mode", "only batch 1"},
      {"test_clip", "only batch 1"},
      {"test_clip_default_max", "only batch 1"},
      {"test_clip_default_min", "only batch 1"},
      {"test_concat_3d_axis_0", "only batch 1"},
      {"test_concat_3d_axis_1", "only batch 1"},
      {"test_concat_3d_axis_2", "only batch 1"},
      {"test_concat_3d_axis_negative_1", "only batch 1"},
      {"test_concat_3d_axis_negative_2", "only batch 1"},
      {"test_concat_3d_axis_negative_3", "only batch 1"},
      {"test_flatten_axis0", "only batch 1"},
      {"test_flatten_axis1", "only batch 1"},
      {"test_flatten_axis2", "only batch 1"},
      {"test_flatten_axis3", "only batch 1"},
      {"test_flatten_default_axis", "only batch 1"},
      {"test_flatten_negative_axis1", "only batch 1"},
      {"test_flatten_negative_axis2", "only batch 1"},
      {"test_flatten_negative_axis3", "only batch 1"},
      {"test_flatten_negative_axis4", "only batch 1"},
      {"test_hardsigmoid", "only batch 1"},
      {"test_hardsigmoid_default", "only batch 1"},
      {"test_hardswish", "only batch 1"},
      {"test_hardswish_expanded", "only batch 1"},
      {"test_leakyrelu", "only batch 1"},
      {"test_leakyrelu_default", "only batch 1"},
      {"test_matmul_3d", "only batch 1"},
      {"test_mul", "only batch 1"},
      {"test_mul_bcast", "only batch 1"},
      {"test_relu", "only batch 1"},
      {"test_sigmoid", "only batch 1"},
      {"test_reshape_extended_dims", "only batch 1"},
      {"test_reshape_negative_dim", "only batch 1"},
      {"test_reshape_negative_extended_dims", "only batch 1"},
      {"test_reshape_one_dim", "only batch 1"},
      {"test_reshape_reduced_dims", "only batch 1"},
      {"test_reshape_reordered_all_dims", "only batch 1"},
      {"test_reshape_reordered_last_dims", "only batch 1"},
      {"test_reshape_zero_and_negative_dim", "only batch 1"},
      {"test_reshape_zero_dim", "only batch 1"},
      // A zero-size input (data is [0, 3, 4]): refused before any pass.
      {"test_reshape_allowzero_reordered", "has dimension 0"},
      {"test_softmax_axis_0", "only batch 1"},
      {"test_softmax_axis_1", "only batch 1"},
      {"test_softmax_axis_2", "only batch 1"},
      {"test_softmax_default_axis", "only batch 1"},
      {"test_softmax_negative_axis", "only batch 1"},
      {"test_tanh", "only batch 1"},
      {"test_reduce_mean_default_axes_keepdims_example", "only batch 1"},
      {"test_reduce_mean_default_axes_keepdims_random", "only batch 1"},
      {"test_reduce_mean_do_not_keepdims_example", "only batch 1"},
      {"test_reduce_mean_do_not_keepdims_random", "only batch 1"},
      {"test_reduce_mean_keepdims_example", "only batch 1"},
      {"test_reduce_mean_keepdims_random", "only batch 1"},
      {"test_reduce_mean_negative_axes_keepdims_example", "only batch 1"},
      {"test_reduce_mean_negative_axes_keepdims_random", "only batch 1"},
      // Div, Slice, Transpose, Shape, Gather and Sub cases of onnx: batches, integer
      // tensors, or a Sub of activations (folded as part of a LayerNorm only).
      {"test_div", "only batch 1"},
      {"test_div_bcast", "only batch 1"},
      {"test_div_uint8", "element type UINT8"},
      {"test_gather_0", "element type INT64"},
      {"test_gather_1", "element type INT64"},
      {"test_gather_2d_indices", "element type INT64"},
      {"test_gather_negative_indices", "element type INT64"},
      {"test_shape", "element type INT64"},
      {"test_shape_clip_end", "element type INT64"},
      {"test_shape_clip_start", "element type INT64"},
      {"test_shape_end_1", "element type INT64"},
      {"test_shape_end_negative_1", "element type INT64"},
      {"test_shape_example", "element type INT64"},
      {"test_shape_start_1", "element type INT64"},
      {"test_shape_start_1_end_2", "element type INT64"},
      {"test_shape_start_1_end_negative_1", "element type INT64"},
      {"test_shape_start_negative_1", "element type INT64"},
      {"test_slice", "only batch 1"},
      {"test_slice_default_axes", "only batch 1"},
      {"test_slice_default_steps", "only batch 1"},
      {"test_slice_end_out_of_bounds", "only batch 1"},
      {"test_slice_neg", "only batch 1"},
      {"test_slice_neg_steps", "only batch 1"},
      {"test_slice_negative_axes", "only batch 1"},
      {"test_slice_start_out_of_bounds", "only batch 1"},
      {"test_sub", "only batch 1"},
      {"test_sub_bcast", "only batch 1"},
      {"test_sub_example", "Sub is left after canonicalization"},
      {"test_sub_uint8", "element type UINT8"},
      {"test_transpose_all_permutations_0", "only batch 1"},
      {"test_transpose_all_permutations_1", "only batch 1"},
      {"test_transpose_all_permutations_2", "only batch 1"},
      {"test_transpose_all_permutations_3", "only batch 1"},
      {"test_transpose_all_permutations_4", "only batch 1"},
      {"test_transpose_all_permutations_5", "only batch 1"},
      {"test_transpose_default", "only batch 1"},
      // LayerNormalization: batches, or its Mean and InvStdDev outputs read
      // (only the first output is computed); Pow and Sqrt: batches, integer
      // tensors, or alone (folded as part of a LayerNorm over channels only).
      {"test_layer_normalization_2d_axis0", "only an operator's first output is computed"},
      {"test_layer_normalization_2d_axis1", "only an operator's first output is computed"},
      {"test_layer_normalization_2d_axis_negative_1", "only an operator's first output is computed"},
      {"test_layer_normalization_2d_axis_negative_2", "only an operator's first output is computed"},
      {"test_layer_normalization_3d_axis0_epsilon", "only batch 1"},
      {"test_layer_normalization_3d_axis1_epsilon", "only batch 1"},
      {"test_layer_normalization_3d_axis2_epsilon", "only batch 1"},
      {"test_layer_normalization_3d_axis_negative_1_epsilon", "only batch 1"},
      {"test_layer_normalization_3d_axis_negative_2_epsilon", "only batch 1"},
      {"test_layer_normalization_3d_axis_negative_3_epsilon", "only batch 1"},
      {"test_layer_normalization_4d_axis0", "only batch 1"},
      {"test_layer_normalization_4d_axis1", "only batch 1"},
      {"test_layer_normalization_4d_axis2", "only batch 1"},
      {"test_layer_normalization_4d_axis3", "only batch 1"},
      {"test_layer_normalization_4d_axis_negative_1", "only batch 1"},
      {"test_layer_normalization_4d_axis_negative_2", "only batch 1"},
      {"test_layer_normalization_4d_axis_negative_3", "only batch 1"},
      {"test_layer_normalization_4d_axis_negative_4", "only batch 1"},
      {"test_layer_normalization_default_axis", "only batch 1"},
      {"test_pow", "only batch 1"},
      {"test_pow_bcast_array", "Pow is left after canonicalization"},
      {"test_pow_bcast_scalar", "Pow is left after canonicalization"},
      {"test_pow_example", "Pow is left after canonicalization"},
      {"test_pow_types_float32_int32", "element type INT32"},
      {"test_pow_types_float32_int64", "element type INT64"},
      {"test_pow_types_int32_float32", "element type INT32"},
      {"test_pow_types_int32_int32", "element type INT32"},
      {"test_pow_types_int64_float32", "element type INT64"},
      {"test_pow_types_int64_int64", "element type INT64"},
      {"test_sqrt", "only batch 1"},
      {"test_sqrt_example", "Sqrt is left after canonicalization"},
      // Dropout: batches, its Bool mask, or nothing but the Dropout left
      // (the training-mode cases, random masks, are not generated; training
      // mode is refused by canonicalize: operators_test).
      {"test_dropout_default", "only batch 1"},
      {"test_dropout_default_ratio", "only batch 1"},
      {"test_dropout_random_old", "only batch 1"},
      {"test_dropout_default_mask", "element type BOOL"},
      {"test_dropout_default_mask_ratio", "element type BOOL"},
      {"test_dropout_default_old", "no operators"},
      // A Pad is folded into the window operator that reads it; alone, or
      // on integer data (the edge and reflect cases), it is refused.
      {"test_constant_pad", "with the value 0"},
      {"test_edge_pad", "element type INT32"},
      {"test_reflect_pad", "element type INT32"},
      // Integer tensors: the chip's inputs and outputs are quantized reals.
      {"test_add_uint8", "element type UINT8"},
      {"test_clip_default_int8_inbounds", "element type INT8"},
      {"test_clip_default_int8_max", "element type INT8"},
      {"test_clip_default_int8_min", "element type INT8"},
      {"test_maxpool_2d_uint8", "element type UINT8"},
      {"test_mul_uint8", "element type UINT8"},
      // 1-D and 3-D pooling.
      {"test_averagepool_1d_default", "only 2-D kernels"},
      {"test_maxpool_1d_default", "only 2-D kernels"},
      {"test_averagepool_3d_default", "rank 5"},
      {"test_maxpool_3d_default", "rank 5"},
      // Partial windows of ceil_mode, and padded averages that exclude the pad.
      {"test_averagepool_2d_ceil", "ceil_mode=1"},
      {"test_averagepool_2d_pads", "count_include_pad=1"},
      {"test_averagepool_2d_precomputed_pads", "count_include_pad=1"},
      {"test_averagepool_2d_precomputed_same_upper", "count_include_pad=1"},
      {"test_averagepool_2d_same_lower", "count_include_pad=1"},
      {"test_averagepool_2d_same_upper", "count_include_pad=1"},
      // MaxPool's Indices output.
      {"test_maxpool_with_argmax_2d_precomputed_pads", "'z' has element type INT64"},
      {"test_maxpool_with_argmax_2d_precomputed_strides", "'z' has element type INT64"},
      // Gemm forms outside the canonical set.
      {"test_gemm_all_attributes", "transA=1"},
      {"test_gemm_transposeA", "transA=1"},
      {"test_gemm_default_matrix_bias", "bias C must have 1 or N elements"},
      // MatMul whose weight is a stack of matrices.
      {"test_matmul_4d", "weight matrix must be 2-D"},
      // Split along anything but the channels (1-D vectors) and a
      // zero-size part; Where other than an attention's causal mask.
      {"test_split_equal_parts_1d", "supported along the channels only"},
      {"test_split_equal_parts_default_axis", "supported along the channels only"},
      {"test_split_variable_parts_1d", "supported along the channels only"},
      {"test_split_variable_parts_default_axis", "supported along the channels only"},
      {"test_split_zero_size_splits", "dimension 0"},
      {"test_where_example", "Where is left after canonicalization"},
      {"test_where_long_example", "only float (float32) inputs"},
      // Nothing left for the chip: the output is the input (Identity), or a
      // Softmax over one vector of scores (the host applies it).
      {"test_identity", "no operators"},
      {"test_softmax_example", "no operators"},
  };
  return m;
}

// L of the tolerance above: the largest slope of the case's function.
double input_gain(const Graph& g) {
  double gain = 1;
  for (const Node& n : g.nodes) {
    const auto attr = [&](const char* k, double d) { return n.floats.count(k) ? double(n.floats.at(k)) : d; };
    if (n.op == OpKind::Sigmoid) gain = n.times_input ? 1.0998 : 0.25;
    if (n.op == OpKind::HardSwish) gain = 1.5;
    if (n.op == OpKind::Erf) gain = 2 / std::sqrt(std::acos(-1.0));
    if (n.op == OpKind::Gelu) gain = 1.129;
    if (n.op == OpKind::HardSigmoid) {
      const double beta = attr("beta", 0.5);
      gain = n.times_input ? std::max({1.0, 2 - beta, beta}) : std::fabs(attr("alpha", 0.2));
    }
  }
  return gain;
}

std::string bin_dir() {
  const char* d = std::getenv("VP_BIN_DIR");
  return d ? d : "build/bin";
}

struct Outcome {
  std::string status;   // "pass", "fail", "rejected"
  std::string detail;
  double err = 0;       // max |y - expected| in int8 steps of the output
  double range = 0;     // max |y - expected| / max |expected|
};

std::vector<std::int8_t> read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return {b.begin(), b.end()};
}

void write_bytes(const fs::path& p, const std::vector<std::int8_t>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

Outcome run_case(const fs::path& root, const nlohmann::json& c, const fs::path& work) {
  const std::string name = c["name"];
  const fs::path dir = root / "node" / name;
  const bool has_const = c.contains("const_model") && c["const_model"].is_string();
  const fs::path model = dir / (has_const ? c["const_model"].get<std::string>() : std::string("model.onnx"));
  std::vector<int> in_idx;
  if (has_const) {
    for (const auto& k : c["const_inputs"]) in_idx.push_back(k.get<int>());
  } else {
    for (std::size_t k = 0; k < c["inputs"].size(); ++k) in_idx.push_back(static_cast<int>(k));
  }
  Graph g;
  std::vector<FTensor> xs;
  const Target t = load_target("small", {});
  try {
    g = import_onnx(model.string());
    canonicalize(g);
    if (g.inputs.size() != in_idx.size())
      return {"fail", "graph has " + std::to_string(g.inputs.size()) + " inputs, list.json " + std::to_string(in_idx.size())};
    for (std::size_t i = 0; i < in_idx.size(); ++i) {
      const auto a = read_npy((dir / "test_data_set_0" / ("input_" + std::to_string(in_idx[i]) + ".npy")).string());
      xs.push_back(from_onnx_order(g.val(g.inputs[i]), a.as_float()));
    }
    // Calibrated on the case's own inputs: the conformance question is the
    // operator's arithmetic, not how representative a calibration set is.
    quantize(g, {xs});
    map_crossbars(g, t);
    plan_memory(g, t);
    EmitOptions eo;
    eo.asm_path = (work / "model.asm").string();
    emit_program(g, t, eo);
  } catch (const CompileError& e) {
    return {"rejected", e.what()};
  }
  std::vector<QTensor> qs;
  std::string cmd = bin_dir() + "/vp-run -q --chip small --model " + (work / "model.asm").string();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    qs.push_back(quantize_input(g, static_cast<int>(i), xs[i]));
    const fs::path f = work / ("x" + std::to_string(i) + ".bin");
    write_bytes(f, to_hwc(qs.back()));
    cmd += " --input " + f.string() + "@" + std::to_string(g.input_plain[i]);
  }
  // Every output (a Split has several), each in its own file.
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    const Value& out = g.val(g.outputs[k]);
    cmd += " --output " + (work / ("y" + std::to_string(k) + ".bin")).string() + "@" + std::to_string(g.output_addr(k)) +
           ":" + std::to_string(out.shape.numel());
  }
  cmd += " > " + (work / "log.txt").string() + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream log(work / "log.txt");
    std::stringstream ss;
    ss << log.rdbuf();
    return {"fail", "vp-run failed: " + ss.str()};
  }
  const auto golden = run_golden(g, qs);
  // Weights: what canonicalize leaves of Conv, Gemm, MatMul,
  // BatchNormalization and Mul by a constant (a Mul(x, f(x)) is a table).
  bool weights = false;
  for (const Node& n : g.nodes) weights = weights || n.op == OpKind::Conv || n.op == OpKind::Mul;
  double s_in = 0;
  for (int id : g.inputs) s_in = std::max(s_in, g.val(id).scale);
  Outcome worst{"pass", "", 0, 0};
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    const Value& out = g.val(g.outputs[k]);
    const auto got = read_bytes(work / ("y" + std::to_string(k) + ".bin"));
    const auto want = to_hwc(golden[k]);
    if (got != want) return {"fail", "platform output " + std::to_string(k) + " differs from the golden model"};

    // Dequantize, in ONNX order; the host's Softmax where the compiler left it.
    FTensor y = dequantize(g, g.outputs[k], from_hwc(out.shape, got));
    std::vector<float> yv = to_onnx_order(out, y);
    if (g.host_softmax[k]) {
      const auto C = static_cast<std::size_t>(out.shape.c);
      for (std::size_t r = 0; r + C <= yv.size(); r += C) {
        const float mx = *std::max_element(yv.begin() + static_cast<std::ptrdiff_t>(r), yv.begin() + static_cast<std::ptrdiff_t>(r + C));
        double s = 0;
        for (std::size_t i = r; i < r + C; ++i) s += std::exp(double(yv[i]) - mx);
        for (std::size_t i = r; i < r + C; ++i) yv[i] = static_cast<float>(std::exp(double(yv[i]) - mx) / s);
      }
    }
    const auto ref = read_npy((dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".npy")).string()).as_float();
    if (ref.size() != yv.size())
      return {"fail", "output " + std::to_string(k) + " has " + std::to_string(yv.size()) + " elements, expected " +
                          std::to_string(ref.size())};
    double mx = 0, err = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      mx = std::max(mx, std::fabs(double(ref[i])));
      err = std::max(err, std::fabs(double(yv[i]) - ref[i]));
    }
    double tol = (weights ? kStepsWeights : 0.5 + 0.5 * input_gain(g) * s_in / out.scale) + 1e-6;
    for (const Node& n : g.nodes) {
      if (n.op != OpKind::LayerNormalization || n.in[0] != g.inputs[0]) continue;
      const FTensor& x = xs[0];
      const auto C = static_cast<std::size_t>(x.shape.c), hw = static_cast<std::size_t>(x.shape.h * x.shape.w);
      double sigma_min = 1e300, gamma_max = 0;
      for (std::size_t p = 0; p < hw; ++p) {
        double m = 0, v = 0;
        for (std::size_t ch = 0; ch < C; ++ch) m += x.data[ch * hw + p];
        m /= double(C);
        for (std::size_t ch = 0; ch < C; ++ch) v += (x.data[ch * hw + p] - m) * (x.data[ch * hw + p] - m);
        sigma_min = std::min(sigma_min, std::sqrt(v / double(C)));
      }
      for (float gm : g.val(n.in[1]).data) gamma_max = std::max(gamma_max, std::fabs(double(gm)));
      const double gain = gamma_max * (2 + std::sqrt(double(C))) / sigma_min;
      tol = 1.0 + 0.5 * gain * s_in / out.scale + 1e-6;
    }
    for (const Node& n : g.nodes) {
      // A MatMul of two graph inputs: each output sum_k a_k b_k moves by at
      // most sum_k (|a_k| s_b + |b_k| s_a) / 2 + s_a s_b / 4 when both round.
      if (n.op != OpKind::MatMul || n.heads != 1 || n.trans_b || xs.size() != 2 || n.in[0] != g.inputs[0] ||
          n.in[1] != g.inputs[1])
        continue;
      const FTensor &a = xs[0], &b = xs[1];
      const double sa = g.val(n.in[0]).scale, sb = g.val(n.in[1]).scale;
      const auto M = static_cast<std::size_t>(a.shape.h), K = static_cast<std::size_t>(a.shape.c),
                 N = static_cast<std::size_t>(b.shape.c);
      double worst_move = 0;
      for (std::size_t m = 0; m < M; ++m)
        for (std::size_t j = 0; j < N; ++j) {
          double d = 0;
          for (std::size_t i = 0; i < K; ++i)
            d += (std::fabs(a.data[i * M + m]) * sb + std::fabs(b.data[j * K + i]) * sa) / 2 + sa * sb / 4;
          worst_move = std::max(worst_move, d);
        }
      tol = 0.5 + worst_move / out.scale + 1e-6;
    }
    const double steps = err / out.scale;
    if (steps > tol)
      return {"fail",
              "output " + std::to_string(k) + ": max error " + std::to_string(steps) +
                  " int8 steps of the output, tolerance " + std::to_string(tol),
              steps, mx > 0 ? err / mx : err};
    if (steps >= worst.err) worst = {"pass", "", steps, mx > 0 ? err / mx : err};
  }
  return worst;
}

TEST(NodeConformance, AllCases) {
  const char* d = std::getenv("VP_NODE_TESTS");
  if (!d) GTEST_SKIP() << "VP_NODE_TESTS not set (the directory gen_node_tests.py generate writes)";
  const fs::path root(d);
  std::ifstream lf(root / "list.json");
  ASSERT_TRUE(lf) << (root / "list.json").string();
  const auto list = nlohmann::json::parse(lf);
  const fs::path work = fs::temp_directory_path() / ("vp_cc_node_" + std::to_string(::getpid()));
  int pass = 0, rejected = 0, failures = 0, rejected_inputs_form = 0, inputs_form_mul = 0;
  double worst = 0, worst_range = 0;
  std::string worst_case;
  for (const auto& c : list["cases"]) {
    const std::string name = c["name"];
    fs::remove_all(work);
    fs::create_directories(work);
    const Outcome o = run_case(root, c, work);
    // The form with every weight as a graph input: the compiler needs
    // constant weights and must say so, never crash or run it.
    const bool mul_only = c.contains("ops") && (c["ops"] == nlohmann::json::array({"Mul"}) ||
                                                c["ops"] == nlohmann::json::array({"MatMul"}));
    if (c.contains("const_model") && c["const_model"].is_string() && mul_only) {
      // A Mul or MatMul of two graph inputs is one of two activations,
      // which the compiler supports (a MatMul on the digital path): that
      // form must pass as well, or be refused for the reason the constant
      // form is.
      auto ci = c;
      ci.erase("const_model");
      fs::remove_all(work);
      fs::create_directories(work);
      const Outcome oi = run_case(root, ci, work);
      if (oi.status == "pass" || (oi.status == "rejected" && o.status == "rejected")) {
        ++inputs_form_mul;
        std::cout << "inputs   " << name << "/model.onnx: " << oi.status
                  << (oi.status == "pass" ? " at " + std::to_string(oi.err) + " steps" : ": " + oi.detail) << "\n";
      } else {
        ADD_FAILURE() << name << "/model.onnx (Mul or MatMul of two graph inputs): " << oi.status << ": " << oi.detail;
        ++failures;
      }
      fs::remove_all(work);
      fs::create_directories(work);
    } else if (c.contains("const_model") && c["const_model"].is_string()) {
      try {
        Graph gi = import_onnx((root / "node" / name / "model.onnx").string());
        canonicalize(gi);
        ADD_FAILURE() << name << "/model.onnx (weights as graph inputs) was accepted";
        ++failures;
      } catch (const CompileError&) {
        ++rejected_inputs_form;
      }
    }
    const auto ex = excluded().find(name);
    if (ex != excluded().end()) {
      if (o.status != "rejected") {
        ADD_FAILURE() << name << ": listed as unsupported (" << ex->second << ") but " << o.status
                      << (o.status == "pass" ? "es: take it off the list" : ": " + o.detail);
        ++failures;
      } else if (o.detail.find(ex->second) == std::string::npos) {
        ADD_FAILURE() << name << ": rejected for another reason than '" << ex->second << "': " << o.detail;
        ++failures;
      } else {
        ++rejected;
        std::cout << "excluded " << name << ": " << o.detail << "\n";
      }
      continue;
    }
    if (o.status == "pass") {
      ++pass;
      if (o.err > worst) {
        worst = o.err;
        worst_case = name;
      }
      worst_range = std::max(worst_range, o.range);
      std::printf("pass     %-52s max error %.2f steps (%.2f%% of the largest |expected|)\n", name.c_str(), o.err,
                  o.range * 100);
    } else {
      ++failures;
      ADD_FAILURE() << name << ": " << o.status << ": " << o.detail;
    }
  }
  fs::remove_all(work);
  const int total = static_cast<int>(list["cases"].size());
  int listed = 0;
  for (const auto& c : list["cases"]) listed += excluded().count(c["name"].get<std::string>()) ? 1 : 0;
  std::printf("node conformance: %d cases: %d supported, %d pass; %d excluded, %d of them rejected with the "
              "expected error; %d failures; worst %s at %.2f steps, at most %.2f%% of the largest |expected|\n",
              total, total - listed, pass, listed, rejected, failures, worst_case.c_str(), worst, worst_range * 100);
  std::printf("node conformance: %d models with the weights as graph inputs, all rejected with a CompileError; "
              "%d Mul or MatMul of two graph inputs, run as one of two activations\n",
              rejected_inputs_form, inputs_form_mul);
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(pass + rejected, total);
}

}  // namespace
}  // namespace vp::cc
