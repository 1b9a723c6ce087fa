// NPY files byte for byte against numpy's documented format 1.0, numpy reading them back, and a write
// that fails (a full disk) reported as an error.
#include "ampscope/engine/npy_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/shell_commands.h"

namespace ampscope {
namespace {

namespace fs = std::filesystem;

using test::kPython;
using test::pythonHas;
using test::readFile;
using test::runCommand;

fs::path freshDir(const std::string& name) { return test::scratchDir("npy_" + name); }

// The bytes numpy's documented format 1.0 prescribes: magic \x93NUMPY, version 1.0, uint16 LE header
// length, the dict literal with keys in this order, space padding, '\n', total a multiple of 64.
std::string expectedHeader(const std::string& dict) {
  const size_t total = ((10 + dict.size() + 1 + 63) / 64) * 64;
  std::string header("\x93NUMPY\x01\x00", 8);
  const size_t length = total - 10;
  header += static_cast<char>(length & 0xff);
  header += static_cast<char>(length >> 8);
  header += dict;
  header.append(total - 10 - dict.size() - 1, ' ');
  return header + "\n";
}

TEST(NpyHeader, Float32MatrixIsNumpysFormat10Bytes) {
  const std::string header = npyHeader("<f4", {3, 4});
  // numpy 1.24's np.save of a (3, 4) float32 array writes exactly this 128-byte preamble.
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
  ASSERT_EQ(header.size(), 128u);
  EXPECT_EQ(header, expectedHeader(dict));
  EXPECT_EQ(static_cast<unsigned char>(header[0]), 0x93u);
  EXPECT_EQ(header.substr(1, 5), "NUMPY");
  EXPECT_EQ(header[6], 1);  // major
  EXPECT_EQ(header[7], 0);  // minor
  EXPECT_EQ(static_cast<unsigned char>(header[8]) | (static_cast<unsigned char>(header[9]) << 8), 118);
  EXPECT_EQ(header.back(), '\n');
}

TEST(NpyHeader, ShapeTuplesFollowPythonRepr) {
  // A 1-tuple needs its trailing comma, a 0-d array has the empty tuple.
  EXPECT_EQ(npyHeader("<i8", {5}),
            expectedHeader("{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }"));
  EXPECT_EQ(npyHeader("<f4", {}), expectedHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (), }"));
  EXPECT_EQ(npyHeader("<f4", {200, 32, 128}),
            expectedHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (200, 32, 128), }"));
}

TEST(NpyHeader, DataStartsAtAMultipleOf64ForEveryRank) {
  std::vector<int64_t> shape;
  for (int rank = 0; rank < 12; ++rank) {
    const std::string header = npyHeader("<f4", shape);
    EXPECT_EQ(header.size() % 64, 0u) << "rank " << rank;
    shape.push_back(1000000007LL * (rank + 1));
  }
}

TEST(NpyWriter, RejectsAValueCountThatDoesNotMatchTheShape) {
  const fs::path dir = freshDir("mismatch");
  std::string error;
  EXPECT_FALSE(writeNpyFloat32((dir / "a.npy").string(), {2, 3}, std::vector<float>(5), &error));
  EXPECT_NE(error.find("needs 6 values, got 5"), std::string::npos) << error;
}

TEST(NpyWriter, ReportsAnUnwritablePath) {
  std::string error;
  EXPECT_FALSE(writeNpyInt64("/nonexistent-dir/x/a.npy", {1}, {7}, &error));
  EXPECT_NE(error.find("/nonexistent-dir/x/a.npy"), std::string::npos) << error;
}

// /dev/full accepts open() and fails every write with ENOSPC: a small array fails when the buffered
// bytes are flushed at close, a large one while it is written. Both must come back as errors.
TEST(NpyWriter, ReportsAFullDiskAtWriteAndAtClose) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  std::string error;
  EXPECT_FALSE(writeNpyFloat32("/dev/full", {2}, {1.0f, 2.0f}, &error));
  EXPECT_NE(error.find("/dev/full: write failed"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(writeNpyInt64("/dev/full", {1 << 20}, std::vector<int64_t>(1 << 20, 3), &error));
  EXPECT_NE(error.find("/dev/full: write failed"), std::string::npos) << error;
}

TEST(NpyWriter, WritesHeaderThenLittleEndianData) {
  const fs::path dir = freshDir("bytes");
  std::string error;
  ASSERT_TRUE(writeNpyFloat32((dir / "a.npy").string(), {2}, {1.0f, -2.0f}, &error)) << error;
  const std::string bytes = readFile(dir / "a.npy");
  ASSERT_EQ(bytes.size(), 128u + 8u);
  // 1.0f = 0x3f800000 and -2.0f = 0xc0000000 (IEEE-754 binary32), stored little-endian.
  EXPECT_EQ(bytes.substr(128), std::string("\x00\x00\x80\x3f\x00\x00\x00\xc0", 8));
}

TEST(NpyRoundTrip, NumpyLoadsExactlyWhatWasWritten) {
  if (!pythonHas("numpy")) GTEST_SKIP() << kPython << " has no numpy (apt install python3-numpy)";
  const fs::path dir = freshDir("roundtrip");
  const float inf = std::numeric_limits<float>::infinity();
  // Special values: -0, the smallest subnormal 2^-149, the largest float, infinities, NaN.
  const std::vector<float> floats = {0.0f,
                                     -0.0f,
                                     1.0f,
                                     1e-8f,
                                     std::ldexp(1.0f, -149),
                                     std::numeric_limits<float>::max(),
                                     inf,
                                     -inf,
                                     std::numeric_limits<float>::quiet_NaN(),
                                     3.14159265f,
                                     -65504.0f,
                                     0.1f};
  const std::vector<int64_t> ints = {
      0, -1, 9, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(), 42};
  std::string error;
  ASSERT_TRUE(writeNpyFloat32((dir / "f.npy").string(), {3, 4}, floats, &error)) << error;
  ASSERT_TRUE(writeNpyInt64((dir / "i.npy").string(), {2, 1, 3}, ints, &error)) << error;
  ASSERT_TRUE(writeNpyFloat32((dir / "s.npy").string(), {}, {2.5f}, &error)) << error;

  // numpy prints each float's bit pattern so the comparison is exact, NaN and -0 included.
  const std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "f = np.load(d + '/f.npy'); i = np.load(d + '/i.npy'); s = np.load(d + '/s.npy')\n"
      "print(f.dtype, f.shape, i.dtype, i.shape, s.dtype, s.shape)\n"
      "print(' '.join('%08x' % v for v in f.view(np.uint32).ravel()))\n"
      "print(' '.join(str(v) for v in i.ravel()))\n"
      "print(float(s))\n";
  std::ofstream(dir / "check.py") << script;
  std::string output;
  ASSERT_EQ(
      runCommand("'" + kPython + "' '" + (dir / "check.py").string() + "' '" + dir.string() + "'", &output),
      0)
      << output;
  std::ostringstream expected;
  expected << "float32 (3, 4) int64 (2, 1, 3) float32 ()\n";
  for (size_t k = 0; k < floats.size(); ++k) {
    uint32_t bits;
    std::memcpy(&bits, &floats[k], 4);
    char hex[16];
    std::snprintf(hex, sizeof(hex), "%08x", bits);
    expected << (k ? " " : "") << hex;
  }
  expected << "\n";
  for (size_t k = 0; k < ints.size(); ++k) expected << (k ? " " : "") << ints[k];
  expected << "\n2.5\n";
  EXPECT_EQ(output, expected.str());
}

}  // namespace
}  // namespace ampscope
