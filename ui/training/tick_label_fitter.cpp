#include "ui/training/tick_label_fitter.h"

#include <QFontMetricsF>
#include <algorithm>
#include <qcustomplot.h>

namespace ampscope::ui {

namespace {

// Labels drawn with "beautiful powers" (1·10³) stand a little taller than the font's line.
constexpr double kVerticalLabelStretch = 1.2;
// Two requeued replots settle any layout move the fitting itself causes (labels switched off or on
// change the margins, which change the axis length once more).
constexpr int kMaxRequeues = 2;

bool horizontal(const QCPAxis* axis) { return axis->orientation() == Qt::Horizontal; }

double axisLength(const QCPAxis* axis) {
  const QRect r = axis->axisRect()->rect();
  return horizontal(axis) ? r.width() : r.height();
}

// The extent a label takes along its axis, and the least gap wanted between two neighbours.
double extentAlong(const QCPAxis* axis, const QFontMetricsF& fm, const QString& label) {
  if (horizontal(axis)) return fm.horizontalAdvance(label);
  return fm.height() * kVerticalLabelStretch;
}

double gapAlong(const QCPAxis* axis, const QFontMetricsF& fm) {
  return horizontal(axis) ? fm.horizontalAdvance(QLatin1Char('0')) : fm.height() * 0.25;
}

// True when labels centred on the pixels in `at` keep their gaps.
bool fits(const QCPAxis* axis, const QVector<double>& at, const QVector<QString>& labels) {
  const QFontMetricsF fm(axis->tickLabelFont());
  const double gap = gapAlong(axis, fm);
  struct Span {
    double lo, hi;
  };
  QVector<Span> spans;
  for (int i = 0; i < at.size() && i < labels.size(); ++i) {
    const double half = extentAlong(axis, fm, labels[i]) / 2;
    spans.push_back({at[i] - half, at[i] + half});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
  for (int i = 1; i < spans.size(); ++i)
    if (spans[i].lo < spans[i - 1].hi + gap) return false;
  return true;
}

}  // namespace

TickLabelFitter* TickLabelFitter::install(QCustomPlot* plot) {
  if (auto* existing = plot->findChild<TickLabelFitter*>(QString(), Qt::FindDirectChildrenOnly)) return existing;
  return new TickLabelFitter(plot);
}

TickLabelFitter::TickLabelFitter(QCustomPlot* plot) : QObject(plot), plot_(plot) {
  connect(plot, &QCustomPlot::beforeReplot, this, &TickLabelFitter::fit);
  connect(plot, &QCustomPlot::afterReplot, this, &TickLabelFitter::checkAfterReplot);
}

QList<QRectF> TickLabelFitter::tickLabelRects(const QCPAxis* axis) {
  QList<QRectF> rects;
  if (!axis || !axis->visible() || !axis->tickLabels()) return rects;
  const QFontMetricsF fm(axis->tickLabelFont());
  const QVector<double> ticks = axis->tickVector();
  const QVector<QString> labels = axis->tickVectorLabels();
  const QRect r = axis->axisRect()->rect();
  const double offset = axis->tickLabelPadding() + axis->tickLengthOut();
  for (int i = 0; i < ticks.size() && i < labels.size(); ++i) {
    const double p = axis->coordToPixel(ticks[i]);
    const double w = fm.horizontalAdvance(labels[i]);
    const double h = horizontal(axis) ? fm.height() : fm.height() * kVerticalLabelStretch;
    switch (axis->axisType()) {
      case QCPAxis::atBottom: rects << QRectF(p - w / 2, r.bottom() + offset, w, h); break;
      case QCPAxis::atTop: rects << QRectF(p - w / 2, r.top() - offset - h, w, h); break;
      case QCPAxis::atLeft: rects << QRectF(r.left() - offset - w, p - h / 2, w, h); break;
      case QCPAxis::atRight: rects << QRectF(r.right() + offset, p - h / 2, w, h); break;
    }
  }
  return rects;
}

void TickLabelFitter::fit() {
  for (QCPAxisRect* rect : plot_->axisRects())
    for (QCPAxis* axis : rect->axes()) fitAxis(axis);
}

void TickLabelFitter::fitAxis(QCPAxis* axis) {
  AxisState& state = axes_[axis];
  QCPAxisTicker* ticker = axis->ticker().data();
  if (!ticker || !axis->visible()) return;
  if (state.ticker != ticker) {  // a new ticker (log/linear switch): its own count is the wish
    state.ticker = ticker;
    state.preferredCount = std::max(1, ticker->tickCount());
  }
  if (!axis->tickLabels() && !state.hidLabels) return;  // the plot itself hides them
  state.lengthUsed = axisLength(axis);
  if (state.lengthUsed <= 1) return;  // not laid out yet
  const QString format = axis->numberFormat();
  const QChar formatChar = format.isEmpty() ? QLatin1Char('g') : format.at(0);
  for (int count = state.preferredCount; count >= 1; --count) {
    ticker->setTickCount(count);
    QVector<double> ticks;
    QVector<QString> labels;
    ticker->generate(axis->range(), plot_->locale(), formatChar, axis->numberPrecision(), ticks, nullptr, &labels);
    QVector<double> at;
    for (double t : ticks) at << axis->coordToPixel(t);
    if (fits(axis, at, labels)) {
      if (state.hidLabels) axis->setTickLabels(true);
      state.hidLabels = false;
      return;
    }
  }
  ticker->setTickCount(state.preferredCount);
  axis->setTickLabels(false);
  state.hidLabels = true;
}

void TickLabelFitter::checkAfterReplot() {
  bool moved = false;
  for (QCPAxisRect* rect : plot_->axisRects())
    for (QCPAxis* axis : rect->axes()) {
      auto it = axes_.find(axis);
      // Fitted against no layout at all (the first replot) or against a length the layout has since changed.
      if (it != axes_.end() && axisLength(axis) > 1 && std::abs(axisLength(axis) - it->lengthUsed) >= 1) moved = true;
    }
  if (moved && requeued_ < kMaxRequeues) {
    ++requeued_;
    plot_->replot(QCustomPlot::rpQueuedReplot);
  } else {
    requeued_ = 0;
  }
}

}  // namespace ampscope::ui
