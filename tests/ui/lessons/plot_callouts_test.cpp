// Lesson callouts in the real window at a classroom's sizes: the plots keep their area before any data,
// and the underflow lesson's two histogram callouts, after a short run, sit apart from each other, off
// every anchor and every zone label, inside the plot, with a leader line each, also after a resize and with
// presenter scaling.
#include <gtest/gtest.h>

#include <QTest>
#include <memory>
#include <qcustomplot.h>

#include "ui/lessons/lesson_controller.h"
#include "ui/lessons/lesson_workspace.h"
#include "ui/lessons/plot_callouts.h"
#include "ui/main_window.h"
#include "ui/presentation/presenter_mode.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"
#include "ui/training/underflow_plot.h"

namespace ampscope::ui {
namespace {

class CalloutWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    window = std::make_unique<MainWindow>();
    window->setLayoutPersistence(false);
    workspace = window->trainingWorkspace();
    lessons = new LessonWorkspace(*window);
    presenter = new PresenterMode(window.get());
    window->resize(1280, 720);
    window->show();
  }
  void TearDown() override {
    presenter->setScaled(false);
    workspace->shutdown();
    window.reset();
  }

  void replotAll() {
    for (int pass = 0; pass < 3; ++pass) {  // placements follow the layout of the replot before
      for (QCustomPlot* plot : window->findChildren<QCustomPlot*>())
        if (plot->isVisible()) plot->replot();
      QTest::qWait(30);
    }
  }

  void expectCalloutsClear(const char* when) {
    const QList<QRectF> rects = lessons->controller()->calloutRects();
    const QList<QPointF> anchors = lessons->controller()->calloutAnchors();
    ASSERT_EQ(rects.size(), 2) << when;
    ASSERT_EQ(anchors.size(), 2) << when;
    const QRect area = window->findChild<HistogramPlot*>()->axisRectOnScreen();
    for (int i = 0; i < rects.size(); ++i) {
      EXPECT_TRUE(QRectF(area).adjusted(-1, -1, 1, 1).contains(rects[i])) << when << ": box " << i << " leaves the plot";
      for (int j = i + 1; j < rects.size(); ++j) EXPECT_FALSE(rects[i].intersects(rects[j])) << when;
      for (const QPointF& anchor : anchors) EXPECT_FALSE(rects[i].contains(anchor)) << when << ": box " << i;
    }
    const auto* plot = window->findChild<HistogramPlot*>()->plot();
    // The zone labels say what the bars mean; a box over one hides the lesson's own landmark.
    for (int i = 0; i < plot->itemCount(); ++i) {
      auto* text = qobject_cast<QCPItemText*>(plot->item(i));
      if (!text || !text->visible() || text->objectName() == QLatin1String("lessonCalloutText")) continue;
      const QRectF label = QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized();
      for (int j = 0; j < rects.size(); ++j)
        EXPECT_FALSE(rects[j].intersects(label)) << when << ": box " << j << " covers " << text->text().toStdString();
    }
    int leaders = 0;
    for (int i = 0; i < plot->itemCount(); ++i)
      if (plot->item(i)->objectName() == QLatin1String("lessonCalloutArrow") && plot->item(i)->visible()) ++leaders;
    EXPECT_EQ(leaders, 2) << when;
  }

  std::unique_ptr<MainWindow> window;
  TrainingWorkspace* workspace = nullptr;
  LessonWorkspace* lessons = nullptr;
  PresenterMode* presenter = nullptr;
};

TEST_F(CalloutWindow, AtTheSmallSizeTheHistogramAndUnderflowPlotsKeepTheirAreaBeforeAnyData) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("underflow")));
  replotAll();
  for (PlotPanel* panel : {static_cast<PlotPanel*>(window->findChild<HistogramPlot*>()),
                           static_cast<PlotPanel*>(window->findChild<UnderflowPlot*>())}) {
    ASSERT_NE(panel, nullptr);
    ASSERT_TRUE(panel->isVisible()) << panel->metaObject()->className();
    const QRect area = panel->axisRectOnScreen();
    EXPECT_GE(area.width(), PlotPanel::kMinAxisWidth) << panel->metaObject()->className();
    EXPECT_GE(area.height(), PlotPanel::kMinAxisHeight) << panel->metaObject()->className();
    EXPECT_FALSE(panel->shownEmptyNote().isEmpty()) << panel->metaObject()->className();
  }
  expectCalloutsClear("before data");
}

TEST_F(CalloutWindow, UnderflowCalloutsStayApartAndOffTheirAnchorsAfterARunAResizeAndPresenterScaling) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("underflow")));
  RunConfig config = workspace->runPanel()->config();
  config.steps = 20;
  workspace->applyConfig(config);
  RunController* run = workspace->controller();
  ASSERT_TRUE(run->start(workspace->runPanel()->config()));
  ASSERT_TRUE(QTest::qWaitFor([&] { return run->state() == RunState::Finished; }, 60000));
  run->drainNow();
  replotAll();
  expectCalloutsClear("after 20 steps at 1280x720");

  window->resize(1600, 1000);
  replotAll();
  expectCalloutsClear("at 1600x1000");

  presenter->setScaled(true);
  replotAll();
  expectCalloutsClear("with presenter scaling");
  // Larger type, larger boxes: a badge stays a badge, a full box grows.
  PlotCallouts* callouts = PlotCallouts::of(window->findChild<HistogramPlot*>()->plot());
  ASSERT_EQ(callouts->count(), 2);
}

TEST(PlotCallouts, BadgesCountLikeTheLessonPanel) {
  EXPECT_EQ(PlotCallouts::badgeText(1), QString(QChar(0x2460)));
  EXPECT_EQ(PlotCallouts::badgeText(20), QString(QChar(0x2473)));
  EXPECT_EQ(PlotCallouts::badgeText(21), QStringLiteral("21"));
}

}  // namespace
}  // namespace ampscope::ui
