#include "ui/training/power_of_two_ticker.h"

#include <cmath>

namespace ampscope::ui {

PowerOfTwoTicker::PowerOfTwoTicker() {
  setLogBase(2.0);
  setSubTickCount(0);
}

QString PowerOfTwoTicker::label(int exponent) {
  static const QChar kSuperscript[] = {QChar(0x2070), QChar(0x00B9), QChar(0x00B2), QChar(0x00B3),
                                       QChar(0x2074), QChar(0x2075), QChar(0x2076), QChar(0x2077),
                                       QChar(0x2078), QChar(0x2079)};
  QString digits = QString::number(std::abs(exponent));
  QString out = QStringLiteral("2");
  if (exponent < 0) out += QChar(0x207B);  // superscript minus
  for (QChar c : digits) out += kSuperscript[c.digitValue()];
  return out;
}

QString PowerOfTwoTicker::getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) {
  if (tick <= 0) return QCPAxisTickerLog::getTickLabel(tick, locale, formatChar, precision);
  const double e = std::log2(tick);
  if (std::abs(e - std::round(e)) > 1e-9) return QCPAxisTickerLog::getTickLabel(tick, locale, formatChar, precision);
  return label(static_cast<int>(std::lround(e)));
}

QString PowerOfTwoTicker::scaleLabel(double scale) {
  const double e = std::log2(scale);
  if (e == std::floor(e) && std::abs(e) < 1000) return label(static_cast<int>(e));
  return QStringLiteral("2^%1").arg(e, 0, 'f', 2);
}

}  // namespace ampscope::ui
