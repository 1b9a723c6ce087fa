#include "ui/lessons/callout_item_delegate.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QStringList>
#include <QTextLayout>
#include <algorithm>

namespace ampscope::ui {

namespace {

constexpr int kVerticalPad = 3;
constexpr int kCompactPad = 1;  // a compact item: one line and its badge, close to its neighbours
constexpr int kHorizontalPad = 4;

// The text as it wraps at `width` (at word boundaries, anywhere in a word wider than the line), one
// string per drawn line.
QStringList wrapped(const QString& text, const QFont& font, int width) {
  QStringList lines;
  for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
    if (paragraph.isEmpty()) {
      lines << QString();
      continue;
    }
    QTextLayout layout(paragraph, font);
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
      line.setLineWidth(std::max(width, 1));
      lines << paragraph.mid(line.textStart(), line.textLength());
    }
    layout.endLayout();
  }
  return lines;
}

int textWidth(int itemWidth) { return std::max(itemWidth - 2 * kHorizontalPad, 1); }

bool hasState(const QModelIndex& index) { return !index.data(CalloutItemDelegate::kStateRole).toString().isEmpty(); }

}  // namespace

int CalloutItemDelegate::textLines(const QModelIndex& index, const QFont& font, int width) {
  return static_cast<int>(wrapped(index.data(kTextRole).toString(), font, textWidth(width)).size());
}

int CalloutItemDelegate::itemHeight(const QModelIndex& index, const QFont& font, int width, int maxLines) {
  int lines = textLines(index, font, width);
  if (maxLines > 0) lines = std::min(lines, maxLines);
  if (hasState(index)) ++lines;
  return lines * QFontMetrics(font).lineSpacing() + 2 * kVerticalPad;
}

int CalloutItemDelegate::compactHeight(const QFont& font) {
  return QFontMetrics(font).lineSpacing() + 2 * kCompactPad;
}

QSize CalloutItemDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
  // The list's width, not the option's: an item is as wide as the list and as tall as its lines there.
  const auto* view = qobject_cast<const QAbstractItemView*>(option.widget);
  const int width = view ? view->viewport()->width() : option.rect.width();
  return {width, compact_ ? compactHeight(option.font) : itemHeight(index, option.font, width, maxTextLines_)};
}

void CalloutItemDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const {
  QStyleOptionViewItem background = option;
  initStyleOption(&background, index);
  background.text.clear();
  background.icon = QIcon();
  background.features &= ~QStyleOptionViewItem::HasDecoration;
  const QWidget* widget = option.widget;
  QStyle* style = widget ? widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

  painter->save();
  const QFontMetrics metrics(option.font);
  const int line = metrics.lineSpacing();
  const int pad = compact_ ? kCompactPad : kVerticalPad;
  const QRect area = option.rect.adjusted(kHorizontalPad, pad, -kHorizontalPad, -pad);
  const bool selected = option.state & QStyle::State_Selected;
  const QPalette::ColorGroup group = option.state & QStyle::State_Enabled ? QPalette::Normal : QPalette::Disabled;
  painter->setPen(option.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
  painter->setFont(option.font);

  const QVariant color = index.data(Qt::DecorationRole);
  const QString badgeText = index.data(kBadgeRole).toString();
  if (compact_) {
    // The badge at the right end of the line, the text cut to what is left of it.
    int textRight = area.right();
    if (!badgeText.isEmpty()) {
      const int pad = metrics.horizontalAdvance(QLatin1Char(' '));
      const int width = metrics.horizontalAdvance(badgeText) + 2 * pad;
      const QRect badge(area.right() - width + 1, area.top(), width, line);
      painter->setRenderHint(QPainter::Antialiasing);
      painter->setBrush(color.canConvert<QColor>() ? color.value<QColor>() : option.palette.color(QPalette::Mid));
      painter->setPen(Qt::NoPen);
      painter->drawRoundedRect(badge, line / 4.0, line / 4.0);
      painter->setPen(Qt::white);
      painter->drawText(badge, Qt::AlignCenter, badgeText);
      painter->setPen(option.palette.color(group, selected ? QPalette::HighlightedText : QPalette::Text));
      textRight = badge.left() - pad;
    }
    const QString text = index.data(kTextRole).toString().simplified();
    painter->drawText(QRect(area.left(), area.top(), textRight - area.left(), line), Qt::AlignLeft | Qt::AlignVCenter,
                      metrics.elidedText(text, Qt::ElideRight, textRight - area.left()));
    painter->restore();
    return;
  }
  QStringList lines = wrapped(index.data(kTextRole).toString(), option.font, area.width());
  if (maxTextLines_ > 0 && lines.size() > maxTextLines_) {
    // The last line drawn ends with "…": what it and the cut lines hold, elided to the width.
    const QString rest = lines.mid(maxTextLines_ - 1).join(QString()).simplified();
    lines = lines.mid(0, maxTextLines_ - 1);
    lines << metrics.elidedText(rest, Qt::ElideRight, area.width());
  }
  int y = area.top();
  for (const QString& text : lines) {
    painter->drawText(QRect(area.left(), y, area.width(), line), Qt::AlignLeft | Qt::AlignVCenter, text);
    y += line;
  }
  const QString state = index.data(kStateRole).toString();
  if (!state.isEmpty()) {
    // The badge: the state's colour (the item's decoration) as a square a little smaller than the text.
    const int side = metrics.height() * 2 / 3;
    const int indent = metrics.horizontalAdvance(QLatin1Char(' ')) * 2;
    const QRect badge(area.left() + indent, y + (line - side) / 2, side, side);
    if (color.canConvert<QColor>()) {
      painter->setRenderHint(QPainter::Antialiasing);
      painter->setBrush(color.value<QColor>());
      painter->drawRoundedRect(badge, side / 4.0, side / 4.0);
    }
    const int left = badge.right() + 1 + indent / 2;
    painter->drawText(QRect(left, y, area.right() - left + 1, line), Qt::AlignLeft | Qt::AlignVCenter,
                      metrics.elidedText(state, Qt::ElideRight, area.right() - left + 1));
  }
  painter->restore();
}

}  // namespace ampscope::ui
