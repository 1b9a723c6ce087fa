#include "ui/lessons/lesson_panel.h"

#include "ui/lessons/callout_item_delegate.h"
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
#include <QStringList>
#include <QTextBrowser>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

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
  // One row: the room below goes to the "what to look for" items.
  auto* heading = new QHBoxLayout;
  heading->addWidget(title_, 1);
  heading->addWidget(section_, 0, Qt::AlignTop | Qt::AlignRight);
  layout->addLayout(heading);

  narrative_ = new QTextBrowser(this);
  narrative_->setObjectName(QStringLiteral("lessonNarrative"));
  narrative_->setOpenLinks(false);
  // Two lines at least; it scrolls. The room goes to the "what to look for" items first.
  narrative_->setMinimumHeight(2 * narrative_->fontMetrics().lineSpacing() + 2 * narrative_->frameWidth() + 8);
  layout->addWidget(narrative_, 1);

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
  answer_ = new QLabel(this);
  answer_->setObjectName(QStringLiteral("lessonAnswer"));
  answer_->setWordWrap(false);  // one line: numbers and symbols
  answer_->setTextFormat(Qt::PlainText);
  layout->addWidget(answer_);
  lookForLabel_ = new QLabel(this);
  layout->addWidget(lookForLabel_);
  callouts_ = new QListWidget(this);
  callouts_->setObjectName(QStringLiteral("lessonCallouts"));
  calloutDelegate_ = new CalloutItemDelegate(callouts_);
  callouts_->setItemDelegate(calloutDelegate_);
  callouts_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  callouts_->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
  callouts_->installEventFilter(this);
  // The items before the narrative: every item and its state must be in view (fitCallouts), the
  // narrative scrolls in what is left.
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
  navigation->addWidget(browseButton_);
  layout->addLayout(navigation);
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
    answer_->hide();
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
// The state in symbols and step numbers, for the compact badge (the words are in the state line).
QString stateBadge(const ClaimState& state) {
  switch (state.status) {
    case ClaimStatus::Waiting: return QStringLiteral("…");
    case ClaimStatus::Holds: return QStringLiteral("✓ %1").arg(state.since);
    case ClaimStatus::HeldBefore: return QStringLiteral("✓ %1–%2").arg(state.since).arg(state.until);
    case ClaimStatus::Fails: return QStringLiteral("✗");
  }
  return QString();
}

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
  int holding = 0, checked = 0;
  for (int i = 0; i < callouts_->count() && i < lesson_->callouts.size(); ++i) {
    QListWidgetItem* item = callouts_->item(i);
    const QString own = PlotCallouts::badgeText(i + 1) + QLatin1Char(' ') + lesson_->callouts[i].text.text(locale);
    QString text = own;
    QString stateLine;
    QString badge;
    QString status;
    QString tooltip = own;
    const ClaimState* state = checks_ ? checks_->state(i) : nullptr;
    const QString untrained = checks_ ? checks_->untrainedMode(i) : QString();
    if (state) {
      ++checked;
      holding += state->status == ClaimStatus::Holds ? 1 : 0;
      status = QString::fromLatin1(claimStatusKey(state->status));
      badge = stateBadge(*state);
      QString line = ClaimText::status(*state);
      stateLine = line;
      if (const ClaimReading* reading = decisiveReading(*state)) {
        line += QStringLiteral(" — ") + ClaimText::reading(*reading);
        // The badge's line: the observed number against the claim's, the subject in the tool tip.
        if (reading->value) stateLine += QStringLiteral(" — ") + ClaimText::shortReading(*reading);
      }
      const int parts = static_cast<int>(state->readings.size());
      if (parts > 1) line += QLatin1Char(' ') + tr("(%n parts)", nullptr, parts);
      text += QStringLiteral("\n    ") + line;
      tooltip += QStringLiteral("\n\n") + tr("Checked against the run: %1").arg(ClaimText::status(*state)) +
                 QLatin1Char('\n') + ClaimText::readings(*state);
    } else if (!untrained.isEmpty()) {
      status = QStringLiteral("unchecked");
      badge = QStringLiteral("–");
      stateLine = tr("not checked: this run does not train %1").arg(untrained);
      text += QStringLiteral("\n    ") + stateLine;
      tooltip += QStringLiteral("\n\n") + stateLine;
    }
    item->setText(text);
    item->setData(CalloutItemDelegate::kTextRole, own);
    item->setData(CalloutItemDelegate::kStateRole, stateLine);
    item->setData(CalloutItemDelegate::kBadgeRole, badge);
    item->setToolTip(tooltip);
    item->setData(kClaimStatusRole, status);
    item->setData(Qt::DecorationRole, status.isEmpty() ? QVariant() : QVariant(statusColor(status)));
  }
  // The question is asked before Run; the items answer it as their claims come true.
  question_->setVisible(lesson_->question.has_value());
  if (lesson_->question) question_->setText(tr("Question: %1").arg(lesson_->question->text(locale)));
  showAnswer();
  lookForLabel_->setText(checked > 0 ? tr("What to look for (click to show the panel), %1 of %2 hold now:").arg(holding).arg(checked)
                                     : tr("What to look for (click to show the panel):"));
  fitCallouts();
}

void LessonPanel::showAnswer() {
  const LessonClaimChecks::Answer answer = checks_ ? checks_->answer() : LessonClaimChecks::Answer{};
  answer_->setVisible(lesson_ && lesson_->question && answer.verdict != LessonClaimChecks::Answer::Verdict::NoClaims);
  if (answer_->isHidden()) return;
  // Each answering item by its number, with its state in a symbol.
  QStringList marks;
  for (int index : answer.items) {
    const ClaimState* state = checks_->state(index);
    const QString mark = !state                                     ? QStringLiteral("–")
                         : state->status == ClaimStatus::Holds      ? QStringLiteral("✓")
                         : state->status == ClaimStatus::Fails      ? QStringLiteral("✗")
                         : state->status == ClaimStatus::HeldBefore ? QStringLiteral("↺")
                                                                    : QStringLiteral("…");
    marks << PlotCallouts::badgeText(index + 1) + QLatin1Char(' ') + mark;
  }
  const QString items = marks.join(QStringLiteral("  "));
  QString status;
  switch (answer.verdict) {
    case LessonClaimChecks::Answer::Verdict::Answered:
      answer_->setText(tr("Answered at step %1: %2").arg(answer.step).arg(items));
      status = QStringLiteral("answered");
      break;
    case LessonClaimChecks::Answer::Verdict::NotAnswered:
      answer_->setText(tr("Not answered in this configuration: %1").arg(items));
      status = QStringLiteral("not-answered");
      break;
    default:
      answer_->setText(tr("Not answered yet: %1").arg(items));
      status = QStringLiteral("pending");
      break;
  }
  answer_->setProperty("verdict", status);
  answer_->setToolTip(tr("The items whose claims answer the question: ✓ holds, ✗ does not hold, … waiting, "
                         "↺ held and stopped, – not checked in this run."));
}

bool LessonPanel::eventFilter(QObject* watched, QEvent* event) {
  // Once the layout has settled: a resize inside a fit (its minimums changed the layout) is fitted again.
  if (watched == callouts_ && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange) && !fitPending_) {
    fitPending_ = true;
    QTimer::singleShot(0, this, [this] {
      fitPending_ = false;
      fitCallouts();
    });
  }
  return QWidget::eventFilter(watched, event);
}

void LessonPanel::fitCallouts() {
  if (fitting_) return;
  fitting_ = true;
  const QFont font = callouts_->font();
  const int frame = 2 * callouts_->frameWidth();
  const int width = callouts_->viewport()->width();
  const int spacing = callouts_->spacing();
  // The most lines of text each item may keep with every item still in view; one line at least, and the
  // list never shorter than that (its minimum height), so the layout leaves every item on screen.
  auto height = [&](int maxLines) {
    int sum = 0;
    for (int i = 0; i < callouts_->count(); ++i)
      sum += CalloutItemDelegate::itemHeight(callouts_->model()->index(i, 0), font, width, maxLines) + 2 * spacing;
    return sum;
  };
  int longest = 1;
  for (int i = 0; i < callouts_->count(); ++i)
    longest = std::max(longest, CalloutItemDelegate::textLines(callouts_->model()->index(i, 0), font, width));
  // The narrative and the items share what the rest of the panel leaves. The items come first: whole
  // when they fit, else their texts cut to fewer lines; the narrative gets what is left, two lines at
  // least (it scrolls). Where not even the items' first lines with their state lines and two lines of
  // narrative fit, the narrative goes and each item becomes one line with its state as a badge. Decided
  // from the shared room alone, so the panel's own minimums do not make it flip back and forth.
  // Compact under a question, the "what to look for" heading goes too: the answer's line above the items
  // counts them. The shared room is taken as if it were hidden, so that hiding it decides nothing.
  const bool answered = answer_->isVisibleTo(this);
  const int heading = answered ? lookForLabel_->sizeHint().height() + layout()->spacing() : 0;
  const int shared = narrative_->height() + callouts_->height() + (lookForLabel_->isHidden() ? 0 : heading);
  const int twoLines = 2 * narrative_->fontMetrics().lineSpacing() + 2 * narrative_->frameWidth() + 8;
  const int whole = height(longest) + frame;
  const bool compact = callouts_->count() > 0 && height(1) + frame + twoLines + heading > shared;
  lookForLabel_->setHidden(compact && answered);
  const int compactHeight = callouts_->count() * (CalloutItemDelegate::compactHeight(font) + 2 * spacing);
  const int room = shared - (lookForLabel_->isHidden() ? 0 : heading);  // the narrative's and the items'
  int narrativeMinimum = twoLines;
  int narrativeMaximum = std::max(twoLines, room - whole);
  if (compact) {
    // The narrative shares what the one-line items leave, where that is a line at least. The items' list
    // is never capped, so the room measured is the room there is.
    // (A minimum of 0 would be no minimum: the layout would take the text browser's own, about 70 px.)
    narrativeMinimum = 1;
    narrativeMaximum = room - compactHeight - frame >= twoLines / 2 ? QWIDGETSIZE_MAX : 1;
  }
  if (callouts_->count() == 0) narrativeMaximum = QWIDGETSIZE_MAX;
  const int available = room - std::min(narrativeMaximum, std::max(narrativeMinimum, room - whole)) - frame;
  int lines = longest;
  while (lines > 1 && height(lines) > available) --lines;
  callouts_->setMinimumHeight(compactHeight + frame);
  narrative_->setMinimumHeight(narrativeMinimum);
  narrative_->setMaximumHeight(narrativeMaximum);
  calloutDelegate_->setMaxTextLines(lines >= longest ? 0 : lines);
  calloutDelegate_->setCompact(compact);
  if (callouts_->count() > 0) callouts_->doItemsLayout();
  fitting_ = false;
}

}  // namespace ampscope::ui
