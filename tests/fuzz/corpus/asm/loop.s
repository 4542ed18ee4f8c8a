; A small loop on one compute unit: sum 1..N with a counted loop, store the
; result in the scratchpad and copy it out to global memory.
.equ N,      10
.equ RESULT, 0x40          ; scratchpad address of the result
.equ OUT,    0x1000        ; global address it is copied to

.chip clusters=1, cus=1

.cp                         ; control processor: start core 0, wait for it
    li r1, 0               ; core number 0 = cluster 0, CU 0
    li r2, 0               ; its entry pc
    cstart r1, r2
    cwait r1
    halt

.core 0, 0
.entry start
start:
    li r1, N               ; loop counter
    li r2, 0               ; accumulator
loop:
    add r2, r2, r1         ; r2 += counter
    dbnz r1, loop          ; counted loop: r1 -= 1, branch while nonzero
    li r3, RESULT
    st r2, r3, 0           ; local[RESULT] = 55
    li r4, OUT
    li r5, 4
    dma.lg r4, r3, r5      ; global[OUT..+4] = local[RESULT..+4]
    wait 4                 ; DMA idle
    halt

.data local, RESULT
    .word 0
