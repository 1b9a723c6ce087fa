// TrainingWorkspace: the live-training part of the main window. It adds to a QMainWindow a toolbar
// (Run/Pause, Step, Stop, Reset, speed cap, Inject overflow, with keyboard shortcuts), dock widgets for
// the run panel, the plots and the tables (each dock's toggle action goes into the View menu) and status
// bar read-outs, and wires them to one RunController.
//
// Panel ids for raisePanel(): "run", "loss", "scale", "histogram", "heatmap", "underflow", "op-dtype",
// "memory", "fp8-scale". Dock objectNames are "training.<id>" and stay stable so saved window states restore.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/training_runner.h"

class QAction;
class QDockWidget;
class QLabel;
class QMainWindow;
class QMenu;
class QSpinBox;
class QTimer;
class QToolBar;

namespace ampscope {
class TelemetryStore;
}  // namespace ampscope

namespace ampscope::ui {

class Fp8ScalePlot;
class HeatMapPlot;
class HistogramPlot;
class LossPlot;
class MemoryLedgerTable;
class OpDtypeTable;
class PlotPanel;
class RunController;
class RunPanel;
class ScalePlot;
class UnderflowPlot;

class TrainingWorkspace : public QObject {
  Q_OBJECT
 public:
  TrainingWorkspace(QMainWindow* window, QMenu* viewMenu);
  ~TrainingWorkspace() override;

  void applyConfig(const RunConfig& config);  // fills the run panel (does not start)
  void raisePanel(const QString& id);
  RunController* controller() const { return controller_; }
  TelemetryStore* store() const;
  void shutdown();  // stop and join the training thread; call from the window's closeEvent
  void setLineScale(double scale);  // presenter mode: thicker lines in every plot
  // New steps reached the store from elsewhere (followed runs): the plots append them.
  void refreshFromStore();

  RunPanel* runPanel() const { return runPanel_; }
  LossPlot* lossPlot() const { return loss_; }
  ScalePlot* scalePlot() const { return scale_; }
  Fp8ScalePlot* fp8ScalePlot() const { return fp8Scale_; }
  HistogramPlot* histogramPlot() const { return histogram_; }
  HeatMapPlot* heatMapPlot() const { return heatMap_; }
  UnderflowPlot* underflowPlot() const { return underflow_; }
  // The plots whose points open in the number formats panel (PlotPanel::valueActivated).
  std::vector<PlotPanel*> valuePlots() const;
  OpDtypeTable* opDtypeTable() const { return opDtype_; }
  MemoryLedgerTable* memoryTable() const { return memory_; }
  QDockWidget* dock(const QString& id) const { return docks_.value(id); }
  QToolBar* toolBar() const { return toolBar_; }
  QAction* runPauseAction() const { return runPause_; }
  QAction* stepAction() const { return step_; }
  QAction* stopAction() const { return stop_; }
  QAction* resetAction() const { return reset_; }
  QAction* injectOverflowAction() const { return inject_; }
  QSpinBox* speedSpin() const { return speed_; }

 public slots:
  void runOrPause();
  void stepOnce();
  void stop();
  void reset();

 private:
  QDockWidget* addDock(const QString& id, const QString& title, QWidget* content, Qt::DockWidgetArea area);
  void buildToolBar();
  void buildStatusBar();
  void updateActions();
  void updateStatus();
  static QString stateText(RunState state);
  void onStateChanged(RunState state);
  void onDataAppended();
  void onStoreCleared();
  void refreshOpDtype();
  void refreshMemory();
  void refreshLiveTables();
  std::vector<PlotPanel*> plots() const;

  QMainWindow* window_;
  RunController* controller_;
  RunPanel* runPanel_;
  LossPlot* loss_;
  ScalePlot* scale_;
  HistogramPlot* histogram_;
  HeatMapPlot* heatMap_;
  UnderflowPlot* underflow_;
  Fp8ScalePlot* fp8Scale_;
  OpDtypeTable* opDtype_;
  MemoryLedgerTable* memory_;
  QHash<QString, QDockWidget*> docks_;
  QToolBar* toolBar_ = nullptr;
  QAction* runPause_ = nullptr;
  QAction* step_ = nullptr;
  QAction* stop_ = nullptr;
  QAction* reset_ = nullptr;
  QAction* inject_ = nullptr;
  QSpinBox* speed_ = nullptr;
  QLabel* stepLabel_ = nullptr;
  QLabel* rateLabel_ = nullptr;
  QLabel* stateLabel_ = nullptr;
  QLabel* modesLabel_ = nullptr;
  QTimer* statusTimer_ = nullptr;
  QTimer* liveTablesTimer_ = nullptr;
};

}  // namespace ampscope::ui
