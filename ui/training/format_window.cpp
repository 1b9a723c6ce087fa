#include "ui/training/format_window.h"

#include <cmath>

#include "ampscope/engine/number_format.h"

namespace ampscope::ui {

namespace {

// The number-format core's dtype of a quantised element format (its limits live there, spec-tested).
DType dtypeOf(QuantFormat format) {
  switch (format) {
    case QuantFormat::E4M3: return DType::FP8E4M3FN;
    case QuantFormat::E5M2: return DType::FP8E5M2;
    case QuantFormat::E2M1: return DType::FP4E2M1;
  }
  return DType::FP8E4M3FN;
}

}  // namespace

double smallestSubnormal(QuantFormat format) { return finfo(dtypeOf(format)).smallestSubnormal; }

double largestFinite(QuantFormat format) { return finfo(dtypeOf(format)).max; }

QString formatName(QuantFormat format) {
  switch (format) {
    case QuantFormat::E4M3: return QStringLiteral("E4M3");
    case QuantFormat::E5M2: return QStringLiteral("E5M2");
    case QuantFormat::E2M1: return QStringLiteral("E2M1");
  }
  return {};
}

FormatWindow formatWindow(const QuantTensorStats& t) {
  const double sub = std::log2(smallestSubnormal(t.format));
  const double max = std::log2(largestFinite(t.format));
  FormatWindow w;
  if (t.scaling == ScalingKind::MxBlock || t.scaling == ScalingKind::Nvfp4Block) {
    // A block decoding by 2^e holds [sub, max] * 2^e.
    w.blocks = true;
    w.lowLog2 = sub + t.blockScaleExpMin;
    w.highLog2 = max + t.blockScaleExpMax;
  } else {
    const double s = std::log2(t.scale > 0 ? t.scale : 1.0);
    w.lowLog2 = sub - s;
    w.highLog2 = max - s;
  }
  w.flushLog2 = w.lowLog2 - 1;
  return w;
}

}  // namespace ampscope::ui
