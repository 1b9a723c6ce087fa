// One dtype's row of the number-format panel: its bits as clickable cells, bias and value formula
// with the actual numbers, the stored value, the rounding error and the class, with flushed-to-zero,
// subnormal and overflow highlighted. Next/prev and bit flips are reported as a new encoding; the
// panel turns that into the new entry value so every row follows.
#pragma once

#include <QFrame>

#include <cstdint>

#include "ampscope/engine/number_format.h"

class QBoxLayout;
class QGridLayout;
class QLabel;
class QToolButton;

namespace ampscope::ui::formats {

class BitCellsWidget;

class FormatRowWidget : public QFrame {
  Q_OBJECT
 public:
  // What the row's badge says about the stored value, strongest first.
  enum class Highlight { None, Exact, Subnormal, Flushed, Overflow, NaN };

  explicit FormatRowWidget(DType dtype, QWidget* parent = nullptr);

  // Narrower than this, the row stacks its parts (name, bits, formula, values) instead of placing them
  // side by side.
  static constexpr int kWideLayoutMinWidth = 900;
  bool isCompact() const { return m_compact; }

  // Rounds `input` to this format (round-to-nearest-even) and shows the result.
  void showValue(double input);
  // Shows exactly this encoding (used when the entry is a bit pattern of this format, so a NaN keeps
  // its payload); `input` is the value the entry holds.
  void showEncoding(double input, uint64_t bits);

  DType dtype() const { return m_dtype; }
  uint64_t bits() const { return m_result.bits; }
  const RoundingResult& result() const { return m_result; }
  Highlight highlight() const { return m_highlight; }
  QString badgeText() const;
  QString storedText() const;
  QString formulaText() const;
  // The saturating result (FP8, FP4) and PyTorch's result where they differ from the stored value;
  // empty (and hidden) otherwise.
  QString notesText() const;

  BitCellsWidget* bitCells() const { return m_bitCells; }
  QToolButton* nextButton() const { return m_next; }
  QToolButton* previousButton() const { return m_previous; }

 signals:
  // The user stepped or flipped a bit: `bits` is the new encoding in this row's format.
  void encodingChosen(ampscope::DType dtype, quint64 bits);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void applyLayout(bool compact);
  void refresh();
  QString formulaHtml() const;

  DType m_dtype;
  bool m_compact = false;
  QGridLayout* m_grid = nullptr;
  QBoxLayout* m_headerLayout = nullptr;
  QWidget* m_headerBox = nullptr;
  QWidget* m_valueBox = nullptr;
  QWidget* m_stepsBox = nullptr;
  QBoxLayout* m_stepsLayout = nullptr;
  RoundingResult m_result;
  Highlight m_highlight = Highlight::None;
  BitCellsWidget* m_bitCells = nullptr;
  QLabel* m_badge = nullptr;
  QLabel* m_formula = nullptr;
  QLabel* m_stored = nullptr;
  QLabel* m_absError = nullptr;
  QLabel* m_relError = nullptr;
  QLabel* m_class = nullptr;
  QLabel* m_notes = nullptr;
  QLabel* m_hex = nullptr;
  QToolButton* m_previous = nullptr;
  QToolButton* m_next = nullptr;
};

}  // namespace ampscope::ui::formats
