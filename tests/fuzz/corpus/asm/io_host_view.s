; io bindings with a host view: scale, zero point, channels-last layout, host Softmax
.chip clusters=1, cus=1
.input "image", 0x0, 48, "int8", 1, 3, 4, 4, scale=0.0329884, zero_point=-2, layout=channels_last
.input "mask", 0x40, 4, "uint8", 4, scale=0.5, zero_point=128
.output "probs", 0x1000, 10, "int8", 1, 10, scale=0.00458585, host_softmax=1
.output "map", 0x2000, 24, "int16", 1, 2, 3, 2, scale=1e-3, layout=row_major
.output "raw", 0x3000, 16, "float32", 4
.core 0, 0
    halt
