#include "ui/formats/underflow_table_widget.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "ampscope/engine/number_format.h"
#include "ui/formats/format_text.h"
#include "ui/formats/table_csv.h"
#include "ui/formats/table_fit.h"

namespace ampscope::ui::formats {

namespace {

enum Column { kInput, kFP32, kFP16, kBF16, kColumnCount };

QString legendChip(QRgb color, const QString& text) {
  return QStringLiteral("<span style='background:%1; color:white'>&nbsp;%2&nbsp;</span>")
      .arg(QColor(color).name(), text.toHtmlEscaped());
}

}  // namespace

const QVector<double>& UnderflowTableWidget::inputs() {
  static const QVector<double> values{1e-2, 1e-4, 1e-6, 1e-7, 1e-8, 1e-9};
  return values;
}

UnderflowTableWidget::UnderflowTableWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("Small gradients, as in the chapter: an FP32 tensor cast to FP16 and to BF16. FP16's smallest "
         "subnormal is about 6e-8, so 1e-8 and 1e-9 become <b>0</b> (the parameter gets no update). BF16 "
         "keeps FP32's exponent range: every value survives, only with fewer digits.<br>%1 became zero "
         "&nbsp; %2 stored as a subnormal (reduced precision). Double-click a row to inspect its value.")
          .arg(legendChip(kFlushedColor, tr("0")), legendChip(kSubnormalColor, tr("subnormal"))),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  m_table = new QTableWidget(inputs().size(), kColumnCount, this);
  m_table->setObjectName(QStringLiteral("underflowTable"));
  m_table->setHorizontalHeaderLabels({tr("value"), tr("FP32"), tr("FP16"), tr("BF16")});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  QFont mono = m_table->font();
  mono.setFamily(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);

  for (int row = 0; row < inputs().size(); ++row) {
    const double input = inputs()[row];
    // The chapter's tensor is FP32 first; FP16 and BF16 are casts of that FP32 value.
    const double fp32 = roundTo(DType::FP32, input);
    auto put = [&](int column, DType dtype, double value) {
      const RoundingResult r = roundValue(dtype, value);
      auto* item = new QTableWidgetItem(scientific(r.stored, 4));
      item->setFont(mono);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (r.flushedToZero) {
        item->setBackground(QColor(kFlushedColor));
        item->setForeground(Qt::white);
        item->setToolTip(tr("Underflow: %1 is below half of %2's smallest subnormal and became 0.")
                             .arg(scientific(value, 4), dtypeDisplayName(dtype)));
      } else if (r.cls == ValueClass::Subnormal) {
        item->setBackground(QColor(kSubnormalColor));
        item->setForeground(Qt::white);
        item->setToolTip(tr("Subnormal in %1: relative error %2.").arg(dtypeDisplayName(dtype), scientific(r.relError, 2)));
      } else {
        item->setToolTip(tr("Relative error %1.").arg(scientific(r.relError, 2)));
      }
      m_table->setItem(row, column, item);
    };
    auto* inputItem = new QTableWidgetItem(shortestText(input));
    inputItem->setFont(mono);
    inputItem->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_table->setItem(row, kInput, inputItem);
    put(kFP32, DType::FP32, input);
    put(kFP16, DType::FP16, fp32);
    put(kBF16, DType::BF16, fp32);
  }
  m_table->resizeColumnsToContents();
  for (int c = 0; c < kColumnCount; ++c) m_table->setColumnWidth(c, std::max(m_table->columnWidth(c), 130));
  m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  m_table->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Maximum);
  TableFit::fitToRows(m_table);
  connect(m_table, &QTableWidget::cellDoubleClicked, this,
          [this](int row, int) { emit valueActivated(inputs().value(row)); });

  auto* tableRow = new QHBoxLayout;
  tableRow->addWidget(m_table);
  tableRow->addStretch();
  layout->addLayout(tableRow);

  auto* buttons = new QHBoxLayout;
  auto* copyButton = new QPushButton(tr("Copy as CSV"), this);
  copyButton->setObjectName(QStringLiteral("copyUnderflowCsvButton"));
  copyButton->setToolTip(tr("Copy the table to the clipboard as comma-separated values, with every stored "
                            "value also at full precision."));
  connect(copyButton, &QPushButton::clicked, this, &UnderflowTableWidget::copyCsvToClipboard);
  buttons->addWidget(copyButton);
  auto* exportButton = new QPushButton(tr("Export CSV…"), this);
  exportButton->setObjectName(QStringLiteral("exportUnderflowCsvButton"));
  exportButton->setToolTip(tr("Save the table as a CSV file (UTF-8)."));
  connect(exportButton, &QPushButton::clicked, this, &UnderflowTableWidget::exportCsv);
  buttons->addWidget(exportButton);
  buttons->addStretch();
  layout->addLayout(buttons);
  layout->addStretch();
}

QString UnderflowTableWidget::toCsv() const {
  const DType dtypes[] = {DType::FP32, DType::FP16, DType::BF16};
  QStringList header{QStringLiteral("value")};
  for (DType dtype : dtypes) header << QString::fromStdString(formatSpec(dtype).torchName);
  for (DType dtype : dtypes) header << QString::fromStdString(formatSpec(dtype).torchName) + QStringLiteral("_exact");
  QString csv = TableCsv::record(header);
  for (double input : inputs()) {
    // The same casts as the table: FP32 first, FP16 and BF16 from that FP32 value.
    const double fp32 = roundTo(DType::FP32, input);
    const double stored[] = {fp32, roundTo(DType::FP16, fp32), roundTo(DType::BF16, fp32)};
    QStringList fields{shortestText(input)};
    for (double value : stored) fields << scientific(value, 4);
    for (double value : stored) fields << shortestText(value);
    csv += TableCsv::record(fields);
  }
  return csv;
}

void UnderflowTableWidget::copyCsvToClipboard() { QApplication::clipboard()->setText(toCsv()); }

void UnderflowTableWidget::exportCsv() {
  TableCsv::exportWithDialog(this, QStringLiteral("gradient_underflow.csv"), toCsv());
}

}  // namespace ampscope::ui::formats
