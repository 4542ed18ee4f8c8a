.chip clusters=2, cus=4, xbars=8, rows=256, cols=256, cell_bits=2
.layer 5, "x\"y"
.core 1,3
 li r1, (1 << 4 | 3) * -2 % 7 ^ ~0 & 0xff
 li r2, '\n'
