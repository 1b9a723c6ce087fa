#include "ui/training/elided_legend_item.h"

#include <QFontMetrics>
#include <algorithm>

namespace ampscope::ui {

ElidedLegendItem::ElidedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable)
    : QCPPlottableLegendItem(legend, plottable) {}

QString ElidedLegendItem::fullName() const { return mPlottable ? mPlottable->name() : QString(); }

QString ElidedLegendItem::shownName() const {
  const QString name = fullName();
  const QString shortName = mPlottable ? mPlottable->property(kShortNameProperty).toString() : QString();
  if (maxTextWidth_ <= 0) return preferShort_ && !shortName.isEmpty() ? shortName : name;
  const QFontMetrics metrics(getFont());
  if (metrics.horizontalAdvance(name) <= maxTextWidth_ && !(preferShort_ && !shortName.isEmpty())) return name;
  if (shortName.isEmpty()) return metrics.elidedText(name, Qt::ElideRight, maxTextWidth_);
  // Mode identifiers share their starts ("fp16-amp-scaled", "fp16-amp"): keep both ends.
  return metrics.elidedText(shortName, Qt::ElideMiddle, maxTextWidth_);
}

int ElidedLegendItem::fullWidth() const {
  return chromeWidth() + QFontMetrics(getFont()).horizontalAdvance(fullName());
}

int ElidedLegendItem::shortWidth() const {
  const QString shortName = mPlottable ? mPlottable->property(kShortNameProperty).toString() : QString();
  if (shortName.isEmpty()) return fullWidth();
  return std::min(fullWidth(), chromeWidth() + QFontMetrics(getFont()).horizontalAdvance(shortName));
}

int ElidedLegendItem::chromeWidth() const {
  return mMargins.left() + mParentLegend->iconSize().width() + mParentLegend->iconTextPadding() + mMargins.right();
}

QSize ElidedLegendItem::minimumOuterSizeHint() const {
  const QFontMetrics fm(getFont());
  const QSize icon = mParentLegend->iconSize();
  const int textWidth = fm.horizontalAdvance(shownName());
  return QSize(icon.width() + mParentLegend->iconTextPadding() + textWidth + mMargins.left() + mMargins.right(),
               std::max(fm.height(), icon.height()) + mMargins.top() + mMargins.bottom());
}

void ElidedLegendItem::draw(QCPPainter* painter) {
  if (!mPlottable) return;
  const QSize iconSize = mParentLegend->iconSize();
  const QRect iconRect(mRect.topLeft(), iconSize);
  // The base entry draws the icon (the plottable's drawing of it is only open to the base) and the
  // whole name: clipped to the icon, only the icon and its border remain of it.
  painter->save();
  painter->setClipRect(iconRect.adjusted(-1, -1, 1, 1), Qt::IntersectClip);
  QCPPlottableLegendItem::draw(painter);
  painter->restore();
  painter->setFont(getFont());
  painter->setPen(QPen(getTextColor()));
  const int height = std::max(painter->fontMetrics().height(), iconSize.height());
  const int textLeft = mRect.x() + iconSize.width() + mParentLegend->iconTextPadding();
  painter->drawText(QRect(textLeft, mRect.y(), std::max(0, mRect.right() - textLeft + 1), height),
                    Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, shownName());
}

}  // namespace ampscope::ui
