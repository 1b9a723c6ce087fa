// The lesson dock's content: the lesson's title and narrative, a choice of configuration variants, the
// "what to look for" list (activating an item asks to bring its panel forward), the inject-overflow
// control when the lesson has it, and Previous / Next (Ctrl+PgUp / Ctrl+PgDown). It only displays and
// emits; LessonController decides what happens. Texts follow the current language at run time.
#pragma once

#include <QWidget>

#include "ui/lessons/lesson.h"

class QAction;
class QComboBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;
class QTextBrowser;

namespace ampscope::ui {

class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonPanel(QWidget* parent = nullptr);

  // Shows `lesson` (nullptr: none). `index`/`count` drive the "n of m" label and the buttons' state.
  void setLesson(const Lesson* lesson, int index, int count);
  void setCurrentVariant(int index);

  QAction* nextAction() const { return nextAction_; }
  QAction* previousAction() const { return previousAction_; }
  QListWidget* calloutList() const { return callouts_; }
  QPushButton* injectOverflowButton() const { return injectButton_; }
  QComboBox* variantBox() const { return variants_; }
  QLabel* titleLabel() const { return title_; }

 signals:
  void nextRequested();
  void previousRequested();
  void browseRequested();
  void calloutActivated(int index);
  void variantChosen(int index);
  void injectOverflowRequested();
  // Emitted after the panel retranslated itself (the controller refreshes its plot callouts).
  void languageChanged();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void retranslate();
  void fillFromLesson();

  const Lesson* lesson_ = nullptr;
  int index_ = -1;
  int count_ = 0;
  QLabel* section_ = nullptr;
  QLabel* title_ = nullptr;
  QTextBrowser* narrative_ = nullptr;
  QLabel* variantLabel_ = nullptr;
  QComboBox* variants_ = nullptr;
  QLabel* lookForLabel_ = nullptr;
  QListWidget* callouts_ = nullptr;
  QPushButton* injectButton_ = nullptr;
  QPushButton* browseButton_ = nullptr;
  QPushButton* previousButton_ = nullptr;
  QPushButton* nextButton_ = nullptr;
  QLabel* position_ = nullptr;
  QAction* nextAction_ = nullptr;
  QAction* previousAction_ = nullptr;
};

}  // namespace ampscope::ui
