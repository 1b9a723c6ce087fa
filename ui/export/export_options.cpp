#include "ui/export/export_options.h"

#include <QFileInfo>

namespace ampscope::ui {

std::optional<ExportFormat> exportFormatForPath(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return ExportFormat::Png;
  if (suffix == QLatin1String("pdf")) return ExportFormat::Pdf;
  if (suffix == QLatin1String("svg")) return ExportFormat::Svg;
  return std::nullopt;
}

QString exportFormatSuffix(ExportFormat format) {
  switch (format) {
    case ExportFormat::Png:
      return QStringLiteral("png");
    case ExportFormat::Pdf:
      return QStringLiteral("pdf");
    case ExportFormat::Svg:
      return QStringLiteral("svg");
  }
  return {};
}

QString exportFormatName(ExportFormat format) { return exportFormatSuffix(format).toUpper(); }

}  // namespace ampscope::ui
