; A two-layer perceptron, 64 -> 32 -> 10, over a batch of two inputs.
;
;   h      = relu(requant(W1^T x + b1))      int8, on cluster 0 cu 0
;   logits = W2^T h + b2                     int32, on cluster 0 cu 1
;
; W1 (64 x 32) fills crossbars 0 and 1 of core 0 side by side; W2 (32 x 10)
; sits in crossbar 0 of core 1, its unused rows and columns at weight 0.
; Core 0 sends each hidden vector to core 1 over the NoC; the control
; processor starts both cores and waits for them. Both cores loop over the
; batch, so the second input's first layer overlaps the first's second.
;
; Run:  vp-run --chip small examples/mlp.s \
;         --input examples/data/mlp.x.bin@0 --output logits.bin@0x1000:80:int32
; data/ is written by gen_examples.py, which also computes the expected logits.

.chip clusters=1, cus=2, xbars=2, rows=64, cols=64, cell_bits=2
.layer 1, "fc1"
.layer 2, "fc2"

.equ BATCH,      2
.equ X_GLOBAL,   0x0000     ; BATCH x 64 int8
.equ OUT_GLOBAL, 0x1000     ; BATCH x 10 int32
.equ K1, 64
.equ N1, 32
.equ N2, 10
.equ TAG_HIDDEN, 1

; ---- control processor --------------------------------------------------------
.cp
    li r1, 0
    li r2, 1
    li r3, 0
    cstart r1, r3
    cstart r2, r3
    cwait r1
    cwait r2
    halt

; ---- core 0: the first layer ------------------------------------------------
.equ X_LOCAL, 0x000
.equ ACC,     0x100         ; N1 int32
.equ H,       0x200         ; N1 int8
.equ BIAS1,   0x400         ; N1 int32
.equ RQ1,     0x500         ; N1 (multiplier, shift) pairs

.core 0, 0
    layer 1
    li r20, BATCH
    li r21, X_GLOBAL
    li r1, X_LOCAL
    li r3, K1
    li r4, ACC
    li r8, N1
    li r9, BIAS1
    li r10, H
    li r11, RQ1
    li r7, 1                ; core 1
next_input:
    dma.gl r1, r21, r3
    mvm r4, r1, 0, 0x3, 8, 32, concat, 0
    vadd r4, r4, r9, r8, i32
    vrq r10, r4, r8, r11, 0
    vrelu r10, r10, r8, i8
    send r10, r8, r7, TAG_HIDDEN
    addi r21, r21, K1
    dbnz r20, next_input
    halt
.include "data/mlp.params.inc"

; ---- core 1: the second layer -------------------------------------------------
.equ IN,    0x000           ; 64 int8, rows N1..63 stay zero
.equ ACC2,  0x100           ; 16 int32 (the crossbar's logical columns)
.equ BIAS2, 0x200           ; N2 int32

.core 0, 1
    layer 2
    li r20, BATCH
    li r22, OUT_GLOBAL
    li r1, IN
    li r2, 0
    li r3, 64
    vfill r1, r2, r3, i8
    li r5, N1
    li r6, 0                ; core 0
    li r4, ACC2
    li r8, N2
    li r9, BIAS2
    li r12, N2 * 4
next_hidden:
    recv r1, r5, r6, TAG_HIDDEN
    mvm r4, r1, 0, 0x1, 8, 32, sum, 0
    vadd r4, r4, r9, r8, i32
    dma.lg r22, r4, r12
    addi r22, r22, N2 * 4
    dbnz r20, next_hidden
    halt
.include "data/mlp.layer2.inc"

; ---- cell programs ----------------------------------------------------------------
.xbar 0, 0, 0, 0, 0, 64, 64
    .incbin "data/mlp.cells.bin", 0, 4096
.xbar 0, 0, 1, 0, 0, 64, 64
    .incbin "data/mlp.cells.bin", 4096, 4096
.xbar 0, 1, 0, 0, 0, 64, 64
    .incbin "data/mlp.cells.bin", 8192, 4096
