; test program
.equ N, 16
.chip cell_bits=2
.layer 1, "conv1"
.cp
start:
    li r1, N*2 + 1
    li r2, 'A'
    jmp end
    cstart r1, r2
end: halt
.core 0, 1
.entry loop
    li r3, N
loop: addi r3, r3, -1
    dbnz r3, loop
    mvm r4, r5, 0, 0x3, 8, 32, sum, 0
    vadd r1, r2, r3, r4, i8
    halt
.data global, 0x1000
    .word 1, 2, 3, later
    .ascii "hi\n"
    .align 8
    .dword -1
.xbar 0, 1, 2, 0, 0, 2, 3
    .byte 0,1,2,3,0,1
.equ later, 99
