// WrappingHeaderView: labels wrap at word boundaries in narrow columns, the header grows to show every
// line, and a word too wide for its column elides the label (the full label is then the tool tip).
#include <gtest/gtest.h>

#include <QApplication>
#include <QFontMetrics>
#include <QTableWidget>
#include <QTest>

#include "ui/common/wrapping_header_view.h"
#include "ui/training/memory_ledger_table.h"

namespace ampscope::ui {
namespace {

const QString kLong = QStringLiteral("FP16 pure (model.half())");

TEST(WrappingHeaderView, WrapsAtWordsAndElidesOnlyAWordTooWideForAnyLine) {
  const QFontMetrics metrics(QApplication::font());
  const int words = metrics.horizontalAdvance(QStringLiteral("FP16 pure"));
  const int tail = metrics.horizontalAdvance(QStringLiteral("(model.half())"));
  EXPECT_EQ(WrappingHeaderView::wrap(kLong, QApplication::font(), metrics.horizontalAdvance(kLong)), QStringList{kLong});
  EXPECT_EQ(WrappingHeaderView::wrap(kLong, QApplication::font(), std::max(words, tail)),
            (QStringList{QStringLiteral("FP16 pure"), QStringLiteral("(model.half())")}));
  const QStringList elided = WrappingHeaderView::wrap(kLong, QApplication::font(), tail - 1);
  ASSERT_EQ(elided.size(), 1);
  EXPECT_TRUE(elided.front().endsWith(QChar(0x2026))) << elided.front().toStdString();
  EXPECT_LE(metrics.horizontalAdvance(elided.front()), tail - 1);
  EXPECT_EQ(WrappingHeaderView::wrap(QString(), QApplication::font(), 10), QStringList{QString()});
}

// The label with its lines joined, spaces dropped: what a reader sees, however it is broken.
QString joined(const QStringList& lines) { return lines.join(QString()).remove(u' '); }

TEST(WrappingHeaderView, ChineseBreaksBetweenCharactersAsUnicodeAllows) {
  // UAX #14: a break is allowed between two ideographs (ID x ID) and before a full-width opening
  // parenthesis (OP of East Asian width F), so the Chinese label needs no space to wrap.
  const QString zh = QStringLiteral("纯 FP16（model.half()）");
  const QFontMetrics metrics(QApplication::font());
  const int segment = metrics.horizontalAdvance(QStringLiteral("（model.half()）"));
  const QStringList lines = WrappingHeaderView::wrap(zh, QApplication::font(), segment + 2);
  EXPECT_GE(lines.size(), 2);
  EXPECT_EQ(joined(lines), QString(zh).remove(u' '));
  const QString ledger = QStringLiteral("由计数式分配器测得");
  const QStringList cjk = WrappingHeaderView::wrap(ledger, QApplication::font(),
                                                   metrics.horizontalAdvance(QStringLiteral("由计数")) + 1);
  EXPECT_GE(cjk.size(), 3);
  EXPECT_EQ(joined(cjk), ledger);
}

// Every line of every section fits the width its section leaves for text.
void expectLinesFit(const WrappingHeaderView& header) {
  for (int i = 0; i < header.count(); ++i) {
    const int width = header.textWidth(i, header.sectionSize(i));
    for (const QString& line : header.displayedLines(i)) {
      EXPECT_LE(header.fontMetrics().horizontalAdvance(line), width) << line.toStdString();
    }
  }
}

TEST(WrappingHeaderView, TheHeaderGrowsForWrappedLabelsAndShrinksWhenTheyFitAgain) {
  QTableWidget table(2, 4);
  auto* header = new WrappingHeaderView(&table);
  table.setHorizontalHeader(header);
  header->setSectionResizeMode(QHeaderView::Stretch);
  table.setHorizontalHeaderLabels({QStringLiteral("FP32"), kLong, QStringLiteral("FP16 AMP + GradScaler"),
                                   QStringLiteral("BF16 AMP")});
  const int oneLine = header->fontMetrics().lineSpacing();
  table.resize(1400, 300);
  table.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&table));
  QTest::qWait(50);
  EXPECT_EQ(header->displayedLines(1).size(), 1);
  const int wide = header->height();
  EXPECT_LT(wide, 2 * oneLine);

  table.resize(480, 300);
  // QTRY_* would report to QtTest, not to GoogleTest: wait, then expect.
  EXPECT_TRUE(QTest::qWaitFor([&] { return header->height() >= wide + oneLine; }, 3000))  // a second line
      << header->height() << " vs " << wide;
  EXPECT_GE(header->displayedLines(1).size(), 2);
  expectLinesFit(*header);

  table.resize(1400, 300);
  EXPECT_TRUE(QTest::qWaitFor([&] { return header->height() == wide; }, 3000)) << header->height() << " vs " << wide;
}

TEST(WrappingHeaderView, AColumnResizedOnItsOwnRefitsTheHeight) {
  // A user dragging one column narrower changes no widget's size; the header must still grow.
  QTableWidget table(2, 2);
  auto* header = new WrappingHeaderView(&table);
  table.setHorizontalHeader(header);
  table.setHorizontalHeaderLabels({QStringLiteral("FP32"), kLong});
  header->resizeSection(1, header->fontMetrics().horizontalAdvance(kLong) + 60);
  table.resize(900, 300);
  table.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&table));
  QTest::qWait(50);
  const int wide = header->height();
  header->resizeSection(1, header->fontMetrics().horizontalAdvance(QStringLiteral("(model.half())")) + 40);
  EXPECT_TRUE(QTest::qWaitFor([&] { return header->height() >= wide + header->fontMetrics().lineSpacing(); }, 3000))
      << header->height() << " vs " << wide;
  expectLinesFit(*header);
}

TEST(WrappingHeaderView, TheMemoryLedgerNamesEveryModeInFullOrElided) {
  MemoryLedgerTable ledger;
  std::vector<MemoryLedgerTable::ModeLedger> ledgers;
  for (PrecisionMode mode : {PrecisionMode::FP32, PrecisionMode::FP16Pure, PrecisionMode::FP16AmpScaled,
                             PrecisionMode::BF16Amp}) {
    ledgers.push_back({mode, MemoryLedger{}});
  }
  ledger.setLedgers(ledgers);
  ledger.resize(560, 300);
  ledger.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&ledger));
  auto* header = qobject_cast<WrappingHeaderView*>(ledger.table()->horizontalHeader());
  ASSERT_NE(header, nullptr);
  QTest::qWait(50);
  expectLinesFit(*header);
  // Wrapped lines join back to the whole label: nothing is cut off silently.
  for (int i = 0; i < header->count(); ++i) {
    const QString label = ledger.table()->horizontalHeaderItem(i)->text();
    const QStringList lines = header->displayedLines(i);
    if (lines.size() > 1 || !lines.front().endsWith(QChar(0x2026))) {
      EXPECT_EQ(joined(lines), QString(label).remove(u' '));
    }
  }
}

}  // namespace
}  // namespace ampscope::ui
