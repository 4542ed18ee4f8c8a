// vp-run's --input/--output bound to the model's .input/.output declarations:
// files in declaration order, sizes checked against the binding, outputs
// written with the binding's dtype and shape; explicit FILE@ADDR still works.
#include <nlohmann/json.hpp>

#include "vp_run_fixture.h"

namespace {

using namespace vp_run_test;

// y = x + 1 over 16 int8, and z = x as 4 int32 words.
const char* kCopy = R"(.input "x", 0x40, 16, "int8", 16
.output "y", 0x100, 16, "int8", 4, 4
.output "z", 0x200, 16, "int32", 4
.core 0, 0
    li r1, 0
    li r2, 0x40
    li r3, 16
    dma.gl r1, r2, r3
    li r5, 1
    li r4, 0x80
    vadds r4, r1, r5, r3, i8
    li r6, 0x100
    dma.lg r6, r4, r3
    li r6, 0x200
    dma.lg r6, r1, r3
    halt
)";

std::string bytes16() {
  std::string x;
  for (int i = 0; i < 16; ++i) x.push_back(static_cast<char>(i * 3 - 20));
  return x;
}

TEST_F(VpRun, BoundInputAndOutputsFollowTheDeclarations) {
  const std::string prog = write("copy.s", kCopy);
  const std::string x = write("x.bin", bytes16());
  Result r = run("-q --chip small " + prog + " --input " + x + " --output " + path("y.npy") + " --output " +
                 path("z.bin"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string y = slurp(path("y.npy"));
  EXPECT_NE(y.find("'descr': '<i1'"), std::string::npos) << y;
  EXPECT_NE(y.find("'shape': (4, 4)"), std::string::npos) << y;
  std::string want;
  for (char c : bytes16()) want.push_back(static_cast<char>(c + 1));
  ASSERT_GE(y.size(), 16u);
  EXPECT_EQ(y.substr(y.size() - 16), want);
  EXPECT_EQ(slurp(path("z.bin")), bytes16());
}

TEST_F(VpRun, AnInputOfTheWrongSizeNamesFileAndBinding) {
  const std::string prog = write("copy.s", kCopy);
  const std::string x = write("x.bin", "short");
  Result r = run("-q --chip small " + prog + " --input " + x);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("x.bin holds 5 bytes, but input 'x' (16 bytes, int8 16) needs 16"), std::string::npos) << r.err;
}

TEST_F(VpRun, MoreBoundOutputsThanDeclaredIsAnError) {
  const std::string prog = write("copy.s", kCopy);
  Result r = run("-q --chip small " + prog + " --output a.bin --output b.bin --output c.bin");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--output c.bin: the model declares 2 outputs"), std::string::npos) << r.err;
}

TEST_F(VpRun, BindingAModelWithoutInputsAsksForAnAddress) {
  Result r = run("-q --chip small examples/tiled_mvm_noc.s --input examples/data/tiled_mvm.x.bin");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("the model declares no inputs (.input); give the address as FILE@ADDR"), std::string::npos)
      << r.err;
}

TEST_F(VpRun, ExplicitAddressesStillWorkBesideBindings) {
  const std::string prog = write("copy.s", kCopy);
  const std::string x = write("x.bin", bytes16());
  Result r = run("-q --chip small " + prog + " --input " + x + "@0x40 --output " + path("z.bin") + "@0x200:16");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(path("z.bin")), bytes16());
}

}  // namespace
