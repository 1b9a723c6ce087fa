#include "ui/export/export_target.h"

#include <QCoreApplication>
#include <qcustomplot.h>

#include "ui/export/plot_exporter.h"
#include "ui/export/widget_exporter.h"

namespace ampscope::ui {

QSize ExportTarget::exportSize(const ExportOptions& options) const {
  if (!widget) return {};
  if (kind == Kind::Plot) return PlotExporter::exportSize(qobject_cast<QCustomPlot*>(widget.data()), options);
  return WidgetExporter::exportSize(widget.data(), options);
}

ExportResult ExportTarget::exportToFile(const QString& path, const ExportOptions& options) const {
  if (!widget) {
    ExportResult result;
    result.path = path;
    result.error =
        QCoreApplication::translate("ampscope::ui::ExportTarget", "\"%1\" no longer exists; nothing was exported.")
            .arg(label);
    return result;
  }
  if (kind == Kind::Plot) return PlotExporter::exportToFile(qobject_cast<QCustomPlot*>(widget.data()), path, options);
  return WidgetExporter::exportToFile(widget.data(), path, options);
}

QImage ExportTarget::renderImage(const ExportOptions& options) const {
  if (!widget) return {};
  if (kind == Kind::Plot) return PlotExporter::renderImage(qobject_cast<QCustomPlot*>(widget.data()), options);
  return WidgetExporter::renderImage(widget.data(), options);
}

QString exportFileStem(const QString& title) {
  QString stem;
  bool gap = false;
  for (const QChar c : title.toLower()) {
    if (c.isLetterOrNumber()) {
      if (gap && !stem.isEmpty()) stem += QLatin1Char('-');
      stem += c;
      gap = false;
    } else {
      gap = true;
    }
  }
  return stem.isEmpty() ? QStringLiteral("export") : stem;
}

}  // namespace ampscope::ui
