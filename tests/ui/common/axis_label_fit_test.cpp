// AxisLabelFit: an axis title that does not fit its side of the axis rect drops its parenthesised part,
// then elides, and the program's (and the language switch's) full title is never lost.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QFontMetrics>

#include "ui/common/axis_label_fit.h"

namespace ampscope::ui {
namespace {

const QString kLoss = QStringLiteral("loss (cross-entropy, nats)");
const QString kLossZh = QStringLiteral("loss（交叉熵，单位 nats）");

TEST(AxisLabelFit, ATitleThatFitsIsShownWhole) {
  const QFont font = QApplication::font();
  EXPECT_EQ(AxisLabelFit::fitted(kLoss, font, QFontMetrics(font).horizontalAdvance(kLoss)), kLoss);
}

TEST(AxisLabelFit, TooLongDropsTheParenthesesInEitherScriptThenElides) {
  const QFont font = QApplication::font();
  const QFontMetrics metrics(font);
  const int lossWidth = metrics.horizontalAdvance(QStringLiteral("loss"));
  EXPECT_EQ(AxisLabelFit::fitted(kLoss, font, metrics.horizontalAdvance(kLoss) - 1), QStringLiteral("loss"));
  EXPECT_EQ(AxisLabelFit::fitted(kLossZh, font, lossWidth + 10), QStringLiteral("loss"));
  const QString tiny = AxisLabelFit::fitted(QStringLiteral("values per bin (count)"), font, lossWidth);
  EXPECT_TRUE(tiny.endsWith(QChar(0x2026))) << tiny.toStdString();
  EXPECT_LE(metrics.horizontalAdvance(tiny), lossWidth);
  EXPECT_FALSE(AxisLabelFit::fitted(kLoss, font, 1).isEmpty());  // never nothing: at least "…"
}

TEST(AxisLabelFit, TheFullTitleSurvivesFittingAndANewTitleReplacesIt) {
  QCustomPlot plot;
  QCPAxis* axis = plot.yAxis;
  axis->setLabel(kLoss);
  const int narrow = QFontMetrics(axis->labelFont()).horizontalAdvance(QStringLiteral("loss (cross"));
  AxisLabelFit::fit(axis, narrow);
  EXPECT_EQ(axis->label(), QStringLiteral("loss"));
  EXPECT_EQ(AxisLabelFit::fullLabel(axis), kLoss);
  AxisLabelFit::fit(axis, 4 * narrow);  // room again: the whole title comes back
  EXPECT_EQ(axis->label(), kLoss);
  // What the language switch does: sets the translated title, which is the full one from then on.
  AxisLabelFit::fit(axis, narrow);
  axis->setLabel(kLossZh);
  EXPECT_EQ(AxisLabelFit::fullLabel(axis), kLossZh);
  AxisLabelFit::fit(axis, narrow);
  EXPECT_EQ(AxisLabelFit::fullLabel(axis), kLossZh);
  // Before the first layout (no room yet) nothing is fitted away.
  axis->setLabel(kLoss);
  AxisLabelFit::fit(axis, 0);
  EXPECT_EQ(axis->label(), kLoss);
}

}  // namespace
}  // namespace ampscope::ui
