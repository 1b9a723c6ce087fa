#include "ui/lessons/panel_highlight.h"

#include <QEvent>
#include <QPainter>
#include <QPen>
#include <QTimer>

namespace ampscope::ui {

namespace {
// Amber reads on both the light and the dark theme.
const QColor kHighlightColor(240, 150, 20);
constexpr int kFrameWidth = 4;
}  // namespace

PanelHighlight::PanelHighlight(QWidget* target) : QWidget(target) {
  setObjectName(QStringLiteral("lessonPanelHighlight"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setAttribute(Qt::WA_NoSystemBackground);
  setGeometry(target->rect());
  target->installEventFilter(this);
}

PanelHighlight* PanelHighlight::flash(QWidget* target, int durationMs) {
  if (!target) return nullptr;
  // One frame per panel: a second click restarts the flash instead of stacking frames.
  for (PanelHighlight* old : target->findChildren<PanelHighlight*>(QString(), Qt::FindDirectChildrenOnly)) {
    old->deleteLater();
  }
  auto* highlight = new PanelHighlight(target);
  highlight->show();
  highlight->raise();
  QTimer::singleShot(durationMs, highlight, &QObject::deleteLater);
  return highlight;
}

bool PanelHighlight::eventFilter(QObject* watched, QEvent* event) {
  if (watched == parentWidget() && event->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
  return QWidget::eventFilter(watched, event);
}

void PanelHighlight::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  QPen pen(kHighlightColor, kFrameWidth);
  pen.setJoinStyle(Qt::MiterJoin);
  painter.setPen(pen);
  painter.drawRect(rect().adjusted(kFrameWidth / 2, kFrameWidth / 2, -kFrameWidth / 2, -kFrameWidth / 2));
}

}  // namespace ampscope::ui
