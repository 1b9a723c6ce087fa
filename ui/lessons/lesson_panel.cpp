#include "ui/lessons/lesson_panel.h"

#include "ui/lessons/claim_text.h"
#include "ui/lessons/lesson_claim_checks.h"
#include "ui/lessons/plot_callouts.h"

#include <QAction>
#include <QColor>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace ampscope::ui {

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("lessonPanel"));
  auto* layout = new QVBoxLayout(this);

  section_ = new QLabel(this);
  section_->setObjectName(QStringLiteral("lessonSection"));
  title_ = new QLabel(this);
  title_->setObjectName(QStringLiteral("lessonTitle"));
  title_->setWordWrap(true);
  QFont titleFont = title_->font();
  titleFont.setBold(true);
  title_->setFont(titleFont);
  layout->addWidget(section_);
  layout->addWidget(title_);

  narrative_ = new QTextBrowser(this);
  narrative_->setObjectName(QStringLiteral("lessonNarrative"));
  narrative_->setOpenLinks(false);
  layout->addWidget(narrative_, 2);

  auto* variantRow = new QHBoxLayout;
  variantLabel_ = new QLabel(this);
  variants_ = new QComboBox(this);
  variants_->setObjectName(QStringLiteral("lessonVariants"));
  variantLabel_->setBuddy(variants_);
  variantRow->addWidget(variantLabel_);
  variantRow->addWidget(variants_, 1);
  layout->addLayout(variantRow);
  connect(variants_, &QComboBox::activated, this, &LessonPanel::variantChosen);

  question_ = new QLabel(this);
  question_->setObjectName(QStringLiteral("lessonQuestion"));
  question_->setWordWrap(true);
  question_->setTextFormat(Qt::PlainText);
  layout->addWidget(question_);
  lookForLabel_ = new QLabel(this);
  layout->addWidget(lookForLabel_);
  callouts_ = new QListWidget(this);
  callouts_->setObjectName(QStringLiteral("lessonCallouts"));
  callouts_->setWordWrap(true);
  callouts_->setTextElideMode(Qt::ElideNone);
  // As tall as the narrative: each item carries its claim's state line under its text.
  layout->addWidget(callouts_, 3);
  // A single click is enough: a teacher at a projector should not need to double-click.
  connect(callouts_, &QListWidget::itemClicked, this,
          [this](QListWidgetItem* item) { emit calloutActivated(callouts_->row(item)); });
  connect(callouts_, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { emit calloutActivated(callouts_->row(item)); });

  injectButton_ = new QPushButton(this);
  injectButton_->setObjectName(QStringLiteral("lessonInjectOverflow"));
  layout->addWidget(injectButton_);
  connect(injectButton_, &QPushButton::clicked, this, &LessonPanel::injectOverflowRequested);

  auto* navigation = new QHBoxLayout;
  previousButton_ = new QPushButton(this);
  previousButton_->setObjectName(QStringLiteral("lessonPrevious"));
  position_ = new QLabel(this);
  position_->setAlignment(Qt::AlignCenter);
  nextButton_ = new QPushButton(this);
  nextButton_->setObjectName(QStringLiteral("lessonNext"));
  browseButton_ = new QPushButton(this);
  browseButton_->setObjectName(QStringLiteral("lessonBrowse"));
  navigation->addWidget(previousButton_);
  navigation->addWidget(position_, 1);
  navigation->addWidget(nextButton_);
  layout->addLayout(navigation);
  layout->addWidget(browseButton_);
  connect(previousButton_, &QPushButton::clicked, this, &LessonPanel::previousRequested);
  connect(nextButton_, &QPushButton::clicked, this, &LessonPanel::nextRequested);
  connect(browseButton_, &QPushButton::clicked, this, &LessonPanel::browseRequested);

  // Window-wide shortcuts: the panel lives in a dock, and the keys must work wherever the focus is.
  nextAction_ = new QAction(this);
  nextAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown));
  nextAction_->setShortcutContext(Qt::WindowShortcut);
  previousAction_ = new QAction(this);
  previousAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp));
  previousAction_->setShortcutContext(Qt::WindowShortcut);
  addAction(nextAction_);
  addAction(previousAction_);
  connect(nextAction_, &QAction::triggered, this, &LessonPanel::nextRequested);
  connect(previousAction_, &QAction::triggered, this, &LessonPanel::previousRequested);

  retranslate();
}

void LessonPanel::setLesson(const Lesson* lesson, int index, int count) {
  lesson_ = lesson;
  index_ = index;
  count_ = count;
  {
    // A new lesson starts at its first variant; a retranslation keeps the chosen one.
    const QSignalBlocker block(variants_);
    variants_->clear();
  }
  fillFromLesson();
}

void LessonPanel::setCurrentVariant(int index) {
  const QSignalBlocker block(variants_);
  variants_->setCurrentIndex(index);
}

void LessonPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) {
    retranslate();
    emit languageChanged();
  }
  QWidget::changeEvent(event);
}

void LessonPanel::retranslate() {
  lookForLabel_->setText(tr("What to look for (click to show the panel):"));
  variantLabel_->setText(tr("&Configuration:"));
  injectButton_->setText(tr("Inject overflow into the next step"));
  injectButton_->setToolTip(
      tr("Puts an infinity into the next step's gradients: a GradScaler skips that step "
         "and halves its scale; modes without a scaler diverge."));
  previousButton_->setText(tr("◀ Previous"));
  previousButton_->setToolTip(
      tr("Previous lesson (%1)").arg(previousAction_->shortcut().toString(QKeySequence::NativeText)));
  nextButton_->setText(tr("Next ▶"));
  nextButton_->setToolTip(
      tr("Next lesson (%1)").arg(nextAction_->shortcut().toString(QKeySequence::NativeText)));
  browseButton_->setText(tr("All lessons…"));
  nextAction_->setText(tr("Next Lesson"));
  previousAction_->setText(tr("Previous Lesson"));
  fillFromLesson();
}

void LessonPanel::fillFromLesson() {
  const QLocale locale;
  previousButton_->setEnabled(lesson_ && index_ > 0);
  nextButton_->setEnabled(lesson_ && index_ + 1 < count_);
  if (!lesson_) {
    section_->clear();
    title_->setText(tr("No lesson open"));
    narrative_->setPlainText(tr("Open a lesson from the lesson browser."));
    variantLabel_->hide();
    variants_->hide();
    callouts_->clear();
    question_->hide();
    injectButton_->hide();
    position_->clear();
    return;
  }
  section_->setText(tr("Chapter section §%1").arg(lesson_->section));
  title_->setText(lesson_->title.text(locale));
  QString html;
  for (const QString& paragraph : lesson_->narrative.text(locale).split(QStringLiteral("\n\n"))) {
    html += QStringLiteral("<p>%1</p>").arg(paragraph.toHtmlEscaped());
  }
  narrative_->setHtml(html);
  {
    const QSignalBlocker block(variants_);
    const int current = variants_->currentIndex();
    variants_->clear();
    for (const Lesson::Variant& variant : lesson_->variants) variants_->addItem(variant.label.text(locale));
    if (current >= 0 && current < variants_->count()) variants_->setCurrentIndex(current);
  }
  variantLabel_->setVisible(!lesson_->variants.isEmpty());
  variants_->setVisible(!lesson_->variants.isEmpty());
  callouts_->clear();
  // Numbered as a callout's box in a plot is when it shrinks to its number (PlotCallouts).
  int number = 0;
  for (const Lesson::Callout& callout : lesson_->callouts) {
    auto* item = new QListWidgetItem(PlotCallouts::badgeText(++number) + QLatin1Char(' ') + callout.text.text(locale),
                                     callouts_);
    item->setData(Qt::UserRole, callout.panel);
  }
  injectButton_->setVisible(lesson_->hasControl(QStringLiteral("inject-overflow")));
  position_->setText(tr("Lesson %1 of %2").arg(index_ + 1).arg(count_));
  refreshClaims();
}

namespace {

// A swatch beside an item with a claim: the state at a glance from the back of the room.
QColor statusColor(const QString& status) {
  if (status == QLatin1String("holds")) return QColor(0x2e, 0x9d, 0x4a);
  if (status == QLatin1String("fails")) return QColor(0xd0, 0x3b, 0x3b);
  if (status == QLatin1String("held-before")) return QColor(0xe0, 0x9b, 0x1b);
  return QColor(0x9a, 0x9a, 0x9a);
}

// The reading that decides the state: the first part not holding (waiting, held before, failed), or the
// first part when the whole claim holds.
const ClaimReading* decisiveReading(const ClaimState& state) {
  if (state.readings.empty()) return nullptr;
  if (state.status != ClaimStatus::Holds)
    for (const ClaimReading& reading : state.readings)
      if (reading.holds != true) return &reading;
  return &state.readings.front();
}

}  // namespace

void LessonPanel::refreshClaims() {
  if (!lesson_) return;
  const QLocale locale;
  // The swatch a little smaller than a line of text, at whatever size presenter scaling gives the font.
  const int side = callouts_->fontMetrics().height() * 2 / 3;
  callouts_->setIconSize(QSize(side, side));
  int holding = 0, checked = 0;
  for (int i = 0; i < callouts_->count() && i < lesson_->callouts.size(); ++i) {
    QListWidgetItem* item = callouts_->item(i);
    QString text = PlotCallouts::badgeText(i + 1) + QLatin1Char(' ') + lesson_->callouts[i].text.text(locale);
    QString status;
    QString tooltip;
    const ClaimState* state = checks_ ? checks_->state(i) : nullptr;
    const QString untrained = checks_ ? checks_->untrainedMode(i) : QString();
    if (state) {
      ++checked;
      holding += state->status == ClaimStatus::Holds ? 1 : 0;
      status = QString::fromLatin1(claimStatusKey(state->status));
      QString line = ClaimText::status(*state);
      if (const ClaimReading* reading = decisiveReading(*state)) line += QStringLiteral(" — ") + ClaimText::reading(*reading);
      const int parts = static_cast<int>(state->readings.size());
      if (parts > 1) line += QLatin1Char(' ') + tr("(%n parts)", nullptr, parts);
      text += QStringLiteral("\n    ") + line;
      tooltip = tr("Checked against the run: %1").arg(ClaimText::status(*state)) + QLatin1Char('\n') +
                ClaimText::readings(*state);
    } else if (!untrained.isEmpty()) {
      status = QStringLiteral("unchecked");
      text += QStringLiteral("\n    ") + tr("not checked: this run does not train %1").arg(untrained);
    }
    item->setText(text);
    item->setToolTip(tooltip);
    item->setData(kClaimStatusRole, status);
    item->setData(Qt::DecorationRole, status.isEmpty() ? QVariant() : QVariant(statusColor(status)));
  }
  // The question is asked before Run; the items answer it as their claims come true.
  question_->setVisible(lesson_->question.has_value());
  if (lesson_->question) question_->setText(tr("Question: %1").arg(lesson_->question->text(locale)));
  lookForLabel_->setText(checked > 0 ? tr("What to look for (click to show the panel), %1 of %2 hold now:").arg(holding).arg(checked)
                                     : tr("What to look for (click to show the panel):"));
}

}  // namespace ampscope::ui
