#include "ui/formats/finfo_table_widget.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ampscope/engine/number_format.h"
#include "ui/formats/format_text.h"
#include "ui/formats/table_csv.h"
#include "ui/formats/table_fit.h"

namespace ampscope::ui::formats {

namespace {

enum Column { kDType, kTorch, kLayout, kMax, kLowest, kTiny, kSubnormal, kEps, kDigits, kColumnCount };

}  // namespace

FinfoTableWidget::FinfoTableWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("The limits of each format, as <code>torch.finfo</code> reports them "
                              "(min is called <i>lowest</i> here: the most negative finite value). "
                              "<b>eps</b> is the gap between 1 and the next value: the relative precision. "
                              "BF16 has FP32's range but a larger eps than FP16."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  m_table = new QTableWidget(static_cast<int>(allDTypes().size()), kColumnCount, this);
  m_table->setObjectName(QStringLiteral("finfoTable"));
  m_table->setHorizontalHeaderLabels({tr("dtype"), tr("torch name"), tr("s+e+m"), tr("max"), tr("lowest (min)"),
                                      tr("smallest normal"), tr("smallest subnormal"), tr("eps"), tr("digits")});
  const QString headerTips[kColumnCount] = {
      {},
      tr("The dtype's name in PyTorch."),
      tr("Sign, exponent and mantissa bits."),
      tr("Largest finite value: (2 − 2^−m) × 2^emax."),
      tr("Most negative finite value, −max (torch.finfo().min)."),
      tr("Smallest positive normal value, 2^(1−bias) (torch.finfo().tiny)."),
      tr("Smallest positive subnormal value, 2^(1−bias−m); anything below half of it rounds to zero."),
      tr("Distance from 1 to the next representable value, 2^−m."),
      tr("Decimal digits the format always preserves, floor(m × log10 2)."),
  };
  for (int c = 0; c < kColumnCount; ++c) {
    if (!headerTips[c].isEmpty()) m_table->horizontalHeaderItem(c)->setToolTip(headerTips[c]);
  }
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setAlternatingRowColors(true);

  QFont mono = m_table->font();
  mono.setFamily(QStringLiteral("monospace"));
  mono.setStyleHint(QFont::Monospace);
  int row = 0;
  for (DType dtype : allDTypes()) {
    const FormatSpec& spec = formatSpec(dtype);
    const FInfo info = finfo(dtype);
    auto put = [&](int column, const QString& text, bool numeric) {
      auto* item = new QTableWidgetItem(text);
      if (numeric) {
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        item->setFont(mono);
      }
      m_table->setItem(row, column, item);
    };
    auto* name = new QTableWidgetItem(dtypeDisplayName(dtype));
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    m_table->setItem(row, kDType, name);
    put(kTorch, QString::fromStdString(spec.torchName), false);
    put(kLayout, QStringLiteral("%1+%2+%3").arg(spec.hasSign ? 1 : 0).arg(spec.exponentBits).arg(spec.mantissaBits), false);
    put(kMax, scientific(info.max, 6), true);
    put(kLowest, scientific(info.lowest, 6), true);
    put(kTiny, scientific(info.smallestNormal, 6), true);
    put(kSubnormal, scientific(info.smallestSubnormal, 6), true);
    put(kEps, scientific(info.eps, 6), true);
    put(kDigits, QString::number(info.decimalDigits), true);
    ++row;
  }
  m_table->resizeColumnsToContents();
  for (int c = 0; c < kColumnCount; ++c) m_table->setColumnWidth(c, m_table->columnWidth(c) + 10);
  m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  // As large as its contents and no larger: the space below stays empty instead of a grey table body.
  m_table->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Maximum);
  TableFit::fitToRows(m_table);
  layout->addWidget(m_table);

  auto* copyAction = new QAction(tr("Copy as CSV"), this);
  copyAction->setObjectName(QStringLiteral("copyFinfoCsvAction"));
  copyAction->setShortcut(QKeySequence::Copy);
  copyAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(copyAction, &QAction::triggered, this, &FinfoTableWidget::copyCsvToClipboard);
  m_table->addAction(copyAction);
  m_table->setContextMenuPolicy(Qt::ActionsContextMenu);

  auto* buttons = new QHBoxLayout;
  auto* copyButton = new QPushButton(tr("Copy as CSV"), this);
  copyButton->setToolTip(tr("Copy the whole table to the clipboard as comma-separated values, at full "
                            "double precision."));
  connect(copyButton, &QPushButton::clicked, this, &FinfoTableWidget::copyCsvToClipboard);
  buttons->addWidget(copyButton);
  auto* exportButton = new QPushButton(tr("Export CSV…"), this);
  exportButton->setObjectName(QStringLiteral("exportFinfoCsvButton"));
  exportButton->setToolTip(tr("Save the whole table as a CSV file (UTF-8, full double precision)."));
  connect(exportButton, &QPushButton::clicked, this, &FinfoTableWidget::exportCsv);
  buttons->addWidget(exportButton);
  buttons->addStretch();
  layout->addLayout(buttons);
  layout->addStretch();
}

QString FinfoTableWidget::toCsv() const {
  QString csv = TableCsv::record({QStringLiteral("dtype"), QStringLiteral("torch_name"), QStringLiteral("exponent_bits"),
                                  QStringLiteral("mantissa_bits"), QStringLiteral("max"), QStringLiteral("lowest"),
                                  QStringLiteral("smallest_normal"), QStringLiteral("smallest_subnormal"),
                                  QStringLiteral("eps"), QStringLiteral("digits")});
  for (DType dtype : allDTypes()) {
    const FormatSpec& spec = formatSpec(dtype);
    const FInfo info = finfo(dtype);
    csv += TableCsv::record({QString::fromStdString(spec.name), QString::fromStdString(spec.torchName),
                             QString::number(spec.exponentBits), QString::number(spec.mantissaBits),
                             scientific(info.max, 16), scientific(info.lowest, 16),
                             scientific(info.smallestNormal, 16), scientific(info.smallestSubnormal, 16),
                             scientific(info.eps, 16), QString::number(info.decimalDigits)});
  }
  return csv;
}

void FinfoTableWidget::copyCsvToClipboard() { QApplication::clipboard()->setText(toCsv()); }

void FinfoTableWidget::exportCsv() { TableCsv::exportWithDialog(this, QStringLiteral("finfo.csv"), toCsv()); }

}  // namespace ampscope::ui::formats
