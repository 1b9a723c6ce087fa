// PowerOfTwoTicker: a logarithmic base-2 axis ticker whose labels read 2¹⁶ instead of 65536, because the
// loss scale only ever moves by factors of two (growth 2.0, backoff 0.5) and the lesson is in exponents.
#pragma once

#include <QString>
#include <qcustomplot.h>

namespace ampscope::ui {

class PowerOfTwoTicker : public QCPAxisTickerLog {
 public:
  PowerOfTwoTicker();
  static QString label(int exponent);  // "2¹⁶", "2⁻³"
  // A scale read in binades: "2¹³" for a power of two, else "2^13.79".
  static QString scaleLabel(double scale);

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

}  // namespace ampscope::ui
