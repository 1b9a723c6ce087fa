#include "ui/formats/bit_cells_widget.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <vector>

#include "ui/formats/format_text.h"

namespace ampscope::ui::formats {

namespace {

constexpr int kMaxCellWidth = 24;   // a cell never grows wider than this (FP8 would look bloated)
constexpr int kMinCellWidth = 11;   // the digit no longer fits below this
constexpr int kWrapBelowWidth = 15; // a line of cells narrower than this wraps onto two lines
constexpr int kCellHeight = 22;
constexpr int kFieldGap = 5;        // extra space between sign | exponent | mantissa
constexpr int kLineGap = 4;
constexpr int kMaxLines = 4;        // FP64 in a very narrow dock: 4 lines of 16 cells

}  // namespace

BitCellsWidget::BitCellsWidget(DType dtype, QWidget* parent) : QWidget(parent), m_dtype(dtype) {
  QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
  setMouseTracking(true);
  setCursor(Qt::PointingHandCursor);
  m_geometry = computeGeometry(width());
}

void BitCellsWidget::setBits(uint64_t bits) {
  const uint64_t masked = bits & bitMask(m_dtype);
  if (masked == m_bits) return;
  m_bits = masked;
  update();
}

QRect BitCellsWidget::cellRect(int bitIndex) const {
  if (bitIndex < 0 || bitIndex >= m_geometry.cells.size()) return {};
  return m_geometry.cells[bitIndex];
}

int BitCellsWidget::lineCount() const { return m_geometry.lines; }

int BitCellsWidget::widthFor(int bitsPerLine, int cellWidth) const {
  return bitsPerLine * cellWidth + 2 * kFieldGap + 2;
}

QSize BitCellsWidget::sizeHint() const {
  const int total = formatSpec(m_dtype).totalBits;
  const int cell = total > 32 ? 14 : 20;
  return {widthFor(total, cell), heightForWidth(widthFor(total, cell))};
}

QSize BitCellsWidget::minimumSizeHint() const {
  const int total = formatSpec(m_dtype).totalBits;
  const int perLine = (total + kMaxLines - 1) / kMaxLines;
  const int w = widthFor(perLine, kMinCellWidth);
  return {w, heightForWidth(w)};
}

int BitCellsWidget::heightForWidth(int width) const { return computeGeometry(width).height; }

BitCellsWidget::Geometry BitCellsWidget::computeGeometry(int width) const {
  const FormatSpec& spec = formatSpec(m_dtype);
  const int total = spec.totalBits;
  const int labelHeight = fontMetrics().height();

  // One line if the cells are still readable at this width; otherwise two (then four) lines.
  int perLine = total;
  int cell = std::min(kMaxCellWidth, (width - 2 * kFieldGap - 2) / std::max(1, total));
  for (int lines = 2; cell < kWrapBelowWidth && lines <= kMaxLines; lines *= 2) {
    perLine = (total + lines - 1) / lines;
    cell = std::clamp((width - 2 * kFieldGap - 2) / perLine, kMinCellWidth, kMaxCellWidth);
  }

  Geometry g;
  g.cells.resize(total);
  g.lines = (total + perLine - 1) / perLine;
  int x = 1;
  int line = 0;
  BitField previous = BitField::Sign;
  for (int position = 0; position < total; ++position) {  // position 0 = most significant bit
    const int bit = total - 1 - position;
    const BitField field = bitFieldOf(spec, bit);
    if (position > 0 && position % perLine == 0) {
      ++line;
      x = 1;
    } else if (position > 0 && field != previous) {
      x += kFieldGap;
    }
    const int y = labelHeight + line * (kCellHeight + kLineGap);
    g.cells[bit] = QRect(x, y, cell - 1, kCellHeight);
    x += cell;
    previous = field;
  }
  g.height = labelHeight + g.lines * kCellHeight + (g.lines - 1) * kLineGap + 2;
  return g;
}

void BitCellsWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  m_geometry = computeGeometry(width());
}

int BitCellsWidget::bitAt(const QPoint& pos) const {
  for (int bit = 0; bit < m_geometry.cells.size(); ++bit) {
    if (m_geometry.cells[bit].contains(pos)) return bit;
  }
  return -1;
}

void BitCellsWidget::paintEvent(QPaintEvent*) {
  const FormatSpec& spec = formatSpec(m_dtype);
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing, true);

  QFont digitFont = font();
  digitFont.setFamily(QStringLiteral("monospace"));
  digitFont.setStyleHint(QFont::Monospace);
  digitFont.setBold(true);
  const QRect anyCell = m_geometry.cells.isEmpty() ? QRect() : m_geometry.cells[0];
  digitFont.setPixelSize(std::clamp(anyCell.width() - 1, 9, 14));

  // Field labels above the first cell of each field (on the first line they start on).
  QFont labelFont = font();
  labelFont.setPointSizeF(labelFont.pointSizeF() * 0.85);
  painter.setFont(labelFont);
  painter.setPen(palette().color(QPalette::PlaceholderText));
  struct Label {
    int firstBit;
    int lastBit;
    QString text;
    QString shortText;  // when the field is too narrow for the full name
  };
  // E8M0 is all exponent: no sign cell, no mantissa cells.
  const int exponentTop = spec.hasSign ? spec.totalBits - 2 : spec.totalBits - 1;
  std::vector<Label> labels;
  if (spec.hasSign) labels.push_back({spec.totalBits - 1, spec.totalBits - 1, tr("s"), tr("s")});
  labels.push_back({exponentTop, spec.mantissaBits, tr("exponent (%1)").arg(spec.exponentBits),
                    tr("exp (%1)").arg(spec.exponentBits)});
  if (spec.mantissaBits > 0) {
    labels.push_back({spec.mantissaBits - 1, 0, tr("mantissa (%1)").arg(spec.mantissaBits),
                      tr("m (%1)").arg(spec.mantissaBits)});
  }
  const int labelHeight = fontMetrics().height();
  for (const Label& label : labels) {
    const QRect first = m_geometry.cells[label.firstBit];
    // The label spans the field's cells on the same line as its first cell.
    int right = first.right();
    for (int bit = label.firstBit; bit >= label.lastBit; --bit) {
      if (m_geometry.cells[bit].top() != first.top()) break;
      right = m_geometry.cells[bit].right();
    }
    const QRect area(first.left(), first.top() - labelHeight, right - first.left() + 1, labelHeight);
    const QString& full = painter.fontMetrics().horizontalAdvance(label.text) <= area.width() ? label.text
                                                                                              : label.shortText;
    const QString text = painter.fontMetrics().elidedText(full, Qt::ElideRight, area.width());
    painter.drawText(area, Qt::AlignLeft | Qt::AlignVCenter, text);
  }

  painter.setFont(digitFont);
  for (int bit = 0; bit < spec.totalBits; ++bit) {
    const bool set = (m_bits >> bit) & 1u;
    const BitField field = bitFieldOf(spec, bit);
    const QRectF cell = QRectF(m_geometry.cells[bit]).adjusted(0.5, 0.5, -0.5, -0.5);
    QColor fill = fieldColor(field, set);
    if (bit == m_hoverBit) fill = set ? fill.lighter(125) : fill.darker(112);
    painter.setPen(QPen(fieldColor(field, true).darker(set ? 130 : 100), 1));
    painter.setBrush(fill);
    painter.drawRoundedRect(cell, 3, 3);
    painter.setPen(fieldTextColor(set));
    painter.drawText(cell, Qt::AlignCenter, set ? QStringLiteral("1") : QStringLiteral("0"));
  }
}

void BitCellsWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  const int bit = bitAt(event->position().toPoint());
  if (bit >= 0) emit bitClicked(bit);
}

void BitCellsWidget::mouseMoveEvent(QMouseEvent* event) {
  const int bit = bitAt(event->position().toPoint());
  if (bit != m_hoverBit) {
    m_hoverBit = bit;
    update();
  }
  QWidget::mouseMoveEvent(event);
}

void BitCellsWidget::leaveEvent(QEvent* event) {
  m_hoverBit = -1;
  update();
  QWidget::leaveEvent(event);
}

bool BitCellsWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int bit = bitAt(help->pos());
    if (bit >= 0) {
      QToolTip::showText(help->globalPos(), cellToolTip(bit), this, m_geometry.cells[bit]);
    } else {
      QToolTip::hideText();
      event->ignore();
    }
    return true;
  }
  return QWidget::event(event);
}

QString BitCellsWidget::cellToolTip(int bitIndex) const {
  const FormatSpec& spec = formatSpec(m_dtype);
  QString what;
  switch (bitFieldOf(spec, bitIndex)) {
    case BitField::Sign:
      what = tr("<b>Sign bit</b>: 0 = positive, 1 = negative.");
      break;
    case BitField::Exponent:
      what = tr("<b>Exponent bit %1</b> (adds 2<sup>%1</sup> to the biased exponent field).<br>"
                "The value's power of two is field &minus; bias (%2); field 0 means zero or subnormal, "
                "all ones means infinity or NaN.")
                 .arg(bitIndex - spec.mantissaBits)
                 .arg(spec.bias);
      break;
    case BitField::Mantissa:
      what = tr("<b>Mantissa bit %1</b>: adds 2<sup>&minus;%2</sup> to the significand 1.m "
                "(or 0.m for a subnormal).")
                 .arg(bitIndex)
                 .arg(spec.mantissaBits - bitIndex);
      break;
  }
  return tr("%1<br>Bit %2 of %3. <i>Click to flip it.</i>").arg(what).arg(bitIndex).arg(spec.totalBits);
}

}  // namespace ampscope::ui::formats
