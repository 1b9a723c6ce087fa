// FollowDialog: File > Follow Run…: where the training script's records come from (a stream file's path,
// or host:port of a probe listening on TCP; Browse… for files, the recent targets in the drop-down) and
// an optional label for the run. The target is checked as it is typed (parseFollowTarget); OK stays
// disabled until it is valid, and the message under the field says what is wrong.
#pragma once

#include <QDialog>
#include <QStringList>
#include <optional>

#include "ampscope/engine/stream_follower.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ampscope::ui {

class FollowDialog : public QDialog {
  Q_OBJECT
 public:
  static constexpr int kMaxRecent = 10;

  explicit FollowDialog(QWidget* parent = nullptr);

  void setTargetText(const QString& text);
  QString targetText() const;
  QString runLabel() const;
  std::optional<FollowTarget> target() const { return target_; }
  QString errorText() const;       // empty when the target is valid
  bool acceptable() const;         // OK is enabled
  QComboBox* targetCombo() const { return targetCombo_; }
  QLineEdit* labelEdit() const { return labelEdit_; }
  QPushButton* browseButton() const { return browse_; }

  // Recent targets (QSettings), newest first.
  static QStringList recentTargets();
  static void rememberTarget(const QString& text);

 private:
  void validate();
  void browse();

  QComboBox* targetCombo_;
  QPushButton* browse_;
  QLineEdit* labelEdit_;
  QLabel* message_;
  QDialogButtonBox* buttons_;
  std::optional<FollowTarget> target_;
};

}  // namespace ampscope::ui
