#include "ui/formats/table_fit.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

namespace ampscope::ui::formats {

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
  }
  connect(table->verticalHeader(), &QHeaderView::sectionResized, this, &TableFit::fit);
  m_fontHeight = table->fontMetrics().height();
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

void TableFit::scaleColumns() {
  const int height = m_table->fontMetrics().height();
  if (height <= 0 || m_fontHeight <= 0 || height == m_fontHeight) return;
  QHeaderView* header = m_table->horizontalHeader();
  for (int c = 0; c < header->count(); ++c)
    header->resizeSection(c, (header->sectionSize(c) * height + m_fontHeight / 2) / m_fontHeight);
  m_fontHeight = height;
}

bool TableFit::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_table && event->type() == QEvent::FontChange) scaleColumns();
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
