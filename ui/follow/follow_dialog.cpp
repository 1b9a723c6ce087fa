#include "ui/follow/follow_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace ampscope::ui {

namespace {
const char* const kRecentKey = "follow/recentTargets";
}  // namespace

FollowDialog::FollowDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Follow Run"));
  setObjectName(QStringLiteral("followDialog"));
  targetCombo_ = new QComboBox(this);
  targetCombo_->setEditable(true);
  targetCombo_->setInsertPolicy(QComboBox::NoInsert);
  targetCombo_->setMinimumContentsLength(36);
  targetCombo_->addItems(recentTargets());
  targetCombo_->setCurrentIndex(-1);
  targetCombo_->setToolTip(tr("A record stream file the training script appends to (run.jsonl), or "
                              "host:port where its probe listens (127.0.0.1:5000)."));
  targetCombo_->lineEdit()->setPlaceholderText(tr("run.jsonl or 127.0.0.1:5000"));
  browse_ = new QPushButton(tr("Browse…"), this);
  labelEdit_ = new QLineEdit(this);
  labelEdit_->setPlaceholderText(tr("the run's own name"));
  message_ = new QLabel(this);
  message_->setWordWrap(true);
  message_->setStyleSheet(QStringLiteral("color: #b00000"));
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);

  auto* targetRow = new QHBoxLayout;
  targetRow->addWidget(targetCombo_, 1);
  targetRow->addWidget(browse_);
  auto* form = new QFormLayout;
  form->addRow(tr("Target:"), targetRow);
  form->addRow(QString(), message_);
  form->addRow(tr("Run label:"), labelEdit_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(buttons_);

  connect(targetCombo_, &QComboBox::editTextChanged, this, [this] { validate(); });
  connect(browse_, &QPushButton::clicked, this, &FollowDialog::browse);
  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (!acceptable()) return;
    rememberTarget(targetText());
    accept();
  });
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  validate();
}

void FollowDialog::setTargetText(const QString& text) { targetCombo_->setEditText(text); }

QString FollowDialog::targetText() const { return targetCombo_->currentText().trimmed(); }

QString FollowDialog::runLabel() const { return labelEdit_->text().trimmed(); }

QString FollowDialog::errorText() const { return message_->text(); }

bool FollowDialog::acceptable() const { return buttons_->button(QDialogButtonBox::Ok)->isEnabled(); }

void FollowDialog::validate() {
  const QString text = targetText();
  target_.reset();
  if (text.isEmpty()) {
    message_->clear();
  } else {
    std::string error;
    target_ = parseFollowTarget(text.toStdString(), &error);
    message_->setText(target_ ? QString() : tr("Not a target: %1").arg(QString::fromStdString(error)));
  }
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(target_.has_value());
}

void FollowDialog::browse() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Follow a record stream"), targetText(),
                                                    tr("Record streams (*.jsonl);;All files (*)"));
  if (!path.isEmpty()) setTargetText(path);
}

QStringList FollowDialog::recentTargets() {
  return QSettings().value(QLatin1String(kRecentKey)).toStringList();
}

void FollowDialog::rememberTarget(const QString& text) {
  QStringList list = recentTargets();
  list.removeAll(text);
  list.prepend(text);
  while (list.size() > kMaxRecent) list.removeLast();
  QSettings().setValue(QLatin1String(kRecentKey), list);
}

}  // namespace ampscope::ui
