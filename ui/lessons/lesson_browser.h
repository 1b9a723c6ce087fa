// A dialog listing every lesson under its chapter section, titles in the current language. Choosing one
// (double-click, Enter or Open) accepts the dialog; chosenId() names it.
#pragma once

#include <QDialog>

#include "ui/lessons/lesson_library.h"

class QDialogButtonBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace ampscope::ui {

class LessonBrowser : public QDialog {
  Q_OBJECT
 public:
  LessonBrowser(const LessonLibrary& library, QWidget* parent = nullptr);

  void setCurrentId(const QString& id);
  QString chosenId() const;
  QTreeWidget* tree() const { return tree_; }

  // The chapter's name for one of its sections (1..10), translated; others read "Section N".
  static QString sectionName(int section);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslate();
  void rebuild();

  const LessonLibrary& library_;
  QLabel* intro_ = nullptr;
  QTreeWidget* tree_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  QString currentId_;
};

}  // namespace ampscope::ui
