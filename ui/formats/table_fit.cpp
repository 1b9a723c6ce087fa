#include "ui/formats/table_fit.h"

#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

#include <algorithm>

namespace ampscope::ui::formats {

namespace {
// A column the owner made much wider than its contents (a minimum width) keeps only this much room
// beyond a longer text: enough to separate it from the next column.
constexpr int kMaxPadding = 16;
}  // namespace

void TableFit::fitToRows(QTableView* table) { new TableFit(table); }

TableFit::TableFit(QTableView* table) : QObject(table), m_table(table) {
  table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table->installEventFilter(this);
  table->horizontalScrollBar()->installEventFilter(this);
  if (QAbstractItemModel* model = table->model()) {
    // Queued: the view lays its new rows out (and sizes them) after the model's signal.
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
      connect(model, signal, this, [this] { QTimer::singleShot(0, this, &TableFit::fit); });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { QTimer::singleShot(0, this, &TableFit::fit); });
    // A header retranslated in place (the language switch sets the header items' texts).
    connect(model, &QAbstractItemModel::headerDataChanged, this, [this](Qt::Orientation orientation) {
      if (orientation == Qt::Horizontal) queueFitColumns();
    });
  }
  connect(table->verticalHeader(), &QHeaderView::sectionResized, this, &TableFit::fit);
  m_baseFontHeight = table->fontMetrics().height();
  const QHeaderView* header = table->horizontalHeader();
  for (int c = 0; c < header->count(); ++c) {
    m_baseWidths.append(header->sectionSize(c));
    m_padding.append(std::clamp(header->sectionSize(c) - contentWidth(c), 0, kMaxPadding));
  }
  fit();
}

void TableFit::fit() {
  const QHeaderView* header = m_table->horizontalHeader();
  // Row heights come from the vertical header even where it is hidden (length() sums every section).
  int height = 2 * m_table->frameWidth() + m_table->verticalHeader()->length();
  if (!header->isHidden()) height += header->sizeHint().height();
  if (m_table->horizontalScrollBar()->isVisible()) height += m_table->horizontalScrollBar()->sizeHint().height();
  if (m_table->minimumHeight() != height || m_table->maximumHeight() != height) m_table->setFixedHeight(height);
}

int TableFit::contentWidth(int column) const {
  const QHeaderView* header = m_table->horizontalHeader();
  // QTableView's override is protected; the virtual call through QAbstractItemView reaches it.
  int width = static_cast<const QAbstractItemView*>(m_table)->sizeHintForColumn(column);
  if (!header->isHidden()) width = std::max(width, header->sectionSizeHint(column));
  return width;
}

void TableFit::fitColumns() {
  m_columnsQueued = false;
  const int fontHeight = m_table->fontMetrics().height();
  QHeaderView* header = m_table->horizontalHeader();
  const int columns = std::min<int>(header->count(), static_cast<int>(m_baseWidths.size()));
  for (int c = 0; c < columns; ++c) {
    const int scaled = m_baseFontHeight > 0 && fontHeight > 0
                           ? (m_baseWidths[c] * fontHeight + m_baseFontHeight / 2) / m_baseFontHeight
                           : m_baseWidths[c];
    const int width = std::max(scaled, contentWidth(c) + m_padding[c]);
    if (header->sectionSize(c) != width) header->resizeSection(c, width);
  }
}

void TableFit::queueFitColumns() {
  if (m_columnsQueued) return;
  m_columnsQueued = true;
  QTimer::singleShot(0, this, &TableFit::fitColumns);
}

bool TableFit::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_table) {
    switch (event->type()) {
      case QEvent::FontChange:
        fitColumns();  // now: whoever changed the font may measure the table right after
        break;
      case QEvent::LanguageChange:  // widgets retranslating in their changeEvent set texts during it
      case QEvent::StyleChange:
      case QEvent::Polish:
        queueFitColumns();
        break;
      default:
        break;
    }
  }
  switch (event->type()) {
    case QEvent::Show:
    case QEvent::Hide:  // the horizontal scroll bar coming and going
    case QEvent::FontChange:
    case QEvent::StyleChange:
    case QEvent::Polish:
      QTimer::singleShot(0, this, &TableFit::fit);
      break;
    default:
      break;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace ampscope::ui::formats
