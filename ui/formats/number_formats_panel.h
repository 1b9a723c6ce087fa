// The "Number formats" panel: one value entry drives a row per dtype (bits, formula, stored value,
// error, class), plus the range strip, the finfo table, the underflow table and a memory calculator.
// The entry is the single source of truth: next/prev, bit flips and table clicks all write the entry,
// and the entry updates every row, so what the student sees is always consistent.
#pragma once

#include <QList>
#include <QMap>
#include <QWidget>

#include <cstdint>

#include "ampscope/engine/number_format.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;

namespace ampscope::ui::formats {

class FinfoTableWidget;
class FormatRowWidget;
class MemoryCalculatorWidget;
class RangeStripWidget;
class UnderflowTableWidget;

class NumberFormatsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit NumberFormatsPanel(QWidget* parent = nullptr);

  // Sets the entry text (as if typed); the rows follow if it parses.
  void setValueText(const QString& text);
  QString valueText() const;  // the entry's text as typed
  // A value from a plot (a histogram bin, a heat-map cell, a scale): the entry shows it, and a note
  // under the entry says where it came from until the entry changes.
  void showPlotValue(double value, const QString& context);
  QLabel* plotContextLabel() const { return m_plotContext; }
  // The dtype a bit pattern such as 0x3c00 is read in.
  void setPatternDType(DType dtype);
  DType patternDType() const;

  bool isInputValid() const { return m_inputValid; }
  // The warning icon shown in the field while the input does not parse.
  QAction* invalidInputAction() const { return m_invalidAction; }
  QString inputMessage() const;
  double currentValue() const { return m_currentValue; }

  QLineEdit* valueEdit() const { return m_valueEdit; }
  QComboBox* patternDTypeBox() const { return m_patternBox; }
  FormatRowWidget* row(DType dtype) const { return m_rows.value(dtype); }
  QTabWidget* tabs() const { return m_tabs; }
  // The colour legend above the tabs: one label per chip or phrase, wrapped as whole items.
  QWidget* legend() const { return m_legend; }
  const QList<QLabel*>& legendItems() const { return m_legendItems; }
  RangeStripWidget* rangeStrip() const { return m_rangeStrip; }
  FinfoTableWidget* finfoTable() const { return m_finfo; }
  MemoryCalculatorWidget* memoryCalculator() const { return m_memory; }
  UnderflowTableWidget* underflowTable() const { return m_underflow; }

 signals:
  void valueChanged(double value);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  static constexpr int kLegendItemCount = 12;
  void retranslateLegend();
  QWidget* buildEntryBar();
  QWidget* buildRowsPage();
  QWidget* buildRangePage();
  void applyText();
  void showInvalid(const QString& reason);
  void onEncodingChosen(DType dtype, quint64 bits);

  QLineEdit* m_valueEdit = nullptr;
  QAction* m_invalidAction = nullptr;
  QComboBox* m_patternBox = nullptr;
  QLabel* m_message = nullptr;
  QLabel* m_plotContext = nullptr;
  QString m_plotContextText;  // the entry text the note belongs to
  QTabWidget* m_tabs = nullptr;
  QWidget* m_legend = nullptr;
  QList<QLabel*> m_legendItems;
  QMap<DType, FormatRowWidget*> m_rows;
  RangeStripWidget* m_rangeStrip = nullptr;
  FinfoTableWidget* m_finfo = nullptr;
  MemoryCalculatorWidget* m_memory = nullptr;
  UnderflowTableWidget* m_underflow = nullptr;
  bool m_inputValid = true;
  double m_currentValue = 0;
};

}  // namespace ampscope::ui::formats
