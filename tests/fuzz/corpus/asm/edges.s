.core 0,0
 mvm r1, r2, 3, 0xFFFF, 8, 63, concat, 1
 vclamp r1,r2,r3,-32768,32767,i32
 rdsr r1, cycleh
 bar 255, 65535
 trap 0xffff
