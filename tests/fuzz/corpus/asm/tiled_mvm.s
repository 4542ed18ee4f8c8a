; Constants shared by tiled_mvm.s (an .include example).
.equ ROWS,   4              ; input rows per tile
.equ COLS,   4              ; logical output columns
.equ SLICES, 4              ; 2-bit slices per 8-bit weight
.equ CORE0,  0              ; chip-wide core numbers (cluster * CUs + cu)
.equ CORE1,  1
.equ TAG_PARTIAL, 7

.equ X_GLOBAL, 0x0000
.equ Y_GLOBAL, 0x0100
.equ X_LOCAL,  0x000
.equ ACC,      0x100
.equ PARTIAL,  0x200
.equ Y_LOCAL,  0x300
.equ REQUANT_MUL,   1 << 14
.equ REQUANT_SHIFT, 20

.equ UNIT_XBAR,   1
.equ UNIT_VECTOR, 2
.equ UNIT_DMA,    4
.equ UNIT_NOC,    8
; A tiled matrix-vector product y = W^T x over the crossbars of two CUs.
;
; W is 8 x 4 int8 (8 inputs, 4 outputs), split by rows into two 4 x 4 tiles.
; Each tile is programmed into crossbar 0 of its CU: 4 rows, and each signed
; 8-bit weight becomes four 2-bit slices on adjacent columns (16 columns).
; CU (0,1) computes its partial sums and sends them over the NoC to CU (0,0),
; which adds them to its own, requantizes to int8 and writes y to global
; memory. The control processor starts both CUs and waits for them.

.chip clusters=1, cus=2, xbars=1, rows=4, cols=16, cell_bits=2
.layer 1, "fc1"

; ---- control processor -----------------------------------------------------
.cp
    li r1, CORE0
    li r2, CORE1
    li r3, 0
    cstart r1, r3
    cstart r2, r3
    cwait r1
    cwait r2
    halt

; ---- CU (0,0): rows 0..3, collects the result --------------------------------
.core 0, 0
main0:
    layer 1
    li r1, X_LOCAL
    li r2, X_GLOBAL
    li r3, ROWS
    dma.gl r1, r2, r3          ; x[0..3] into the scratchpad
    wait UNIT_DMA
    li r4, ACC
    mvm r4, r1, 0, 0x1, 8, 32, sum, 0
    li r5, PARTIAL
    li r6, COLS * 4            ; 4 int32 partial sums
    li r7, CORE1
    recv r5, r6, r7, TAG_PARTIAL
    li r8, COLS
    vadd r4, r4, r5, r8, i32   ; y = mine + theirs
    li r9, Y_LOCAL
    li r10, REQUANT_MUL
    vrqs r9, r4, r8, r10, REQUANT_SHIFT, 0
    li r11, Y_GLOBAL
    dma.lg r11, r9, r8
    wait UNIT_DMA | UNIT_XBAR | UNIT_VECTOR
    halt

; ---- CU (0,1): rows 4..7, sends its partial sums -----------------------------
.core 0, 1
main1:
    layer 1
    li r1, X_LOCAL
    li r2, X_GLOBAL + ROWS
    li r3, ROWS
    dma.gl r1, r2, r3
    wait UNIT_DMA
    li r4, ACC
    mvm r4, r1, 0, 0x1, 8, 32, sum, 0
    wait UNIT_XBAR
    li r6, COLS * 4
    li r7, CORE0
    send r4, r6, r7, TAG_PARTIAL
    halt

; ---- input vector in global memory -----------------------------------------
.data global, X_GLOBAL
    .byte 1, -2, 3, -4, 5, -6, 7, -8

; ---- crossbar cell programs: 2-bit levels, 4 slices per weight (LSB first) ---
; tile 0: W rows 0..3
.xbar 0, 0, 0, 0, 0, ROWS, COLS * SLICES
    .byte 1,0,0,0,  2,0,0,0,  3,0,0,0,  0,1,0,0
    .byte 3,3,3,3,  1,1,0,0,  0,0,0,0,  2,2,0,0
    .byte 0,0,1,0,  3,3,3,3,  1,0,0,0,  0,0,0,0
    .byte 2,0,0,0,  0,2,0,0,  0,0,2,0,  3,3,3,3
; tile 1: W rows 4..7
.xbar 0, 1, 0, 0, 0, ROWS, COLS * SLICES
    .byte 1,1,0,0,  1,0,0,0,  0,0,0,0,  3,0,0,0
    .byte 0,0,0,0,  2,1,0,0,  1,0,0,0,  3,3,3,3
    .byte 1,2,0,0,  0,0,0,0,  3,3,3,3,  2,0,0,0
    .byte 0,3,0,0,  1,0,0,0,  2,0,0,0,  1,0,0,0
