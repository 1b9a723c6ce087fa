// The bits of one encoding as a row of coloured cells (sign, exponent, mantissa), most significant
// bit on the left, with the field names above. Clicking a cell asks for that bit to be flipped.
// Wide formats (FP64's 64 bits) shrink their cells, and wrap onto two lines when the cells would
// become too small to read or click.
#pragma once

#include <QVector>
#include <QWidget>

#include <cstdint>

#include "ampscope/engine/number_format.h"

namespace ampscope::ui::formats {

class BitCellsWidget : public QWidget {
  Q_OBJECT
 public:
  explicit BitCellsWidget(DType dtype, QWidget* parent = nullptr);

  void setBits(uint64_t bits);
  uint64_t bits() const { return m_bits; }
  DType dtype() const { return m_dtype; }

  // Where bit `bitIndex` (0 = least significant) is drawn at the current width; empty if out of range.
  QRect cellRect(int bitIndex) const;
  // Number of lines the cells take at the current width (1, or 2 when wrapped).
  int lineCount() const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 signals:
  void bitClicked(int bitIndex);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Geometry {
    QVector<QRect> cells;  // indexed by bit index
    int lines = 1;
    int height = 0;
  };
  Geometry computeGeometry(int width) const;
  int widthFor(int bitsPerLine, int cellWidth) const;
  int bitAt(const QPoint& pos) const;
  QString cellToolTip(int bitIndex) const;

  DType m_dtype;
  uint64_t m_bits = 0;
  Geometry m_geometry;
  int m_hoverBit = -1;
};

}  // namespace ampscope::ui::formats
