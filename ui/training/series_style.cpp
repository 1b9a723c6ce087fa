#include "ui/training/series_style.h"

#include <QCoreApplication>
#include <array>

#include "ui/training/mode_palette.h"

namespace ampscope::ui {

QString SeriesStyle::label(const TelemetryStore& store, SeriesKey key) {
  if (key.run == kEngineRun) return ModePalette::label(key.mode);
  return QCoreApplication::translate("SeriesStyle", "%1: %2")
      .arg(QString::fromStdString(store.runLabel(key.run)), ModePalette::label(key.mode));
}

QString SeriesStyle::shortLabel(const TelemetryStore& store, SeriesKey key) {
  if (key.run == kEngineRun) return ModePalette::name(key.mode);
  return QCoreApplication::translate("SeriesStyle", "%1: %2")
      .arg(QString::fromStdString(store.runLabel(key.run)), ModePalette::name(key.mode));
}

Qt::PenStyle SeriesStyle::penStyle(int run) {
  static constexpr std::array<Qt::PenStyle, 4> kFollowed{Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                                          Qt::DashDotDotLine};
  if (run <= kEngineRun) return Qt::SolidLine;
  return kFollowed[static_cast<std::size_t>(run - 1) % kFollowed.size()];
}

QPen SeriesStyle::pen(SeriesKey key, double width) {
  QPen pen(ModePalette::color(key.mode), width);
  pen.setStyle(penStyle(key.run));
  return pen;
}

}  // namespace ampscope::ui
