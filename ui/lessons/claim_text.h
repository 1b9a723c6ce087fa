// The words for a lesson claim's state and readings (lesson_claim_evaluator.h), in the current language:
// "holds since step 140" and "fp16-pure: loss above fp32's 31 % (claim ≥ 20 %)". The lesson panel and
// ampscope_lesson_claims both print them, so the table in docs/lesson-claims.md reads as the panel does.
#pragma once

#include <QCoreApplication>
#include <QString>

#include "ampscope/engine/lesson_claim_evaluator.h"

namespace ampscope::ui {

class ClaimText {
  Q_DECLARE_TR_FUNCTIONS(ClaimText)

 public:
  // "waiting", "holds since step N", "held from step N to M, not now", "does not hold".
  static QString status(const ClaimState& state);
  // One atom's latest reading against its bounds; "not measured yet" before its first reading.
  static QString reading(const ClaimReading& reading);
  // The reading without its subject, for a line that has room for little more than the numbers:
  // "✗ 0.31 % (claim ≥ 20 %)".
  static QString shortReading(const ClaimReading& reading);
  // Every reading of the claim, one per line.
  static QString readings(const ClaimState& state);
  // The bounds alone: "≥ 20 %", "between 0.98 and 0.99".
  static QString bounds(const ClaimSpec& atom);
  // A reading's number as the claim's bounds are written (a share as a percentage).
  static QString value(ClaimMeasure measure, double value);
};

}  // namespace ampscope::ui
