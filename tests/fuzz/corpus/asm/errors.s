    add r1, r2, r3
.core 0, 0
    ad r1, r2, r3
    add r1, r2
    add r1, x5, r3
    send r1, r2, r3, 300
    jmp nowhere
dup: nop
dup: nop
.include "missing.s"
.data global, 0
    .incbin "nofile.bin"
    nop
.text
    .byte 1
.xbar 0,0,0,0,0,2,2
    .byte 1,2,3
.text
    vadd r1, r2, r3, r4, i9
    li r1, (3 +
    li r1, 1/0
.frob
    li r1, 0x1_0000_0000_0
