// Light and dark themes: the Fusion style with a light or dark QPalette (Qt 6.4 has no colour-scheme
// API, so the palette is the theme), remembered in QSettings. QCustomPlot paints with its own pens and
// brushes, not the palette, so every plot's background, axes, grid, legend and title colours are set
// on a theme change, and plots created later are themed when Qt first polishes them.
#pragma once

#include <QObject>
#include <QPalette>
#include <QPointer>
#include <optional>

class QActionGroup;
class QCustomPlot;
class QMenu;

namespace ampscope::ui {

class ThemeManager : public QObject {
  Q_OBJECT
 public:
  enum class Theme { Light, Dark };

  explicit ThemeManager(QObject* parent = nullptr);
  ~ThemeManager() override;

  static Theme savedTheme();              // Light unless Dark was saved
  static QString themeName(Theme theme);  // "light", "dark" (settings and command line)
  static std::optional<Theme> parseTheme(const QString& name);
  static QPalette palette(Theme theme);

  // Sets the style, palette and plot colours. With persist, remembers the choice.
  void apply(Theme theme, bool persist = true);
  Theme theme() const { return theme_; }
  // Recolours one plot for the current theme (used for plots that appear after a change, and by tests).
  void stylePlot(QCustomPlot* plot) const;

  QMenu* addMenuTo(QMenu* parent);

 signals:
  void themeChanged(ampscope::ui::ThemeManager::Theme theme);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void retranslateMenu();

  Theme theme_ = Theme::Light;
  bool applied_ = false;
  QPointer<QMenu> menu_;
  QPointer<QActionGroup> group_;
};

}  // namespace ampscope::ui
