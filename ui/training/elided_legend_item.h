// ElidedLegendItem: a legend entry whose name, when wider than the room its legend column has, gives way
// to the plottable's short name (the property kShortNameProperty, where set) and ends in "…" only if
// that does not fit either, instead of being cut at the column's edge; the full name stays available
// (fullName) for the tooltip the plot shows over the entry.
#pragma once

#include <qcustomplot.h>

namespace ampscope::ui {

class ElidedLegendItem : public QCPPlottableLegendItem {
  Q_OBJECT
 public:
  // A QString property of the plottable: the name a narrow legend shows instead of name().
  static constexpr const char* kShortNameProperty = "legendShortName";

  ElidedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable);

  // The most pixels the name may take; <= 0: no limit.
  void setMaxTextWidth(int pixels) { maxTextWidth_ = pixels; }
  // Show the short name even where the full one fits: a legend where some entries had to shorten
  // names every entry alike ("fp16-amp" beside "bf16-amp", not beside "BF16 AMP").
  void setPreferShortName(bool prefer) { preferShort_ = prefer; }
  int maxTextWidth() const { return maxTextWidth_; }
  QString fullName() const;
  QString shownName() const;
  bool elided() const { return shownName() != fullName(); }
  // Width icon + padding + full name would take (what the entry needs to show the name whole).
  int fullWidth() const;
  // Width the entry needs to show its short name whole (fullWidth where it has none).
  int shortWidth() const;
  // Width of everything but the name: margins, icon and the padding between icon and name.
  int chromeWidth() const;

 protected:
  void draw(QCPPainter* painter) override;
  QSize minimumOuterSizeHint() const override;

 private:
  int maxTextWidth_ = 0;
  bool preferShort_ = false;
};

}  // namespace ampscope::ui
