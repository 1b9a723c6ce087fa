#include "ui/common/wrapping_header_view.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QIcon>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionHeaderV2>
#include <QToolTip>
#include <QTextLayout>
#include <algorithm>
#include <cmath>

namespace ampscope::ui {

WrappingHeaderView::WrappingHeaderView(QWidget* parent) : QHeaderView(Qt::Horizontal, parent) {
  setDefaultAlignment(Qt::AlignCenter);
  setTextElideMode(Qt::ElideRight);
}

QString WrappingHeaderView::label(int logicalIndex) const {
  if (!model()) return {};
  return model()->headerData(logicalIndex, orientation(), Qt::DisplayRole).toString();
}

namespace {

// `text` laid out in lines of at most `width` pixels, broken where Unicode allows a line break (between
// words, and between CJK characters, which have no spaces between them).
struct Lines {
  QStringList texts;
  qreal widest = 0;  // the widest line's natural width: above `width` where a segment cannot break
};

Lines layOut(const QString& text, const QFont& font, qreal width) {
  Lines lines;
  QTextLayout layout(text, font);
  QTextOption option;
  option.setWrapMode(QTextOption::WordWrap);
  layout.setTextOption(option);
  layout.beginLayout();
  for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    line.setLineWidth(width);
    lines.texts << text.mid(line.textStart(), line.textLength()).trimmed();
    lines.widest = std::max(lines.widest, line.naturalTextWidth());
  }
  layout.endLayout();
  return lines;
}

}  // namespace

QStringList WrappingHeaderView::wrap(const QString& text, const QFont& font, int width) {
  if (text.isEmpty()) return {QString()};
  const Lines lines = layOut(text, font, width);
  // Rounded as QFontMetrics::horizontalAdvance rounds, so the two measures agree on what fits.
  if (qRound(lines.widest) > width) return {QFontMetrics(font).elidedText(text, Qt::ElideRight, width)};
  return lines.texts;
}

int WrappingHeaderView::textWidth(int logicalIndex, int sectionWidth) const {
  const int margin = style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, this);
  int width = sectionWidth - 2 * margin;
  if (model() && !model()->headerData(logicalIndex, orientation(), Qt::DecorationRole).value<QIcon>().isNull()) {
    width -= style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this) + margin;
  }
  return std::max(width, 1);
}

int WrappingHeaderView::narrowestWholeWidth(int logicalIndex) const {
  // Laid out one pixel wide, every line is a segment that cannot break: the widest is the least width.
  const qreal widest = layOut(label(logicalIndex), font(), 1).widest;
  constexpr int kWide = 1 << 16;  // wide enough that textWidth takes off only the margins and the icon
  return static_cast<int>(std::ceil(widest)) + (kWide - textWidth(logicalIndex, kWide));
}

QStringList WrappingHeaderView::displayedLines(int logicalIndex) const {
  return wrap(label(logicalIndex), font(), textWidth(logicalIndex, sectionSize(logicalIndex)));
}

// QHeaderView asks this again whenever a section is resized, so the header's height follows its columns.
QSize WrappingHeaderView::sectionSizeFromContents(int logicalIndex) const {
  QSize size = QHeaderView::sectionSizeFromContents(logicalIndex);
  const int margin = style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, this);
  const int lines = static_cast<int>(displayedLines(logicalIndex).size());
  size.setHeight(std::max(size.height(), lines * fontMetrics().lineSpacing() + 2 * margin));
  return size;
}

void WrappingHeaderView::paintSection(QPainter* painter, const QRect& rect, int logicalIndex) const {
  if (!rect.isValid()) return;
  QStyleOptionHeaderV2 option;
  initStyleOption(&option);
  initStyleOptionForIndex(&option, logicalIndex);
  option.rect = rect;
  const QStringList lines = displayedLines(logicalIndex);
  // The section's frame and background as the style draws them, without the label: it is drawn below.
  option.text.clear();
  const QIcon icon = option.icon;
  option.icon = QIcon();
  painter->save();
  style()->drawControl(QStyle::CE_Header, &option, painter, this);
  painter->restore();

  const int margin = style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, this);
  const int iconSize = icon.isNull() ? 0 : style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
  const QFontMetrics metrics = fontMetrics();
  int blockWidth = 0;
  for (const QString& line : lines) blockWidth = std::max(blockWidth, metrics.horizontalAdvance(line));
  const int total = blockWidth + (iconSize > 0 ? iconSize + margin : 0);
  const int left = rect.left() + std::max(margin, (rect.width() - total) / 2);
  const int textHeight = static_cast<int>(lines.size()) * metrics.lineSpacing();
  const int top = rect.top() + (rect.height() - textHeight) / 2;
  painter->save();
  painter->setClipRect(rect.adjusted(1, 1, -1, -1));
  if (iconSize > 0) {
    icon.paint(painter, QRect(left, rect.top() + (rect.height() - iconSize) / 2, iconSize, iconSize));
  }
  painter->setPen(option.palette.color(QPalette::ButtonText));
  const int textLeft = left + (iconSize > 0 ? iconSize + margin : 0);
  for (int i = 0; i < lines.size(); ++i) {
    painter->drawText(QRect(textLeft, top + i * metrics.lineSpacing(), blockWidth, metrics.lineSpacing()),
                      Qt::AlignHCenter | Qt::AlignVCenter, lines[i]);
  }
  painter->restore();
}

bool WrappingHeaderView::viewportEvent(QEvent* e) {
  if (e->type() == QEvent::ToolTip && model()) {
    // An elided label's full text, unless the model gives the section a tool tip of its own.
    const auto* help = static_cast<QHelpEvent*>(e);
    const int logical = logicalIndexAt(help->pos());
    if (logical >= 0 && model()->headerData(logical, orientation(), Qt::ToolTipRole).toString().isEmpty()) {
      const QStringList lines = displayedLines(logical);
      if (lines.size() == 1 && lines.front() != label(logical)) {
        QToolTip::showText(help->globalPos(), label(logical), this);
        return true;
      }
    }
  }
  return QHeaderView::viewportEvent(e);
}

}  // namespace ampscope::ui
