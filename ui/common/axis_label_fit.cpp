#include "ui/common/axis_label_fit.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QVariant>
#include <algorithm>
#include <utility>

namespace ampscope::ui::AxisLabelFit {

namespace {
constexpr const char* kFull = "axisFullLabel";
constexpr const char* kShown = "axisShownLabel";
}  // namespace

QString fullLabel(const QCPAxis* axis) {
  // A title set after the last fit (by the program or the language switch) is the full one.
  const QVariant shown = axis->property(kShown);
  if (!shown.isValid() || axis->label() != shown.toString()) return axis->label();
  return axis->property(kFull).toString();
}

QString fitted(const QString& title, const QFont& font, int room) {
  const QFontMetrics metrics(font);
  if (metrics.horizontalAdvance(title) <= room) return title;
  QString shorter = title.trimmed();
  for (const auto& [open, close] : {std::pair{QChar(u'('), QChar(u')')}, std::pair{QChar(0xFF08), QChar(0xFF09)}}) {
    if (shorter.endsWith(close)) {
      const qsizetype start = shorter.lastIndexOf(open);
      if (start > 0) shorter = shorter.left(start).trimmed();
    }
  }
  const QString elided = metrics.elidedText(shorter, Qt::ElideRight, room);
  return elided.isEmpty() ? QString(QChar(0x2026)) : elided;
}

void fit(QCPAxis* axis, int room) {
  const QString full = fullLabel(axis);
  // Before its first layout an axis rect has no size: nothing to fit yet.
  if (full.isEmpty() || room < QFontMetrics(axis->labelFont()).height()) return;
  const QString shown = fitted(full, axis->labelFont(), room);
  // Runs before every replot: touch the axis only when something changed.
  if (axis->property(kFull).toString() != full) axis->setProperty(kFull, full);
  if (axis->property(kShown).toString() != shown) axis->setProperty(kShown, shown);
  if (axis->label() != shown) axis->setLabel(shown);
}

}  // namespace ampscope::ui::AxisLabelFit
