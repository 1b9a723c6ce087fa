// AmpScope's own version and licence (version.h), without LibTorch: the record and session headers
// name the app that wrote them.
#include "ampscope/engine/version.h"

namespace ampscope {

std::string ampscopeVersion() { return AMPSCOPE_VERSION; }

std::string licenseName() { return "GPL-3.0-or-later"; }

}  // namespace ampscope
