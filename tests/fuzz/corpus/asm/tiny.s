.core 0,0
x: jmp x
.entry x
