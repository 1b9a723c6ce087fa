// Text and colours shared by the number-format widgets: how a value, an error or a dtype is written
// on screen, and the three field colours (sign, exponent, mantissa) every widget of the panel uses.
#pragma once

#include <QColor>
#include <QString>

#include "ampscope/engine/number_format.h"

namespace ampscope::ui::formats {

// printf's %.Ne, but "inf", "-inf", "nan" for the non-finite values and "-0" kept visible.
QString scientific(double value, int digits);

// The shortest decimal text that reads back as exactly `value` ("0.1", "1e-08", "-0", "inf", "nan").
QString shortestText(double value);

// Display name of a dtype ("FP8 E4M3FN"), as FormatSpec::name but with a space for the FP8 pair.
QString dtypeDisplayName(DType dtype);

// One-line description for a dtype's row ("IEEE-754 binary16", "bfloat16, FP32's exponent range").
QString dtypeDescription(DType dtype);

// A class name for humans ("normal", "subnormal", "zero", "infinity", "NaN").
QString valueClassText(ValueClass cls);

// The bit field a bit index (0 = least significant) belongs to.
enum class BitField { Sign, Exponent, Mantissa };
BitField bitFieldOf(const FormatSpec& spec, int bitIndex);

// Colours of a bit cell: strong for a 1, pale for a 0, one hue per field.
QColor fieldColor(BitField field, bool bitSet);
QColor fieldTextColor(bool bitSet);

// Highlight colours for the three events the panel marks.
inline constexpr QRgb kFlushedColor = 0xffc62828;    // red: a non-zero value became 0
inline constexpr QRgb kSubnormalColor = 0xffef8f00;  // amber: stored as a subnormal (fewer digits)
inline constexpr QRgb kOverflowColor = 0xff6a1b9a;   // purple: a finite value became inf (or NaN)
inline constexpr QRgb kNaNColor = 0xff455a64;        // slate: not a number
inline constexpr QRgb kExactColor = 0xff2e7d32;      // green: stored without rounding error

}  // namespace ampscope::ui::formats
