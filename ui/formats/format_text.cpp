#include "ui/formats/format_text.h"

#include <QCoreApplication>
#include <QLocale>
#include <cmath>
#include <cstdio>

namespace ampscope::ui::formats {

namespace {

QString nonFinite(double value) {
  if (std::isnan(value)) return QStringLiteral("nan");
  return value < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
}

}  // namespace

QString scientific(double value, int digits) {
  if (!std::isfinite(value)) return nonFinite(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", digits, value);
  return QString::fromLatin1(buffer);
}

QString shortestText(double value) {
  if (!std::isfinite(value)) return nonFinite(value);
  if (value == 0) return std::signbit(value) ? QStringLiteral("-0") : QStringLiteral("0");
  return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

QString dtypeDisplayName(DType dtype) {
  switch (dtype) {
    case DType::FP8E4M3FN:
      return QStringLiteral("FP8 E4M3FN");
    case DType::FP8E5M2:
      return QStringLiteral("FP8 E5M2");
    default:
      return QString::fromStdString(formatSpec(dtype).name);
  }
}

QString dtypeDescription(DType dtype) {
  // A literal context in every call: lupdate only extracts translate() calls whose context it can read.
  switch (dtype) {
    case DType::FP64:
      return QCoreApplication::translate("ampscope::ui::formats", "IEEE-754 binary64, torch.float64");
    case DType::FP32:
      return QCoreApplication::translate("ampscope::ui::formats", "IEEE-754 binary32, torch.float32");
    case DType::TF32:
      return QCoreApplication::translate("ampscope::ui::formats",
                                         "TensorFloat-32: FP32 range, FP16 mantissa (tensor cores)");
    case DType::FP16:
      return QCoreApplication::translate("ampscope::ui::formats", "IEEE-754 binary16, torch.float16");
    case DType::BF16:
      return QCoreApplication::translate("ampscope::ui::formats", "bfloat16: FP32 range, 7 mantissa bits");
    case DType::FP8E4M3FN:
      return QCoreApplication::translate("ampscope::ui::formats",
                                         "OCP FP8, no infinity, max 448 (forward pass)");
    case DType::FP8E5M2:
      return QCoreApplication::translate("ampscope::ui::formats", "OCP FP8, FP16's range (gradients)");
    case DType::FP4E2M1:
      return QCoreApplication::translate("ampscope::ui::formats",
                                         "OCP MX FP4: values 0 to 6, no infinity or NaN, saturates");
    case DType::E8M0:
      return QCoreApplication::translate("ampscope::ui::formats",
                                         "OCP MX block scale: powers of two 2^-127 to 2^127, no sign, no zero");
  }
  return {};
}

QString valueClassText(ValueClass cls) {
  switch (cls) {
    case ValueClass::Zero:
      return QCoreApplication::translate("ampscope::ui::formats", "zero");
    case ValueClass::Subnormal:
      return QCoreApplication::translate("ampscope::ui::formats", "subnormal");
    case ValueClass::Normal:
      return QCoreApplication::translate("ampscope::ui::formats", "normal");
    case ValueClass::Infinite:
      return QCoreApplication::translate("ampscope::ui::formats", "infinity");
    case ValueClass::NaN:
      return QCoreApplication::translate("ampscope::ui::formats", "NaN");
  }
  return {};
}

BitField bitFieldOf(const FormatSpec& spec, int bitIndex) {
  if (spec.hasSign && bitIndex == spec.totalBits - 1) return BitField::Sign;
  if (bitIndex >= spec.mantissaBits) return BitField::Exponent;
  return BitField::Mantissa;
}

QColor fieldColor(BitField field, bool bitSet) {
  // Strong hues for ones, pale tints of the same hue for zeros: the pattern of ones reads at a glance
  // and the field boundaries stay visible even when a field is all zeros.
  switch (field) {
    case BitField::Sign:
      return bitSet ? QColor(0xc6, 0x28, 0x28) : QColor(0xfb, 0xe0, 0xe0);
    case BitField::Exponent:
      return bitSet ? QColor(0x2e, 0x7d, 0x32) : QColor(0xdf, 0xf0, 0xe0);
    case BitField::Mantissa:
      return bitSet ? QColor(0x15, 0x65, 0xc0) : QColor(0xdd, 0xe9, 0xf7);
  }
  return {};
}

QColor fieldTextColor(bool bitSet) { return bitSet ? QColor(Qt::white) : QColor(0x37, 0x47, 0x4f); }

}  // namespace ampscope::ui::formats
