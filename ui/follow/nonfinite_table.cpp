#include "ui/follow/nonfinite_table.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QKeySequence>
#include <QTableWidget>
#include <QVBoxLayout>
#include <set>

#include "ui/training/mode_palette.h"

namespace ampscope::ui {

namespace {

// An item that sorts by number when it holds one.
class NumberItem : public QTableWidgetItem {
 public:
  explicit NumberItem(qint64 value) : QTableWidgetItem(QString::number(value)) { setData(Qt::UserRole, value); }
  bool operator<(const QTableWidgetItem& other) const override {
    return data(Qt::UserRole).toLongLong() < other.data(Qt::UserRole).toLongLong();
  }
};

int64_t nonFiniteOf(const ExponentHistogram& h) { return h.nan + h.posInf + h.negInf; }

}  // namespace

NonFiniteTable::NonFiniteTable(QWidget* parent) : QWidget(parent), table_(new QTableWidget(0, kColumns, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(table_);
  QStringList labels;
  for (int c = 0; c < kColumns; ++c) labels << QString();
  labels[RunColumn] = tr("Run");
  labels[StepColumn] = tr("Step");
  labels[FirstColumn] = tr("Look here");
  labels[CountColumn] = tr("Non-finite values");
  labels[ModeColumn] = tr("Mode");
  labels[ParametersColumn] = tr("Parameters with inf/NaN");
  table_->setHorizontalHeaderLabels(labels);
  table_->horizontalHeaderItem(FirstColumn)
      ->setToolTip(tr("The first parameter, in module order, whose gradient held inf or NaN: where to look first."));
  table_->horizontalHeaderItem(CountColumn)
      ->setToolTip(tr("Gradient values that were +inf, -inf or NaN at this step (0 when the step was not "
                      "instrumented)."));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSortingEnabled(true);
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* copy = new QAction(tr("Copy"), table_);
  copy->setShortcut(QKeySequence::Copy);
  copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  connect(copy, &QAction::triggered, this, &NonFiniteTable::copySelection);
  table_->addAction(copy);
}

QStringList NonFiniteTable::nonFiniteParameters(const ModeStep& step) {
  QStringList out;
  if (!step.nonFinite.empty()) {
    for (const std::string& n : step.nonFinite) out << QString::fromStdString(n);
    return out;
  }
  for (const TensorStats& t : step.tensors)
    if (t.isParameter && (nonFiniteOf(t.scaled) > 0 || nonFiniteOf(t.unscaled) > 0)) out << QString::fromStdString(t.name);
  return out;
}

int64_t NonFiniteTable::nonFiniteValues(const ModeStep& step) {
  int64_t n = 0;
  for (const TensorStats& t : step.tensors)
    if (t.isParameter) n += nonFiniteOf(t.scaled);
  return n;
}

void NonFiniteTable::addSteps(const QString& run, const std::vector<ModeStep>& steps) {
  const bool sorting = table_->isSortingEnabled();
  table_->setSortingEnabled(false);
  for (const ModeStep& s : steps) addStep(run, s);
  table_->setSortingEnabled(sorting);
}

void NonFiniteTable::addRecords(const QString& run, const std::vector<StepRecord>& records) {
  const bool sorting = table_->isSortingEnabled();
  table_->setSortingEnabled(false);
  for (const StepRecord& r : records)
    for (const ModeStep& s : r.modes) addStep(run, s);
  table_->setSortingEnabled(sorting);
}

void NonFiniteTable::addStep(const QString& run, const ModeStep& step) {
  if (!step.skipped && !step.foundInf) return;
  if (table_->rowCount() >= kMaxRows) table_->removeRow(0);
  const QStringList params = nonFiniteParameters(step);
  const int row = table_->rowCount();
  table_->insertRow(row);
  auto* runItem = new QTableWidgetItem(run);
  auto* modeItem = new QTableWidgetItem(ModePalette::swatch(step.mode), ModePalette::label(step.mode));
  auto* first = new QTableWidgetItem(params.isEmpty() ? QString() : params.front());
  if (!params.isEmpty()) {
    QFont bold = first->font();
    bold.setBold(true);
    first->setFont(bold);
    first->setBackground(QColor(255, 226, 160));
    first->setToolTip(tr("%1\nLook here first: the earliest parameter in module order with inf/NaN gradients.")
                          .arg(params.front()));
  }
  auto* all = new QTableWidgetItem(params.join(QStringLiteral(", ")));
  all->setToolTip(params.join(QLatin1Char('\n')));
  table_->setItem(row, RunColumn, runItem);
  table_->setItem(row, ModeColumn, modeItem);
  table_->setItem(row, StepColumn, new NumberItem(step.step));
  table_->setItem(row, CountColumn, new NumberItem(nonFiniteValues(step)));
  table_->setItem(row, FirstColumn, first);
  table_->setItem(row, ParametersColumn, all);
}

void NonFiniteTable::clearRun(const QString& run) {
  for (int row = table_->rowCount() - 1; row >= 0; --row)
    if (table_->item(row, RunColumn)->text() == run) table_->removeRow(row);
}

void NonFiniteTable::clear() { table_->setRowCount(0); }

int NonFiniteTable::rowCount() const { return table_->rowCount(); }

QString NonFiniteTable::text(int row, Column column) const {
  const QTableWidgetItem* item = table_->item(row, column);
  return item ? item->text() : QString();
}

QString NonFiniteTable::selectionText() const {
  std::set<int> rows;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows()) rows.insert(index.row());
  if (rows.empty())
    for (int r = 0; r < table_->rowCount(); ++r) rows.insert(r);
  QStringList lines;
  QStringList header;
  for (int c = 0; c < kColumns; ++c) header << table_->horizontalHeaderItem(c)->text();
  lines << header.join(QLatin1Char('\t'));
  for (int r : rows) {
    QStringList fields;
    for (int c = 0; c < kColumns; ++c) fields << text(r, static_cast<Column>(c));
    lines << fields.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void NonFiniteTable::copySelection() const { QApplication::clipboard()->setText(selectionText()); }

}  // namespace ampscope::ui
