// <immintrin.h> for the files that call AVX-512 intrinsics. It also turns GCC's -Wmaybe-uninitialized and
// -Wuninitialized off for the rest of the including file: GCC 12 (Debian 12 ships 12.2) makes the
// "undefined" merge vectors its AVX-512 intrinsics pass and never use by self-initialisation (`__m512i __Y
// = __Y;`), and reports them as uninitialised wherever an intrinsic is inlined at -O3 (34 warnings in a
// clean build, all inside the header). A push and pop around the include alone does not silence them: GCC
// checks the state where the intrinsic is inlined, in the file's own functions. Clang does not warn there
// and gets no pragma.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#endif
