// Presenter mode for a classroom projector, on a main window:
//  - full screen, toggled with the platform's full-screen key (QKeySequence::FullScreen);
//  - presenter scaling (F5 or Ctrl+Shift+P): the application font and every plot's fonts and line widths
//    grow by kScale, and shrink back on the next press;
//  - hide controls (Ctrl+Shift+H): menu bar, tool bars, status bar and the control docks disappear so
//    only the plots and the lesson remain; the same key or Esc brings them back.
// The actions are added to the window itself, so their shortcuts keep working while the menu bar is
// hidden. Plots are found with findChildren<QCustomPlot*>(); a plot inside a PlotPanel (the training
// plots) scales its own lines through PlotPanel::setLineScale, other plots get their pens scaled here.
#pragma once

#include <QFont>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QStringList>

class QAction;
class QCustomPlot;
class QMainWindow;
class QMenu;
class QWidget;

namespace ampscope::ui {

class PresenterMode : public QObject {
  Q_OBJECT
 public:
  // How much presenter scaling enlarges fonts and plot lines (a projector viewed from the back row).
  static constexpr double kScale = 1.5;

  explicit PresenterMode(QMainWindow* window);
  ~PresenterMode() override;

  QAction* fullScreenAction() const { return fullScreen_; }
  QAction* scaleAction() const { return scale_; }
  QAction* hideControlsAction() const { return hideControls_; }

  void setFullScreen(bool on);
  void setScaled(bool on);
  void setControlsHidden(bool on);
  bool isScaled() const { return scaled_; }
  bool controlsHidden() const { return controlsHidden_; }
  double currentScale() const { return scaled_ ? kScale : 1.0; }

  // Object names of the docks that count as controls (hidden by "hide controls"); the run panel by default.
  void setControlDockNames(const QStringList& names) { controlDocks_ = names; }

  // Applies the current scale to one plot (used for plots created while scaled, and by tests).
  void scalePlot(QCustomPlot* plot) const;

  QMenu* addMenuTo(QMenu* parent);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void retranslate();
  void scaleAllPlots() const;

  QMainWindow* window_;
  QAction* fullScreen_ = nullptr;
  QAction* scale_ = nullptr;
  QAction* hideControls_ = nullptr;
  QAction* restore_ = nullptr;
  QPointer<QMenu> menu_;
  bool scaled_ = false;
  bool controlsHidden_ = false;
  QFont baseFont_;
  QList<QPair<const char*, QFont>> baseClassFonts_;
  QStringList controlDocks_;
  QList<QPointer<QWidget>> hiddenByUs_;
};

}  // namespace ampscope::ui
