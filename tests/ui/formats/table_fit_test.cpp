// The formats panel's tables are as tall as their rows: no vertical scrolling inside a table, whatever
// the number of formats; where the dock is short the whole panel scrolls instead.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QTest>

#include "ui/formats/finfo_table_widget.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/formats/table_fit.h"
#include "ui/formats/underflow_table_widget.h"
#include "ui/main_window.h"

namespace ampscope::ui::formats {
namespace {

// Every row lies inside the viewport: the last row's bottom edge is not below it.
void expectAllRowsShown(const QTableWidget* table) {
  ASSERT_GT(table->rowCount(), 0);
  const int last = table->rowCount() - 1;
  EXPECT_LE(table->rowViewportPosition(last) + table->rowHeight(last), table->viewport()->height())
      << table->objectName().toStdString() << ": " << table->rowCount() << " rows";
  EXPECT_EQ(table->verticalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
}

TEST(TableFit, TheFormatTablesShowEveryRowInAShortDock) {
  MainWindow window;
  window.restoreLayout();
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  NumberFormatsPanel* panel = window.numberFormatsPanel();
  for (QDockWidget* dock : window.findChildren<QDockWidget*>())
    if (dock != window.numberFormatsDock()) dock->hide();
  window.resize(900, 330);  // the dock shorter than the panel with either table
  auto* scroll = window.numberFormatsDock()->findChild<QScrollArea*>(QStringLiteral("numberFormatsScroll"));
  ASSERT_NE(scroll, nullptr);
  EXPECT_EQ(scroll->widget(), panel);
  for (int tab = 0; tab < panel->tabs()->count(); ++tab) {
    panel->tabs()->setCurrentIndex(tab);
    QTest::qWait(20);
    if (panel->tabs()->currentWidget() == panel->finfoTable()) expectAllRowsShown(panel->finfoTable()->table());
    if (panel->tabs()->currentWidget() == panel->underflowTable()) {
      expectAllRowsShown(panel->underflowTable()->table());
      // The dock really is short: the scroll area around the whole panel takes what the table needs.
      EXPECT_GT(scroll->verticalScrollBar()->maximum(), 0);
    }
  }
  EXPECT_LT(window.numberFormatsDock()->minimumSizeHint().height(), 200);
}

TEST(TableFit, ARowAddedLaterGrowsTheTable) {
  QTableWidget table(3, 2);
  table.setObjectName(QStringLiteral("growing"));
  TableFit::fitToRows(&table);
  table.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&table));
  const int before = table.height();
  table.insertRow(3);
  table.insertRow(4);
  QTest::qWait(20);
  EXPECT_EQ(table.height(), before + table.rowHeight(3) + table.rowHeight(4));
  expectAllRowsShown(&table);
}

TEST(TableFit, ColumnsFollowAFontChangeInProportion) {
  QTableWidget table(1, 2);
  table.setItem(0, 0, new QTableWidgetItem(QStringLiteral("1.797693e+308")));
  table.resizeColumnsToContents();
  TableFit::fitToRows(&table);
  const int before = table.columnWidth(0);
  const int fontBefore = table.fontMetrics().height();
  QFont larger = table.font();
  larger.setPointSizeF(larger.pointSizeF() * 1.5);
  table.setFont(larger);
  const int fontAfter = table.fontMetrics().height();
  ASSERT_GT(fontAfter, fontBefore);
  EXPECT_NEAR(table.columnWidth(0), before * fontAfter / fontBefore, 1);
  // The widened column holds its number at the new size.
  EXPECT_GE(table.columnWidth(0), table.fontMetrics().horizontalAdvance(QStringLiteral("1.797693e+308")));
}

}  // namespace
}  // namespace ampscope::ui::formats
