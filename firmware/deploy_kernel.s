; The deploy kernel: loaded by the firmware into every CU that owns cells
; and started at 0. It programs that CU's cell programs (its entry of the
; per-core deploy table) through the ISPP write path with program-and-verify,
; retrying a row with failed cells up to BB_RETRIES times, and writes its
; counts to its deploy result record. Whole rows go in blocks of up to
; DEPLOY_BLOCK rows (the record's: as many as the scratchpad holds above
; K_BUF and below the model's own data there, at most DEPLOY_MAX_BLOCK):
; each row's levels, packed xbar.cell_bits bits each as the image holds
; them (CELL_PACKED bytes a row), by a DMA of their own, one after
; another, then one xprogn for the block, so the write path's sequencer,
; not the core's issue, steps from row to row. Partial rows (a rectangle
; narrower than the crossbar, its levels a byte each) go one at a time:
; each is read first (xread) so the cells outside the rectangle are
; programmed to what they hold, then xprog, xstat and the retries. Runs
; from instruction 0 of the CU: position-independent by being the only
; text of its core.

; scratchpad
.equ K_BOOT,    0x000     ; copy of the boot block
.equ K_ENTRY,   0x080     ; its deploy table record
.equ K_REC,     0x0C0     ; one cell record
.equ K_RES,     0x0E0     ; results
.equ K_ENTRY_BYTES, 12     ; (first cell, count, rows per block) of a deploy table record
.equ K_BUF,     0x100     ; rows of levels: a partial row (xbar.cols bytes), or a block of packed rows

.core 0, 0
kernel:
    li r28, K_BOOT
    li r30, BOOT
    li r1, BB_SIZE
    dma.gl r28, r30, r1
    rdsr r2, core
    muli r3, r2, DEPLOY_REC
    ld r4, r28, BB_DEPLOY
    add r4, r4, r3
    li r5, K_ENTRY
    li r6, K_ENTRY_BYTES
    dma.gl r5, r4, r6
    ld r10, r5, DEPLOY_FIRST        ; first cell
    ld r11, r5, DEPLOY_COUNT        ; cells
    ld r30, r5, DEPLOY_BLOCK        ; whole rows per block
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
    ld r4, r5, CELL_PACKED          ; bytes of a packed row, 0: levels a byte each
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
    bne r18, r25, k_partial
    bne r4, zero, k_rows
k_partial:
    li r24, 1
k_rows:
    li r26, 0
    beq r24, zero, k_blocks         ; whole rows in blocks; partial ones one at a time, each read first
k_row:
    add r7, r15, r26                ; crossbar row
    xread r8, r14, r7
    add r1, r8, r16
    dma.gl r1, r19, r18
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
    jmp k_next
; Whole rows in blocks of up to r30 rows: each row's levels by a DMA of
; their own, one at a time (the mesh port of global memory, which every
; kernel's levels cross, is shared most evenly so: every kernel has one
; row in flight), then one xprogn for the block.
k_blocks:
    sub r1, r17, r26                ; rows of this block
    add r3, r30, zero
    bge r1, r30, k_block_rows
    add r3, r1, zero
k_block_rows:
    add r13, r8, zero
    add r6, r3, zero
k_fetch:
    dma.gl r13, r19, r4
    wait WAIT_DMA
    add r13, r13, r4
    add r19, r19, r4
    dbnz r6, k_fetch
    add r7, r15, r26                ; its first crossbar row
    ld r27, r28, BB_RETRIES
    xprogn r8, r14, r7, r3, r27
    xstat r1, pulses
    xstat r2, failed
    xstat r5, retries
    add r20, r20, r1
    add r21, r21, r2
    add r22, r22, r5
    add r23, r23, r3
    add r26, r26, r3
    blt r26, r17, k_blocks
k_next:
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
