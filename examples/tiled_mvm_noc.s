; A tiled matrix-vector product over four crossbars in two clusters.
;
; y = requant(W^T x + b) with W 128 x 32 int8, x 128 int8, y 32 int8.
; W is cut into 64-row x 16-column tiles (a 64x64 crossbar of 2-bit cells
; holds 16 eight-bit weights per row), two tiles side by side in each CU:
;   cluster 0 cu 0 (core 0), crossbars 0,1: rows 0..63,   columns 0..15, 16..31
;   cluster 1 cu 0 (core 2), crossbars 0,1: rows 64..127, columns 0..15, 16..31
; Each CU fires its two crossbars as one group (mvm concat); core 2 sends its
; 32 partial sums over the mesh to core 0, which adds them, adds the bias,
; requantizes per output channel and stores y in global memory.
;
; Run:  vp-run --chip small examples/tiled_mvm_noc.s \
;         --input examples/data/tiled_mvm.x.bin@0 --output y.bin@0x1000:32
; data/ is written by gen_examples.py, which also computes the expected y.

.chip clusters=2, cus=1, xbars=2, rows=64, cols=64, cell_bits=2
.layer 1, "fc"

.equ K_HALF,   64          ; input rows per CU
.equ N,        32          ; outputs
.equ X_GLOBAL, 0x0000
.equ Y_GLOBAL, 0x1000
.equ X_LOCAL,  0x000
.equ ACC,      0x100       ; N int32
.equ PART,     0x200       ; N int32 from the other cluster
.equ Y_LOCAL,  0x300       ; N int8
.equ BIAS,     0x400       ; N int32
.equ RQ,       0x500       ; N (multiplier, shift) int32 pairs
.equ TAG,      1

.core 0, 0
    layer 1
    li r1, X_LOCAL
    li r2, X_GLOBAL
    li r3, K_HALF
    dma.gl r1, r2, r3
    li r4, ACC
    mvm r4, r1, 0, 0x3, 8, 32, concat, 0
    li r5, PART
    li r6, N * 4
    li r7, 2                ; core 2 = cluster 1, cu 0 on the small chip
    recv r5, r6, r7, TAG
    li r8, N
    vadd r4, r4, r5, r8, i32
    li r9, BIAS
    vadd r4, r4, r9, r8, i32
    li r10, Y_LOCAL
    li r11, RQ
    vrq r10, r4, r8, r11, 0
    li r12, Y_GLOBAL
    dma.lg r12, r10, r8
    halt
.include "data/tiled_mvm.params.inc"

.core 1, 0
    layer 1
    li r1, X_LOCAL
    li r2, X_GLOBAL + K_HALF
    li r3, K_HALF
    dma.gl r1, r2, r3
    li r4, ACC
    mvm r4, r1, 0, 0x3, 8, 32, concat, 0
    li r6, N * 4
    li r7, 0
    send r4, r6, r7, TAG
    halt

; Cell programs: four 64x64 tiles, 4096 level bytes each, in the order
; gen_examples.py writes them.
.xbar 0, 0, 0, 0, 0, 64, 64
    .incbin "data/tiled_mvm.cells.bin", 0, 4096
.xbar 0, 0, 1, 0, 0, 64, 64
    .incbin "data/tiled_mvm.cells.bin", 4096, 4096
.xbar 1, 0, 0, 0, 0, 64, 64
    .incbin "data/tiled_mvm.cells.bin", 8192, 4096
.xbar 1, 0, 1, 0, 0, 64, 64
    .incbin "data/tiled_mvm.cells.bin", 12288, 4096
