// The Python templates of run.py, compiled in from resources/reproduce/ (cmake/embed_file.cmake turns
// each file into a generated source). Each is valid Python on its own; the placeholders are Python
// names, AMPSCOPE_<WHAT>, that script_generator.cpp replaces:
//   run.py          AMPSCOPE_CONFIG (the CONFIG dict literal), AMPSCOPE_MODEL (a model file's text)
//   mlp.py          AMPSCOPE_CLASS (TinyMLP or DeepMLP), AMPSCOPE_SIZES (the layer widths)
//   transformer.py  AMPSCOPE_ARGS (the TinyTransformer keyword arguments)
#pragma once

#include <string_view>

namespace ampscope::reproduce {

std::string_view runPyTemplate();
std::string_view mlpPyTemplate();
std::string_view transformerPyTemplate();

}  // namespace ampscope::reproduce
