; io bindings: inputs and outputs with and without shapes
.chip clusters=1, cus=1
.input "x", 0x0, 64, "int8", 1, 64
.input "scale", 0x40, 4, "float32"
.output "y", 0x1000, 40, "int32", 10
.output "y16", 0x2000, 12, "int16", 2, 3
.core 0, 0
    li r1, 0
    halt
