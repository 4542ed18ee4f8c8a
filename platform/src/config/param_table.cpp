// THE parameter table. Every hardware parameter of the chip is one row here;
// nothing else in the code base declares a parameter. Defaults describe the
// sidra-y1 chip (configs/sidra-y1.yaml restates its shape).
//
// Columns: name, type, unit, default, min, max, description, source.
//   type   "int" | "float" | "bool" | "string" | "enum:a|b|c"
//   min/max inclusive, kInf for unbounded, ignored for bool/string/enum
//   source cites ../shared/reference/params.md ("params.md: ..."), DESIGN.md
//          or a paper; "derived: ..." is arithmetic on cited figures;
//          "chosen: ..." means nobody published it and we picked it.
// Keep rows of one group together: dumps nest by group in table order.
#include "param_table.h"

#include <iterator>
#include <limits>

namespace vp::config::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// clang-format off
const RawParam kTable[] = {
// ---- chip: shape and clock ------------------------------------------------
{"chip.name", "string", "-", "sidra-y1", 0, 0,
 "Name of this configuration, reported in statistics and dumps",
 "DESIGN.md: preset names"},
{"chip.clusters", "int", "count", "16", 1, 4096,
 "Clusters on the 2D-mesh NoC",
 "DESIGN.md: sidra-y1 = 16 clusters x 25 CUs x 16 crossbars (Y1 size, seeds/sidra-compiler-chapter.txt)"},
{"chip.mesh_cols", "int", "count", "4", 1, 64,
 "Mesh columns; mesh rows = clusters / mesh_cols, so it must divide chip.clusters",
 "chosen: square 4x4 mesh for 16 clusters"},
{"chip.cus_per_cluster", "int", "count", "25", 1, 1024,
 "Compute units per cluster",
 "DESIGN.md: sidra-y1 25 CUs per cluster"},
{"chip.xbars_per_cu", "int", "count", "16", 1, 1024,
 "Crossbars per compute unit",
 "DESIGN.md: sidra-y1 16 crossbars per CU"},
{"chip.clock_mhz", "float", "MHz", "1000", 1, 10000,
 "Clock of CUs, cluster SRAM and control processor; cycles in traces count this clock",
 "params.md: clock 1 GHz (PUMA, PIMCOMP, NeuroSim, Gemini)"},

// ---- xbar: the crossbar array ---------------------------------------------
{"xbar.rows", "int", "cells", "256", 1, 4096,
 "Rows (word lines, inputs) per crossbar",
 "DESIGN.md: 256x256 default; params.md: 256x256 in NeuRRAM, IBM Hermes, CIM-Explorer"},
{"xbar.cols", "int", "cells", "256", 1, 4096,
 "Columns (bit lines, outputs) per crossbar",
 "DESIGN.md: 256x256 default; params.md: 256x256 in NeuRRAM, IBM Hermes, CIM-Explorer"},
{"xbar.cell_bits", "int", "bits", "2", 1, 8,
 "Bits stored per cell (2^cell_bits conductance levels)",
 "params.md: 2 bits per cell (ISAAC, PUMA, PIMCOMP); DESIGN.md"},
{"xbar.weight_bits", "int", "bits", "8", 1, 16,
 "Bits of a signed weight, split into ceil(weight_bits/cell_bits) slices on adjacent columns",
 "DESIGN.md: signed 8-bit weights"},
{"xbar.signed_encoding", "enum:offset_slices|differential", "-", "offset_slices", 0, 0,
 "Signed weights as offset-binary slices (one column set) or as a differential pair of column sets",
 "params.md: differential pair (MNSIM, Cinnamon) or offset encoding; chosen: offset, no second column set"},
{"xbar.read_ns", "float", "ns", "100", 0, 1e6,
 "Analog array read of one input step: row drive to settled column currents",
 "params.md: 100 ns per 128x128 read (ISAAC, PUMA)"},
{"xbar.sample_hold_ns", "float", "ns", "1", 0, 1e6,
 "Sample-and-hold of the column outputs after each read",
 "params.md: S&H 1 cycle (PIMCOMP) at 1 GHz"},
{"xbar.shift_add_ns", "float", "ns", "1", 0, 1e6,
 "Shift-and-add of one ADC result into the column accumulator",
 "params.md: shift-add 1 cycle (PIMCOMP) at 1 GHz"},
{"xbar.readback_ns_per_row", "float", "ns", "200", 0, 1e6,
 "Reading back the levels of one programmed row (debug and verify path)",
 "params.md: verify read 200 ns (NeuRRAM adc_control.py)"},
{"xbar.pipelined", "bool", "-", "true", 0, 0,
 "Overlap the front (DAC, array, S&H) of input step i+1 with the back (ADC, shift-add) of step i",
 "params.md: PIMSim-NN pipelined MVM latency formula"},

// ---- dac: input drivers ---------------------------------------------------
{"dac.bits", "int", "bits", "1", 1, 8,
 "Input bits applied per step; an n-bit input takes ceil(n/dac.bits) steps",
 "params.md: 1-bit DAC per row, bit-serial inputs (ISAAC, PUMA)"},
{"dac.rows_per_step", "int", "rows", "256", 1, 4096,
 "Rows driven together in one step (capped at xbar.rows); fewer means row groups in sequence",
 "chosen: every row at once, as ISAAC and PUMA drive all rows"},
{"dac.latency_ns", "float", "ns", "1", 0, 1e6,
 "DAC conversion and row-driver settling per step",
 "params.md: DAC 1 ns (PUMA constants.py)"},

// ---- adc: column readout --------------------------------------------------
{"adc.bits", "int", "bits", "8", 1, 16,
 "ADC resolution; column sums beyond 2^bits-1 clip when adc.mode = quantize",
 "params.md: 8-bit ADC (ISAAC, PUMA)"},
{"adc.columns_per_adc", "int", "cols", "32", 1, 4096,
 "Columns multiplexed onto one ADC (capped at xbar.cols); ADCs per crossbar = ceil(cols / this)",
 "chosen: 8 ADCs per 256 columns (params.md: ISAAC shares one ADC by 128 columns, PUMA has 2 per crossbar)"},
{"adc.conversion_ns", "float", "ns", "1", 0, 1e6,
 "One ADC conversion (one column sample)",
 "derived: ISAAC 8-bit ADC at 1.2-1.28 GS/s = 0.78-0.83 ns (params.md), rounded to one 1 GHz cycle"},
{"adc.mode", "enum:ideal|quantize", "-", "ideal", 0, 0,
 "ideal: the ADC returns the exact column sum (bits only price time and energy); quantize: clip and quantize to adc.bits",
 "chosen: exact by default so outputs equal the integer golden model"},

// ---- ispp: program-and-verify write path ----------------------------------
{"ispp.pulse_ns", "float", "ns", "100", 0, 1e6,
 "Width of one programming pulse (all cells of a row in parallel)",
 "params.md: 100 ns NeuRRAM increment; suggested sweep 10 ns - 1 us"},
{"ispp.verify_ns", "float", "ns", "200", 0, 1e6,
 "Verify read of a row after each pulse",
 "params.md: verify read 200 ns (NeuRRAM adc_control.py)"},
{"ispp.max_pulses", "int", "pulses", "30", 1, 10000,
 "Pulse cap per cell; cells outside tolerance after this many pulses are reported as failed",
 "params.md: up to 30 pulses per polarity (NeuRRAM wupdate_control.py)"},
{"ispp.tolerance_levels", "float", "levels", "0.2", 0, 8,
 "Accepted distance from the target level; programming of a cell stops inside it",
 "chosen: +-0.2 level keeps reads inside the level's decision window (params.md window 0.2-2 % of range)"},
{"ispp.pulse_energy_pj", "float", "pJ", "1", 0, 1e6,
 "Energy of one programming pulse on one cell",
 "chosen: within params.md ~0.3 pJ (MNSIM) to ~8 pJ (NeuroSim V2.1) per pulse, device only"},
{"ispp.verify_energy_pj", "float", "pJ", "1.7", 0, 1e6,
 "Energy of verifying one cell (a read and one ADC conversion)",
 "derived: one 8-bit ADC conversion, 1.67 pJ (ISAAC via hwcomponents, params.md ADC row)"},

// ---- device: the seeded write model ---------------------------------------
{"device.step_levels_mean", "float", "levels", "0.25", 0.001, 8,
 "Mean conductance change per pulse, in levels",
 "chosen: ~4 pulses per level; params.md: no measured pulse-count distribution, 0.1 V steps, 20-30 pulse caps"},
{"device.step_levels_sigma", "float", "levels", "0.05", 0, 8,
 "Standard deviation of the change per pulse (seeded, per cell and pulse)",
 "chosen: 20 % of the mean step; params.md: model it and sweep it"},
{"device.start_level", "float", "levels", "0", 0, 255,
 "Mean level of a cell before programming (after RESET to HRS); below 2^cell_bits",
 "chosen: fully reset cell"},
{"device.start_sigma", "float", "levels", "0.05", 0, 8,
 "Spread of the starting level across cells",
 "chosen; params.md: device variation 5 % dR/R (MNSIM)"},
{"device.r_on_kohm", "float", "kOhm", "100", 0.001, 1e6,
 "Low-resistance (highest level) state, for IR-drop",
 "params.md: R_on 100 kOhm (NeuroSim Param.cpp)"},
{"device.r_off_kohm", "float", "kOhm", "1000", 0.001, 1e6,
 "High-resistance (level 0) state, for IR-drop",
 "params.md: R_off 1-1.7 MOhm (NeuroSim Param.cpp)"},

// ---- nonideal: analog errors, all off (ideal) by default ------------------
{"nonideal.read_noise_sigma", "float", "levels", "0", 0, 8,
 "Additive Gaussian noise on every cell read, per MVM step (seeded)",
 "ideal default; params.md: ~1 % additive for RRAM (aihwkit reram.py)"},
{"nonideal.prog_noise_sigma", "float", "levels", "0", 0, 8,
 "Gaussian error left on a cell after programming, on top of the ISPP tolerance",
 "ideal default; params.md: 1-6 % of Gmax (NeuRRAM fit), ~1.1 % of G (aihwkit)"},
{"nonideal.stuck_hrs_rate", "float", "ratio", "0", 0, 1,
 "Fraction of cells stuck at level 0 (HRS), chosen per cell from the seed",
 "ideal default; params.md: MNSIM 9 % stuck at HRS"},
{"nonideal.stuck_lrs_rate", "float", "ratio", "0", 0, 1,
 "Fraction of cells stuck at the top level (LRS)",
 "ideal default; params.md: MNSIM 1 % stuck at LRS"},
{"nonideal.ir_drop_ohm_per_cell", "float", "Ohm", "0", 0, 1000,
 "Wire resistance per cell along rows and columns; 0 disables IR drop",
 "ideal default; params.md: 0.15-0.35 (aihwkit), 1.9-5.6 (NeuroSim 22 nm), 2.82 (MNSIM) Ohm/cell"},

// ---- cu: compute unit -----------------------------------------------------
{"cu.imem_kinstr", "int", "Kinstr", "16", 1, 1024,
 "Instruction memory, in K (1024) 64-bit instructions",
 "chosen: 128 KiB holds a looped ResNet-50 layer program"},
{"cu.spad_kib", "int", "KiB", "64", 1, 65536,
 "Local scratchpad",
 "chosen: same size as the ISAAC/PUMA 64 KB tile buffer (params.md)"},
{"cu.issue_cycles", "int", "cycles", "1", 1, 64,
 "Cycles the issue stage spends per instruction (single issue)",
 "chosen: one instruction per cycle"},
{"cu.scalar.alu_cycles", "int", "cycles", "1", 1, 1024,
 "Scalar add, logic, compare, move",
 "chosen: single-cycle ALU"},
{"cu.scalar.mul_cycles", "int", "cycles", "3", 1, 1024,
 "Scalar multiply",
 "chosen: 3-stage multiplier"},
{"cu.scalar.branch_cycles", "int", "cycles", "1", 1, 1024,
 "Branch and jump, taken or not",
 "chosen: resolved in issue, no predictor"},
{"cu.spad.access_cycles", "int", "cycles", "2", 1, 1024,
 "Scratchpad access latency",
 "params.md: tile memory 2-cycle access (ISAAC, PUMA)"},
{"cu.spad.bytes_per_cycle", "int", "B/cycle", "64", 1, 4096,
 "Scratchpad bandwidth seen by one unit",
 "chosen: twice the cluster SRAM's bandwidth"},
{"cu.vector.lanes", "int", "elem/cycle", "32", 1, 4096,
 "Elements the vector unit processes per cycle",
 "chosen; params.md: PUMA ALU takes 128 cycles for vec=128 (1 element/cycle)"},
{"cu.vector.startup_cycles", "int", "cycles", "2", 0, 1024,
 "Pipeline fill of a vector instruction before the first lane-group completes",
 "chosen"},
{"cu.vector.lut_cycles_per_group", "int", "cycles", "3", 1, 1024,
 "Cycles per lane-group for LUT activations (sigmoid, tanh, exp)",
 "derived: params.md PUMA transcendental 384 vs ALU 128 cycles = 3x"},
{"cu.dma.setup_cycles", "int", "cycles", "4", 0, 1024,
 "DMA descriptor setup before the first byte moves",
 "chosen"},
{"cu.dma.bytes_per_cycle", "int", "B/cycle", "32", 1, 4096,
 "Peak DMA engine bandwidth (the slower of source and sink also limits it)",
 "derived: params.md PIMCOMP local memory 25.6 GB/s at 1 GHz, rounded to a power of two"},

// ---- cluster: shared SRAM and router port ---------------------------------
{"cluster.sram_kib", "int", "KiB", "512", 1, 1048576,
 "SRAM shared by the CUs of a cluster",
 "chosen: about 20 KiB per CU for 25 CUs (params.md: 64 KB per 8-CU PUMA tile)"},
{"cluster.sram.latency_cycles", "int", "cycles", "2", 1, 1024,
 "Shared SRAM access latency",
 "params.md: tile memory 2-cycle access (ISAAC, PUMA)"},
{"cluster.sram.bytes_per_cycle", "int", "B/cycle", "32", 1, 4096,
 "Shared SRAM bandwidth, divided among the CUs that use it at once",
 "derived: params.md PIMCOMP local memory 25.6 GB/s at 1 GHz, rounded to a power of two"},

// ---- noc: 2D mesh, XY routing ---------------------------------------------
{"noc.hop_cycles", "int", "cycles", "2", 1, 1024,
 "Router traversal plus link, per hop, in NoC cycles",
 "chosen: 1 router + 1 link cycle"},
{"noc.link_bits", "int", "bits", "64", 8, 4096,
 "Flit width = link width",
 "derived: params.md PIMCOMP link 8 GB/s = 64 bits at 1 GHz (ISAAC/PUMA use 32-bit flits)"},
{"noc.clock_mhz", "float", "MHz", "1000", 1, 10000,
 "NoC clock",
 "params.md: 1 GHz"},
{"noc.packet_header_flits", "int", "flits", "1", 0, 64,
 "Header flits added to every packet",
 "chosen"},
{"noc.local_port_cycles", "int", "cycles", "1", 0, 1024,
 "CU to router injection and router to CU ejection, each",
 "chosen"},
{"noc.buffer_flits", "int", "flits", "8", 1, 65536,
 "Input buffer depth per router port; a full buffer stalls the upstream link",
 "chosen"},

// ---- gmem: global memory at the mesh edge ---------------------------------
{"gmem.size_mib", "int", "MiB", "2048", 1, 1048576,
 "Global memory (DRAM/HBM) capacity",
 "chosen: holds the ~500 MB Y1 model binary (seeds/sidra-compiler-chapter.txt) plus activations"},
{"gmem.latency_ns", "float", "ns", "100", 0, 1e6,
 "Access latency of the memory controller, first byte",
 "chosen: typical DRAM row miss"},
{"gmem.bandwidth_gbps", "float", "GB/s", "64", 0.001, 1e5,
 "Peak bandwidth, shared by all requesters",
 "params.md: PIMCOMP global memory 64 GB/s shared"},
{"gmem.attach_cluster", "int", "index", "0", 0, 4095,
 "Cluster whose router the memory controller attaches to (0 = north-west corner)",
 "chosen: corner of the mesh edge (DESIGN.md: global memory at the edge)"},

// ---- sync -----------------------------------------------------------------
{"sync.barrier_cycles", "int", "cycles", "10", 0, 100000,
 "From the last CU arriving at a barrier to every participant released",
 "chosen"},

// ---- cp: control processor that runs the firmware -------------------------
{"cp.imem_kib", "int", "KiB", "64", 1, 65536,
 "Control processor instruction memory",
 "chosen"},
{"cp.dmem_kib", "int", "KiB", "256", 1, 1048576,
 "Control processor data memory",
 "chosen"},
{"cp.alu_cycles", "int", "cycles", "1", 1, 1024,
 "Scalar ALU operation",
 "chosen: same core as the CU scalar unit"},
{"cp.mul_cycles", "int", "cycles", "3", 1, 1024,
 "Scalar multiply",
 "chosen: same core as the CU scalar unit"},
{"cp.branch_cycles", "int", "cycles", "1", 1, 1024,
 "Branch and jump",
 "chosen: same core as the CU scalar unit"},
{"cp.mem_cycles", "int", "cycles", "1", 1, 1024,
 "Load or store to its own data memory",
 "chosen: tightly coupled SRAM"},
{"cp.load_bytes_per_cycle", "int", "B/cycle", "8", 1, 4096,
 "Bandwidth of loading programs into CU instruction memories",
 "derived: one 64-bit NoC flit per cycle"},

// ---- energy: per operation, for the statistics ----------------------------
{"energy.xbar_read_pj_per_cell", "float", "pJ", "0.0018", 0, 1e6,
 "Array read energy per activated cell per input step",
 "derived: ISAAC (ISCA'16) 2.4 mW for 8 arrays of 128x128 over a 100 ns read = 30 pJ / 16,384 cells"},
{"energy.dac_pj", "float", "pJ", "0.42", 0, 1e6,
 "One DAC conversion (one row, one step)",
 "params.md: 0.42 pJ/conversion (hwcomponents isaac.py)"},
{"energy.sample_hold_pj", "float", "pJ", "0.01", 0, 1e6,
 "One column sample-and-hold",
 "chosen: negligible next to the ADC"},
{"energy.adc_pj", "float", "pJ", "1.67", 0, 1e6,
 "One ADC conversion at adc.bits",
 "params.md: ~1.6 pJ/conversion at 8 bits (ISAAC via hwcomponents: 1.67 pJ)"},
{"energy.shift_add_pj", "float", "pJ", "0.021", 0, 1e6,
 "One shift-and-add",
 "params.md: shift-add 0.021 pJ/op (ISAAC via hwcomponents)"},
{"energy.scalar_pj_per_op", "float", "pJ", "0.5", 0, 1e6,
 "One scalar instruction in a CU",
 "chosen"},
{"energy.vector_pj_per_element", "float", "pJ", "0.2", 0, 1e6,
 "One element through the vector unit",
 "chosen"},
{"energy.spad_pj_per_byte", "float", "pJ/byte", "0.64", 0, 1e6,
 "Scratchpad read or write, per byte",
 "derived: ISAAC eDRAM 20.45 pJ per 256-bit access (hwcomponents isaac.py) / 32 B"},
{"energy.sram_pj_per_byte", "float", "pJ/byte", "0.64", 0, 1e6,
 "Cluster SRAM read or write, per byte",
 "derived: ISAAC eDRAM 20.45 pJ per 256-bit access (hwcomponents isaac.py) / 32 B"},
{"energy.noc_pj_per_bit_hop", "float", "pJ/bit-hop", "0.081", 0, 1e6,
 "Moving one bit across one router and link",
 "derived: params.md router 20.7 pJ per 256-bit transfer (ISAAC/PUMA) / 256"},
{"energy.gmem_pj_per_byte", "float", "pJ/byte", "31", 0, 1e6,
 "Global memory read or write, per byte",
 "chosen: HBM2 ~3.9 pJ/bit (O'Connor et al., MICRO 2017)"},
{"energy.cp_pj_per_op", "float", "pJ", "0.5", 0, 1e6,
 "One control processor instruction",
 "chosen: same core as the CU scalar unit"},
{"energy.leakage_mw_per_cu", "float", "mW", "1", 0, 1e6,
 "Static power of one CU (periphery, memories), charged for the whole run",
 "chosen"},
{"energy.leakage_mw_per_cluster", "float", "mW", "5", 0, 1e6,
 "Static power of a cluster's SRAM and router",
 "chosen"},
};
// clang-format on

// Parameters the compiler reads (ParamDef::affects_program). vp-sweep
// recompiles per point only when one of these varies.
const char* const kProgramParams[] = {
    "chip.clusters",    "chip.mesh_cols",       "chip.cus_per_cluster", "chip.xbars_per_cu",
    "xbar.rows",        "xbar.cols",            "xbar.cell_bits",       "xbar.weight_bits",
    "xbar.signed_encoding", "cu.imem_kinstr",   "cu.spad_kib",          "cluster.sram_kib",
    "gmem.size_mib",    "gmem.attach_cluster",
};

}  // namespace

const RawParam* raw_table_begin() { return std::begin(kTable); }
const RawParam* raw_table_end() { return std::end(kTable); }
const char* const* program_params_begin() { return std::begin(kProgramParams); }
const char* const* program_params_end() { return std::end(kProgramParams); }

}  // namespace vp::config::detail
