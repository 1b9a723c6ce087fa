#include "ui/formats/table_height.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>

namespace ampscope::ui::formats {

void TableHeight::fitToRows(QTableView* table) { new TableHeight(table); }

TableHeight::TableHeight(QTableView* table) : QObject(table), m_table(table) {
  table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table->installEventFilter(this);
  table->horizontalScrollBar()->installEventFilter(this);
  if (QAbstractItemModel* model = table->model()) {
    // Queued: the view lays its new rows out (and sizes them) after the model's signal.
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
      connect(model, signal, this, [this] { QTimer::singleShot(0, this, &TableHeight::fit); });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { QTimer::singleShot(0, this, &TableHeight::fit); });
  }
  connect(table->verticalHeader(), &QHeaderView::sectionResized, this, &TableHeight::fit);
  fit();
}

void TableHeight::fit() {
  const QHeaderView* header = m_table->horizontalHeader();
  // Row heights come from the vertical header even where it is hidden (length() sums every section).
  int height = 2 * m_table->frameWidth() + m_table->verticalHeader()->length();
  if (!header->isHidden()) height += header->sizeHint().height();
  if (m_table->horizontalScrollBar()->isVisible()) height += m_table->horizontalScrollBar()->sizeHint().height();
  if (m_table->minimumHeight() != height || m_table->maximumHeight() != height) m_table->setFixedHeight(height);
}

bool TableHeight::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
    case QEvent::Show:
    case QEvent::Hide:  // the horizontal scroll bar coming and going
    case QEvent::FontChange:
    case QEvent::StyleChange:
    case QEvent::Polish:
      QTimer::singleShot(0, this, &TableHeight::fit);
      break;
    default:
      break;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace ampscope::ui::formats
