// The formats panel's tables are as tall as their rows: no vertical scrolling inside a table, whatever
// the number of formats; where the dock is short the whole panel scrolls instead.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QFontMetrics>
#include <QHeaderView>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QTableWidget>
#include <QTest>

#include "ui/formats/finfo_table_widget.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/formats/table_fit.h"
#include "ui/formats/underflow_table_widget.h"
#include "ui/i18n/language_manager.h"
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

// Every header's text, in the header's font, fits its section with the style's margins on both sides.
void expectHeadersFit(const QTableWidget* table) {
  const QHeaderView* header = table->horizontalHeader();
  const QFontMetrics metrics(header->font());
  const int margins = 2 * header->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, header);
  for (int c = 0; c < table->columnCount(); ++c) {
    const QString text = table->horizontalHeaderItem(c)->text();
    EXPECT_LE(metrics.horizontalAdvance(text) + margins, header->sectionSize(c))
        << table->objectName().toStdString() << " column " << c << " \"" << text.toStdString() << "\"";
    EXPECT_LE(header->sectionSizeHint(c), header->sectionSize(c)) << "column " << c;
  }
}

// The finfo table's headers are set in English when the table is built; View > Language switches them
// in place. The columns must follow: "s+e+m" is 符号+指数+尾数 in Chinese, several times as wide.
TEST(TableFit, ColumnsRefitWhenTheLanguageChanges) {
  LanguageManager languages;
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en"), LanguageManager::Persist::No));
  FinfoTableWidget finfo;
  finfo.resize(1400, 600);
  finfo.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&finfo));
  QTableWidget* table = finfo.table();
  QVector<int> english;
  for (int c = 0; c < table->columnCount(); ++c) english.append(table->columnWidth(c));
  expectHeadersFit(table);

  ASSERT_TRUE(languages.setLanguage(QStringLiteral("zh_CN"), LanguageManager::Persist::No));
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LanguageChange);
  QTest::qWait(20);
  ASSERT_EQ(table->horizontalHeaderItem(2)->text(), QString::fromUtf8("符号+指数+尾数"));
  expectHeadersFit(table);
  EXPECT_GT(table->columnWidth(2), english[2]);

  // A larger font (presenter scaling) in Chinese: still every header fits.
  const QFont original = finfo.font();
  QFont larger = original;
  larger.setPointSizeF(larger.pointSizeF() * 1.5);
  finfo.setFont(larger);
  QTest::qWait(20);
  expectHeadersFit(table);
  finfo.setFont(original);
  QTest::qWait(20);

  // Back in English, the owner's widths again.
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en"), LanguageManager::Persist::No));
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LanguageChange);
  QTest::qWait(20);
  ASSERT_EQ(table->horizontalHeaderItem(2)->text(), QStringLiteral("s+e+m"));
  expectHeadersFit(table);
  for (int c = 0; c < table->columnCount(); ++c) EXPECT_EQ(table->columnWidth(c), english[c]) << "column " << c;
}

}  // namespace
}  // namespace ampscope::ui::formats
