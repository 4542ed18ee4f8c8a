; Sidra VP firmware: the control processor's program. Boot (check the model
; against the chip), deploy (every crossbar cell program through the ISPP
; write path, in parallel: a deploy kernel on each CU that owns cells), load
; (every CU program into its instruction memory), infer (for each batch
; element: inputs in, start the CUs, wait, outputs out). docs/firmware.md.
;
; The host driver (vp-run) writes the boot block at BOOT and starts this
; code at `start`. Errors write the status block, then `trap ERR_*`.

.include "boot_block.inc"

; control processor data memory
.equ D_BOOT,    0x000     ; copy of the boot block
.equ D_STATUS,  0x100     ; status block, flushed to global memory at each phase
.equ D_REC,     0x200     ; one record
.equ D_TIMES,   0x240     ; (start, end) of the current element
.equ D_LINK,    0x260     ; the link's doorbell word (an element number)
.equ D_STAGE,   0x400     ; staging buffers of global-to-global copies, used in turn
.equ CHUNK,     0x1000    ; bytes of one
.equ D_STAGE_END, 0x4400  ; four of them
.equ D_POINTER, 0x270     ; an indirect input's address, on its way to its word
.equ D_PROGS,   CP_PROGS  ; the CU program table, cached for every element

; registers kept across the whole program
;   r28 = D_BOOT, r29 = D_STATUS, r30 = BOOT, r31 = link

.cp
start:
    li r28, D_BOOT
    li r29, D_STATUS
    li r30, BOOT
    li r1, BB_SIZE
    dma.gl r28, r30, r1
    ld r1, r28, BB_MAGIC
    li r2, BB_MAGIC_VALUE
    bne r1, r2, bad_boot_block
    ld r1, r28, BB_VERSION
    li r2, BB_VERSION_VALUE
    bne r1, r2, bad_boot_block
    li r10, PHASE_BOOT
    li r11, ST_T_BOOT
    jal r31, enter_phase

; ---- boot: the model's requirements against the chip ----------------------
    ld r11, r28, BB_CLUSTERS
    rdsr r12, clusters
    blt r12, r11, too_few_clusters
    ld r11, r28, BB_CUS
    rdsr r12, cus
    blt r12, r11, too_few_cus
    ld r11, r28, BB_XBARS
    rdsr r12, xbars
    blt r12, r11, too_few_xbars
    ld r11, r28, BB_ROWS
    rdsr r12, rows
    beq r11, zero, rows_ok
    bne r11, r12, wrong_rows
rows_ok:
    ld r11, r28, BB_COLS
    rdsr r12, cols
    beq r11, zero, cols_ok
    bne r11, r12, wrong_cols
cols_ok:
    ; the program table, checked once and kept in data memory
    ld r20, r28, BB_NPROG
    li r1, D_PROGS
    ld r2, r28, BB_PROG
    muli r3, r20, PROG_REC
    dma.gl r1, r2, r3
    rdsr r13, ncores
    li r1, D_PROGS
    beq r20, zero, deploy
check_prog:
    ld r11, r1, PROG_CORE
    blt r11, zero, bad_program      ; 0xFFFFFFFF: not on this chip
    bge r11, r13, bad_program
    addi r1, r1, PROG_REC
    dbnz r20, check_prog

; ---- deploy: a kernel on every CU that owns cells programs them --------------
deploy:
    ld r1, r28, BB_FLAGS
    andi r1, r1, FLAG_DEPLOY
    beq r1, zero, load
    li r10, PHASE_DEPLOY
    li r11, ST_T_DEPLOY
    jal r31, enter_phase
    ld r20, r28, BB_NDCORE
    beq r20, zero, load
    ld r21, r28, BB_DCORES
    ld r22, r28, BB_KERNEL
    ld r23, r28, BB_KWORDS
    li r24, D_REC
    li r25, 4
start_kernels:
    dma.gl r24, r21, r25
    ld r11, r24, 0
    cload r11, r22, r23
    cstart r11, zero
    addi r21, r21, 4
    dbnz r20, start_kernels
    ; wait for each, adding its counts to the status block
    ld r20, r28, BB_NDCORE
    ld r21, r28, BB_DCORES
    li r26, 0x80000000              ; sign flip: unsigned compares through slt
wait_kernels:
    dma.gl r24, r21, r25
    ld r11, r24, 0
    cwait r11
    ld r2, r28, BB_RESULTS
    muli r3, r11, RES_REC
    add r2, r2, r3
    li r3, RES_REC
    dma.gl r24, r2, r3
    ld r4, r24, RES_PULSES
    li r5, ST_PULSES
    jal r31, add64
    ld r4, r24, RES_FAILED
    li r5, ST_FAILED
    jal r31, add64
    ld r4, r24, RES_RETRIES
    ld r6, r29, ST_RETRIES
    add r6, r6, r4
    st r6, r29, ST_RETRIES
    ld r4, r24, RES_ROWS
    ld r6, r29, ST_ROWS
    add r6, r6, r4
    st r6, r29, ST_ROWS
    addi r21, r21, 4
    dbnz r20, wait_kernels

; ---- load: every CU program into its instruction memory ---------------------
load:
    li r10, PHASE_LOAD
    li r11, ST_T_LOAD
    jal r31, enter_phase
    ld r20, r28, BB_NPROG
    li r1, D_PROGS
    beq r20, zero, infer
load_one:
    ld r11, r1, PROG_CORE
    ld r12, r1, PROG_TEXT
    ld r13, r1, PROG_WORDS
    cload r11, r12, r13
    addi r1, r1, PROG_REC
    dbnz r20, load_one

; ---- infer: each batch element -----------------------------------------------
infer:
    li r10, PHASE_INFER
    li r11, ST_T_INFER
    jal r31, enter_phase
    li r27, 0                       ; element
next_element:
    ld r1, r28, BB_BATCH
    bge r27, r1, finished
    ; in a system of chips, the element's inputs are written into its area
    ; by the link, which then rings this chip's doorbell (the element's time
    ; starts when its inputs are here)
    ld r1, r28, BB_FLAGS
    andi r1, r1, FLAG_LINK_IN
    beq r1, zero, inputs_ready
    ld r11, r28, BB_LINK
    li r1, D_LINK
    li r2, 4
    recv r1, r2, r11, LINK_TAG_IN
    wait WAIT_NOC                   ; the element begins when the doorbell is in
inputs_ready:
    li r1, D_TIMES
    rdsr r2, cycle
    rdsr r3, cycleh
    st r2, r1, 0
    st r3, r1, 4
    ; inputs: the element's area -> each input binding
    ld r1, r28, BB_BIN_STRIDE
    mul r1, r1, r27
    ld r2, r28, BB_BIN
    add r25, r1, r2                 ; element's input area
    ld r26, r28, BB_NIN
    ld r24, r28, BB_IN
    beq r26, zero, start_cus
copy_inputs:
    li r1, D_REC
    li r2, IO_REC
    dma.gl r1, r24, r2
    ld r20, r1, IO_ADDR
    ld r22, r1, IO_BYTES
    ld r21, r1, IO_OFFSET
    add r21, r21, r25
    ld r3, r1, IO_INDIRECT
    bne r3, zero, point_input
    jal r31, copy
    jmp input_done
point_input:                        ; read through a pointer: its word (IO_ADDR) gets the bytes' address
    li r2, D_POINTER
    st r21, r2, 0
    li r3, 4
    dma.lg r20, r2, r3
    wait WAIT_DMA                   ; before D_POINTER takes the next one
input_done:
    addi r24, r24, IO_REC
    dbnz r26, copy_inputs
    ; the last chunk's write must have landed before any core may read it
    wait WAIT_DMA
start_cus:
    ld r20, r28, BB_NPROG
    li r1, D_PROGS
    beq r20, zero, outputs
start_one:
    ld r11, r1, PROG_CORE
    ld r12, r1, PROG_ENTRY
    cstart r11, r12
    addi r1, r1, PROG_REC
    dbnz r20, start_one
    ld r20, r28, BB_NPROG
    li r1, D_PROGS
wait_one:
    ld r11, r1, PROG_CORE
    cwait r11
    addi r1, r1, PROG_REC
    dbnz r20, wait_one
outputs:
    ld r1, r28, BB_BOUT_STRIDE
    mul r1, r1, r27
    ld r2, r28, BB_BOUT
    add r25, r1, r2                 ; element's output area
    ld r26, r28, BB_NOUT
    ld r24, r28, BB_OUT
    beq r26, zero, element_done
copy_outputs:
    li r1, D_REC
    li r2, IO_REC
    dma.gl r1, r24, r2
    ld r21, r1, IO_ADDR
    ld r22, r1, IO_BYTES
    ld r20, r1, IO_OFFSET
    add r20, r20, r25
    jal r31, copy
    addi r24, r24, IO_REC
    dbnz r26, copy_outputs
element_done:
    li r1, D_TIMES
    rdsr r2, cycle
    rdsr r3, cycleh
    st r2, r1, 8
    st r3, r1, 12
    ; the element's outputs are in its area: the link may carry them on
    ; (after its end time is taken, so the time excludes the doorbell)
    ld r1, r28, BB_FLAGS
    andi r1, r1, FLAG_LINK_OUT
    beq r1, zero, times_out
    ld r11, r28, BB_LINK
    li r1, D_LINK
    st r27, r1, 0
    li r2, 4
    send r1, r2, r11, LINK_TAG_OUT
times_out:
    li r1, D_TIMES
    ld r2, r28, BB_TIMES
    shli r3, r27, 4
    add r2, r2, r3
    li r3, 16
    dma.lg r2, r1, r3
    addi r27, r27, 1
    st r27, r29, ST_DONE
    jmp next_element

finished:
    li r1, STATUS_DONE
    st r1, r29, ST_CODE
    li r10, PHASE_DONE
    li r11, ST_T_END
    jal r31, enter_phase
    halt

; ---- error paths: status first, then the trap the platform reports ----------
; r11 = what the model needs, r12 = what the chip has
bad_boot_block:                     ; no status: its address is not trusted
    trap ERR_BOOT_BLOCK
too_few_clusters:
    li r10, ERR_CLUSTERS
    jal r31, fail
    trap ERR_CLUSTERS
too_few_cus:
    li r10, ERR_CUS
    jal r31, fail
    trap ERR_CUS
too_few_xbars:
    li r10, ERR_XBARS
    jal r31, fail
    trap ERR_XBARS
wrong_rows:
    li r10, ERR_ROWS
    jal r31, fail
    trap ERR_ROWS
wrong_cols:
    li r10, ERR_COLS
    jal r31, fail
    trap ERR_COLS
bad_program:
    add r12, r13, zero
    li r10, ERR_PROGRAM
    jal r31, fail
    trap ERR_PROGRAM

; ---- subroutines (return through r31) ----------------------------------------
; enter_phase: r10 = phase, r11 = status offset of its timestamp; flushes
enter_phase:
    st r10, r29, ST_PHASE
    rdsr r2, cycle
    rdsr r3, cycleh
    add r4, r29, r11
    st r2, r4, 0
    st r3, r4, 4
    jmp flush

; fail: r10 = code, r11/r12 = details; flushes
fail:
    st r10, r29, ST_CODE
    st r11, r29, ST_DETAIL0
    st r12, r29, ST_DETAIL1
flush:
    ld r2, r28, BB_STATUS
    li r3, ST_SIZE
    dma.lg r2, r29, r3
    jr r31

; add64: status 64-bit counter at offset r5 += r4 (unsigned, carry into hi)
add64:
    add r6, r29, r5
    ld r7, r6, 0
    add r8, r7, r4                  ; new low word
    st r8, r6, 0
    xor r8, r8, r26
    xor r9, r4, r26
    slt r8, r8, r9                  ; unsigned new < addend: carried
    ld r7, r6, 4
    add r7, r7, r8
    st r7, r6, 4
    jr r31

; copy: global[r20..+r22] = global[r21..+r22] in chunks through the staging
; buffers in turn. The reads run two chunks ahead of the writes, so they
; follow each other on the port while the writes drain behind them (the
; scoreboard holds a write until its chunk is in, and a read into a buffer
; until the write out of it has taken its bytes). With one buffer, each
; chunk's read and write took both DMAs' latencies in turn (ResNet-18's
; input: 50 k cycles; one read ahead: 23.8 k).
; Uses r2-r5, r23.
copy:
    beq r22, zero, copy_done
    add r5, r22, zero               ; bytes still to read
    li r2, D_STAGE                  ; the next write's buffer
    add r4, r2, zero                ; the next read's buffer
    li r23, 2                       ; reads ahead of the first write
copy_ahead:
    jal r3, copy_read
    dbnz r23, copy_ahead
copy_chunk:
    jal r3, copy_read
    li r23, CHUNK
    min r23, r22, r23
    dma.lg r20, r2, r23             ; this chunk's write
    add r20, r20, r23
    sub r22, r22, r23
    addi r2, r2, CHUNK
    li r23, D_STAGE_END
    blt r2, r23, copy_wrote
    li r2, D_STAGE
copy_wrote:
    bne r22, zero, copy_chunk
copy_done:
    jr r31
; copy_read (link r3): the next chunk's read into the next read buffer, if
; any bytes are left to read. Uses r4, r5, r21 and r1.
copy_read:
    beq r5, zero, copy_read_done
    li r1, CHUNK
    min r1, r5, r1
    dma.gl r4, r21, r1
    add r21, r21, r1
    sub r5, r5, r1
    addi r4, r4, CHUNK
    li r1, D_STAGE_END
    blt r4, r1, copy_read_done
    li r4, D_STAGE
copy_read_done:
    jr r3

.include "deploy_kernel.s"
