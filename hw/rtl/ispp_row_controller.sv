// ISPP program-and-verify controller of one crossbar row, every cell of the
// row in parallel: the digital half of the write path that
// hw/crossbar/ispp_write_path.h models at transaction level.
//
// The analog device is not here. The controller talks to it through a
// cycle-level interface: a pulse strobe with per-cell enable and polarity
// vectors out, and per-cell verify-read levels in. In the platform a C++
// device model sits on the other side (hw/rtl/src/rtl_ispp_write_path.cpp).
//
// Round structure (one "round" = one pulse + one verify of the whole row):
//   start     the row's present levels are on verify_level (the state the
//             previous read left; the TLM model does not charge this read
//             either). Cells outside their window become active.
//   PULSE     pulse_cycles cycles; pulse_strobe in the first, with
//             pulse_en = active cells, pulse_set = level below target
//             (SET raises, RESET lowers). amp_step says which ISPP
//             increment this is (0 for the first pulse).
//   VERIFY    verify_cycles cycles; verify_strobe in the first, levels
//             sampled in the last; cells inside the window leave.
//   stop      when no cell is active or after max_pulses rounds; cells
//             still active are failed.
// Busy (PULSE or VERIFY) lasts exactly rounds * (pulse_cycles +
// verify_cycles) cycles, the TLM model's row time; done strobes one cycle
// after the last busy cycle.
//
// Levels are unsigned fixed point with FRAC_W fractional bits; the window
// test is |level - target| <= tolerance in that format (docs/rtl.md says
// when it equals the TLM model's double-precision test bit for bit).
module ispp_row_controller #(
    parameter int CELLS    = 256,  // cells of a row the controller drives
    parameter int TARGET_W = 8,    // bits of a target level (cell_bits <= 8)
    parameter int LEVEL_W  = 64,   // verify-read level width
    parameter int FRAC_W   = 56,   // ... of which fractional bits
    parameter int PULSE_W  = 16,   // pulse counters (ispp.max_pulses <= 65535)
    parameter int CYCLE_W  = 32    // phase lengths and the busy-cycle counter
) (
    input  logic                               clk,
    input  logic                               rst_n,
    // Command: one row.
    input  logic                               start,
    input  logic [CELLS-1:0]                   cell_en,       // cells of the written range
    input  logic [CELLS-1:0][TARGET_W-1:0]     target,
    input  logic [LEVEL_W-1:0]                 tolerance,     // window half-width, fixed point
    input  logic [PULSE_W-1:0]                 max_pulses,    // >= 1
    input  logic [CYCLE_W-1:0]                 pulse_cycles,  // >= 1
    input  logic [CYCLE_W-1:0]                 verify_cycles, // >= 1
    output logic                               busy,
    output logic                               done,
    // Device side.
    output logic                               pulse_strobe,
    output logic [CELLS-1:0]                   pulse_en,
    output logic [CELLS-1:0]                   pulse_set,
    output logic [PULSE_W-1:0]                 amp_step,
    output logic                               verify_strobe,
    input  logic [CELLS-1:0][LEVEL_W-1:0]      verify_level,
    // Results, valid from done until the next start.
    output logic [CELLS-1:0][PULSE_W-1:0]      pulses,
    output logic [CELLS-1:0]                   failed,
    output logic [PULSE_W-1:0]                 rounds,
    output logic [CYCLE_W-1:0]                 busy_cycles
);
  typedef enum logic [1:0] {
    IDLE,
    PULSE,
    VERIFY,
    DONE
  } state_t;

  state_t               state;
  logic [CYCLE_W-1:0]   phase_cnt;   // cycles spent in the present phase
  logic [CELLS-1:0]     active;      // cells still outside their window
  logic [CELLS-1:0]     below;       // level < target at the last read
  // Pulses issued so far. Kept apart from the rounds port: two outputs
  // assigned from each other read back through SystemC signals one delta
  // late in the --sc model.
  logic [PULSE_W-1:0]   round_q;

  // Window test of one cell: {level below target, level inside the window}.
  // Called only in the cycles that sample verify_level (start and the last
  // verify cycle), so the 256-cell comparator costs nothing in between.
  function automatic logic [1:0] classify(logic [LEVEL_W-1:0] level, logic [TARGET_W-1:0] goal_level,
                                          logic [LEVEL_W-1:0] tol);
    logic [LEVEL_W-1:0] goal;
    logic [LEVEL_W-1:0] distance;
    logic               lower;
    goal     = {{(LEVEL_W - TARGET_W - FRAC_W) {1'b0}}, goal_level, {FRAC_W{1'b0}}};
    lower    = level < goal;
    distance = lower ? goal - level : level - goal;
    return {lower, distance <= tol};
  endfunction

  wire pulse_last  = state == PULSE && phase_cnt == pulse_cycles - 1'b1;
  wire verify_last = state == VERIFY && phase_cnt == verify_cycles - 1'b1;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state       <= IDLE;
      phase_cnt   <= '0;
      active      <= '0;
      below       <= '0;
      pulses      <= '0;
      round_q     <= '0;
      busy_cycles <= '0;
    end else begin
      unique case (state)
        IDLE: if (start) begin
          logic [CELLS-1:0] outside;
          for (int c = 0; c < CELLS; c++) begin
            logic [1:0] k;
            k          = classify(verify_level[c], target[c], tolerance);
            outside[c] = cell_en[c] & ~k[0];
            below[c]  <= k[1];
          end
          active      <= outside;
          pulses      <= '0;
          round_q     <= '0;
          busy_cycles <= '0;
          phase_cnt   <= '0;
          state       <= |outside ? PULSE : DONE;
        end
        PULSE: begin
          busy_cycles <= busy_cycles + 1'b1;
          if (phase_cnt == '0) begin
            // The pulse is issued now: count it for every cell it reaches.
            for (int c = 0; c < CELLS; c++) pulses[c] <= pulses[c] + {{(PULSE_W - 1) {1'b0}}, active[c]};
            round_q <= round_q + 1'b1;
          end
          if (pulse_last) begin
            phase_cnt <= '0;
            state     <= VERIFY;
          end else begin
            phase_cnt <= phase_cnt + 1'b1;
          end
        end
        VERIFY: begin
          busy_cycles <= busy_cycles + 1'b1;
          if (verify_last) begin
            logic [CELLS-1:0] still_active;
            for (int c = 0; c < CELLS; c++) begin
              logic [1:0] k;
              k               = classify(verify_level[c], target[c], tolerance);
              still_active[c] = active[c] & ~k[0];
              below[c]       <= k[1];
            end
            active    <= still_active;
            phase_cnt <= '0;
            state     <= (still_active == '0 || round_q == max_pulses) ? DONE : PULSE;
          end else begin
            phase_cnt <= phase_cnt + 1'b1;
          end
        end
        DONE: state <= IDLE;
        default: state <= IDLE;
      endcase
    end
  end

  assign busy          = state == PULSE || state == VERIFY;
  assign done          = state == DONE;
  assign pulse_strobe  = state == PULSE && phase_cnt == '0;
  assign pulse_en      = active;
  assign pulse_set     = below;
  assign amp_step      = round_q;
  assign rounds        = round_q;
  assign verify_strobe = state == VERIFY && phase_cnt == '0;
  assign failed        = active;
endmodule
