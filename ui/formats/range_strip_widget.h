// The log2 range strip: for every format its subnormal range, normal range and max on one log2 axis,
// a band where typical gradients live (2^-40 .. 2^-10) and a marker at the current value. It is the
// picture behind the chapter's point: FP16's range ends inside the gradient band (so it needs loss
// scaling), BF16's covers it (so it does not).
#pragma once

#include <QWidget>

#include "ampscope/engine/number_format.h"

namespace ampscope::ui::formats {

class RangeStripWidget : public QWidget {
  Q_OBJECT
 public:
  explicit RangeStripWidget(QWidget* parent = nullptr);

  // The value marked on the axis (its magnitude; 0, inf and NaN are named in the legend instead).
  void setValue(double value);
  double value() const { return m_value; }

  // The axis: log2 of the smallest and largest magnitude drawn. Formats reaching beyond are clipped
  // with an arrow and their true end written next to it.
  static constexpr double kAxisMinLog2 = -160;
  static constexpr double kAxisMaxLog2 = 132;
  static constexpr double kGradientBandMinLog2 = -40;
  static constexpr double kGradientBandMaxLog2 = -10;

  // What happens to the typical-gradient band in a format (no loss scaling).
  enum class GradientVerdict {
    HoldsAll,       // the format reaches below 2^-40: every typical gradient is representable
    LosesSmallest,  // its smallest subnormal lies inside the band: the smaller gradients become 0
    LosesAll,       // its range starts above the band: every typical gradient becomes 0
  };
  static GradientVerdict gradientVerdict(DType dtype);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  static constexpr int kLegendItems = 4;
  struct LegendLayout {
    QPoint positions[kLegendItems];
    int height = 0;
  };
  LegendLayout legendLayout(int width) const;
  static QString legendText(int item);

  double m_value = 0;
};

}  // namespace ampscope::ui::formats
