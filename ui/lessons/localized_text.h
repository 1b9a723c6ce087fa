// A text in the two languages AmpScope ships: English and Simplified Chinese. Lesson files carry both,
// so lesson prose does not go through Qt Linguist; the widget showing it picks by the current locale.
#pragma once

#include <QLocale>
#include <QString>

namespace ampscope::ui {

struct LocalizedText {
  QString en;
  QString zhCN;

  // The text for `locale`: Chinese for any zh locale, English otherwise (and when a translation is empty).
  QString text(const QLocale& locale = QLocale()) const {
    if (locale.language() == QLocale::Chinese && !zhCN.isEmpty()) return zhCN;
    return en;
  }
};

}  // namespace ampscope::ui
