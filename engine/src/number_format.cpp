#include "ampscope/engine/number_format.h"
