.xbar 0,0,0,0,0,2,2
 .byte 0,1
 .space 2, 3
.xbar 0,0,1,0,0,1,1
 .byte 9, 9
