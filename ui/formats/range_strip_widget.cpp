#include "ui/formats/range_strip_widget.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "ui/formats/format_text.h"

namespace ampscope::ui::formats {

namespace {

constexpr int kLabelWidth = 96;     // format names on the left
constexpr int kVerdictWidth = 210;  // "gradients: ..." on the right
constexpr int kRowHeight = 34;
constexpr int kBarHeight = 18;
constexpr int kLegendHeight = 30;
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
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("Each bar is one format on a log2 axis: pale orange the subnormal range (fewer significant "
                "bits), blue the normal range, the tick at the right end its max. The green band is where "
                "gradients of a typical network live; values left of a bar become zero."));
}

QSize RangeStripWidget::sizeHint() const {
  const int rows = static_cast<int>(allDTypes().size());
  return {1000, kLegendHeight + rows * kRowHeight + kAxisHeight};
}

QSize RangeStripWidget::minimumSizeHint() const { return {kLabelWidth + kVerdictWidth + 360, sizeHint().height()}; }

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

  const QRectF plot(kLabelWidth, kLegendHeight, width() - kLabelWidth - kVerdictWidth - 8,
                    allDTypes().size() * kRowHeight);
  auto xOf = [&](double log2Value) {
    const double t = (log2Value - kAxisMinLog2) / (kAxisMaxLog2 - kAxisMinLog2);
    return plot.left() + std::clamp(t, 0.0, 1.0) * plot.width();
  };

  // Legend.
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  p.setFont(small);
  double lx = kLabelWidth;
  auto legendItem = [&](const QColor& fill, const QColor& edge, const QString& label) {
    p.setPen(edge);
    p.setBrush(fill);
    p.drawRect(QRectF(lx, 8, 18, 12));
    p.setPen(text);
    const double w = p.fontMetrics().horizontalAdvance(label);
    p.drawText(QRectF(lx + 24, 4, w + 4, 20), Qt::AlignVCenter | Qt::AlignLeft, label);
    lx += 24 + w + 22;
  };
  legendItem(kSubnormalFill, kSubnormalFill.darker(130), tr("subnormal range"));
  legendItem(kNormalFill, kNormalFill.darker(130), tr("normal range"));
  legendItem(kBandFill, kBandEdge, tr("typical gradients %1 … %2").arg(powerOfTwo(kGradientBandMinLog2), powerOfTwo(kGradientBandMaxLog2)));
  legendItem(kMarker, kMarker, tr("current value"));

  // Grid lines every 20 binades.
  p.setPen(QPen(pal.color(QPalette::Midlight), 1, Qt::DotLine));
  for (int e = -160; e <= 120; e += 20) p.drawLine(QPointF(xOf(e), plot.top()), QPointF(xOf(e), plot.bottom()));
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
        verdict = tr("✓ holds all typical gradients");
        verdictColor = QColor(kExactColor);
        break;
      case GradientVerdict::LosesSmallest:
        verdict = tr("✗ below %1 → 0: loss scaling").arg(powerOfTwo(std::round(subLo)));
        verdictColor = QColor(kFlushedColor);
        break;
      case GradientVerdict::LosesAll:
        verdict = tr("✗ gradients → 0: needs scaling");
        verdictColor = QColor(kFlushedColor);
        break;
    }
    p.setPen(verdictColor);
    p.drawText(QRectF(plot.right() + 16, top - 4, kVerdictWidth - 16, kBarHeight + 8),
               Qt::AlignVCenter | Qt::AlignLeft, verdict);
    ++row;
  }

  // Axis.
  const double axisY = plot.bottom() + 6;
  p.setPen(QPen(text, 1));
  p.drawLine(QPointF(plot.left(), axisY), QPointF(plot.right(), axisY));
  for (int e = -160; e <= 120; e += 20) {
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
