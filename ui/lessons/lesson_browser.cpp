#include "ui/lessons/lesson_browser.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ampscope::ui {

namespace {
constexpr int kIdRole = Qt::UserRole;
}

LessonBrowser::LessonBrowser(const LessonLibrary& library, QWidget* parent)
    : QDialog(parent), library_(library) {
  setObjectName(QStringLiteral("lessonBrowser"));
  auto* layout = new QVBoxLayout(this);
  intro_ = new QLabel(this);
  intro_->setWordWrap(true);
  layout->addWidget(intro_);
  tree_ = new QTreeWidget(this);
  tree_->setObjectName(QStringLiteral("lessonTree"));
  tree_->setColumnCount(1);
  tree_->header()->hide();
  tree_->setRootIsDecorated(false);
  tree_->setItemsExpandable(false);
  layout->addWidget(tree_, 1);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (!chosenId().isEmpty()) accept();
  });
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(tree_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    if (item->data(0, kIdRole).toString().isEmpty()) return;  // a section heading
    tree_->setCurrentItem(item);
    accept();
  });
  connect(tree_, &QTreeWidget::currentItemChanged, this,
          [this] { buttons_->button(QDialogButtonBox::Open)->setEnabled(!chosenId().isEmpty()); });
  resize(560, 480);
  retranslate();
}

QString LessonBrowser::sectionName(int section) {
  switch (section) {
    case 1:
      return tr("Number formats: range versus precision");
    case 2:
      return tr("Memory and bandwidth per data type");
    case 3:
      return tr("model.half() versus mixed precision");
    case 4:
      return tr("Autocast picks a precision per operation");
    case 5:
      return tr("Gradient underflow");
    case 6:
      return tr("Loss scaling and GradScaler");
    case 7:
      return tr("BF16 needs no GradScaler");
    case 8:
      return tr("Gradient clipping with a scaler");
    case 9:
      return tr("What mixed precision does to memory");
    case 10:
      return tr("Measuring whether it helps");
    default:
      return tr("Section %1").arg(section);
  }
}

void LessonBrowser::setCurrentId(const QString& id) {
  currentId_ = id;
  rebuild();
}

QString LessonBrowser::chosenId() const {
  const QTreeWidgetItem* item = tree_->currentItem();
  return item ? item->data(0, kIdRole).toString() : QString();
}

void LessonBrowser::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslate();
  QDialog::changeEvent(event);
}

void LessonBrowser::retranslate() {
  setWindowTitle(tr("Lessons"));
  intro_->setText(
      tr("Each lesson follows one section of the mixed-precision chapter. Open one to load its "
         "configuration and bring its panels forward."));
  buttons_->button(QDialogButtonBox::Open)->setText(tr("&Open"));
  buttons_->button(QDialogButtonBox::Cancel)->setText(tr("Cancel"));
  rebuild();
}

void LessonBrowser::rebuild() {
  const QString keep = chosenId().isEmpty() ? currentId_ : chosenId();
  const QLocale locale;
  tree_->clear();
  QTreeWidgetItem* sectionItem = nullptr;
  int lastSection = -1;
  QTreeWidgetItem* select = nullptr;
  for (const Lesson& lesson : library_.lessons()) {
    if (lesson.section != lastSection) {
      sectionItem =
          new QTreeWidgetItem(tree_, {tr("§%1 %2").arg(lesson.section).arg(sectionName(lesson.section))});
      sectionItem->setFlags(Qt::ItemIsEnabled);
      QFont bold = sectionItem->font(0);
      bold.setBold(true);
      sectionItem->setFont(0, bold);
      lastSection = lesson.section;
    }
    auto* item = new QTreeWidgetItem(sectionItem, {lesson.title.text(locale)});
    item->setData(0, kIdRole, lesson.id);
    item->setToolTip(0, lesson.id);
    if (lesson.id == keep) select = item;
  }
  tree_->expandAll();
  if (select) tree_->setCurrentItem(select);
  buttons_->button(QDialogButtonBox::Open)->setEnabled(!chosenId().isEmpty());
}

}  // namespace ampscope::ui
