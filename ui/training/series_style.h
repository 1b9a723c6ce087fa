// SeriesStyle: how a store series is named and drawn. Colour always follows the mode (ModePalette);
// the engine's run is drawn solid and named by its mode alone, each followed run gets a dash pattern of
// its own and names itself "<run label>: <mode label>", so a user's fp16 run and bf16 run read apart
// from each other and from the engine's lines.
#pragma once

#include <QPen>
#include <QString>

#include "ampscope/engine/telemetry_store.h"

namespace ampscope::ui {

class SeriesStyle {
 public:
  static QString label(const TelemetryStore& store, SeriesKey key);
  // The same with the mode's identifier ("fp16-amp-scaled") for the label: what a narrow legend shows
  // when the label does not fit, since "FP16 AMP + GradScaler" and "FP16 AMP, no scaler" elide alike.
  static QString shortLabel(const TelemetryStore& store, SeriesKey key);
  static Qt::PenStyle penStyle(int run);
  static QPen pen(SeriesKey key, double width);
};

}  // namespace ampscope::ui
