// Python literals for the text AmpScope generates for Python to read: the run.py of "Reproduce in
// PyTorch" and the header dict of an NPY file. Each one reads back (in Python) as the same value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ampscope {

// A float literal: numberText()'s shortest round trip, with ".0" where it would read as an int, and
// float('nan'), float('inf'), float('-inf') for the values Python has no literal for.
std::string pyFloat(double value);

// A single-quoted str literal: quotes and backslashes are escaped, control characters as \xNN.
std::string pyString(const std::string& text);

// The repr of a tuple of ints: () for none, (n,) for one, (a, b) otherwise.
std::string pyTuple(const std::vector<int64_t>& values);

}  // namespace ampscope
