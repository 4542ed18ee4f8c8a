// The digital back end of one crossbar's MVM: sequencing of the input steps
// through the array (front) and the column ADCs (back), shift-and-add of the
// ADC codes into one accumulator per physical column, and the read-out that
// combines weight slices, removes the signed-weight offset (or subtracts the
// differential column group) and saturates. The functional reference is
// hw/crossbar/mvm_engine.h, the cycle reference hw/crossbar/mvm_timing.h.
//
// Analog parts stay outside: front_strobe asks the array side to drive the
// DAC step and row group of stage front_stage (settle, sample-and-hold);
// adc_strobe asks the ADCs for column group adc_group of stage adc_stage,
// whose codes are sampled in the conversion's last cycle. Column group k,
// lane a is physical column k * adcs + a.
//
// Schedule (stage i = DAC step s * row_groups + row group g; n = i * G + k
// numbers conversions; each phase takes its cycles, >= 1):
//   front i  after front i-1, and after the back end of stage i-2 finished
//            (pipelined: double sample-and-hold) or of stage i-1 (not).
//   ADC n    after ADC n-1 and front i; for k = 0 after the whole back end
//            of stage i-1, else after shift-add n-2 (adc pipelined: ADC
//            latch + shift-add operand) or n-1 (not).
//   SA n     after ADC n and shift-add n-1.
// This is the two-level pipeline whose length mvm_timing.h gives in closed
// form; busy_cycles counts exactly that many (the cycles in which a unit
// runs, from the first front to the last shift-add; the one cycle after
// start that takes the command is not counted, as the TLM model has no
// such cycle) and done strobes the cycle after the last shift-add.
module column_output_path #(
    parameter int COLS       = 256,  // physical columns (accumulators)
    parameter int LANES      = 64,   // ADCs per crossbar at most
    parameter int CODE_W     = 32,   // signed ADC code (ideal ADCs are unbounded)
    parameter int ACC_W      = 64,   // accumulators and results
    parameter int CNT_W      = 32,   // stage, conversion and cycle counters
    parameter int IDX_W      = 16,   // column indices
    parameter int SLICES_MAX = 16    // weight slices per polarity
) (
    input  logic                              clk,
    input  logic                              rst_n,
    // Geometry and timing, held from start to the last read-out.
    input  logic [IDX_W-1:0]                  adcs,          // ADCs in use, 1..LANES
    input  logic [CNT_W-1:0]                  groups,        // conversions per ADC per stage
    input  logic [CNT_W-1:0]                  row_groups,
    input  logic [4:0]                        input_bits,    // 1..16
    input  logic                              input_signed,
    input  logic [3:0]                        dac_bits,      // 1..8
    input  logic [4:0]                        lsb_shift,     // ADC LSB = 2^lsb_shift
    input  logic [CNT_W-1:0]                  front_cycles,
    input  logic [CNT_W-1:0]                  adc_cycles,
    input  logic [CNT_W-1:0]                  shift_add_cycles,
    input  logic                              pipelined,       // xbar.pipelined
    input  logic                              back_pipelined,  // adc.pipelined
    input  logic [3:0]                        cell_bits,     // 1..8
    input  logic [4:0]                        slices,        // 1..SLICES_MAX
    input  logic                              differential,
    input  logic [4:0]                        weight_bits,   // 2..16
    input  logic [6:0]                        out_bits,      // 2..64
    input  logic signed [ACC_W-1:0]           input_sum,     // from the input buffer's adder tree
    // Command.
    input  logic                              start,
    output logic                              busy,
    output logic                              done,
    output logic [CNT_W-1:0]                  busy_cycles,
    output logic                              stage_done,    // last shift-add of a stage, this cycle
    // Analog side.
    output logic                              front_strobe,
    output logic [CNT_W-1:0]                  front_stage,
    output logic                              adc_strobe,
    output logic [CNT_W-1:0]                  adc_stage,
    output logic [CNT_W-1:0]                  adc_group,
    input  logic [LANES-1:0][CODE_W-1:0]      adc_code,
    // Read-out of logical column rd_col: rd_value the cycle after rd_req
    // (off the MVM's timeline, like the CU's output buffer stage).
    input  logic                              rd_req,
    input  logic [IDX_W-1:0]                  rd_col,
    output logic signed [ACC_W-1:0]           rd_value,
    output logic                              rd_saturated
);
  // ---- how many stages: DAC steps (dac.h) x row groups ---------------------
  wire [4:0]       magnitude_bits = input_signed ? input_bits - 5'd1 : input_bits;
  wire [4:0]       magnitude_steps = 5'((magnitude_bits + {1'b0, dac_bits} - 5'd1) / {1'b0, dac_bits});
  wire [4:0]       steps = magnitude_steps + {4'd0, input_signed};
  wire [CNT_W-1:0] stages = CNT_W'(steps) * row_groups;
  wire [CNT_W-1:0] conversions = stages * groups;

  // ---- phase units ---------------------------------------------------------
  logic             running;
  logic             f_run, a_run, s_run;
  logic [CNT_W-1:0] f_cnt, a_cnt, s_cnt;
  logic [CNT_W-1:0] f_started, f_done;     // fronts started / finished
  logic [CNT_W-1:0] f_gate;                // shift-adds the next front waits for
  logic [CNT_W-1:0] f_gate_acc;            // f_started * groups
  logic [CNT_W-1:0] a_started, a_done;     // conversions started / finished
  logic [CNT_W-1:0] a_next_stage, a_next_group;
  logic [CNT_W-1:0] s_started, s_done;     // shift-adds started / finished

  wire f_last = f_run && f_cnt == front_cycles - 1'b1;
  wire a_last = a_run && a_cnt == adc_cycles - 1'b1;
  wire s_last = s_run && s_cnt == shift_add_cycles - 1'b1;
  // What will have finished by the next cycle.
  wire [CNT_W-1:0] f_done_n = f_done + CNT_W'(f_last);
  wire [CNT_W-1:0] a_done_n = a_done + CNT_W'(a_last);
  wire [CNT_W-1:0] s_done_n = s_done + CNT_W'(s_last);

  wire a_gate_ok = (a_next_group == '0 || !back_pipelined) ? s_done_n >= a_started
                                                           : s_done_n + 1'b1 >= a_started;
  wire f_go = running && f_started < stages && (!f_run || f_last) && s_done_n >= f_gate;
  wire a_go = running && a_started < conversions && (!a_run || a_last) &&
              f_done_n > a_next_stage && a_gate_ok;
  wire s_go = running && s_started < conversions && (!s_run || s_last) && a_done_n > s_started;

  // ---- shift-add operands: which step, which columns -----------------------
  logic [LANES-1:0][CODE_W-1:0] code_latch;  // last conversion's codes
  logic [LANES-1:0][CODE_W-1:0] s_code;      // codes being accumulated
  logic [IDX_W-1:0]             s_base;      // first column of the group being accumulated
  logic [4:0]                   s_shift;     // input-bit weight 2^s_shift of the step
  logic                         s_neg;       // the sign step of a signed input
  logic                         s_stage_end; // the last column group of its stage
  // Iterator over (step, row group, column group) for the next shift-add.
  logic [IDX_W-1:0]             it_base;
  logic [CNT_W-1:0]             it_group, it_row_group;
  logic [4:0]                   it_shift;
  logic                         it_neg;

  // Accumulators; a column not yet written since start reads 0 (clearing a
  // valid bit per column instead of every accumulator at start).
  logic signed [ACC_W-1:0] acc [COLS];
  logic [COLS-1:0]         acc_valid;
  localparam int COL_W = $clog2(COLS);
  function automatic logic signed [ACC_W-1:0] acc_q(logic [COL_W-1:0] c);
    return acc_valid[c] ? acc[c] : '0;
  endfunction

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      running <= 1'b0;
      {f_run, a_run, s_run} <= '0;
      {f_cnt, a_cnt, s_cnt} <= '0;
      {f_started, f_done, f_gate, f_gate_acc} <= '0;
      {a_started, a_done, a_next_stage, a_next_group} <= '0;
      {s_started, s_done} <= '0;
      code_latch <= '0;
      s_code <= '0;
      {s_base, s_shift, s_neg, s_stage_end} <= '0;
      {it_base, it_group, it_row_group, it_shift, it_neg} <= '0;
      busy_cycles <= '0;
      done <= 1'b0;
      {front_stage, adc_stage, adc_group} <= '0;
      acc_valid <= '0;
    end else begin
      done <= 1'b0;
      if (start && !running) begin
        running <= 1'b1;
        {f_started, f_done, f_gate, f_gate_acc} <= '0;
        {a_started, a_done, a_next_stage, a_next_group} <= '0;
        {s_started, s_done} <= '0;
        {it_base, it_group, it_row_group} <= '0;
        // A signed input of one bit is only its sign step.
        it_shift <= '0;
        it_neg   <= input_signed && magnitude_bits == '0;
        busy_cycles <= '0;
        acc_valid <= '0;
      end else if (running) begin
        // The cycle after start only latches the command; from the next on
        // some unit runs in every cycle until the last shift-add.
        if (f_run || a_run || s_run) busy_cycles <= busy_cycles + 1'b1;
        if (s_last && s_done_n == conversions) begin
          running <= 1'b0;
          done    <= 1'b1;
        end
      end

      // Front: one DAC step of one row group through the array.
      if (f_go) begin
        f_run      <= 1'b1;
        f_cnt      <= '0;
        f_started  <= f_started + 1'b1;
        front_stage <= f_started;
        f_gate     <= pipelined ? f_gate_acc : f_gate_acc + groups;
        f_gate_acc <= f_gate_acc + groups;
      end else if (f_run) begin
        f_run <= !f_last;
        f_cnt <= f_cnt + 1'b1;
      end
      if (f_last) f_done <= f_done + 1'b1;

      // ADCs: one column group of the present stage.
      if (a_go) begin
        a_run     <= 1'b1;
        a_cnt     <= '0;
        a_started <= a_started + 1'b1;
        adc_stage <= a_next_stage;
        adc_group <= a_next_group;
        if (a_next_group + 1'b1 == groups) begin
          a_next_group <= '0;
          a_next_stage <= a_next_stage + 1'b1;
        end else begin
          a_next_group <= a_next_group + 1'b1;
        end
      end else if (a_run) begin
        a_run <= !a_last;
        a_cnt <= a_cnt + 1'b1;
      end
      if (a_last) begin
        a_done     <= a_done + 1'b1;
        code_latch <= adc_code;
      end

      // Shift-add: takes the codes at its start, accumulates in its last cycle.
      if (s_go) begin
        s_run     <= 1'b1;
        s_cnt     <= '0;
        s_started <= s_started + 1'b1;
        s_code    <= a_last ? adc_code : code_latch;
        s_base    <= it_base;
        s_shift   <= it_shift;
        s_neg     <= it_neg;
        s_stage_end <= it_group + 1'b1 == groups;
        if (it_group + 1'b1 != groups) begin
          it_group <= it_group + 1'b1;
          it_base  <= it_base + adcs;
        end else begin
          it_group <= '0;
          it_base  <= '0;
          if (it_row_group + 1'b1 != row_groups) begin
            it_row_group <= it_row_group + 1'b1;
          end else begin
            // Next DAC step: the next magnitude chunk, then the sign bit.
            it_row_group <= '0;
            if (it_shift + {1'b0, dac_bits} < magnitude_bits) begin
              it_shift <= it_shift + {1'b0, dac_bits};
            end else begin
              it_shift <= input_bits - 5'd1;
              it_neg   <= 1'b1;
            end
          end
        end
      end else if (s_run) begin
        s_run <= !s_last;
        s_cnt <= s_cnt + 1'b1;
      end
      if (s_last) begin
        s_done <= s_done + 1'b1;
        for (int a = 0; a < LANES; a++) begin
          if (IDX_W'(a) < adcs && 32'(s_base) + a < COLS) begin
            logic signed [ACC_W-1:0] term;
            term = ACC_W'($signed(s_code[a])) <<< lsb_shift <<< s_shift;
            acc[32'(s_base) + a] <= s_neg ? acc_q(COL_W'(32'(s_base) + a)) - term : acc_q(COL_W'(32'(s_base) + a)) + term;
            acc_valid[32'(s_base) + a] <= 1'b1;
          end
        end
      end
    end
  end

  assign busy         = running;
  assign front_strobe = f_run && f_cnt == '0;
  assign adc_strobe   = a_run && a_cnt == '0;
  assign stage_done   = s_last && s_stage_end;

  // ---- read-out: slices weighted 2^(j*cell_bits), signed correction -------
  // Registered, so the combine runs only when asked for, not every cycle.
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      rd_value     <= '0;
      rd_saturated <= 1'b0;
    end else if (rd_req) begin
      logic signed [ACC_W-1:0] v;
      logic signed [ACC_W-1:0] hi;
      logic signed [ACC_W-1:0] lo;
      logic [31:0]             base;
      logic [31:0]             width;
      width = differential ? 32'(slices) << 1 : 32'(slices);
      base  = 32'(rd_col) * width;
      v     = '0;
      for (int j = 0; j < SLICES_MAX; j++) begin
        if (j < 32'(slices)) begin
          if (base + j < COLS) v = v + (acc_q(COL_W'(base + j)) <<< (j * 32'(cell_bits)));
          if (differential && base + 32'(slices) + j < COLS)
            v = v - (acc_q(COL_W'(base + 32'(slices) + j)) <<< (j * 32'(cell_bits)));
        end
      end
      if (!differential) v = v - (input_sum <<< (weight_bits - 5'd1));
      hi = out_bits >= 7'd64 ? {1'b0, {(ACC_W - 1) {1'b1}}} : (ACC_W'(1) <<< (out_bits - 7'd1)) - 1'b1;
      lo = ~hi;  // -hi - 1
      rd_saturated <= v > hi || v < lo;
      rd_value     <= v > hi ? hi : (v < lo ? lo : v);
    end
  end
endmodule
