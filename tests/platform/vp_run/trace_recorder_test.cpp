// The trace recorder formats on a second thread: every retired instruction
// becomes its line, in retirement order, across many hand-overs (more than
// the queue holds, so the simulation side waits for the formatter), and a
// failed write is reported by close().
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "vp/isa/isa.h"
#include "vp/platform/trace_recorder.h"
#include "vp/trace/reader.hpp"

namespace {

namespace fs = std::filesystem;
using vp::platform::TraceRecorder;

TEST(TraceRecorder, EveryLineInRetirementOrderAcrossManyBatches) {
  const fs::path dir = fs::temp_directory_path() / ("vp_trace_recorder_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string file = (dir / "t.trace").string();
  const int64_t n = 100003;  // 24 batches of 4,096 and a part, over three times the queue
  {
    TraceRecorder rec(file, {{3, "conv3"}});
    rec.open();
    vp::isa::Instruction in;
    in.opcode = vp::isa::Opcode::ADDI;
    const vp::isa::InstrInfo* info = vp::isa::find(in.opcode);
    ASSERT_NE(info, nullptr);
    vp::hw::CoreIdentity cu;
    cu.cluster = 1;
    cu.cu = 2;
    vp::hw::CoreIdentity cp;  // the control processor
    for (int64_t i = 0; i < n; ++i) {
      in.operand = {i % 32, (i + 1) % 32, i - 50000, 0, 0, 0, 0, 0};
      const vp::hw::RetireEvent ev{&in, info, static_cast<uint32_t>(i % 1000), static_cast<uint64_t>(2 * i),
                                   static_cast<uint64_t>(2 * i + 1), i % 7 == 0 ? 3 : (i % 7 == 1 ? 5 : -1)};
      rec.retire(i % 5 == 0 ? cp : cu, ev);
      in.operand = {};  // the recorder keeps its own copy
    }
    EXPECT_EQ(rec.records(), static_cast<uint64_t>(n));
    rec.close();
  }
  vp::trace::ReaderOptions opt;
  opt.strict = true;
  vp::trace::TraceReader reader(file, opt);
  vp::trace::TraceRecord r;
  int64_t i = 0;
  while (reader.next(r)) {
    ASSERT_EQ(r.inst_idx, i + 1);
    ASSERT_EQ(r.mnemonic, "addi");
    ASSERT_EQ(r.pc, i % 1000);
    ASSERT_EQ(r.start, 2 * i);
    ASSERT_EQ(r.end, 2 * i + 1);
    ASSERT_EQ(r.cluster, i % 5 == 0 ? -1 : 1);
    ASSERT_EQ(r.layer_id, i % 7 == 0 ? 3 : (i % 7 == 1 ? 5 : -1));
    if (i % 7 == 0) {
      ASSERT_EQ(r.layer_name, "conv3");
    } else if (i % 7 == 1) {
      ASSERT_EQ(r.layer_name, "layer5");
    }
    ++i;
  }
  EXPECT_EQ(i, n);
  fs::remove_all(dir);
}

TEST(TraceRecorder, AFailedWriteIsReportedByClose) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TraceRecorder rec("/dev/full", {});
  rec.open();
  vp::isa::Instruction in;
  in.opcode = vp::isa::Opcode::NOP;
  const vp::hw::RetireEvent ev{&in, vp::isa::find(in.opcode), 0, 0, 1, -1};
  vp::hw::CoreIdentity cp;
  // Enough lines to fill the writer's buffer, so writes fail while the
  // simulation side is still handing batches over; whichever call sees it
  // first reports it.
  bool reported = false;
  try {
    for (int i = 0; i < 200000; ++i) rec.retire(cp, ev);
    rec.close();
  } catch (const std::runtime_error& e) {
    reported = std::string(e.what()).find("/dev/full") != std::string::npos;
  }
  EXPECT_TRUE(reported);
}

}  // namespace
