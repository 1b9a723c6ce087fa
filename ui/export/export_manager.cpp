#include "ui/export/export_manager.h"

#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QKeySequence>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <qcustomplot.h>

#include "ui/export/export_dialog.h"
#include "ui/export/plot_exporter.h"
#include "ui/export/widget_exporter.h"

namespace ampscope::ui {

namespace {

// Status-bar messages stay this long.
constexpr int kStatusMessageMs = 5000;

QDockWidget* dockOf(const QWidget* widget) {
  for (QWidget* w = widget ? widget->parentWidget() : nullptr; w; w = w->parentWidget())
    if (auto* dock = qobject_cast<QDockWidget*>(w)) return dock;
  return nullptr;
}

}  // namespace

ExportManager* ExportManager::install(QMainWindow* window, QMenu* fileMenu) {
  return new ExportManager(window, fileMenu);
}

ExportManager::ExportManager(QMainWindow* window, QMenu* fileMenu) : QObject(window), window_(window) {
  setObjectName(QStringLiteral("exportManager"));
  exportAction_ = new QAction(tr("Export &Image…"), this);
  exportAction_->setObjectName(QStringLiteral("exportAction"));
  exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
  exportAction_->setToolTip(tr("Save a plot, a panel or the whole window as PNG, PDF or SVG"));
  connect(exportAction_, &QAction::triggered, this, &ExportManager::showExportDialog);
  copyWindowAction_ = new QAction(tr("Copy &window image"), this);
  copyWindowAction_->setObjectName(QStringLiteral("copyWindowImageAction"));
  connect(copyWindowAction_, &QAction::triggered, this, &ExportManager::copyWindowImage);
  if (fileMenu) {
    // Above Quit when the menu has it, so Quit stays last.
    QAction* before = nullptr;
    for (QAction* a : fileMenu->actions())
      if (a->objectName() == QLatin1String("quitAction") || a->menuRole() == QAction::QuitRole) before = a;
    fileMenu->insertAction(before, exportAction_);
    fileMenu->insertAction(before, copyWindowAction_);
    if (before) fileMenu->insertSeparator(before);
  }
  chooseFile_ = [this](const QString& suggested, ExportFormat format) {
    const QString filter = tr("%1 files (*.%2)").arg(exportFormatName(format), exportFormatSuffix(format));
    return QFileDialog::getSaveFileName(window_, tr("Export plot"), suggested, filter);
  };
  qApp->installEventFilter(this);
}

ExportManager::~ExportManager() {
  if (qApp) qApp->removeEventFilter(this);
}

bool ExportManager::servesPlot(const QCustomPlot* plot) const {
  // Not QWidget::isAncestorOf: that stops at a floating dock, which is a window of its own.
  for (const QWidget* w = plot; w; w = w->parentWidget())
    if (w == window_) return true;
  return false;
}

QString ExportManager::plotTitle(const QCustomPlot* plot) const {
  if (const QDockWidget* dock = dockOf(plot)) return dock->windowTitle();
  if (!plot->windowTitle().isEmpty()) return plot->windowTitle();
  return tr("Plot");
}

QList<ExportTarget> ExportManager::targets() const {
  QList<ExportTarget> list;
  list.append({ExportTarget::Kind::Window, tr("Whole window"), QStringLiteral("ampscope-window"), window_});
  for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) {
    // Closed docks are left out; a dock behind another tab is still open and its plots still draw.
    if (!dock->toggleViewAction()->isChecked() || !dock->widget()) continue;
    QList<QCustomPlot*> plots = dock->widget()->findChildren<QCustomPlot*>();
    if (auto* self = qobject_cast<QCustomPlot*>(dock->widget())) plots.prepend(self);
    const QString title = dock->windowTitle();
    if (plots.isEmpty()) {
      if (dock->isVisible())
        list.append({ExportTarget::Kind::Panel, tr("Panel: %1").arg(title), exportFileStem(title), dock->widget()});
      continue;
    }
    for (int i = 0; i < plots.size(); ++i) {
      const QString name = plots.size() == 1 ? title : tr("%1 (%2)").arg(title).arg(i + 1);
      list.append({ExportTarget::Kind::Plot, tr("Plot: %1").arg(name), exportFileStem(name), plots[i]});
    }
  }
  QWidget* central = window_->centralWidget();
  if (central && central->isVisible() && central->width() > 1 && central->height() > 1)
    list.append({ExportTarget::Kind::Panel, tr("Central area"), QStringLiteral("central"), central});
  return list;
}

ExportDialog* ExportManager::showExportDialog() {
  auto* dialog = new ExportDialog(targets(), window_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &ExportDialog::exported, this, [this](const QString& path) {
    window_->statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), kStatusMessageMs);
    emit exported(path);
  });
  connect(dialog, &ExportDialog::exportFailed, this, &ExportManager::exportFailed);
  dialog->open();
  return dialog;
}

bool ExportManager::copyWindowImage() {
  const bool ok = WidgetExporter::copyToClipboard(window_);
  window_->statusBar()->showMessage(ok ? tr("Window image copied to the clipboard")
                                       : tr("The window image could not be made"),
                                    kStatusMessageMs);
  return ok;
}

QMenu* ExportManager::createPlotMenu(QCustomPlot* plot, QWidget* parent) {
  auto* menu = new QMenu(parent);
  QPointer<QCustomPlot> guarded(plot);
  auto addExport = [&](const QString& text, const char* name, ExportFormat format, ExportOptions options) {
    QAction* action = menu->addAction(text, this, [this, guarded, format, options] {
      if (guarded) exportPlot(guarded, format, options);
    });
    action->setObjectName(QLatin1String(name));
  };
  for (int scale = 1; scale <= 3; ++scale) {
    ExportOptions options;
    options.scale = scale;
    const QByteArray name = "exportPng" + QByteArray::number(scale) + "x";
    addExport(tr("Export as PNG (%1x)…").arg(scale), name.constData(), ExportFormat::Png, options);
  }
  addExport(tr("Export as PDF…"), "exportPdf", ExportFormat::Pdf, {});
  addExport(tr("Export as SVG…"), "exportSvg", ExportFormat::Svg, {});
  ExportOptions slide;
  slide.slide = true;
  addExport(tr("Export as slide PNG (%1×%2)…").arg(kSlideWidth).arg(kSlideHeight), "exportSlidePng",
            ExportFormat::Png, slide);
  menu->addSeparator();
  QAction* copy = menu->addAction(tr("Copy image"), this, [this, guarded] {
    if (!guarded) return;
    const bool ok = PlotExporter::copyToClipboard(guarded);
    window_->statusBar()->showMessage(ok ? tr("Plot image copied to the clipboard")
                                         : tr("The plot image could not be made"),
                                      kStatusMessageMs);
  });
  copy->setObjectName(QStringLiteral("copyPlotImage"));
  return menu;
}

ExportResult ExportManager::exportPlot(QCustomPlot* plot, ExportFormat format, const ExportOptions& options) {
  QString stem = exportFileStem(plotTitle(plot));
  if (options.slide) stem += QStringLiteral("-slide");
  else if (format == ExportFormat::Png && options.scale != 1.0) stem += QStringLiteral("@%1x").arg(options.scale);
  const QString suggested = QDir(ExportDialog::lastFolder()).filePath(stem + QLatin1Char('.') + exportFormatSuffix(format));
  const QString path = chooseFile_ ? chooseFile_(suggested, format) : QString();
  ExportResult result;
  if (path.isEmpty()) return result;
  result = PlotExporter::exportToFile(plot, path, options);
  if (!result.ok) {
    reportError(result.error);
    return result;
  }
  ExportDialog::rememberFolderOf(path);
  window_->statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), kStatusMessageMs);
  emit exported(path);
  return result;
}

void ExportManager::reportError(const QString& message) {
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Export failed"), message, QMessageBox::Ok, window_);
  box->setObjectName(QStringLiteral("exportErrorBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
  emit exportFailed(message);
}

bool ExportManager::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ContextMenu) {
    auto* plot = qobject_cast<QCustomPlot*>(watched);
    if (plot && servesPlot(plot)) {
      QMenu* menu = createPlotMenu(plot, plot);
      menu->setAttribute(Qt::WA_DeleteOnClose);
      menu->popup(static_cast<QContextMenuEvent*>(event)->globalPos());
      return true;
    }
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace ampscope::ui
