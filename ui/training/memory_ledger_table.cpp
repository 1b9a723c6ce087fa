#include "ui/training/memory_ledger_table.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

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
  table_->horizontalHeader()->setStretchLastSection(true);
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
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
      }
      table_->setItem(r, c, item);
    }
  }
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
}

}  // namespace ampscope::ui
