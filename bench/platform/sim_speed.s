; A long-running program for the simulation-speed benchmark: every CU of the
; small chip loops over a mix of scalar, vector and crossbar work, and passes
; a token around a ring of cores over the NoC every outer iteration.
;
; Each core: OUTER iterations of { INNER scalar/vector steps, one MVM, a
; send to the next core and a receive from the previous }.
.equ OUTER, 2000
.equ INNER, 40

.equ CORE_TEXT, 1
.core 0, 0
.include "sim_speed_core.inc"
.core 0, 1
.include "sim_speed_core.inc"
.core 1, 0
.include "sim_speed_core.inc"
.core 1, 1
.include "sim_speed_core.inc"
.core 2, 0
.include "sim_speed_core.inc"
.core 2, 1
.include "sim_speed_core.inc"
.core 3, 0
.include "sim_speed_core.inc"
.core 3, 1
.include "sim_speed_core.inc"
