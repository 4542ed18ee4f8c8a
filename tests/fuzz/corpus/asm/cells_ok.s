.xbar 0,0,0,0,0,2,2
 .byte 0,1
 .space 2, 3
.xbar 0,1,1,4,4,1,3
 .byte 3,2,1
