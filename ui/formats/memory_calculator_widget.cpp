#include "ui/formats/memory_calculator_widget.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ampscope/engine/number_format.h"
#include "ui/formats/element_count.h"
#include "ui/formats/format_text.h"
#include "ui/formats/table_csv.h"
#include "ui/formats/table_fit.h"

namespace ampscope::ui::formats {

namespace {

enum Column { kDType, kBytesPerElement, kBytes, kGiB, kBar, kColumnCount };

// "2", or "0.5" for FP4 (two elements per byte). Not localised: the CSV copy uses it too.
QString bytesPerElementText(DType dtype) { return QString::number(formatSpec(dtype).storageBits / 8.0); }

// The integer digits of a count or a byte total (exact: see groupedInteger).
QString plainInteger(long double value) {
  return QString::number(static_cast<qlonglong>(std::llround(static_cast<double>(value))));
}

// "4 000 000 000" with thin spaces: readable in every locale, unlike a comma or a point.
QString groupedInteger(long double value) {
  // Counts stop at 1e18 elements of at most 8 bytes: 8e18 < 2^63, so the digits fit an integer.
  const QString digits = plainInteger(value);
  QString grouped;
  for (int i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) grouped += QChar(0x2009);
    grouped += digits[i];
  }
  return grouped;
}

}  // namespace

MemoryCalculatorWidget::MemoryCalculatorWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("How much memory a tensor of N elements takes in each dtype. Halving the bytes "
                              "per element halves the memory traffic of a bandwidth-bound operator. "
                              "1 GiB = 2<sup>30</sup> bytes."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* entry = new QHBoxLayout;
  auto* label = new QLabel(tr("&Elements:"), this);
  m_count = new QLineEdit(QStringLiteral("1e9"), this);
  m_count->setObjectName(QStringLiteral("elementCountEdit"));
  m_count->setPlaceholderText(tr("e.g. 1e9, 7e9, 1,000,000"));
  m_count->setToolTip(tr("Number of elements: 1e9, 7e9 (a 7B-parameter model), 1,000,000 or 1_000_000."));
  m_count->setMaximumWidth(260);
  label->setBuddy(m_count);
  m_message = new QLabel(this);
  m_message->setObjectName(QStringLiteral("elementCountMessage"));
  m_message->setWordWrap(true);
  entry->addWidget(label);
  entry->addWidget(m_count);
  entry->addWidget(m_message, 1);
  layout->addLayout(entry);

  m_table = new QTableWidget(static_cast<int>(allDTypes().size()), kColumnCount, this);
  m_table->setObjectName(QStringLiteral("memoryTable"));
  m_table->setHorizontalHeaderLabels({tr("dtype"), tr("bytes / element"), tr("bytes"), tr("GiB"), QString()});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionMode(QAbstractItemView::NoSelection);
  m_table->setAlternatingRowColors(true);
  int row = 0;
  for (DType dtype : allDTypes()) {
    auto* name = new QTableWidgetItem(dtypeDisplayName(dtype));
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    m_table->setItem(row, kDType, name);
    for (int c = kBytesPerElement; c <= kGiB; ++c) {
      auto* item = new QTableWidgetItem;
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_table->setItem(row, c, item);
    }
    auto* barCell = new QWidget(m_table);
    auto* barLayout = new QHBoxLayout(barCell);
    barLayout->setContentsMargins(6, 0, 6, 0);
    auto* bar = new QProgressBar(barCell);
    bar->setRange(0, 64);  // in bits: FP4 is half a byte
    bar->setValue(formatSpec(dtype).storageBits);
    bar->setTextVisible(false);
    bar->setFixedHeight(12);
    bar->setToolTip(tr("Relative size: %1 of FP64's 8 bytes.").arg(bytesPerElementText(dtype)));
    barLayout->addWidget(bar);
    m_table->setCellWidget(row, kBar, barCell);
    ++row;
  }
  if (auto* tf32 = m_table->item(2, kDType)) {
    tf32->setToolTip(tr("TF32 is a compute format: tensors stay FP32 in memory (4 bytes)."));
  }
  m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  m_table->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Maximum);
  layout->addWidget(m_table);

  auto* buttons = new QHBoxLayout;
  auto* copyButton = new QPushButton(tr("Copy as CSV"), this);
  copyButton->setObjectName(QStringLiteral("copyMemoryCsvButton"));
  copyButton->setToolTip(tr("Copy the table to the clipboard as comma-separated values."));
  connect(copyButton, &QPushButton::clicked, this, &MemoryCalculatorWidget::copyCsvToClipboard);
  buttons->addWidget(copyButton);
  auto* exportButton = new QPushButton(tr("Export CSV…"), this);
  exportButton->setObjectName(QStringLiteral("exportMemoryCsvButton"));
  exportButton->setToolTip(tr("Save the table as a CSV file (UTF-8)."));
  connect(exportButton, &QPushButton::clicked, this, &MemoryCalculatorWidget::exportCsv);
  buttons->addWidget(exportButton);
  buttons->addStretch();
  layout->addLayout(buttons);
  layout->addStretch();

  connect(m_count, &QLineEdit::textChanged, this, &MemoryCalculatorWidget::recompute);
  recompute();
  // Presenter scaling and a language switch refit the columns (recompute's widths are for this font).
  TableFit::fitToRows(m_table);
}

QString MemoryCalculatorWidget::message() const { return m_message->text(); }

QString MemoryCalculatorWidget::gibText(int row) const {
  const QTableWidgetItem* item = m_table->item(row, kGiB);
  return item ? item->text() : QString();
}

void MemoryCalculatorWidget::recompute() {
  const ElementCount count = parseElementCount(m_count->text());
  m_valid = count.ok;
  m_count->setProperty("invalid", !count.ok);
  QPalette palette = m_count->palette();
  palette.setColor(QPalette::Base, count.ok ? QApplication::palette(m_count).color(QPalette::Base)
                                            : QColor(0xfd, 0xec, 0xea));
  m_count->setPalette(palette);
  if (!count.ok) {
    m_message->setText(QStringLiteral("<span style='color:#c62828'>%1</span>").arg(count.error.toHtmlEscaped()));
    return;  // the table keeps the last good numbers
  }
  m_elements = count.value;
  m_message->setText(tr("%1 elements").arg(groupedInteger(count.value)));
  const std::vector<DType>& dtypes = allDTypes();
  for (const MemoryFootprint& footprint : memoryFootprints(count.value)) {
    const int row = static_cast<int>(std::find(dtypes.begin(), dtypes.end(), footprint.dtype) - dtypes.begin());
    if (row >= m_table->rowCount()) continue;
    char gib[64];
    std::snprintf(gib, sizeof gib, "%.4f", footprint.gib);
    m_table->item(row, kBytesPerElement)->setText(bytesPerElementText(footprint.dtype));
    m_table->item(row, kBytes)->setText(groupedInteger(footprint.bytes));
    m_table->item(row, kGiB)->setText(QString::fromLatin1(gib));
  }
  m_table->resizeColumnsToContents();
  for (int c = kDType; c <= kGiB; ++c) m_table->setColumnWidth(c, m_table->columnWidth(c) + 16);
  m_table->setColumnWidth(kBar, 240);
}

QString MemoryCalculatorWidget::toCsv() const {
  QString csv = TableCsv::record({QStringLiteral("elements"), QStringLiteral("dtype"),
                                  QStringLiteral("bytes_per_element"), QStringLiteral("bytes"),
                                  QStringLiteral("gib"), QStringLiteral("gib_exact")});
  for (const MemoryFootprint& footprint : memoryFootprints(m_elements)) {
    char gib[64];
    std::snprintf(gib, sizeof gib, "%.4f", footprint.gib);
    csv += TableCsv::record({plainInteger(m_elements), QString::fromStdString(formatSpec(footprint.dtype).name),
                             bytesPerElementText(footprint.dtype), plainInteger(footprint.bytes),
                             QString::fromLatin1(gib), shortestText(footprint.gib)});
  }
  return csv;
}

void MemoryCalculatorWidget::copyCsvToClipboard() { QApplication::clipboard()->setText(toCsv()); }

void MemoryCalculatorWidget::exportCsv() {
  TableCsv::exportWithDialog(this, QStringLiteral("tensor_memory.csv"), toCsv());
}

}  // namespace ampscope::ui::formats
