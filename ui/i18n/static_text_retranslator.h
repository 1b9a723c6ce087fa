// Retranslates the fixed texts of widgets that set them once, in their constructor, and have no
// changeEvent of their own. It reads the catalogue source (:/i18n/ampscope_zh_CN.ts, compiled in next
// to the .qm) into a table English <-> Chinese and, on a language switch, walks every widget, action,
// tab, header, combo box item and plot label of the application: a text that is exactly a catalogue
// string of the old language is replaced by the same string in the new one. Texts built with
// arguments (%1) are not in the table as such; the widgets showing them refresh them on their next
// update. Widgets that retranslate themselves in changeEvent are unaffected: their texts are already in
// the new language and no longer match the old one.
#pragma once

#include <QHash>
#include <QString>

class QObject;

namespace ampscope::ui {

class StaticTextRetranslator {
 public:
  // Loads the table from a Qt Linguist .ts file. False when it cannot be read.
  bool load(const QString& tsPath = QStringLiteral(":/i18n/ampscope_zh_CN.ts"));
  int size() const { return static_cast<int>(toChinese_.size()); }

  // The text in `toLanguage` ("en" or "zh_CN") for `text` written in `fromLanguage`; a null QString when
  // `text` is not a fixed catalogue string of `fromLanguage`.
  QString convert(const QString& text, const QString& fromLanguage, const QString& toLanguage) const;

  // Converts the texts of every top-level widget and its children from one language to the other.
  void retranslateApplication(const QString& fromLanguage, const QString& toLanguage) const;
  // The same for one object tree (tests).
  void retranslateTree(QObject* root, const QString& fromLanguage, const QString& toLanguage) const;

 private:
  QHash<QString, QString> toChinese_;  // English source -> Chinese
  QHash<QString, QString> toEnglish_;  // Chinese -> English source
};

}  // namespace ampscope::ui
