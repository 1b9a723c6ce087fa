#include "ui/presentation/theme_manager.h"

#include <qcustomplot.h>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QEvent>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace ampscope::ui {

namespace {
const QString kThemeKey = QStringLiteral("ui/theme");

struct PlotColors {
  QColor background;
  QColor axisRectBackground;
  QColor foreground;  // axes, ticks, labels, legend text
  QColor grid;
  QColor subGrid;
  QColor legendBackground;
};

PlotColors plotColors(ThemeManager::Theme theme) {
  if (theme == ThemeManager::Theme::Dark) {
    return {QColor(30, 30, 30), QColor(24, 24, 24), QColor(220, 220, 220),
            QColor(80, 80, 80), QColor(50, 50, 50), QColor(40, 40, 40, 230)};
  }
  return {Qt::white,
          Qt::white,
          QColor(30, 30, 30),
          QColor(200, 200, 200),
          QColor(230, 230, 230),
          QColor(255, 255, 255, 230)};
}
}  // namespace

ThemeManager::ThemeManager(QObject* parent) : QObject(parent) { qApp->installEventFilter(this); }

ThemeManager::~ThemeManager() {
  if (qApp) qApp->removeEventFilter(this);
}

ThemeManager::Theme ThemeManager::savedTheme() {
  return parseTheme(QSettings().value(kThemeKey).toString()).value_or(Theme::Light);
}

QString ThemeManager::themeName(Theme theme) {
  return theme == Theme::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

std::optional<ThemeManager::Theme> ThemeManager::parseTheme(const QString& name) {
  if (name == QLatin1String("light")) return Theme::Light;
  if (name == QLatin1String("dark")) return Theme::Dark;
  return std::nullopt;
}

QPalette ThemeManager::palette(Theme theme) {
  QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
  QPalette light = fusion ? fusion->standardPalette() : QPalette();
  delete fusion;
  if (theme == Theme::Light) return light;

  QPalette dark;
  const QColor window(45, 45, 48);
  const QColor base(30, 30, 30);
  const QColor text(225, 225, 225);
  const QColor disabledText(127, 127, 127);
  dark.setColor(QPalette::Window, window);
  dark.setColor(QPalette::WindowText, text);
  dark.setColor(QPalette::Base, base);
  dark.setColor(QPalette::AlternateBase, QColor(40, 40, 43));
  dark.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
  dark.setColor(QPalette::ToolTipText, text);
  dark.setColor(QPalette::PlaceholderText, disabledText);
  dark.setColor(QPalette::Text, text);
  dark.setColor(QPalette::Button, QColor(53, 53, 56));
  dark.setColor(QPalette::ButtonText, text);
  dark.setColor(QPalette::BrightText, QColor(255, 90, 90));
  dark.setColor(QPalette::Light, QColor(75, 75, 78));
  dark.setColor(QPalette::Midlight, QColor(62, 62, 65));
  dark.setColor(QPalette::Mid, QColor(40, 40, 42));
  dark.setColor(QPalette::Dark, QColor(25, 25, 27));
  dark.setColor(QPalette::Shadow, QColor(10, 10, 10));
  dark.setColor(QPalette::Highlight, QColor(61, 123, 217));
  dark.setColor(QPalette::HighlightedText, Qt::white);
  dark.setColor(QPalette::Link, QColor(110, 170, 250));
  dark.setColor(QPalette::LinkVisited, QColor(170, 140, 250));
  for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
    dark.setColor(QPalette::Disabled, role, disabledText);
  }
  dark.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 80, 80));
  dark.setColor(QPalette::Disabled, QPalette::HighlightedText, disabledText);
  return dark;
}

void ThemeManager::apply(Theme theme, bool persist) {
  const bool changed = !applied_ || theme_ != theme;
  theme_ = theme;
  applied_ = true;
  if (QString::compare(QApplication::style()->name(), QStringLiteral("fusion"), Qt::CaseInsensitive) != 0) {
    QApplication::setStyle(QStringLiteral("Fusion"));
  }
  QApplication::setPalette(palette(theme));
  for (QWidget* widget : QApplication::allWidgets()) {
    if (auto* plot = qobject_cast<QCustomPlot*>(widget)) stylePlot(plot);
  }
  if (persist) QSettings().setValue(kThemeKey, themeName(theme));
  if (group_) {
    for (QAction* action : group_->actions())
      action->setChecked(action->data().toString() == themeName(theme));
  }
  if (changed) emit themeChanged(theme);
}

void ThemeManager::stylePlot(QCustomPlot* plot) const {
  if (!plot) return;
  const PlotColors c = plotColors(theme_);
  plot->setBackground(c.background);
  const QPen axisPen(c.foreground, 1);
  for (QCPAxisRect* rect : plot->axisRects()) {
    rect->setBackground(c.axisRectBackground);
    for (QCPAxis* axis : rect->axes()) {
      axis->setBasePen(axisPen);
      axis->setTickPen(axisPen);
      axis->setSubTickPen(axisPen);
      axis->setLabelColor(c.foreground);
      axis->setTickLabelColor(c.foreground);
      axis->grid()->setPen(QPen(c.grid, 1, Qt::DotLine));
      axis->grid()->setSubGridPen(QPen(c.subGrid, 1, Qt::DotLine));
      axis->grid()->setZeroLinePen(QPen(c.grid, 1));
    }
  }
  if (plot->legend) {
    plot->legend->setBrush(QBrush(c.legendBackground));
    plot->legend->setBorderPen(QPen(c.grid));
    plot->legend->setTextColor(c.foreground);
    for (int i = 0; i < plot->legend->itemCount(); ++i) {
      if (QCPAbstractLegendItem* item = plot->legend->item(i)) item->setTextColor(c.foreground);
    }
  }
  // Titles and other text elements in the layout.
  for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
    if (auto* text = qobject_cast<QCPTextElement*>(element)) text->setTextColor(c.foreground);
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

QMenu* ThemeManager::addMenuTo(QMenu* parent) {
  if (menu_) return menu_;
  menu_ = parent->addMenu(QString());
  menu_->setObjectName(QStringLiteral("themeMenu"));
  menu_->installEventFilter(this);
  group_ = new QActionGroup(menu_);
  group_->setExclusive(true);
  for (Theme theme : {Theme::Light, Theme::Dark}) {
    QAction* action = menu_->addAction(QString());
    action->setCheckable(true);
    action->setData(themeName(theme));
    action->setChecked(applied_ && theme == theme_);
    group_->addAction(action);
    connect(action, &QAction::triggered, this, [this, theme] { apply(theme); });
  }
  retranslateMenu();
  return menu_;
}

bool ThemeManager::eventFilter(QObject* watched, QEvent* event) {
  // Polish comes once, before a widget is first shown: the moment to theme a plot created later.
  if (event->type() == QEvent::Polish && applied_) {
    if (auto* plot = qobject_cast<QCustomPlot*>(watched)) stylePlot(plot);
  } else if (event->type() == QEvent::LanguageChange && watched == menu_) {
    retranslateMenu();
  }
  return QObject::eventFilter(watched, event);
}

void ThemeManager::retranslateMenu() {
  if (!menu_) return;
  menu_->setTitle(tr("&Theme"));
  for (QAction* action : group_->actions()) {
    action->setText(action->data().toString() == themeName(Theme::Dark) ? tr("&Dark") : tr("&Light"));
  }
}

}  // namespace ampscope::ui
