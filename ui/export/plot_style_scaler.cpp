#include "ui/export/plot_style_scaler.h"

#include <QFont>
#include <QList>
#include <QMetaProperty>
#include <QPen>
#include <QSize>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace ampscope::ui {

namespace {

QFont scaledFont(QFont font, double factor) {
  if (font.pointSizeF() > 0)
    font.setPointSizeF(font.pointSizeF() * factor);
  else if (font.pixelSize() > 0)
    font.setPixelSize(static_cast<int>(std::lround(font.pixelSize() * factor)));
  return font;
}

QPen scaledPen(QPen pen, double factor) {
  // Width 0 is Qt's cosmetic hairline, drawn one device pixel wide whatever the transform.
  pen.setWidthF((pen.widthF() > 0 ? pen.widthF() : 1.0) * factor);
  return pen;
}

}  // namespace

PlotStyleScaler::PlotStyleScaler(QCustomPlot* plot, double fontScale, double penScale) {
  if (!plot) return;
  QList<QCPLayerable*> layerables = plot->findChildren<QCPLayerable*>();
  // QCPLegend::setFont/setSelectedFont hand the font on to every legend item: legends go first, so the
  // items' own (scaled or restored) fonts are written after and win.
  std::stable_partition(layerables.begin(), layerables.end(),
                        [](QCPLayerable* l) { return qobject_cast<QCPLegend*>(l) != nullptr; });
  // Everything is read before anything is written, for the same reason.
  std::vector<QVariant> scaled;
  for (QCPLayerable* layerable : layerables) collect(layerable, fontScale, penScale, scaled);
  for (std::size_t i = 0; i < saved_.size(); ++i) saved_[i].object->setProperty(saved_[i].property.constData(), scaled[i]);
}

PlotStyleScaler::~PlotStyleScaler() { restore(); }

void PlotStyleScaler::collect(QObject* object, double fontScale, double penScale, std::vector<QVariant>& scaledValues) {
  const QMetaObject* meta = object->metaObject();
  const int scatterType = qMetaTypeId<QCPScatterStyle>();
  for (int i = 0; i < meta->propertyCount(); ++i) {
    const QMetaProperty property = meta->property(i);
    if (!property.isReadable() || !property.isWritable()) continue;
    const int type = property.userType();
    const QVariant value = property.read(object);
    QVariant scaled;
    if (type == QMetaType::QFont) {
      scaled = scaledFont(value.value<QFont>(), fontScale);
    } else if (type == QMetaType::QPen) {
      const QPen pen = value.value<QPen>();
      if (pen.style() == Qt::NoPen) continue;
      scaled = scaledPen(pen, penScale);
    } else if (type == scatterType) {
      QCPScatterStyle style = value.value<QCPScatterStyle>();
      if (style.isNone()) continue;
      style.setSize(style.size() * fontScale);
      if (style.isPenDefined()) style.setPen(scaledPen(style.pen(), penScale));
      scaled = QVariant::fromValue(style);
    } else if (type == QMetaType::QSize && qstrcmp(property.name(), "iconSize") == 0) {
      const QSize size = value.toSize();
      scaled = QSize(static_cast<int>(std::lround(size.width() * fontScale)),
                     static_cast<int>(std::lround(size.height() * fontScale)));
    } else {
      continue;
    }
    saved_.push_back({QPointer<QObject>(object), QByteArray(property.name()), value});
    scaledValues.push_back(scaled);
  }
}

void PlotStyleScaler::restore() {
  // Same order as scaling: legends, then their items.
  for (const Saved& s : saved_)
    if (s.object) s.object->setProperty(s.property.constData(), s.value);
  saved_.clear();
}

}  // namespace ampscope::ui
