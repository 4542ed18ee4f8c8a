.data global, 0
 .byte 1,2
 .half 3
 .align 8
 .dword -1
 .ascii "a\x41"
 .asciz "z"
 .space 4, 0xaa
.data sram, 1, 0x40
 .word 5
.cp
.data local, 8
 .word 1
