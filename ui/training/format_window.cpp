#include "ui/training/format_window.h"

#include <algorithm>
#include <cmath>

#include "ampscope/engine/number_format.h"

namespace ampscope::ui {

// dtypeOf (mode_formats.h): the number-format core's dtype of an element format (its limits live
// there, spec-tested).
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

QString zoneFormatName(DType dtype) {
  if (const std::optional<QuantFormat> q = quantFormatOf(dtype)) return formatName(*q);
  return QString::fromStdString(formatSpec(dtype).name);
}

FormatZones formatZones(DType dtype, bool saturates) {
  const FInfo f = finfo(dtype);
  FormatZones z;
  z.dtype = dtype;
  z.name = zoneFormatName(dtype);
  z.subnormalLog2 = std::log2(f.smallestSubnormal);
  z.flushLog2 = z.subnormalLog2 - 1;
  z.normalLog2 = std::log2(f.smallestNormal);
  z.max = f.max;
  z.overflowFrom = f.max + 0.5 * ulp(dtype, f.max);
  z.overflowLog2 = std::log2(z.overflowFrom);
  z.saturates = saturates;
  return z;
}

std::vector<ZoneFormat> zoneFormats(const std::vector<PrecisionMode>& modes) {
  std::vector<ZoneFormat> out;
  const auto add = [&out](DType dtype, bool saturates) {
    const bool seen = std::any_of(out.begin(), out.end(), [dtype](const ZoneFormat& z) { return z.dtype == dtype; });
    if (!seen) out.push_back({dtype, saturates});
  };
  for (bool quantisedPass : {true, false})
    for (PrecisionMode mode : modes) {
      const ModeFormats f = modeFormats(mode);
      if (f.quantised == quantisedPass && mode != PrecisionMode::FP32) add(f.measuredAgainst, f.quantised);
    }
  add(DType::FP16, false);
  add(DType::BF16, false);
  return out;
}

}  // namespace ampscope::ui
