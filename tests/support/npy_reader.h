// Reads NumPy NPY files of float32 in C order ('<f4', fortran_order False), format versions 1.0 and
// 2.0 as numpy documents them: the magic "\x93NUMPY", the major and minor version bytes, the header
// length (uint16 little-endian in 1.0, uint32 in 2.0), an ASCII Python dict literal, then the raw data.
// For tests that read arrays a Python script wrote; anything else is refused with the reason.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ampscope::testing {

struct NpyFloat32 {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

namespace npy_detail {

// The text after `'key':` in the header dict, blanks skipped; empty when the key is absent.
inline std::string valueAfter(const std::string& header, const std::string& key) {
  const std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return {};
  std::size_t colon = header.find(':', at);
  if (colon == std::string::npos) return {};
  ++colon;
  while (colon < header.size() && header[colon] == ' ') ++colon;
  return header.substr(colon);
}

}  // namespace npy_detail

// Returns false with `error` set when the file cannot be read or is not a C-order '<f4' array.
inline bool readNpyFloat32(const std::string& path, NpyFloat32& out, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    return false;
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return fail("not an NPY file");
  const int major = static_cast<unsigned char>(bytes[6]);
  std::size_t headerLength = 0;
  std::size_t dataStart = 0;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) | (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    dataStart = 10 + headerLength;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail("truncated header");
    for (int i = 3; i >= 0; --i) headerLength = (headerLength << 8) | static_cast<unsigned char>(bytes[8 + i]);
    dataStart = 12 + headerLength;
  } else {
    return fail("NPY version " + std::to_string(major) + " is not supported");
  }
  if (dataStart > bytes.size()) return fail("truncated header");
  const std::string header = bytes.substr(dataStart - headerLength, headerLength);
  if (npy_detail::valueAfter(header, "descr").rfind("'<f4'", 0) != 0) return fail("dtype is not '<f4'");
  if (npy_detail::valueAfter(header, "fortran_order").rfind("False", 0) != 0) return fail("not C order");
  const std::string shapeText = npy_detail::valueAfter(header, "shape");
  if (shapeText.empty() || shapeText[0] != '(') return fail("no shape");
  out.shape.clear();
  int64_t count = 1;
  std::size_t i = 1;
  while (i < shapeText.size() && shapeText[i] != ')') {
    if (shapeText[i] >= '0' && shapeText[i] <= '9') {
      int64_t dimension = 0;
      while (i < shapeText.size() && shapeText[i] >= '0' && shapeText[i] <= '9') {
        dimension = dimension * 10 + (shapeText[i] - '0');
        if (dimension > (int64_t{1} << 40)) return fail("shape too large");
        ++i;
      }
      out.shape.push_back(dimension);
      count *= dimension;
      if (count > (int64_t{1} << 34)) return fail("shape too large");
    } else {
      ++i;
    }
  }
  if (bytes.size() - dataStart != static_cast<std::size_t>(count) * 4) {
    return fail("expected " + std::to_string(count * 4) + " data bytes, found " +
                std::to_string(bytes.size() - dataStart));
  }
  out.values.resize(static_cast<std::size_t>(count));
  // Little-endian float32 on a little-endian host (x86-64, AArch64): the bytes are the values.
  if (count > 0) std::memcpy(out.values.data(), bytes.data() + dataStart, static_cast<std::size_t>(count) * 4);
  return true;
}

}  // namespace ampscope::testing
