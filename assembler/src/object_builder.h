// The end of a run: the program, with its fix-ups applied, becomes a
// vp::obj::Object.
#pragma once

#include "diagnostics.h"
#include "program.h"
#include "symbols.h"
#include "vp/obj/object.h"

namespace vp::as::detail {

// The chip the program needs: the larger of what .chip declares and what
// the program uses (cores, SRAM clusters, crossbars, cell rectangles).
// Declaring less than is used is an error.
vp::obj::ChipRequirements chip_requirements(const Program& program, Diagnostics& diag);

// Moves texts, labels (as symbols), data segments, cell programs and
// metadata into `o`; the program's buffers become the object's backing.
void build_object(Program& program, const Symbols& symbols, vp::obj::Object& o);

}  // namespace vp::as::detail
