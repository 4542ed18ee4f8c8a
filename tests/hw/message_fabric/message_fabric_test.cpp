// The message fabric: a send reserves its route at the sender's cycle and
// leaves the data in the receiver's mailbox stamped with its arrival; a recv
// takes the oldest packet with the same source and tag, blocking until one
// is there; a barrier releases every participant sync.barrier_cycles after
// the last one arrives. Cycles from docs/noc.md (idle mesh:
// arrival = ready + 2P + h*H + S, the tail leaves the source at ready + S).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "../plain_chip.h"
#include "../sc_stimulus.h"
#include "vp/hw/chip/message_fabric.h"

namespace vp::hw {
namespace {

// 2x2 mesh, NoC at the core clock: H = 2, P = 1, S = 1 + ceil(B / 32).
noc::MeshNocConfig mesh() { return test::plain_mesh(4, 2); }
using test::flits;
constexpr uint64_t kBarrierCycles = 6;

// Participants 0..3 at clusters 0, 1, 3, 3; participant 4 (the control
// processor) on a port of its own at router 0.
struct Fabric {
  noc::MeshNoc noc{mesh()};
  MessageFabric fabric;
  Fabric() : fabric("fabric", noc, endpoints(noc), kBarrierCycles) {}
  static std::vector<noc::Endpoint> endpoints(noc::MeshNoc& n) {
    return {n.cluster_endpoint(0), n.cluster_endpoint(1), n.cluster_endpoint(3), n.cluster_endpoint(3),
            n.attach_device(0, "cp")};
  }
};

TEST(MessageFabric, RecvWaitsForTheSendAndReturnsItsArrival) {
  Fabric f;
  EXPECT_EQ(f.fabric.participants(), 5u);
  const std::vector<uint8_t> data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::vector<uint8_t> got(10, 0);
  uint64_t sent = 0, received = 0, woke = 0;
  CoreFault sf, rf;
  test::Script receiver("receiver", [&] {
    received = f.fabric.recv(2, 0, 7, got.data(), got.size(), 0, rf);
    woke = test::now();
  });
  test::Script sender("sender", [&] {
    test::wait_until(40);
    sent = f.fabric.send(0, 2, 7, data.data(), data.size(), 40, sf);
  });
  sc_core::sc_start();
  ASSERT_FALSE(sf.set) << sf.message;
  ASSERT_FALSE(rf.set) << rf.message;
  // 0 -> 3 is two hops on a 2x2 mesh.
  EXPECT_EQ(sent, 40 + flits(10));
  EXPECT_EQ(received, 40 + 2 * 1 + 2 * 2 + flits(10));
  EXPECT_EQ(woke, 40u);  // woken in the delta after the send, not at the arrival
  EXPECT_EQ(got, data);
  EXPECT_EQ(f.fabric.undelivered(), 0u);
}

TEST(MessageFabric, MatchesSourceAndTagOldestFirst) {
  Fabric f;
  std::vector<uint8_t> a(4, 0xA), b(4, 0xB), c(4, 0xC), got(4, 0);
  std::vector<std::vector<uint8_t>> order;
  std::vector<uint64_t> done;
  test::Script script("script", [&] {
    CoreFault x;
    f.fabric.send(0, 1, 5, a.data(), 4, 0, x);
    f.fabric.send(3, 1, 5, b.data(), 4, 0, x);  // other source
    f.fabric.send(0, 1, 6, c.data(), 4, 0, x);  // other tag
    test::wait_until(100);
    for (auto [src, tag] : {std::pair<uint32_t, uint32_t>{0, 6}, {3, 5}, {0, 5}}) {
      done.push_back(f.fabric.recv(1, src, tag, got.data(), 4, 100, x));
      order.push_back(got);
    }
    EXPECT_FALSE(x.set) << x.message;
  });
  sc_core::sc_start();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], c);
  EXPECT_EQ(order[1], b);
  EXPECT_EQ(order[2], a);
  // Everything had arrived by cycle 100: a recv completes when it is ready.
  EXPECT_EQ(done, (std::vector<uint64_t>{100, 100, 100}));
}

TEST(MessageFabric, FaultsOnMismatchedSizeAndUnknownParticipants) {
  Fabric f;
  std::vector<uint8_t> buf(16, 0);
  CoreFault size, dst, src;
  uint64_t size_ret = 0;
  test::Script script("script", [&] {
    CoreFault ok;
    f.fabric.send(0, 1, 1, buf.data(), 16, 0, ok);
    size_ret = f.fabric.recv(1, 0, 1, buf.data(), 8, 30, size);
    f.fabric.send(0, 5, 1, buf.data(), 16, 0, dst);
    f.fabric.recv(1, 9, 1, buf.data(), 16, 0, src);
  });
  sc_core::sc_start();
  EXPECT_TRUE(size.set);
  EXPECT_EQ(size_ret, 30u);
  EXPECT_NE(size.message.find("matched a packet of 16 bytes"), std::string::npos) << size.message;
  EXPECT_TRUE(dst.set);
  EXPECT_NE(dst.message.find("the chip has 4 cores"), std::string::npos) << dst.message;
  EXPECT_TRUE(src.set);
  EXPECT_EQ(f.fabric.undelivered(), 1u);  // the mismatched packet stays in the mailbox
}

TEST(MessageFabric, BarrierReleasesAfterTheLastArrival) {
  Fabric f;
  uint64_t release[3] = {};
  uint64_t woke[3] = {};
  uint64_t second = 0;
  const uint64_t arrive[3] = {5, 40, 17};
  std::vector<std::unique_ptr<test::Script>> cores;
  for (uint32_t i = 0; i < 3; ++i)
    cores.push_back(std::make_unique<test::Script>(("core" + std::to_string(i)).c_str(), [&, i] {
      test::wait_until(arrive[i]);
      CoreFault x;
      release[i] = f.fabric.barrier(i, 3, 3, arrive[i], x);
      woke[i] = test::now();
      if (i == 0) {
        // The barrier is reusable: a second round with a count of one
        // releases at once. (Callers synchronise to their cycle first, as a
        // core does, so the others have left the first round by then.)
        test::wait_until(60);
        second = f.fabric.barrier(i, 3, 1, 60, x);
      }
    }));
  sc_core::sc_start();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(release[i], 40 + kBarrierCycles) << i;
    EXPECT_EQ(woke[i], 40u) << i;  // released in simulated time at the last arrival
  }
  EXPECT_EQ(second, 60 + kBarrierCycles);
}

TEST(MessageFabric, BarrierCountsMustAgree) {
  Fabric f;
  CoreFault zero, mismatch, too_many;
  test::Script first("first", [&] {
    CoreFault x;
    f.fabric.barrier(0, 1, 2, 0, x);  // waits forever: nobody completes it
  });
  test::Script second("second", [&] {
    test::wait_until(1);
    f.fabric.barrier(1, 1, 3, 1, mismatch);
    f.fabric.barrier(1, 2, 0, 1, zero);
    f.fabric.barrier(1, 3, 6, 1, too_many);
  });
  sc_core::sc_start();
  EXPECT_TRUE(mismatch.set);
  EXPECT_NE(mismatch.message.find("while others wait for 2"), std::string::npos) << mismatch.message;
  EXPECT_TRUE(zero.set);
  EXPECT_TRUE(too_many.set);
}

}  // namespace
}  // namespace vp::hw
