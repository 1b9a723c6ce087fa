// The memory ledger's six rows in a short dock: at 1280x720 (four modes, the header on two lines) the
// rows were 30 pixels each and the Peak row, the one the lesson is about, was scrolled half out of view.
#include <gtest/gtest.h>

#include <QFontMetrics>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableWidget>
#include <QTest>
#include <vector>

#include "ui/training/memory_ledger_table.h"

namespace ampscope::ui {
namespace {

std::vector<MemoryLedgerTable::ModeLedger> fourModes() {
  std::vector<MemoryLedgerTable::ModeLedger> ledgers;
  int64_t bytes = 1 << 20;
  for (PrecisionMode mode : {PrecisionMode::FP32, PrecisionMode::FP16Pure, PrecisionMode::FP16AmpScaled,
                             PrecisionMode::BF16Amp}) {
    MemoryLedger l;
    l.parameters = l.gradients = bytes;
    l.activations = l.temporaries = bytes / 2;
    l.peak = 3 * bytes;
    ledgers.push_back({mode, l});
    bytes += 4096;
  }
  return ledgers;
}

// The bottom of the last row inside the viewport: every row is in view.
bool allRowsInView(const QTableWidget& table) {
  const int last = table.rowCount() - 1;
  return table.rowViewportPosition(last) >= 0 &&
         table.rowViewportPosition(last) + table.rowHeight(last) <= table.viewport()->height();
}

TEST(MemoryLedgerTable, SixRowsFitAShortDockAndStayCompactInATallOne) {
  MemoryLedgerTable ledger;
  ledger.setLedgers(fourModes());
  ledger.resize(630, 210);  // the ledger dock of the half-vs-autocast lesson at 1280x720
  ledger.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&ledger));
  QTableWidget* table = ledger.table();
  const int text = QFontMetrics(table->font()).height();
  EXPECT_TRUE(QTest::qWaitFor([&] { return allRowsInView(*table); }, 2000))
      << "row height " << table->rowHeight(0) << ", viewport " << table->viewport()->height() << ", header "
      << table->horizontalHeader()->height();
  EXPECT_FALSE(table->verticalScrollBar()->isVisible());
  for (int r = 0; r < table->rowCount(); ++r) EXPECT_GE(table->rowHeight(r), text + 4) << "row " << r;

  ledger.resize(630, 700);
  EXPECT_TRUE(QTest::qWaitFor([&] { return table->rowHeight(0) > text + 4; }, 2000));
  for (int r = 0; r < table->rowCount(); ++r) EXPECT_LE(table->rowHeight(r), text + 14) << "row " << r;
  EXPECT_TRUE(allRowsInView(*table));

  // Larger type (presenter scaling) makes the rows taller with it.
  QFont big = ledger.font();
  big.setPointSizeF(big.pointSizeF() * 1.5);
  ledger.setFont(big);
  const int bigText = QFontMetrics(table->font()).height();
  ASSERT_GT(bigText, text);
  EXPECT_TRUE(QTest::qWaitFor([&] { return table->rowHeight(0) >= bigText + 4; }, 2000)) << table->rowHeight(0);
}

}  // namespace
}  // namespace ampscope::ui
