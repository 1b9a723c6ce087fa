#include "ui/training/mode_palette.h"

#include <QCoreApplication>
#include <QPainter>
#include <QPixmap>

namespace ampscope::ui {

QColor ModePalette::color(PrecisionMode mode) {
  switch (mode) {
    case PrecisionMode::FP32: return QColor(0x00, 0x00, 0x00);           // black: the reference
    case PrecisionMode::FP16AmpScaled: return QColor(0x00, 0x72, 0xB2);  // blue
    case PrecisionMode::FP16Amp: return QColor(0xD5, 0x5E, 0x00);        // vermillion
    case PrecisionMode::BF16Amp: return QColor(0x00, 0x9E, 0x73);        // bluish green
    case PrecisionMode::FP16Pure: return QColor(0xCC, 0x79, 0xA7);       // reddish purple
    case PrecisionMode::BF16Pure: return QColor(0xE6, 0x9F, 0x00);       // orange
    case PrecisionMode::Fp8Delayed: return QColor(0x56, 0xB4, 0xE9);     // sky blue
    case PrecisionMode::Fp8Current: return QColor(0x6A, 0x3D, 0x9A);     // violet
    case PrecisionMode::MXFP8: return QColor(0x8C, 0x56, 0x4B);          // brown
    case PrecisionMode::NVFP4: return QColor(0x99, 0x99, 0x33);          // olive
    case PrecisionMode::Plan: return QColor(0xEE, 0x33, 0x77);           // magenta (wine was too near violet)
  }
  return QColor(Qt::gray);
}

QString ModePalette::name(PrecisionMode mode) { return QString::fromStdString(modeName(mode)); }

QString ModePalette::label(PrecisionMode mode) {
  switch (mode) {
    case PrecisionMode::FP32: return QCoreApplication::translate("ModePalette", "FP32");
    case PrecisionMode::FP16AmpScaled:
      return QCoreApplication::translate("ModePalette", "FP16 AMP + GradScaler");
    case PrecisionMode::FP16Amp: return QCoreApplication::translate("ModePalette", "FP16 AMP, no scaler");
    case PrecisionMode::BF16Amp: return QCoreApplication::translate("ModePalette", "BF16 AMP");
    case PrecisionMode::FP16Pure: return QCoreApplication::translate("ModePalette", "FP16 pure (model.half())");
    case PrecisionMode::BF16Pure: return QCoreApplication::translate("ModePalette", "BF16 pure");
    case PrecisionMode::Fp8Delayed: return QCoreApplication::translate("ModePalette", "FP8 delayed scaling");
    case PrecisionMode::Fp8Current: return QCoreApplication::translate("ModePalette", "FP8 current scaling");
    case PrecisionMode::MXFP8: return QCoreApplication::translate("ModePalette", "MXFP8 (32-value blocks)");
    case PrecisionMode::NVFP4: return QCoreApplication::translate("ModePalette", "NVFP4 (16-value blocks)");
    case PrecisionMode::Plan: return QCoreApplication::translate("ModePalette", "Precision plan");
  }
  return name(mode);
}

QIcon ModePalette::swatch(PrecisionMode mode) {
  QPixmap pixmap(12, 12);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setPen(Qt::NoPen);
  painter.setBrush(color(mode));
  painter.drawRoundedRect(QRectF(1, 1, 10, 10), 2, 2);
  return QIcon(pixmap);
}

}  // namespace ampscope::ui
