.input "x", 0, 63, "int8", 8, 8
.output "x", 0, 4, "int64"
.input noquote, 0, 4, "int8"
.output "z", 0, 4, "uint8", 0
