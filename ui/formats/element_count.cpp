#include "ui/formats/element_count.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace ampscope::ui::formats {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::formats::ElementCount", text); }

}  // namespace

ElementCount parseElementCount(const QString& text) {
  ElementCount result;
  QString s = text.trimmed();
  if (s.isEmpty()) {
    result.error = tr("Enter a number of elements, e.g. 1e9 or 1,000,000,000.");
    return result;
  }
  // Digit grouping: "1,000,000", "1_000_000" or "1 000 000", groups of exactly three digits.
  static const QRegularExpression grouped(QStringLiteral("^[+-]?\\d{1,3}([,_ ]\\d{3})+$"));
  if (grouped.match(s).hasMatch()) {
    s.remove(QLatin1Char(','));
    s.remove(QLatin1Char('_'));
    s.remove(QLatin1Char(' '));
  }
  static const QRegularExpression number(QStringLiteral("^[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?$"));
  if (!number.match(s).hasMatch()) {
    result.error = tr("\"%1\" is not a number. Use digits, optionally with an exponent (7e9) or "
                      "thousands separators (1,000,000).")
                       .arg(text.trimmed());
    return result;
  }
  const QByteArray latin = s.toLatin1();
  errno = 0;
  char* end = nullptr;
  const long double value = std::strtold(latin.constData(), &end);
  if (errno == ERANGE || !std::isfinite(value) || value > kMaxElementCount) {
    result.error = tr("Too many elements: at most 1e18.");
    return result;
  }
  if (value < 0) {
    result.error = tr("The element count cannot be negative.");
    return result;
  }
  if (value != std::floor(value)) {
    result.error = tr("The element count must be a whole number.");
    return result;
  }
  result.ok = true;
  result.value = value;
  return result;
}

}  // namespace ampscope::ui::formats
