// When each image of a stream has its result. A program compiled with
// vp-cc --batch N takes N images per firmware start; each output binding
// holds N slots of one image's bytes, and the program's last layers write
// image i's slot as they finish it. Global memory marks the writes into
// the bindings (SharedMemory::watch_writes); from those marks, per start
// and per image, the cycle its whole result was in memory, and from the
// gaps between images the period the stream sustains once it is full.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "vp/hw/memory/shared_memory.h"

namespace vp::platform {

struct OutputSlots {
  uint64_t addr = 0;         // the binding's first byte
  uint64_t image_bytes = 0;  // one image's slot
};

// Per start (its (start, end) cycles, in order), per image: the cycle,
// counted from the start, of the last write into any of the image's slots
// that landed within the start; 0 for an image nothing was written for.
std::vector<std::vector<uint64_t>> image_done_cycles(const std::vector<hw::SharedMemory::WriteMark>& marks,
                                                     const std::vector<OutputSlots>& outputs, uint32_t images,
                                                     const std::vector<std::pair<uint64_t, uint64_t>>& starts);

// The steady period: the cycles per image over the middle half of each
// start's images (from image n/4's result to image 3n/4's: past the
// pipeline's filling, before its draining), averaged over the starts. 0
// for streams of fewer than 4 images, or when an image there has no
// result or one before the image ahead of it.
double steady_period(const std::vector<std::vector<uint64_t>>& done);

}  // namespace vp::platform
