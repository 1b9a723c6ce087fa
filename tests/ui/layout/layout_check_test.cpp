// The layout check: every lesson, in English and Simplified Chinese, with and without presenter scaling,
// on the screen this process runs on (CTest runs the binary once per screen size, each time with an
// offscreen screen of that size; AMPSCOPE_LAYOUT_SCREEN says which, e.g. "1280x720", so a test that
// silently ran on the wrong screen fails). For each case the lesson opens, trains a few steps where it
// trains, and then:
//  - the window fits the screen's available area;
//  - every visible plot's axis rect is at least kMinAxisRect;
//  - every visible single-line label's text fits its rect (word-wrapped and elided labels excepted);
//  - every visible column header's label fits its section, whole, on its lines (a header that wraps) or
//    on one line (a plain QHeaderView, which clips a long label at both ends);
//  - every table cell in view shows its whole text (an item view elides a cell too narrow for it);
//  - no two lesson callouts of a plot intersect, and no callout covers the point its arrow marks, the
//    plot's legend or any of its own texts (zone labels, notes);
//  - the memory ledger's Peak row, the total its lessons talk about, is wholly in view;
//  - every "what to look for" item of the lesson, with its claim's state line, is wholly in view in the
//    lesson panel, without scrolling (a class must see every item and its state at once).
// Presenter scaling is also switched on with the last lesson still open, and its items checked again.
// Every case is checked and its failures listed; screenshots go to AMPSCOPE_LAYOUT_SHOTS when set.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <algorithm>

#include <QApplication>
#include <QDir>
#include <QTableView>
#include <QTableWidget>
#include <QHeaderView>
#include <QIcon>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QScreen>
#include <QTest>
#include <QTextDocument>
#include <QtMath>

#include "ui/common/wrapping_header_view.h"
#include "ui/i18n/language_manager.h"
#include "ui/lessons/callout_item_delegate.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/lessons/lesson_panel.h"
#include "ui/lessons/lesson_workspace.h"
#include "ui/lessons/plot_callouts.h"
#include "ui/main_window.h"
#include "ui/training/memory_ledger_table.h"
#include "ui/training/plot_panel.h"
#include "ui/presentation/presenter_mode.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

// Below this a plot's data area is too small to read from the back of a classroom.
// The plot area every plot panel promises (PlotPanel's minimum), not a second number of the test's own.
constexpr int kMinAxisWidth = PlotPanel::kMinAxisWidth;
constexpr int kMinAxisHeight = PlotPanel::kMinAxisHeight;
// Steps a training lesson runs before the checks: enough for every plot to have data.
constexpr int64_t kSteps = 3;

QSize expectedScreen() {
  const QStringList parts = qEnvironmentVariable("AMPSCOPE_LAYOUT_SCREEN").split(u'x');
  if (parts.size() != 2) return {};
  return {parts[0].toInt(), parts[1].toInt()};
}

QString describe(const QRect& r) {
  return QStringLiteral("%1x%2+%3+%4").arg(r.width()).arg(r.height()).arg(r.x()).arg(r.y());
}

// Waits until the window's layout has settled: a font or language change posts layout requests whose new
// minimums post more, and the window's fit to the screen runs from a zero-timer after them, so one short
// wait can catch the layout half way (how long the rounds take depends on the machine's load). Settled:
// one round of posted events changes no widget's geometry. Bounded, so a layout that never settles
// still gets checked (and fails there).
void settle(const QWidget& window) {
  auto geometries = [&window] {
    QVector<QRect> all{window.geometry()};
    for (const QWidget* w : window.findChildren<QWidget*>()) all << (w->isVisible() ? w->geometry() : QRect());
    return all;
  };
  QVector<QRect> before = geometries();
  for (int round = 0; round < 50; ++round) {
    QTest::qWait(20);
    const QVector<QRect> after = geometries();
    if (after == before) return;
    before = after;
  }
}

bool onScreen(const QWidget* w) { return w->isVisible() && !w->visibleRegion().isEmpty(); }

QString widgetPath(const QWidget* w) {
  QStringList names;
  for (const QWidget* p = w; p; p = p->parentWidget()) {
    names.prepend(p->objectName().isEmpty() ? QString::fromLatin1(p->metaObject()->className()) : p->objectName());
  }
  return names.join(u'/');
}

void checkWindow(const MainWindow& window, QStringList& failures) {
  const QRect available = window.screen()->availableGeometry();
  if (!available.contains(window.frameGeometry())) {
    // Name what holds the window open: the docks' minimum sizes.
    QStringList minimums;
    for (const QDockWidget* dock : window.findChildren<QDockWidget*>()) {
      if (dock->isVisible()) {
        minimums << QStringLiteral("%1 %2x%3")
                        .arg(dock->objectName())
                        .arg(dock->minimumSizeHint().width())
                        .arg(dock->minimumSizeHint().height());
      }
    }
    failures << QStringLiteral("window %1 does not fit the screen's %2 (window minimum %3x%4; docks: %5)")
                    .arg(describe(window.frameGeometry()), describe(available))
                    .arg(window.minimumSizeHint().width())
                    .arg(window.minimumSizeHint().height())
                    .arg(minimums.join(QStringLiteral(", ")));
  }
}

void checkPlots(const MainWindow& window, QStringList& failures) {
  for (QCustomPlot* plot : window.findChildren<QCustomPlot*>()) {
    if (!onScreen(plot) || !plot->axisRect()) continue;
    const QRect rect = plot->axisRect()->rect();
    if (rect.width() < kMinAxisWidth || rect.height() < kMinAxisHeight) {
      failures << QStringLiteral("plot %1: axis rect %2 is below %3x%4")
                      .arg(widgetPath(plot), describe(rect))
                      .arg(kMinAxisWidth)
                      .arg(kMinAxisHeight);
    }
  }
}

void checkLabels(const MainWindow& window, QStringList& failures) {
  for (QLabel* label : window.findChildren<QLabel*>()) {
    if (!onScreen(label) || label->wordWrap() || label->text().isEmpty()) continue;
    QString text = label->text();
    // A mnemonic's '&' is not drawn ("&&" is one '&').
    if (label->buddy()) text.replace(QRegularExpression(QStringLiteral("&(.)")), QStringLiteral("\\1"));
    const bool rich = Qt::mightBeRichText(text) || label->textFormat() == Qt::RichText;
    if (rich) {
      // Rich text is laid out as QLabel lays it out (a subscript is narrower than its plain digit).
      QTextDocument document;
      document.setDocumentMargin(0);
      document.setDefaultFont(label->font());
      document.setHtml(text);
      if (document.toPlainText().contains(QChar(0x2026))) continue;
      const QRect contents = label->contentsRect();
      const QSizeF size(document.idealWidth(), document.size().height());
      if (size.width() > contents.width() + 1 || size.height() > contents.height() + 1) {
        failures << QStringLiteral("label %1 '%2': rich text %3x%4 does not fit %5x%6")
                        .arg(widgetPath(label), document.toPlainText().left(40))
                        .arg(qCeil(size.width()))
                        .arg(qCeil(size.height()))
                        .arg(contents.width())
                        .arg(contents.height());
      }
      continue;
    }
    // A label showing an ellipsis was elided on purpose (the full text is in its tool tip).
    if (text.contains(QChar(0x2026))) continue;
    const QFontMetrics metrics(label->font());
    const QRect contents = label->contentsRect();
    int width = 0;
    const QStringList lines = text.split(u'\n');
    for (const QString& line : lines) width = std::max(width, metrics.horizontalAdvance(line));
    const int height = metrics.height() * static_cast<int>(lines.size());
    if (width > contents.width() + 1 || height > contents.height() + 1) {
      failures << QStringLiteral("label %1 '%2': text %3x%4 does not fit %5x%6")
                      .arg(widgetPath(label), text.left(40))
                      .arg(width)
                      .arg(height)
                      .arg(contents.width())
                      .arg(contents.height());
    }
  }
}

void checkHeaders(const MainWindow& window, QStringList& failures) {
  for (QHeaderView* header : window.findChildren<QHeaderView*>()) {
    // A header paints in its viewport, which covers it: the header's own visible region is empty.
    if (!onScreen(header->viewport()) || header->orientation() != Qt::Horizontal || !header->model()) continue;
    const auto* wrapping = qobject_cast<WrappingHeaderView*>(header);
    const QFontMetrics metrics(header->font());
    const int margin = header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
    const int icon = header->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, header);
    for (int i = 0; i < header->count(); ++i) {
      if (header->isSectionHidden(i) || header->sectionSize(i) == 0) continue;
      const QString label = header->model()->headerData(i, Qt::Horizontal, Qt::DisplayRole).toString();
      if (label.isEmpty()) continue;
      QStringList lines{label};
      int width = header->sectionSize(i) - 2 * margin;
      if (wrapping) {
        lines = wrapping->displayedLines(i);
        width = wrapping->textWidth(i, header->sectionSize(i));
        // An elided label says so with "…" and shows the rest in its tool tip.
        if (lines.size() == 1 && lines.front().endsWith(QChar(0x2026))) continue;
        if (lines.join(QString()).remove(u' ') != QString(label).remove(u' ')) {  // CJK lines join without spaces
          failures << QStringLiteral("header %1 '%2': drawn as '%3'").arg(widgetPath(header), label, lines.join(u'|'));
        }
      } else if (!header->model()->headerData(i, Qt::Horizontal, Qt::DecorationRole).value<QIcon>().isNull()) {
        width -= icon + margin;
      }
      int widest = 0;
      for (const QString& line : lines) widest = std::max(widest, metrics.horizontalAdvance(line));
      const int height = static_cast<int>(lines.size()) * metrics.lineSpacing();
      if (widest > width + 1 || height > header->height()) {
        failures << QStringLiteral("header %1 '%2': text %3x%4 does not fit its section's %5x%6")
                        .arg(widgetPath(header), label.left(40))
                        .arg(widest)
                        .arg(height)
                        .arg(width)
                        .arg(header->height());
      }
    }
  }
}

void checkCells(const MainWindow& window, QStringList& failures) {
  for (QTableView* table : window.findChildren<QTableView*>()) {
    if (!onScreen(table->viewport()) || !table->model()) continue;
    const QAbstractItemModel* model = table->model();
    // QCommonStyle's item text margin: PM_FocusFrameHMargin + 1 on each side.
    const int margin = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
    const QRect view = table->viewport()->rect();
    for (int row = 0; row < model->rowCount(); ++row) {
      for (int column = 0; column < model->columnCount(); ++column) {
        const QModelIndex index = model->index(row, column);
        const QRect cell = table->visualRect(index);
        // A cell the user can scroll to is not cut: only cells wholly in view are read.
        if (cell.isEmpty() || cell.left() < view.left() || cell.right() > view.right()) continue;
        const QString text = model->data(index, Qt::DisplayRole).toString();
        if (text.isEmpty()) continue;
        const QVariant font = model->data(index, Qt::FontRole);
        const QFontMetrics metrics(font.isValid() ? font.value<QFont>() : table->font());
        int width = metrics.horizontalAdvance(text) + margin;
        if (!model->data(index, Qt::DecorationRole).isNull()) width += table->iconSize().width() + margin;
        if (width > cell.width() + 1) {
          failures << QStringLiteral("table %1 cell (%2,%3) '%4': text needs %5 px, the column gives %6")
                          .arg(widgetPath(table))
                          .arg(row)
                          .arg(column)
                          .arg(text.left(40))
                          .arg(width)
                          .arg(cell.width());
        }
      }
    }
  }
}

// The lesson's callouts as PlotCallouts last placed them: each box and the point its leader ends at (the
// boxes are checked against the label items the plot drew, so a box that moved after placing fails too).
void checkCallouts(const MainWindow& window, QStringList& failures) {
  for (QCustomPlot* plot : window.findChildren<QCustomPlot*>()) {
    if (!onScreen(plot)) continue;
    auto* placed = plot->findChild<PlotCallouts*>(QString(), Qt::FindDirectChildrenOnly);
    if (!placed || placed->count() == 0) continue;
    // What a callout must leave readable: the plot's own texts (zone labels, notes) and its legend.
    QVector<QPair<QString, QRectF>> keepClear;
    if (plot->legend && plot->legend->realVisibility())
      keepClear << qMakePair(QStringLiteral("the legend"), QRectF(plot->legend->outerRect()));
    QList<QRectF> drawn;
    for (int i = 0; i < plot->itemCount(); ++i) {
      auto* text = qobject_cast<QCPItemText*>(plot->item(i));
      if (!text || !text->visible() || !text->layer()->visible()) continue;
      const QRectF rect = QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized();
      if (text->objectName() == QLatin1String("lessonCalloutText"))
        drawn << rect;
      else
        keepClear << qMakePair(QStringLiteral("the label \"%1\"").arg(text->text().simplified()), rect);
    }
    const QList<QRectF> rects = placed->rects();
    const QList<QPointF> anchors = placed->anchors();
    if (drawn.size() != rects.size())
      failures << QStringLiteral("plot %1: %2 callouts placed, %3 drawn").arg(widgetPath(plot)).arg(rects.size()).arg(drawn.size());
    for (qsizetype i = 0; i < rects.size(); ++i) {
      const QRectF& a = rects[i];
      if (std::none_of(drawn.begin(), drawn.end(), [&](const QRectF& d) { return (d.topLeft() - a.topLeft()).manhattanLength() < 2; }))
        failures << QStringLiteral("plot %1: callout %2 is not drawn where it was placed").arg(widgetPath(plot)).arg(i);
      for (qsizetype k = 0; k < anchors.size(); ++k) {
        if (a.contains(anchors[k]))
          failures << QStringLiteral("plot %1: callout %2 covers the anchor of callout %3").arg(widgetPath(plot)).arg(i).arg(k);
      }
      for (const auto& [what, rect] : keepClear) {
        if (a.intersects(rect)) failures << QStringLiteral("plot %1: callout %2 covers %3").arg(widgetPath(plot)).arg(i).arg(what);
      }
      for (qsizetype j = i + 1; j < rects.size(); ++j) {
        if (a.intersects(rects[j]))
          failures << QStringLiteral("plot %1: callouts %2 and %3 intersect").arg(widgetPath(plot)).arg(i).arg(j);
      }
    }
  }
}

// The ledger's last row (Peak) inside the table's viewport, not scrolled or cut away.
void checkLedgers(const MainWindow& window, QStringList& failures) {
  for (MemoryLedgerTable* ledger : window.findChildren<MemoryLedgerTable*>()) {
    QTableWidget* table = ledger->table();
    if (!onScreen(table) || table->columnCount() == 0 || table->rowCount() == 0) continue;
    const int last = table->rowCount() - 1;
    const QRect row = table->visualRect(table->model()->index(last, 0));
    if (row.isEmpty() || row.top() < 0 || row.bottom() >= table->viewport()->height())
      failures << QStringLiteral("%1: the row \"%2\" is not wholly in view (rows %3, viewport %4 px high)")
                      .arg(widgetPath(table), table->verticalHeaderItem(last) ? table->verticalHeaderItem(last)->text() : QString())
                      .arg(describe(row))
                      .arg(table->viewport()->height());
  }
}

// Every item of the lesson's list, its text's first line and its state line, wholly in the list's viewport
// and not covered: no item to scroll to. An item may cut its text with "…" (its tool tip holds it all)
// but never its state.
void checkLessonItems(const MainWindow& window, QStringList& failures) {
  const auto* panel = window.findChild<LessonPanel*>();
  if (!panel) return;
  QListWidget* list = panel->calloutList();
  if (list->count() == 0) return;
  QWidget* viewport = list->viewport();
  if (!onScreen(viewport)) {
    failures << QStringLiteral("%1: the lesson's items are not on screen").arg(widgetPath(list));
    return;
  }
  const QRegion hidden = QRegion(viewport->rect()).subtracted(viewport->visibleRegion());
  const QFontMetrics metrics(list->font());
  // Compact, the state is in the badge on the item's one line.
  const auto* delegate = qobject_cast<CalloutItemDelegate*>(list->itemDelegate());
  const bool compact = delegate && delegate->compact();
  for (int i = 0; i < list->count(); ++i) {
    QListWidgetItem* item = list->item(i);
    const QRect rect = list->visualItemRect(item);
    const bool stated = !compact && !item->data(CalloutItemDelegate::kStateRole).toString().isEmpty();
    const int needed = (stated ? 2 : 1) * metrics.lineSpacing();
    // A panel squeezed below its minimum lays its widgets over each other: the item under another one.
    const QRect inPanel(viewport->mapTo(panel, rect.topLeft()), rect.size());
    for (const QWidget* other : panel->findChildren<QWidget*>()) {
      if (other == list || list->isAncestorOf(other) || other->isAncestorOf(list) || !other->isVisible() ||
          other->isWindow())
        continue;
      const QRect otherInPanel(other->mapTo(panel, QPoint(0, 0)), other->size());
      if (otherInPanel.intersects(inPanel))
        failures << QStringLiteral("%1: item %2 is under %3").arg(widgetPath(list)).arg(i + 1).arg(widgetPath(other));
    }
    if (rect.isEmpty() || !viewport->rect().contains(rect) || hidden.intersects(rect) || rect.height() < needed)
      failures << QStringLiteral("%1: item %2 '%3' is not wholly in view (item %4, viewport %5, %6 px needed)")
                      .arg(widgetPath(list))
                      .arg(i + 1)
                      .arg(item->data(CalloutItemDelegate::kTextRole).toString().left(30), describe(rect),
                           describe(viewport->rect()))
                      .arg(needed);
  }
}

// A first start (no saved geometry) on this screen: the window takes the available area (up to
// 1920x1200), so a projector's pixels go to the lesson; before, it opened at 1400x900 on a 1080p screen.
TEST(LayoutCheck, AFirstStartUsesTheScreensAvailableArea) {
  const QSize screen = expectedScreen();
  if (!screen.isValid()) GTEST_SKIP() << "run through CTest, which sets AMPSCOPE_LAYOUT_SCREEN and the screen";
  MainWindow window;
  window.setLayoutPersistence(false);
  LessonWorkspace lessons(window);
  window.restoreLayout();
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  settle(window);
  const QRect available = window.screen()->availableGeometry();
  EXPECT_EQ(window.frameGeometry(), available) << describe(window.frameGeometry()).toStdString();
  window.trainingWorkspace()->shutdown();
}

TEST(LayoutCheck, EveryLessonFitsInBothLanguagesWithAndWithoutPresenterScaling) {
  const QSize screen = expectedScreen();
  if (!screen.isValid()) GTEST_SKIP() << "run through CTest, which sets AMPSCOPE_LAYOUT_SCREEN and the screen";
  ASSERT_EQ(QGuiApplication::primaryScreen()->size(), screen) << "the offscreen screen was not configured";
  const QString shots = qEnvironmentVariable("AMPSCOPE_LAYOUT_SHOTS");
  if (!shots.isEmpty()) QDir().mkpath(shots);

  LanguageManager languages;
  MainWindow window;
  window.setLayoutPersistence(false);
  PresenterMode presenter(&window);
  LessonWorkspace lessons(window);
  window.restoreLayout();
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  TrainingWorkspace* workspace = window.trainingWorkspace();
  RunController* run = workspace->controller();

  int cases = 0;
  QStringList failedCases;
  for (const QString& language : {QStringLiteral("en"), QStringLiteral("zh_CN")}) {
    ASSERT_TRUE(languages.setLanguage(language, LanguageManager::Persist::No));
    for (const bool scaled : {false, true}) {
      presenter.setScaled(scaled);
      if (scaled && lessons.controller()->currentLesson()) {
        // Scaling toggled with a lesson open (the teacher presses F5 in class): its items still all in view.
        settle(window);
        QStringList failures;
        checkWindow(window, failures);
        checkLessonItems(window, failures);
        if (!failures.isEmpty()) {
          const QString name = QStringLiteral("%1-%2-presenter-toggled").arg(lessons.controller()->currentLesson()->id, language);
          failedCases << name;
          ADD_FAILURE() << name.toStdString() << ":\n  " << failures.join(QStringLiteral("\n  ")).toStdString();
        }
      }
      for (int index = 0; index < lessons.library().size(); ++index) {
        const Lesson& lesson = lessons.library().at(index);
        ASSERT_TRUE(lessons.controller()->openLesson(lesson.id));
        if (lesson.config) {
          RunConfig config = workspace->runPanel()->config();
          config.steps = kSteps;
          ASSERT_TRUE(run->start(config));
          ASSERT_TRUE(QTest::qWaitFor([&] { return run->state() == RunState::Finished; }, 60000)) << lesson.id.toStdString();
          run->drainNow();
        }
        settle(window);  // queued layouts and the window's fit to the screen
        for (QCustomPlot* plot : window.findChildren<QCustomPlot*>()) plot->replot(QCustomPlot::rpImmediateRefresh);
        settle(window);  // a replot may change a plot's minimum (its axes' margins)
        ++cases;
        const QString name = QStringLiteral("%1x%2-%3-%4%5")
                                 .arg(screen.width())
                                 .arg(screen.height())
                                 .arg(lesson.id, language, scaled ? QStringLiteral("-presenter") : QString());
        QStringList failures;
        checkWindow(window, failures);
        checkPlots(window, failures);
        checkLabels(window, failures);
        checkHeaders(window, failures);
        checkCells(window, failures);
        checkCallouts(window, failures);
        checkLedgers(window, failures);
        checkLessonItems(window, failures);
        if (!shots.isEmpty()) window.grab().save(QDir(shots).filePath(name + QStringLiteral(".png")));
        if (!failures.isEmpty()) {
          failedCases << name;
          ADD_FAILURE() << name.toStdString() << ":\n  " << failures.join(QStringLiteral("\n  ")).toStdString();
        }
      }
    }
  }
  presenter.setScaled(false);
  workspace->shutdown();
  std::printf("layout check on %dx%d: %d cases, %lld failed\n", screen.width(), screen.height(), cases,
              static_cast<long long>(failedCases.size()));
  EXPECT_EQ(cases, 4 * lessons.library().size());
}

}  // namespace
}  // namespace ampscope::ui
