// The VNNI dot products of the direct MVM path against the plain integer
// sum, including rewrites of rows after the row quads were built.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "vp/hw/crossbar/crossbar.h"
#include "vp/hw/crossbar/mvm_vnni.h"

namespace {

using vp::hw::Crossbar;

bool host_has_vnni() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
#else
  return false;
#endif
}

std::vector<std::int32_t> plain(const Crossbar& xb, const std::vector<std::int64_t>& x, int col0, int n) {
  std::vector<std::int32_t> y(static_cast<std::size_t>(n), 0);
  for (std::size_t r = 0; r < x.size(); ++r)
    for (int c = 0; c < n; ++c) y[static_cast<std::size_t>(c)] += static_cast<std::int32_t>(x[r] * xb.target(static_cast<int>(r), col0 + c));
  return y;
}

void program_random(Crossbar& xb, std::mt19937& rng, int row) {
  std::vector<std::uint8_t> t(static_cast<std::size_t>(xb.cols()));
  for (auto& v : t) v = static_cast<std::uint8_t>(rng() % static_cast<unsigned>(xb.max_level() + 1));
  xb.program_row_exact(row, 0, t.data(), xb.cols());
}

TEST(MvmVnni, EqualsThePlainIntegerSum) {
  if (!host_has_vnni()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  std::mt19937 rng(11);
  for (const int rows : {256, 130, 7}) {
    for (const int bits : {1, 2, 3, 7}) {
      // 600 columns: more than one pass of 256 columns (sixteen accumulators).
      const int cols = rows == 130 ? 600 : 256;
      Crossbar xb(rows, cols, bits);
      for (int r = 0; r < rows; ++r) program_random(xb, rng, r);
      for (int round = 0; round < 20; ++round) {
        const int n_inputs = 1 + static_cast<int>(rng() % static_cast<unsigned>(rows));
        const int col0 = static_cast<int>(rng() % 64);
        const int n = round == 0 ? cols - col0 : 1 + static_cast<int>(rng() % static_cast<unsigned>(cols - col0));
        std::vector<std::int64_t> x(static_cast<std::size_t>(n_inputs));
        const bool is_signed = round % 2 == 0;
        for (auto& v : x) {
          v = rng() % 3 == 0 ? 0 : is_signed ? static_cast<std::int64_t>(rng() % 256) - 128 : static_cast<std::int64_t>(rng() % 256);
        }
        std::vector<std::int32_t> got(static_cast<std::size_t>(n), -1);
        ASSERT_TRUE(vp::hw::mvm_direct_vnni(xb, x.data(), n_inputs, col0, n, got.data()));
        ASSERT_EQ(got, plain(xb, x, col0, n)) << rows << " rows, " << bits << " bits, round " << round;
        // Rewrite a few rows: the next product must see them, whether the
        // quads are kept up to date or dropped and rebuilt.
        for (int k = 0; k < 3; ++k) program_random(xb, rng, static_cast<int>(rng() % static_cast<unsigned>(rows)));
        if (round % 7 == 6) {
          xb.drop_target_quads();
          ASSERT_FALSE(xb.has_target_quads());
        }
      }
    }
  }
}

// The row quads are the targets' definition on every host (no VNNI needed):
// with cells wider than 2 bits column c of quad q holds rows 4q..4q+3;
// with 2-bit (and 1-bit) cells column c of block q holds rows 16q + 4k + b
// in bits 2k of byte b; zero past the last row, for widths that are and
// are not a multiple of the 16 columns done at once; a buffer handed on
// from another crossbar is rebuilt whole from the new targets.
TEST(MvmVnni, RowQuadsAreTheTargetsFourRowsAtATime) {
  std::mt19937 rng(5);
  for (const int bits : {1, 2, 3, 7})
  for (const int rows : {256, 10, 3, 17})
    for (const int cols : {256, 37, 16, 5}) {
      Crossbar a(rows, cols, bits), b(rows, cols, bits);
      for (int r = 0; r < rows; ++r) {
        program_random(a, rng, r);
        program_random(b, rng, r);
      }
      const int block = bits <= 2 ? 16 : 4;
      ASSERT_EQ(a.quad_rows(), block);
      auto check = [&](const Crossbar& xb, const char* what) {
        const std::uint8_t* q = xb.target_quads();
        for (int blk = 0; blk < (rows + block - 1) / block; ++blk)
          for (int c = 0; c < cols; ++c)
            for (int r = blk * block; r < (blk + 1) * block; ++r) {
              const std::uint8_t want = r < rows ? xb.target(r, c) : 0;
              const int off = r - blk * block;
              const std::uint8_t byte = q[(static_cast<std::size_t>(blk) * cols + c) * 4 + off % 4];
              const std::uint8_t got = block == 16 ? static_cast<std::uint8_t>((byte >> (2 * (off / 4))) & 3u) : byte;
              ASSERT_EQ(got, want) << what << ": " << bits << "-bit " << rows << "x" << cols << " row " << r << " col "
                                   << c;
            }
      };
      check(a, "built");
      b.adopt_target_quads(a);
      EXPECT_FALSE(a.has_target_quads());
      check(b, "adopted");
      program_random(b, rng, rows - 1);
      check(b, "after a rewrite");
    }
}

TEST(MvmVnni, DeclinesInputsWiderThanEightBits) {
  if (!host_has_vnni()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  Crossbar xb(8, 64, 2);
  std::vector<std::int32_t> y(64, 7);
  const std::vector<std::int64_t> wide = {1, 256, 0, 0};
  const std::vector<std::int64_t> mixed = {-1, 200, 0, 0};  // neither all unsigned nor all signed 8-bit
  EXPECT_FALSE(vp::hw::mvm_direct_vnni(xb, wide.data(), 4, 0, 64, y.data()));
  EXPECT_FALSE(vp::hw::mvm_direct_vnni(xb, mixed.data(), 4, 0, 64, y.data()));
  EXPECT_EQ(y, std::vector<std::int32_t>(64, 7));
  Crossbar eight(8, 64, 8);  // levels up to 255 cannot be the signed operand
  const std::vector<std::int64_t> u8 = {200, 1, 0, 0};
  EXPECT_FALSE(vp::hw::mvm_direct_vnni(eight, u8.data(), 4, 0, 64, y.data()));
}

}  // namespace
