// ExportManager: puts image export into a main window. install() adds File -> Export Image... (ExportDialog)
// and File -> Copy window image, and gives every QCustomPlot of the window a context menu: Export as PNG
// (1x, 2x, 3x), PDF, SVG, Slide PNG, Copy image.
//
// The context menu comes from one application-wide event filter that looks only at ContextMenu events
// aimed at a QCustomPlot inside this window (floating docks included), so plots created later (a lesson's
// dock, a new workspace) get the menu without being registered. Failures are shown in a message box that
// names the file and the reason, and are also emitted as exportFailed().
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <functional>

#include "ui/export/export_options.h"
#include "ui/export/export_target.h"

class QAction;
class QCustomPlot;
class QMainWindow;
class QMenu;

namespace ampscope::ui {

class ExportDialog;

class ExportManager : public QObject {
  Q_OBJECT
 public:
  // Asks for the file a context-menu export writes to; an empty string cancels. The default is a save
  // dialog in the last export folder; tests substitute.
  using FileChooser = std::function<QString(const QString& suggestedPath, ExportFormat format)>;

  // Creates the manager as a child of `window`; `fileMenu` may be null (no menu entries then).
  static ExportManager* install(QMainWindow* window, QMenu* fileMenu);
  ExportManager(QMainWindow* window, QMenu* fileMenu);
  ~ExportManager() override;

  // The whole window, every plot of an open dock (by the dock's title), every other visible panel, and
  // the central area when it shows something.
  QList<ExportTarget> targets() const;
  // True when `plot` is inside the window this manager serves.
  bool servesPlot(const QCustomPlot* plot) const;
  // The context menu of `plot` (its actions have object names "exportPng1x", "exportPng2x",
  // "exportPng3x", "exportPdf", "exportSvg", "exportSlidePng", "copyPlotImage"); the caller owns it.
  QMenu* createPlotMenu(QCustomPlot* plot, QWidget* parent = nullptr);
  QString plotTitle(const QCustomPlot* plot) const;

  QAction* exportAction() const { return exportAction_; }
  QAction* copyWindowAction() const { return copyWindowAction_; }
  void setFileChooser(FileChooser chooser) { chooseFile_ = std::move(chooser); }
  // Exports `plot` to a file the chooser picks; returns the result (not ok and no error when cancelled).
  ExportResult exportPlot(QCustomPlot* plot, ExportFormat format, const ExportOptions& options);

 public slots:
  // Opens File -> Export... (window-modal, non-blocking) and returns the dialog.
  ExportDialog* showExportDialog();
  bool copyWindowImage();

 signals:
  void exported(const QString& path);
  void exportFailed(const QString& message);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void reportError(const QString& message);

  QMainWindow* window_;
  QAction* exportAction_ = nullptr;
  QAction* copyWindowAction_ = nullptr;
  FileChooser chooseFile_;
};

}  // namespace ampscope::ui
