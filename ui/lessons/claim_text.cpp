#include "ui/lessons/claim_text.h"

#include <QStringList>
#include <cmath>

namespace ampscope::ui {

namespace {

QString modeText(const std::optional<PrecisionMode>& mode) {
  return mode ? QString::fromStdString(modeName(*mode)) : QString();
}

// What the atom measures, about `mode` (and `over`, `tensor` where it has them).
QString subject(const ClaimSpec& a, const QString& mode) {
  const QString over = modeText(a.over);
  const QString tensor = a.tensor == kClaimTensorsBackward  ? ClaimText::tr("the gradients")
                         : a.tensor == kClaimTensorsForward ? ClaimText::tr("the forward operands")
                                                            : QString::fromStdString(a.tensor);
  switch (a.measure) {
    case ClaimMeasure::Steps: return ClaimText::tr("%1 steps recorded").arg(mode);
    case ClaimMeasure::Loss:
      if (a.window == 1) return ClaimText::tr("%1 loss").arg(mode);
      return ClaimText::tr("%1 loss, mean of the last %2 steps").arg(mode).arg(a.window);
    case ClaimMeasure::LossGap: return ClaimText::tr("%1 loss above %2's").arg(mode, over);
    case ClaimMeasure::LossDrop: return ClaimText::tr("%1 loss fell by").arg(mode);
    case ClaimMeasure::DropRatio: return ClaimText::tr("%1 fell as far as %2, by").arg(mode, over);
    case ClaimMeasure::LossScale: return ClaimText::tr("%1 loss scale").arg(mode);
    case ClaimMeasure::SkippedSteps: return ClaimText::tr("%1 skipped steps").arg(mode);
    case ClaimMeasure::ScaleRegrowths: return ClaimText::tr("%1 scale grew again after a backoff").arg(mode);
    case ClaimMeasure::ClipNormSeen: return ClaimText::tr("%1 norm the clip saw").arg(mode);
    case ClaimMeasure::GradNormBeforeClip: return ClaimText::tr("%1 true gradient norm").arg(mode);
    case ClaimMeasure::GradNormAfterClip: return ClaimText::tr("%1 gradient norm after clipping").arg(mode);
    case ClaimMeasure::ClipNormRatio: return ClaimText::tr("%1 norm the clip saw / true norm").arg(mode);
    case ClaimMeasure::PeakBytes: return ClaimText::tr("%1 peak bytes of a step").arg(mode);
    case ClaimMeasure::PeakRatio: return ClaimText::tr("%1 peak / %2's peak").arg(mode, over);
    case ClaimMeasure::FlushedToZero: return ClaimText::tr("%1 values flushed to zero").arg(mode);
    case ClaimMeasure::ZeroGradientShare: return ClaimText::tr("%1 gradient values exactly 0").arg(mode);
    case ClaimMeasure::SaturatedShare: return ClaimText::tr("%1 share of %2 saturated").arg(mode, tensor);
    case ClaimMeasure::FlushedShare: return ClaimText::tr("%1 share of %2 flushed to 0").arg(mode, tensor);
    case ClaimMeasure::ScaleLog2: return ClaimText::tr("%1 log2 of %2's scale").arg(mode, tensor);
    case ClaimMeasure::BlockScaleSpan: return ClaimText::tr("%1 block-scale span of %2, binades").arg(mode, tensor);
  }
  return mode;
}

}  // namespace

QString ClaimText::status(const ClaimState& state) {
  switch (state.status) {
    case ClaimStatus::Waiting: return tr("waiting");
    case ClaimStatus::Holds: return tr("holds since step %1").arg(state.since);
    case ClaimStatus::HeldBefore: return tr("held from step %1 to %2, not now").arg(state.since).arg(state.until);
    case ClaimStatus::Fails: return tr("does not hold");
  }
  return QString();
}

QString ClaimText::value(ClaimMeasure measure, double v) {
  if (claimMeasureIsShare(measure)) {
    // Three significant digits, but never an exponent: a loss 40 times another's is "4063 %".
    const double percent = 100 * v;
    return QStringLiteral("%1 %").arg(std::fabs(percent) >= 1000 ? QString::number(percent, 'f', 0)
                                                                : QString::number(percent, 'g', 3));
  }
  if (std::isfinite(v) && v == std::round(v) && std::fabs(v) < 1e15) return QString::number(v, 'f', 0);
  return QString::number(v, 'g', 4);
}

QString ClaimText::bounds(const ClaimSpec& a) {
  // As written in the lesson file: a share's bound 0.2 is "20 %".
  auto number = [&a](double v) {
    return claimMeasureIsShare(a.measure) ? QStringLiteral("%1 %").arg(QString::number(100 * v, 'g', 6))
                                          : QString::number(v, 'g', 6);
  };
  const ClaimBounds& b = a.bounds;
  QStringList parts;
  if (b.atLeast && b.atMost) {
    if (*b.atLeast == *b.atMost) return QStringLiteral("= %1").arg(number(*b.atLeast));
    return tr("between %1 and %2").arg(number(*b.atLeast), number(*b.atMost));
  }
  if (b.atLeast) parts << QStringLiteral("≥ %1").arg(number(*b.atLeast));
  if (b.above) parts << QStringLiteral("> %1").arg(number(*b.above));
  if (b.atMost) parts << QStringLiteral("≤ %1").arg(number(*b.atMost));
  if (b.below) parts << QStringLiteral("< %1").arg(number(*b.below));
  return parts.join(tr(" and "));
}

QString ClaimText::reading(const ClaimReading& r) {
  const ClaimSpec& a = *r.atom;
  const QString mode = a.mode ? modeText(a.mode) : tr("every mode (%1)").arg(r.mode ? modeText(r.mode) : QStringLiteral("…"));
  QString when;
  if (a.fromStep > 0) {
    when = a.fromStep == a.toStep ? tr(" at step %1").arg(a.fromStep)
                                  : tr(" at steps %1–%2").arg(a.fromStep).arg(a.toStep);
  }
  if (!r.value) return tr("%1%2: not measured yet (claim %3)").arg(subject(a, mode), when, bounds(a));
  const QString mark = r.holds == true ? QStringLiteral("✓") : r.holds == false ? QStringLiteral("✗") : QStringLiteral("·");
  return tr("%1 %2%3: %4 (claim %5)").arg(mark, subject(a, mode), when, value(a.measure, *r.value), bounds(a));
}

QString ClaimText::shortReading(const ClaimReading& r) {
  const ClaimSpec& a = *r.atom;
  if (!r.value) return tr("not measured yet (claim %1)").arg(bounds(a));
  const QString mark = r.holds == true ? QStringLiteral("✓") : r.holds == false ? QStringLiteral("✗") : QStringLiteral("·");
  return tr("%1 %2 (claim %3)").arg(mark, value(a.measure, *r.value), bounds(a));
}

QString ClaimText::readings(const ClaimState& state) {
  QStringList lines;
  for (const ClaimReading& r : state.readings) lines << reading(r);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace ampscope::ui
