#include "ui/training/memory_ledger_table.h"

#include <QHeaderView>
#include <QLabel>
#include <QEvent>
#include <QFontMetrics>
#include <QPushButton>
#include <QScrollBar>
#include <QStyle>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/common/wrapping_header_view.h"
#include "ui/training/mode_palette.h"

namespace ampscope::ui {

MemoryLedgerTable::MemoryLedgerTable(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* top = new QHBoxLayout;
  note_ = new QLabel(tr("Measured by a counting CPU allocator at the last step of each mode."), this);
  note_->setWordWrap(true);
  auto* refresh = new QPushButton(tr("Refresh"), this);
  top->addWidget(note_, 1);
  top->addWidget(refresh);
  layout->addLayout(top);
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setHorizontalHeader(new WrappingHeaderView(table_));  // mode names wrap in narrow columns
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table_->installEventFilter(this);
  table_->horizontalHeader()->installEventFilter(this);
  layout->addWidget(table_, 1);
  connect(refresh, &QPushButton::clicked, this, &MemoryLedgerTable::refreshRequested);
  clear();
}

QString MemoryLedgerTable::formatBytes(int64_t bytes) {
  if (bytes < 0) return QStringLiteral("—");
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return QStringLiteral("%1 B").arg(bytes);
  return QStringLiteral("%1 %2").arg(value, 0, 'f', value < 10 ? 2 : value < 100 ? 1 : 0).arg(QLatin1String(kUnits[unit]));
}

void MemoryLedgerTable::clear() {
  table_->clear();
  table_->setColumnCount(0);
  const QStringList rows{tr("Parameters"), tr("Gradients"), tr("Optimizer state"), tr("Activations"),
                         tr("Temporaries"), tr("Peak")};
  table_->setRowCount(static_cast<int>(rows.size()));
  table_->setVerticalHeaderLabels(rows);
}

void MemoryLedgerTable::setLedgers(const std::vector<ModeLedger>& ledgers) {
  clear();
  table_->setColumnCount(static_cast<int>(ledgers.size()));
  for (int c = 0; c < static_cast<int>(ledgers.size()); ++c) {
    const ModeLedger& l = ledgers[static_cast<size_t>(c)];
    auto* header = new QTableWidgetItem(ModePalette::swatch(l.mode), ModePalette::label(l.mode));
    table_->setHorizontalHeaderItem(c, header);
    const int64_t values[] = {l.ledger.parameters,  l.ledger.gradients,   l.ledger.optimizerState,
                              l.ledger.activations, l.ledger.temporaries, l.ledger.peak};
    for (int r = 0; r < 6; ++r) {
      auto* item = new QTableWidgetItem(formatBytes(values[r]));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      item->setToolTip(tr("%1 bytes").arg(values[r]));
      if (r == 5) {
        QFont f = table_->font();
        f.setBold(true);
        item->setFont(f);
      }
      table_->setItem(r, c, item);
    }
  }
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  fitColumns();
}

void MemoryLedgerTable::fitColumns() {
  auto* header = static_cast<WrappingHeaderView*>(table_->horizontalHeader());
  // QCommonStyle's item text margin: PM_FocusFrameHMargin + 1 on each side.
  const int margin = 2 * (style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table_) + 1);
  int need = header->defaultSectionSize() / 2;
  for (int c = 0; c < table_->columnCount(); ++c) {
    need = std::max(need, header->narrowestWholeWidth(c));
    for (int r = 0; r < table_->rowCount(); ++r) {
      const QTableWidgetItem* item = table_->item(r, c);
      if (!item) continue;
      QFont font = table_->font();
      font.setBold(item->font().bold());
      need = std::max(need, QFontMetrics(font).horizontalAdvance(item->text()) + margin + 2);
    }
  }
  // Stretched sections never shrink below the minimum; past it the table scrolls.
  header->setMinimumSectionSize(need);
  fitRows();
}

void MemoryLedgerTable::fitRows() {
  QHeaderView* rows = table_->verticalHeader();
  const int count = table_->rowCount();
  if (count == 0) return;
  QFont bold = table_->font();
  bold.setBold(true);
  const int text = std::max(QFontMetrics(table_->font()).height(), QFontMetrics(bold).height());
  const int compact = text + 4, comfortable = text + 14;
  const QScrollBar* sideways = table_->horizontalScrollBar();
  const int free = table_->height() - 2 * table_->frameWidth() - table_->horizontalHeader()->height() -
                   (sideways->isVisible() ? sideways->height() : 0);
  const int size = std::clamp(free / count, compact, comfortable);
  // Never shorter than every row at its compact height (the header wraps four modes' names to two lines,
  // and a sideways scroll bar may come): the dock keeps the Peak row in view instead of scrolling it away.
  const int whole = 2 * table_->frameWidth() + table_->horizontalHeader()->height() + count * compact +
                    (sideways->isVisible() ? sideways->height() : 0);
  if (table_->minimumHeight() != whole) table_->setMinimumHeight(whole);
  rows->setMinimumSectionSize(std::min(rows->minimumSectionSize(), compact));
  if (rows->defaultSectionSize() != size) rows->setDefaultSectionSize(size);
  for (int r = 0; r < count; ++r)
    if (rows->sectionSize(r) != size) rows->resizeSection(r, size);
}

bool MemoryLedgerTable::eventFilter(QObject* watched, QEvent* event) {
  // The table's height, and the header's when mode names wrap to a second line, decide the rows'.
  if ((watched == table_ || watched == table_->horizontalHeader()) && event->type() == QEvent::Resize) fitRows();
  return QWidget::eventFilter(watched, event);
}

void MemoryLedgerTable::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::FontChange) fitColumns();  // presenter scaling
}

}  // namespace ampscope::ui
