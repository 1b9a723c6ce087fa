// torch.finfo for every dtype in one table: max, lowest, smallest normal (tiny), smallest subnormal,
// eps and decimal digits, printed as the chapter prints them (%.6e), with copy-as-CSV and export-CSV actions.
#pragma once

#include <QWidget>

class QTableWidget;

namespace ampscope::ui::formats {

class FinfoTableWidget : public QWidget {
  Q_OBJECT
 public:
  explicit FinfoTableWidget(QWidget* parent = nullptr);

  QTableWidget* table() const { return m_table; }
  // The table as CSV (a header line, then one line per dtype, full double precision).
  QString toCsv() const;

 public slots:
  void copyCsvToClipboard();
  // Asks for a file and writes toCsv() there.
  void exportCsv();

 private:
  QTableWidget* m_table = nullptr;
};

}  // namespace ampscope::ui::formats
