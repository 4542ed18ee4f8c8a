; The deploy kernel: loaded by the firmware into every CU that owns cells
; and started at 0. It programs that CU's cell programs (its entry of the
; per-core deploy table) row by row through the ISPP write path with
; program-and-verify (xprog), retrying a row with failed cells up to
; BB_RETRIES times, and writes its counts to its deploy result record.
; Partial rows (a rectangle narrower than the crossbar) are read first
; (xread) so the cells outside the rectangle are programmed to what they
; hold. Runs from instruction 0 of the CU: position-independent by being
; the only text of its core.

; scratchpad
.equ K_BOOT,    0x000     ; copy of the boot block
.equ K_ENTRY,   0x080     ; (first cell, count)
.equ K_REC,     0x0C0     ; one cell record
.equ K_RES,     0x0E0     ; results
.equ K_BUF,     0x100     ; one row of levels (xbar.cols bytes)

.core 0, 0
kernel:
    li r28, K_BOOT
    li r30, BOOT
    li r1, BB_SIZE
    dma.gl r28, r30, r1
    rdsr r2, core
    shli r3, r2, 3
    ld r4, r28, BB_DEPLOY
    add r4, r4, r3
    li r5, K_ENTRY
    li r6, 8
    dma.gl r5, r4, r6
    ld r10, r5, 0                   ; first cell
    ld r11, r5, 4                   ; cells
    ld r12, r28, BB_CELL
    muli r13, r10, CELL_REC
    add r12, r12, r13               ; its record
    rdsr r1, ncores
    rdsr r2, xbars
    mul r29, r1, r2                 ; crossbars on the chip
    rdsr r25, cols
    rdsr r9, rows
    li r20, 0                       ; pulses
    li r21, 0                       ; failed cells
    li r22, 0                       ; retries
    li r23, 0                       ; rows programmed
    li r8, K_BUF
    beq r11, zero, k_done
k_cell:
    li r5, K_REC
    li r6, CELL_REC
    dma.gl r5, r12, r6
    ld r14, r5, CELL_XBAR
    ld r15, r5, CELL_ROW0
    ld r16, r5, CELL_COL0
    ld r17, r5, CELL_ROWS
    ld r18, r5, CELL_COLS
    ld r19, r5, CELL_LEVELS
    blt r14, zero, k_bad            ; 0xFFFFFFFF: not on this chip
    bge r14, r29, k_bad
    bge zero, r17, k_bad            ; rows > 0
    bge zero, r18, k_bad            ; cols > 0
    add r1, r15, r17
    blt r9, r1, k_bad               ; row0 + rows <= chip rows
    add r1, r16, r18
    blt r25, r1, k_bad              ; col0 + cols <= chip cols
    li r24, 0                       ; partial row?
    bne r16, zero, k_partial
    beq r18, r25, k_rows
k_partial:
    li r24, 1
k_rows:
    li r26, 0
k_row:
    add r7, r15, r26                ; crossbar row
    beq r24, zero, k_full
    xread r8, r14, r7
    add r1, r8, r16
    dma.gl r1, r19, r18
    jmp k_prog
k_full:
    dma.gl r8, r19, r18
k_prog:
    ld r27, r28, BB_RETRIES
k_again:
    xprog r8, r14, r7
    xstat r1, pulses
    xstat r2, failed
    add r20, r20, r1
    beq r2, zero, k_row_ok
    beq r27, zero, k_row_failed
    addi r27, r27, -1
    addi r22, r22, 1
    jmp k_again
k_row_failed:
    add r21, r21, r2
k_row_ok:
    addi r23, r23, 1
    add r19, r19, r18
    addi r26, r26, 1
    blt r26, r17, k_row
    addi r12, r12, CELL_REC
    dbnz r11, k_cell
k_done:
    li r1, K_RES
    st r20, r1, RES_PULSES
    st r21, r1, RES_FAILED
    st r22, r1, RES_RETRIES
    st r23, r1, RES_ROWS
    rdsr r2, core
    muli r2, r2, RES_REC
    ld r3, r28, BB_RESULTS
    add r2, r2, r3
    li r3, RES_REC
    dma.lg r2, r1, r3
    halt
k_bad:
    trap ERR_CELLS
