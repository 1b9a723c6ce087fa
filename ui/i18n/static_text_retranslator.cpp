#include "ui/i18n/static_text_retranslator.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QXmlStreamReader>

#include "ui/common/axis_label_fit.h"

namespace ampscope::ui {

namespace {
bool isChinese(const QString& language) { return language == QLatin1String("zh_CN"); }
}  // namespace

bool StaticTextRetranslator::load(const QString& tsPath) {
  QFile file(tsPath);
  if (!file.open(QIODevice::ReadOnly)) return false;
  toChinese_.clear();
  toEnglish_.clear();
  QXmlStreamReader xml(&file);
  QString source;
  while (!xml.atEnd()) {
    xml.readNext();
    if (!xml.isStartElement()) continue;
    if (xml.name() == QLatin1String("source")) {
      source = xml.readElementText();
    } else if (xml.name() == QLatin1String("translation")) {
      const bool unfinished = xml.attributes().value(QLatin1String("type")) == QLatin1String("unfinished");
      // Plural forms (<numerusform> children) read as empty and are skipped: they always carry %n.
      const QString translation = xml.readElementText(QXmlStreamReader::SkipChildElements);
      // Texts with arguments are never shown as they are; strings equal in both languages need nothing.
      if (unfinished || translation.isEmpty() || source.contains(u'%') || translation == source) continue;
      if (!toChinese_.contains(source)) toChinese_.insert(source, translation);
      if (!toEnglish_.contains(translation)) toEnglish_.insert(translation, source);
    }
  }
  return !xml.hasError();
}

QString StaticTextRetranslator::convert(const QString& text, const QString& fromLanguage,
                                        const QString& toLanguage) const {
  if (text.isEmpty() || fromLanguage == toLanguage) return {};
  const QString english =
      isChinese(fromLanguage) ? toEnglish_.value(text) : (toChinese_.contains(text) ? text : QString());
  if (english.isNull()) return {};
  return isChinese(toLanguage) ? toChinese_.value(english) : english;
}

void StaticTextRetranslator::retranslateApplication(const QString& fromLanguage,
                                                    const QString& toLanguage) const {
  for (QWidget* top : QApplication::topLevelWidgets()) retranslateTree(top, fromLanguage, toLanguage);
}

void StaticTextRetranslator::retranslateTree(QObject* root, const QString& fromLanguage,
                                             const QString& toLanguage) const {
  if (fromLanguage == toLanguage || !root) return;
  const auto swap = [&](const QString& text, const auto& set) {
    const QString converted = convert(text, fromLanguage, toLanguage);
    if (!converted.isNull()) set(converted);
  };
  QList<QObject*> objects = root->findChildren<QObject*>();
  objects.prepend(root);
  for (QObject* object : objects) {
    if (auto* action = qobject_cast<QAction*>(object)) {
      swap(action->text(), [&](const QString& t) { action->setText(t); });
      swap(action->toolTip(), [&](const QString& t) { action->setToolTip(t); });
      swap(action->statusTip(), [&](const QString& t) { action->setStatusTip(t); });
      continue;
    }
    if (auto* plot = qobject_cast<QCustomPlot*>(object)) {
      for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* axis : rect->axes()) {
          swap(AxisLabelFit::fullLabel(axis), [&](const QString& t) { axis->setLabel(t); });
        }
      }
      for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* p = plot->plottable(i);
        swap(p->name(), [&](const QString& t) { p->setName(t); });
      }
      for (int i = 0; i < plot->itemCount(); ++i) {
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) {
          swap(text->text(), [&](const QString& t) { text->setText(t); });
        }
      }
      for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        if (auto* title = qobject_cast<QCPTextElement*>(element)) {
          swap(title->text(), [&](const QString& t) { title->setText(t); });
        }
      }
      plot->replot(QCustomPlot::rpQueuedReplot);
    }
    auto* widget = qobject_cast<QWidget*>(object);
    if (!widget) continue;
    swap(widget->toolTip(), [&](const QString& t) { widget->setToolTip(t); });
    if (widget->isWindow() || qobject_cast<QDockWidget*>(widget)) {
      swap(widget->windowTitle(), [&](const QString& t) { widget->setWindowTitle(t); });
    }
    if (auto* label = qobject_cast<QLabel*>(widget)) {
      swap(label->text(), [&](const QString& t) { label->setText(t); });
    } else if (auto* button = qobject_cast<QAbstractButton*>(widget)) {
      swap(button->text(), [&](const QString& t) { button->setText(t); });
    } else if (auto* menu = qobject_cast<QMenu*>(widget)) {
      swap(menu->title(), [&](const QString& t) { menu->setTitle(t); });
    } else if (auto* group = qobject_cast<QGroupBox*>(widget)) {
      swap(group->title(), [&](const QString& t) { group->setTitle(t); });
    } else if (auto* edit = qobject_cast<QLineEdit*>(widget)) {
      swap(edit->placeholderText(), [&](const QString& t) { edit->setPlaceholderText(t); });
    } else if (auto* spin = qobject_cast<QSpinBox*>(widget)) {
      swap(spin->suffix(), [&](const QString& t) { spin->setSuffix(t); });
      swap(spin->prefix(), [&](const QString& t) { spin->setPrefix(t); });
      swap(spin->specialValueText(), [&](const QString& t) { spin->setSpecialValueText(t); });
    } else if (auto* combo = qobject_cast<QComboBox*>(widget)) {
      for (int i = 0; i < combo->count(); ++i)
        swap(combo->itemText(i), [&](const QString& t) { combo->setItemText(i, t); });
    } else if (auto* tabs = qobject_cast<QTabWidget*>(widget)) {
      for (int i = 0; i < tabs->count(); ++i) {
        swap(tabs->tabText(i), [&](const QString& t) { tabs->setTabText(i, t); });
        swap(tabs->tabToolTip(i), [&](const QString& t) { tabs->setTabToolTip(i, t); });
      }
    } else if (auto* table = qobject_cast<QTableWidget*>(widget)) {
      for (int c = 0; c < table->columnCount(); ++c) {
        if (QTableWidgetItem* item = table->horizontalHeaderItem(c))
          swap(item->text(), [&](const QString& t) { item->setText(t); });
      }
      for (int r = 0; r < table->rowCount(); ++r) {
        if (QTableWidgetItem* item = table->verticalHeaderItem(r))
          swap(item->text(), [&](const QString& t) { item->setText(t); });
        for (int c = 0; c < table->columnCount(); ++c) {
          if (QTableWidgetItem* item = table->item(r, c))
            swap(item->text(), [&](const QString& t) { item->setText(t); });
        }
      }
    } else if (auto* tree = qobject_cast<QTreeWidget*>(widget)) {
      QTreeWidgetItem* header = tree->headerItem();
      for (int c = 0; header && c < header->columnCount(); ++c) {
        swap(header->text(c), [&](const QString& t) { header->setText(c, t); });
      }
    }
  }
}

}  // namespace ampscope::ui
