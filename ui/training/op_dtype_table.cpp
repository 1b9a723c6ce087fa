#include "ui/training/op_dtype_table.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <map>
#include <utility>

#include "ui/common/wrapping_header_view.h"
#include "ui/training/mode_palette.h"

namespace ampscope::ui {

namespace {
QString shortDtype(const std::string& dtype) {
  if (dtype == "float32") return QStringLiteral("fp32");
  if (dtype == "float16") return QStringLiteral("fp16");
  if (dtype == "bfloat16") return QStringLiteral("bf16");
  return QString::fromStdString(dtype);
}
}  // namespace

OpDtypeTable::OpDtypeTable(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* top = new QHBoxLayout;
  note_ = new QLabel(tr("Start or pause a run to see which op ran in which dtype."), this);
  note_->setWordWrap(true);
  auto* refresh = new QPushButton(tr("Refresh"), this);
  refresh->setToolTip(tr("Run one forward pass per mode (no update) and record each op's dtypes. "
                         "Available while paused or finished."));
  top->addWidget(note_, 1);
  top->addWidget(refresh);
  layout->addLayout(top);
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->setHorizontalHeader(new WrappingHeaderView(table_));  // mode names wrap in narrow columns
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setAlternatingRowColors(true);
  layout->addWidget(table_, 1);
  connect(refresh, &QPushButton::clicked, this, &OpDtypeTable::refreshRequested);
}

void OpDtypeTable::clear() {
  table_->clear();
  table_->setRowCount(0);
  table_->setColumnCount(0);
}

void OpDtypeTable::setReports(const std::vector<ModeReport>& reports) {
  clear();
  // Rows: (op, where) in the order they first ran, over all modes.
  std::vector<std::pair<std::string, std::string>> rows;
  for (const ModeReport& r : reports)
    for (const OpDtypeEntry& e : r.entries)
      if (std::find(rows.begin(), rows.end(), std::make_pair(e.op, e.where)) == rows.end())
        rows.emplace_back(e.op, e.where);
  table_->setColumnCount(2 + static_cast<int>(reports.size()));
  QStringList headers{tr("Op"), tr("Where")};
  for (const ModeReport& r : reports) headers << ModePalette::label(r.mode);
  table_->setHorizontalHeaderLabels(headers);
  for (int c = 0; c < static_cast<int>(reports.size()); ++c) {
    QTableWidgetItem* h = table_->horizontalHeaderItem(2 + c);
    h->setIcon(ModePalette::swatch(reports[static_cast<size_t>(c)].mode));
    h->setToolTip(ModePalette::name(reports[static_cast<size_t>(c)].mode));
  }
  table_->setRowCount(static_cast<int>(rows.size()));
  bool anyEmulated = false;
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    table_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(rows[static_cast<size_t>(r)].first)));
    table_->setItem(r, 1, new QTableWidgetItem(QString::fromStdString(rows[static_cast<size_t>(r)].second)));
    for (int c = 0; c < static_cast<int>(reports.size()); ++c) {
      const auto& entries = reports[static_cast<size_t>(c)].entries;
      auto it = std::find_if(entries.begin(), entries.end(), [&](const OpDtypeEntry& e) {
        return e.op == rows[static_cast<size_t>(r)].first && e.where == rows[static_cast<size_t>(r)].second;
      });
      auto* item = new QTableWidgetItem;
      if (it == entries.end()) {
        item->setText(QStringLiteral("—"));
      } else {
        // "in → out" when the op changes dtype (a cast point), else just the dtype.
        QString text = it->inputDtype == it->outputDtype
                           ? shortDtype(it->outputDtype)
                           : QStringLiteral("%1 → %2").arg(shortDtype(it->inputDtype), shortDtype(it->outputDtype));
        if (it->emulated) {
          text += tr(" (emulated)");
          QFont f = item->font();
          f.setItalic(true);
          item->setFont(f);
          anyEmulated = true;
        }
        item->setText(text);
        item->setToolTip(tr("input %1, output %2%3")
                             .arg(QString::fromStdString(it->inputDtype), QString::fromStdString(it->outputDtype),
                                  it->emulated ? tr("; emulated: FP32 arithmetic rounded exactly (RNE) to the "
                                                    "low-precision format")
                                               : QString()));
        if (it->outputDtype != "float32") item->setForeground(ModePalette::color(reports[static_cast<size_t>(c)].mode));
      }
      table_->setItem(r, 2 + c, item);
    }
  }
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  for (int c = 2; c < table_->columnCount(); ++c)
    table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Stretch);
  note_->setText(rows.empty() ? tr("No op-dtype report available yet.")
                 : anyEmulated
                     ? tr("One forward pass per mode. Italic: emulated dtype (FP32 arithmetic with exact rounding "
                          "at autocast's cast points).")
                     : tr("One forward pass per mode."));
}

}  // namespace ampscope::ui
