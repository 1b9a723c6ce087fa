#include "ui/formats/range_strip_widget.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "ui/formats/format_text.h"

namespace ampscope::ui::formats {

namespace {

constexpr int kLabelWidth = 96;     // format names on the left
constexpr int kVerdictWidth = 210;        // "✓ holds all typical gradients" on the right
constexpr int kNarrowVerdictWidth = 100;  // "✓ holds all" when the widget is narrow
constexpr int kNarrowBelow = 900;         // widths below this use the short verdicts
constexpr int kRowHeight = 34;
constexpr int kBarHeight = 18;
constexpr int kLegendLineHeight = 22;
constexpr int kAxisHeight = 50;

const QColor kSubnormalFill(0xf5, 0xb9, 0x5a);
const QColor kNormalFill(0x42, 0x85, 0xd4);
const QColor kBandFill(0x2e, 0x7d, 0x32, 40);
const QColor kBandEdge(0x2e, 0x7d, 0x32);
const QColor kMarker(0xc6, 0x28, 0x28);

// "2⁻¹⁶⁰" for whole exponents (Unicode superscripts), "2^-26.6" otherwise (there is no superscript point).
QString powerOfTwo(double exponent) {
  if (std::floor(exponent) != exponent) return QStringLiteral("2^%1").arg(QString::number(exponent, 'f', 1));
  static const QChar kSuperscriptDigits[] = {QChar(0x2070), QChar(0x00b9), QChar(0x00b2), QChar(0x00b3),
                                             QChar(0x2074), QChar(0x2075), QChar(0x2076), QChar(0x2077),
                                             QChar(0x2078), QChar(0x2079)};
  QString text = QStringLiteral("2");
  for (const QChar c : QString::number(static_cast<long long>(exponent))) {
    text += c == QLatin1Char('-') ? QChar(0x207b) : kSuperscriptDigits[c.digitValue()];
  }
  return text;
}

}  // namespace

RangeStripWidget::RangeStripWidget(QWidget* parent) : QWidget(parent) {
  QSizePolicy policy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
  setToolTip(tr("Each bar is one format on a log2 axis: pale orange the subnormal range (fewer significant "
                "bits), blue the normal range, the tick at the right end its max. The green band is where "
                "gradients of a typical network live; values left of a bar become zero."));
}

QSize RangeStripWidget::sizeHint() const {
  return {1000, heightForWidth(1000)};
}

QSize RangeStripWidget::minimumSizeHint() const {
  const int width = kLabelWidth + kNarrowVerdictWidth + 300;
  return {width, heightForWidth(width)};
}

int RangeStripWidget::heightForWidth(int width) const {
  const int rows = static_cast<int>(allDTypes().size());
  return legendLayout(width).height + rows * kRowHeight + kAxisHeight;
}

QString RangeStripWidget::legendText(int item) {
  switch (item) {
    case 0: return tr("subnormal range");
    case 1: return tr("normal range");
    case 2:
      return tr("typical gradients %1 … %2").arg(powerOfTwo(kGradientBandMinLog2), powerOfTwo(kGradientBandMaxLog2));
    default: return tr("current value");
  }
}

RangeStripWidget::LegendLayout RangeStripWidget::legendLayout(int width) const {
  // Items flow left to right from the plot's left edge and wrap when the width runs out.
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  const QFontMetrics metrics(small);
  LegendLayout layout;
  int x = kLabelWidth;
  int y = 4;
  for (int item = 0; item < kLegendItems; ++item) {
    const int itemWidth = 24 + metrics.horizontalAdvance(legendText(item)) + 22;
    if (x > kLabelWidth && x + itemWidth > width) {
      x = kLabelWidth;
      y += kLegendLineHeight;
    }
    layout.positions[item] = QPoint(x, y);
    x += itemWidth;
  }
  layout.height = y + kLegendLineHeight + 6;
  return layout;
}

RangeStripWidget::GradientVerdict RangeStripWidget::gradientVerdict(DType dtype) {
  // Values below half the smallest subnormal round to zero; the bar's left end is the subnormal itself.
  const double smallest = std::log2(finfo(dtype).smallestSubnormal);
  if (smallest <= kGradientBandMinLog2) return GradientVerdict::HoldsAll;
  if (smallest < kGradientBandMaxLog2) return GradientVerdict::LosesSmallest;
  return GradientVerdict::LosesAll;
}

void RangeStripWidget::setValue(double value) {
  m_value = value;
  update();
}

void RangeStripWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  const QPalette pal = palette();
  const QColor text = pal.color(QPalette::WindowText);
  const QColor faint = pal.color(QPalette::PlaceholderText);

  const bool narrow = width() < kNarrowBelow;
  const int verdictWidth = narrow ? kNarrowVerdictWidth : kVerdictWidth;
  const LegendLayout legend = legendLayout(width());
  const QRectF plot(kLabelWidth, legend.height, width() - kLabelWidth - verdictWidth - 8,
                    allDTypes().size() * kRowHeight);
  auto xOf = [&](double log2Value) {
    const double t = (log2Value - kAxisMinLog2) / (kAxisMaxLog2 - kAxisMinLog2);
    return plot.left() + std::clamp(t, 0.0, 1.0) * plot.width();
  };

  // Legend.
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  p.setFont(small);
  const QColor fills[kLegendItems] = {kSubnormalFill, kNormalFill, kBandFill, kMarker};
  const QColor edges[kLegendItems] = {kSubnormalFill.darker(130), kNormalFill.darker(130), kBandEdge, kMarker};
  for (int item = 0; item < kLegendItems; ++item) {
    const QPoint at = legend.positions[item];
    p.setPen(edges[item]);
    p.setBrush(fills[item]);
    p.drawRect(QRectF(at.x(), at.y() + 4, 18, 12));
    p.setPen(text);
    p.drawText(QRectF(at.x() + 24, at.y(), width() - at.x() - 24, 20), Qt::AlignVCenter | Qt::AlignLeft,
               legendText(item));
  }

  // Tick labels every 20 binades, or 40 when they would crowd each other.
  const int tickStep = plot.width() / ((kAxisMaxLog2 - kAxisMinLog2) / 20) >= 48 ? 20 : 40;

  // Grid lines at the ticks.
  p.setPen(QPen(pal.color(QPalette::Midlight), 1, Qt::DotLine));
  for (int e = -160; e <= 120; e += tickStep) p.drawLine(QPointF(xOf(e), plot.top()), QPointF(xOf(e), plot.bottom()));
  p.setPen(QPen(faint, 1, Qt::DashLine));
  p.drawLine(QPointF(xOf(0), plot.top()), QPointF(xOf(0), plot.bottom()));

  // The gradient band, under the bars so they stay readable.
  const QRectF band(xOf(kGradientBandMinLog2), plot.top() - 4, xOf(kGradientBandMaxLog2) - xOf(kGradientBandMinLog2),
                    plot.height() + 8);
  p.setPen(QPen(kBandEdge, 1, Qt::DashLine));
  p.setBrush(kBandFill);
  p.drawRect(band);

  // One bar per format.
  int row = 0;
  for (DType dtype : allDTypes()) {
    const FInfo info = finfo(dtype);
    const double top = plot.top() + row * kRowHeight + (kRowHeight - kBarHeight) / 2.0;
    const double subLo = std::log2(info.smallestSubnormal);
    const double normLo = std::log2(info.smallestNormal);
    const double hi = std::log2(info.max);

    p.setFont(font());
    p.setPen(text);
    p.drawText(QRectF(4, top - 4, kLabelWidth - 16, kBarHeight + 8), Qt::AlignVCenter | Qt::AlignRight,
               dtypeDisplayName(dtype));

    p.setPen(QPen(kSubnormalFill.darker(130), 1));
    p.setBrush(kSubnormalFill);
    p.drawRect(QRectF(xOf(subLo), top, xOf(normLo) - xOf(subLo), kBarHeight));
    p.setPen(QPen(kNormalFill.darker(130), 1));
    p.setBrush(kNormalFill);
    p.drawRect(QRectF(xOf(normLo), top, xOf(hi) - xOf(normLo), kBarHeight));

    // Clipped ends (FP64 reaches 2^-1074 .. 2^1024): an arrow and the true end.
    p.setFont(small);
    if (subLo < kAxisMinLog2) {
      QPainterPath arrow;
      arrow.moveTo(plot.left() - 7, top + kBarHeight / 2.0);
      arrow.lineTo(plot.left(), top);
      arrow.lineTo(plot.left(), top + kBarHeight);
      arrow.closeSubpath();
      p.setPen(Qt::NoPen);
      p.setBrush(kSubnormalFill.darker(130));
      p.drawPath(arrow);
      p.setPen(Qt::white);
      p.drawText(QRectF(plot.left() + 4, top, 120, kBarHeight), Qt::AlignVCenter | Qt::AlignLeft,
                 tr("… from %1").arg(powerOfTwo(subLo)));
    }
    if (hi > kAxisMaxLog2) {
      QPainterPath arrow;
      arrow.moveTo(plot.right() + 7, top + kBarHeight / 2.0);
      arrow.lineTo(plot.right(), top);
      arrow.lineTo(plot.right(), top + kBarHeight);
      arrow.closeSubpath();
      p.setPen(Qt::NoPen);
      p.setBrush(kNormalFill.darker(130));
      p.drawPath(arrow);
      p.setPen(Qt::white);
      p.drawText(QRectF(plot.right() - 124, top, 120, kBarHeight), Qt::AlignVCenter | Qt::AlignRight,
                 tr("max ≈ %1 …").arg(powerOfTwo(std::round(hi))));
    } else {
      // Max tick and its value: right of the bar, or inside its end when the axis ends first.
      p.setPen(QPen(text, 2));
      p.drawLine(QPointF(xOf(hi), top - 3), QPointF(xOf(hi), top + kBarHeight + 3));
      const QString maxText = tr("max %1").arg(QString::number(info.max, 'g', 5));
      const double w = p.fontMetrics().horizontalAdvance(maxText) + 8;
      if (xOf(hi) + w < plot.right() + 12) {
        p.setPen(text);
        p.drawText(QRectF(xOf(hi) + 4, top - 2, w, kBarHeight + 4), Qt::AlignVCenter | Qt::AlignLeft, maxText);
      } else {
        p.setPen(Qt::white);
        p.drawText(QRectF(xOf(hi) - w - 2, top, w, kBarHeight), Qt::AlignVCenter | Qt::AlignRight, maxText);
      }
    }

    // Verdict: does the format hold the gradient band without help?
    QString verdict;
    QColor verdictColor;
    switch (gradientVerdict(dtype)) {
      case GradientVerdict::HoldsAll:
        verdict = narrow ? tr("✓ holds all") : tr("✓ holds all typical gradients");
        verdictColor = QColor(kExactColor);
        break;
      case GradientVerdict::LosesSmallest:
        verdict = narrow ? tr("✗ < %1 → 0").arg(powerOfTwo(std::round(subLo)))
                         : tr("✗ below %1 → 0: loss scaling").arg(powerOfTwo(std::round(subLo)));
        verdictColor = QColor(kFlushedColor);
        break;
      case GradientVerdict::LosesAll:
        verdict = narrow ? tr("✗ all → 0") : tr("✗ gradients → 0: needs scaling");
        verdictColor = QColor(kFlushedColor);
        break;
    }
    p.setPen(verdictColor);
    p.drawText(QRectF(plot.right() + 16, top - 4, verdictWidth - 16, kBarHeight + 8),
               Qt::AlignVCenter | Qt::AlignLeft, verdict);
    ++row;
  }

  // Axis.
  const double axisY = plot.bottom() + 6;
  p.setPen(QPen(text, 1));
  p.drawLine(QPointF(plot.left(), axisY), QPointF(plot.right(), axisY));
  for (int e = -160; e <= 120; e += tickStep) {
    const double x = xOf(e);
    p.drawLine(QPointF(x, axisY), QPointF(x, axisY + 4));
    p.drawText(QRectF(x - 40, axisY + 5, 80, 16), Qt::AlignHCenter | Qt::AlignTop, powerOfTwo(e));
  }
  p.setPen(faint);
  p.drawText(QRectF(plot.left(), axisY + 5, plot.width(), 28), Qt::AlignRight | Qt::AlignBottom,
             tr("|value| on a log2 axis"));

  // Current value marker.
  if (std::isfinite(m_value) && m_value != 0) {
    const double e = std::log2(std::fabs(m_value));
    const double x = xOf(e);
    p.setPen(QPen(kMarker, 2));
    p.drawLine(QPointF(x, plot.top() - 6), QPointF(x, plot.bottom() + 6));
    const QString label = tr("|x| = %1 ≈ %2").arg(shortestText(std::fabs(m_value)), powerOfTwo(std::round(e * 10) / 10));
    const double w = p.fontMetrics().horizontalAdvance(label) + 8;
    const double labelX = std::clamp(x - w / 2, plot.left(), plot.right() - w);
    p.setBrush(pal.color(QPalette::Base));
    p.setPen(kMarker);
    p.drawRoundedRect(QRectF(labelX, axisY + 22, w, 16), 3, 3);
    p.drawText(QRectF(labelX, axisY + 22, w, 16), Qt::AlignCenter, label);
    if (e < kAxisMinLog2 || e > kAxisMaxLog2) {
      p.drawText(QRectF(x - 30, plot.bottom() - 16, 60, 14), Qt::AlignCenter, tr("off axis"));
    }
  }
}

}  // namespace ampscope::ui::formats
