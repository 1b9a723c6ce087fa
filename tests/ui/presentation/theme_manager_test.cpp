// Light and dark themes: the palette changes, plots existing and created later are recoloured, and the
// choice is remembered.
#include "ui/presentation/theme_manager.h"

#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QStyle>
#include <QTest>

namespace ampscope::ui {
namespace {

// The plot's own background, outside the axis rect (QCustomPlot exposes the brush only by painting it).
QColor backgroundOf(QCustomPlot& plot) {
  plot.replot();
  return plot.grab().toImage().pixelColor(1, 1);
}

TEST(ThemeManager, DarkThemeDarkensThePaletteAndLightBrightensItAgain) {
  ThemeManager themes;
  themes.apply(ThemeManager::Theme::Dark);
  EXPECT_EQ(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
  QPalette palette = QApplication::palette();
  EXPECT_LT(palette.color(QPalette::Window).lightness(), 80);
  EXPECT_LT(palette.color(QPalette::Base).lightness(), 80);
  EXPECT_GT(palette.color(QPalette::WindowText).lightness(), 180);
  EXPECT_GT(palette.color(QPalette::Text).lightness(), 180);

  themes.apply(ThemeManager::Theme::Light);
  palette = QApplication::palette();
  EXPECT_GT(palette.color(QPalette::Window).lightness(), 180);
  EXPECT_LT(palette.color(QPalette::WindowText).lightness(), 80);
}

TEST(ThemeManager, PlotsAreRecolouredIncludingOnesCreatedLater) {
  ThemeManager themes;
  themes.apply(ThemeManager::Theme::Light);
  QCustomPlot before;
  before.show();
  themes.apply(ThemeManager::Theme::Dark);
  EXPECT_LT(backgroundOf(before).lightness(), 80);
  EXPECT_GT(before.xAxis->tickLabelColor().lightness(), 180);
  EXPECT_GT(before.xAxis->basePen().color().lightness(), 180);

  QCustomPlot after;  // polished when first shown
  after.show();
  EXPECT_LT(backgroundOf(after).lightness(), 80);
  EXPECT_GT(after.yAxis->labelColor().lightness(), 180);

  themes.apply(ThemeManager::Theme::Light);
  EXPECT_GT(backgroundOf(after).lightness(), 200);
  EXPECT_LT(after.yAxis->labelColor().lightness(), 80);
}

TEST(ThemeManager, TheChoiceIsRememberedAcrossStarts) {
  ThemeManager themes;
  themes.apply(ThemeManager::Theme::Dark);
  EXPECT_EQ(ThemeManager::savedTheme(), ThemeManager::Theme::Dark);
  themes.apply(ThemeManager::Theme::Light);
  EXPECT_EQ(ThemeManager::savedTheme(), ThemeManager::Theme::Light);
  themes.apply(ThemeManager::Theme::Dark, /*persist=*/false);
  EXPECT_EQ(ThemeManager::savedTheme(), ThemeManager::Theme::Light);
  themes.apply(ThemeManager::Theme::Light);
}

TEST(ThemeManager, ParsesOnlyKnownThemeNames) {
  EXPECT_EQ(ThemeManager::parseTheme(QStringLiteral("dark")), ThemeManager::Theme::Dark);
  EXPECT_EQ(ThemeManager::parseTheme(QStringLiteral("light")), ThemeManager::Theme::Light);
  EXPECT_FALSE(ThemeManager::parseTheme(QStringLiteral("solarized")).has_value());
}

}  // namespace
}  // namespace ampscope::ui
