// ExportTarget: one thing the export UI can write out: the whole window, one plot (named after its
// dock), or one panel such as the lesson view. Holds a guarded pointer: a target whose widget was
// deleted exports nothing and says so.
#pragma once

#include <QImage>
#include <QPointer>
#include <QSize>
#include <QString>
#include <QWidget>

#include "ui/export/export_options.h"

namespace ampscope::ui {

struct ExportTarget {
  enum class Kind { Window, Plot, Panel };
  Kind kind = Kind::Window;
  QString label;     // shown in the dialog, e.g. "Plot: Loss"
  QString fileStem;  // suggested file name without extension, e.g. "loss"
  QPointer<QWidget> widget;  // a QCustomPlot for Kind::Plot

  bool isValid() const { return !widget.isNull(); }
  // The logical size an export with `options` would have.
  QSize exportSize(const ExportOptions& options) const;
  ExportResult exportToFile(const QString& path, const ExportOptions& options) const;
  QImage renderImage(const ExportOptions& options) const;
};

// "Loss scale" -> "loss-scale": lower case letters and digits joined by '-', "export" when nothing is left.
QString exportFileStem(const QString& title);

}  // namespace ampscope::ui
