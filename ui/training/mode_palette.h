// ModePalette: the one colour, marker and display name of each precision mode. Every plot, legend,
// table and status label takes its colours from here, so "the blue line" means the same mode everywhere.
// Colours are the Okabe-Ito set, distinguishable with the common colour-vision deficiencies.
#pragma once

#include <QColor>
#include <QIcon>
#include <QString>

#include "ampscope/engine/run_config.h"

namespace ampscope::ui {

class ModePalette {
 public:
  static QColor color(PrecisionMode mode);
  static QString name(PrecisionMode mode);   // "fp16-amp-scaled": the identifier the CLI uses
  static QString label(PrecisionMode mode);  // "FP16 AMP + GradScaler", translated
  static QIcon swatch(PrecisionMode mode);   // a small filled square for lists and menus
};

}  // namespace ampscope::ui
