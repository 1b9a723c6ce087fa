#include "ampscope/engine/npy_writer.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "ampscope/engine/python_literal.h"

namespace ampscope {
namespace {

// NPY v1.0 aligns the start of the data to 64 bytes (numpy >= 1.14 writes 64; readers accept any).
constexpr size_t kNpyAlignment = 64;
// A v1.0 header length is a uint16: larger headers need format 2.0, which no shape here comes near.
constexpr size_t kNpyMaxHeader = 65535;
// The magic and version bytes plus the two length bytes.
constexpr size_t kNpyPreamble = 10;

int64_t elementCount(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  return count;
}

std::string lastError() { return errno != 0 ? std::strerror(errno) : "unknown error"; }

template <typename T>
bool writeNpy(const std::string& path, const char* descr, const std::vector<int64_t>& shape,
              const std::vector<T>& values, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error) *error = path + ": " + why;
    return false;
  };
  for (int64_t d : shape) {
    if (d < 0) return fail("negative dimension in shape " + pyTuple(shape));
  }
  if (static_cast<int64_t>(values.size()) != elementCount(shape)) {
    return fail("shape " + pyTuple(shape) + " needs " + std::to_string(elementCount(shape)) +
                " values, got " + std::to_string(values.size()));
  }
  std::string header;
  try {
    header = npyHeader(descr, shape);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return fail("cannot open for writing: " + lastError());
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  // The data is little-endian ('<' in descr); x86-64 and aarch64 Linux are little-endian hosts.
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "float32 or int64");
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(T)));
  if (!out) return fail("write failed: " + lastError());
  // The last buffered bytes reach the file only here: a full disk shows up at close.
  out.close();
  if (!out) return fail("write failed when closing: " + lastError());
  return true;
}

}  // namespace

std::string npyHeader(const std::string& descr, const std::vector<int64_t>& shape) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + pyTuple(shape) + ", }";
  // Pad with spaces so that preamble + dict + '\n' is a multiple of 64.
  const size_t unpadded = kNpyPreamble + dict.size() + 1;
  const size_t padding = (kNpyAlignment - unpadded % kNpyAlignment) % kNpyAlignment;
  dict.append(padding, ' ');
  dict += '\n';
  if (dict.size() > kNpyMaxHeader) {
    throw std::invalid_argument("NPY header of " + std::to_string(dict.size()) +
                                " bytes does not fit format 1.0");
  }
  std::string out = "\x93NUMPY";
  out += static_cast<char>(1);                   // major version
  out += static_cast<char>(0);                   // minor version
  out += static_cast<char>(dict.size() & 0xff);  // header length, little-endian uint16
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  return out + dict;
}

bool writeNpyFloat32(const std::string& path, const std::vector<int64_t>& shape,
                     const std::vector<float>& values, std::string* error) {
  return writeNpy(path, "<f4", shape, values, error);
}

bool writeNpyInt64(const std::string& path, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& values, std::string* error) {
  return writeNpy(path, "<i8", shape, values, error);
}

}  // namespace ampscope
