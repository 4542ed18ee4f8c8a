.equ A, B
.equ B, A
.core 0,0
 li r1, A
