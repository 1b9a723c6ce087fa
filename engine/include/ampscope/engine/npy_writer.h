// NumPy's NPY files, written here rather than by numpy: format version 1.0 as numpy documents it. The
// magic "\x93NUMPY", bytes 1 and 0, a little-endian uint16 header length, then an ASCII Python dict
// literal {'descr': '<f4', 'fortran_order': False, 'shape': (a, b), } padded with spaces and ended by
// '\n' so that the data starts at a multiple of 64 bytes, then the raw little-endian C-order data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ampscope {

// The complete NPY v1.0 preamble (magic, version, header length, padded header) for an array of dtype
// `descr` ("<f4" or "<i8") and `shape` (empty: a 0-d array). Its size is a multiple of 64. Throws
// std::invalid_argument when the header does not fit format 1.0.
std::string npyHeader(const std::string& descr, const std::vector<int64_t>& shape);

// Writes a float32 / int64 array. `values.size()` must equal the product of `shape`. Returns false and
// sets `error` (the path and the reason) when it cannot, including a write or close that fails; never
// throws for I/O problems.
bool writeNpyFloat32(const std::string& path, const std::vector<int64_t>& shape,
                     const std::vector<float>& values, std::string* error);
bool writeNpyInt64(const std::string& path, const std::vector<int64_t>& shape,
                   const std::vector<int64_t>& values, std::string* error);

}  // namespace ampscope
