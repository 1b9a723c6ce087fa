// The lesson dock's content: the lesson's title and narrative, a choice of configuration variants, the
// "what to look for" list (activating an item asks to bring its panel forward; an item whose claim is checked
// shows its state under its text: waiting, holds since step N, held N..M, does not hold, with the observed
// number against the claim's), the lesson's question before the list when it has one with how the claims
// answer it (answered at step N, or not in this configuration), the inject-overflow
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

class CalloutItemDelegate;
class LessonClaimChecks;

class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonPanel(QWidget* parent = nullptr);

  // Shows `lesson` (nullptr: none). `index`/`count` drive the "n of m" label and the buttons' state.
  void setLesson(const Lesson* lesson, int index, int count);
  void setCurrentVariant(int index);
  // The live checks of the lesson's claims (owned by the controller; nullptr: none). refreshClaims()
  // redraws the items' states from them.
  void setClaimChecks(const LessonClaimChecks* checks) { checks_ = checks; }
  void refreshClaims();
  // The role of an item's data holding its claim state ("waiting", "holds", "held-before", "fails",
  // "unchecked"; empty without a claim), for tests and accessibility.
  static constexpr int kClaimStatusRole = Qt::UserRole + 1;

  QAction* nextAction() const { return nextAction_; }
  QAction* previousAction() const { return previousAction_; }
  QListWidget* calloutList() const { return callouts_; }
  QPushButton* injectOverflowButton() const { return injectButton_; }
  QComboBox* variantBox() const { return variants_; }
  QLabel* titleLabel() const { return title_; }
  QLabel* questionLabel() const { return question_; }
  // Under the question: how the claims answer it (answered at step N, not answered in this configuration,
  // not yet), each answering item's number with its state.
  QLabel* answerLabel() const { return answer_; }
  QLabel* lookForLabel() const { return lookForLabel_; }

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
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void retranslate();
  void fillFromLesson();
  // Cuts the items' texts to as many lines as lets every item and its state fit the list's height.
  void fitCallouts();
  void showAnswer();

  const Lesson* lesson_ = nullptr;
  const LessonClaimChecks* checks_ = nullptr;
  QLabel* question_ = nullptr;
  QLabel* answer_ = nullptr;
  int index_ = -1;
  int count_ = 0;
  QLabel* section_ = nullptr;
  QLabel* title_ = nullptr;
  QTextBrowser* narrative_ = nullptr;
  QLabel* variantLabel_ = nullptr;
  QComboBox* variants_ = nullptr;
  QLabel* lookForLabel_ = nullptr;
  QListWidget* callouts_ = nullptr;
  CalloutItemDelegate* calloutDelegate_ = nullptr;
  bool fitting_ = false;
  bool fitPending_ = false;
  QPushButton* injectButton_ = nullptr;
  QPushButton* browseButton_ = nullptr;
  QPushButton* previousButton_ = nullptr;
  QPushButton* nextButton_ = nullptr;
  QLabel* position_ = nullptr;
  QAction* nextAction_ = nullptr;
  QAction* previousAction_ = nullptr;
};

}  // namespace ampscope::ui
