// Presenter mode on a main window: font and plot scaling by 1.5 and back, the clean view without
// controls (Esc restores), and the full-screen toggle.
#include "ui/presentation/presenter_mode.h"

#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QStatusBar>
#include <QTest>
#include <QToolBar>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/loss_plot.h"

namespace ampscope::ui {
namespace {

class PresenterWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    baseFont = QApplication::font();
    window.menuBar()->addMenu(QStringLiteral("File"));
    toolBar = window.addToolBar(QStringLiteral("tools"));
    toolBar->setObjectName(QStringLiteral("tools"));
    window.statusBar()->showMessage(QStringLiteral("ready"));
    runDock = new QDockWidget(&window);
    runDock->setObjectName(QStringLiteral("training.run"));
    window.addDockWidget(Qt::LeftDockWidgetArea, runDock);
    plotDock = new QDockWidget(&window);
    plotDock->setObjectName(QStringLiteral("training.loss"));
    plot = new QCustomPlot(plotDock);
    plotDock->setWidget(plot);
    window.addDockWidget(Qt::RightDockWidgetArea, plotDock);
    graph = plot->addGraph();
    graph->setPen(QPen(Qt::blue, 2.0));
    QFont axisFont = plot->xAxis->labelFont();
    axisFont.setPointSizeF(10);
    plot->xAxis->setLabelFont(axisFont);
    label = new QLabel(QStringLiteral("text"), runDock);
    runDock->setWidget(label);
    presenter = new PresenterMode(&window);
    window.show();
  }
  void TearDown() override {
    presenter->setScaled(false);
    QApplication::setFont(baseFont);
  }

  QFont baseFont;
  QMainWindow window;
  QToolBar* toolBar = nullptr;
  QDockWidget* runDock = nullptr;
  QDockWidget* plotDock = nullptr;
  QCustomPlot* plot = nullptr;
  QCPGraph* graph = nullptr;
  QLabel* label = nullptr;
  PresenterMode* presenter = nullptr;
};

TEST_F(PresenterWindow, ScalingEnlargesTheApplicationFontByOneAndAHalfAndRestoresIt) {
  const double base = QApplication::font().pointSizeF();
  const double menuBase = window.menuBar()->font().pointSizeF();
  ASSERT_GT(base, 0);
  presenter->scaleAction()->trigger();
  EXPECT_TRUE(presenter->isScaled());
  EXPECT_DOUBLE_EQ(QApplication::font().pointSizeF(), base * 1.5);
  // Widgets follow, including classes the platform theme gives a font of their own (the menu bar).
  EXPECT_DOUBLE_EQ(label->font().pointSizeF(), base * 1.5);
  EXPECT_DOUBLE_EQ(window.menuBar()->font().pointSizeF(), menuBase * 1.5);
  presenter->scaleAction()->trigger();
  EXPECT_FALSE(presenter->isScaled());
  EXPECT_DOUBLE_EQ(QApplication::font().pointSizeF(), base);
  EXPECT_DOUBLE_EQ(label->font().pointSizeF(), base);
  EXPECT_DOUBLE_EQ(window.menuBar()->font().pointSizeF(), menuBase);
}

TEST_F(PresenterWindow, ScalingWidensPlotLinesAndEnlargesAxisFontsWithoutDrift) {
  for (int round = 0; round < 3; ++round) {
    presenter->setScaled(true);
    EXPECT_DOUBLE_EQ(graph->pen().widthF(), 3.0);
    EXPECT_DOUBLE_EQ(plot->xAxis->labelFont().pointSizeF(), 15.0);
    presenter->setScaled(false);
    EXPECT_DOUBLE_EQ(graph->pen().widthF(), 2.0);
    EXPECT_DOUBLE_EQ(plot->xAxis->labelFont().pointSizeF(), 10.0);
  }
}

TEST_F(PresenterWindow, TrainingPlotsScaleTheirOwnLines) {
  TelemetryStore store;
  auto* loss = new LossPlot(&store, plotDock);
  plotDock->setWidget(loss);
  presenter->setScaled(true);
  EXPECT_DOUBLE_EQ(loss->lineScale(), 1.5);
  presenter->setScaled(false);
  EXPECT_DOUBLE_EQ(loss->lineScale(), 1.0);
}

TEST_F(PresenterWindow, HideControlsLeavesOnlyThePlotsAndEscBringsThemBack) {
  presenter->hideControlsAction()->trigger();
  EXPECT_TRUE(presenter->controlsHidden());
  EXPECT_FALSE(window.menuBar()->isVisible());
  EXPECT_FALSE(toolBar->isVisible());
  EXPECT_FALSE(window.statusBar()->isVisible());
  EXPECT_FALSE(runDock->isVisible());
  EXPECT_TRUE(plotDock->isVisible());
  window.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
  QTest::keyClick(&window, Qt::Key_Escape);
  EXPECT_FALSE(presenter->controlsHidden());
  EXPECT_TRUE(window.menuBar()->isVisible());
  EXPECT_TRUE(toolBar->isVisible());
  EXPECT_TRUE(runDock->isVisible());
}

TEST_F(PresenterWindow, ADockTheUserClosedStaysClosedAfterTheCleanView) {
  runDock->hide();
  presenter->setControlsHidden(true);
  presenter->setControlsHidden(false);
  EXPECT_FALSE(runDock->isVisible());
}

TEST_F(PresenterWindow, FullScreenUsesThePlatformKeyAndToggles) {
  EXPECT_EQ(presenter->fullScreenAction()->shortcuts(), QKeySequence::keyBindings(QKeySequence::FullScreen));
  presenter->fullScreenAction()->trigger();
  EXPECT_TRUE(window.windowState() & Qt::WindowFullScreen);
  presenter->fullScreenAction()->trigger();
  EXPECT_FALSE(window.windowState() & Qt::WindowFullScreen);
}

}  // namespace
}  // namespace ampscope::ui
