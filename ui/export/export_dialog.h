// ExportDialog (File -> Export...): what to export (the whole window, a plot by its dock title, a panel
// such as the lesson view), the format (PNG, PDF, SVG), the PNG scale (1x, 2x, 3x), the size (current,
// slide 1920x1080, custom WxH) and the file. It exports on Export and stays open with the reason when
// that fails. The last folder written to is remembered in QSettings; replacing an existing file asks
// first.
#pragma once

#include <QDialog>
#include <QList>
#include <functional>

#include "ui/export/export_options.h"
#include "ui/export/export_target.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace ampscope::ui {

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  // Answers whether an existing file may be replaced (a message box by default; tests substitute).
  using OverwriteConfirmer = std::function<bool(const QString& path)>;
  enum SizePreset { kCurrentSize = 0, kSlideSize = 1, kCustomSize = 2 };

  explicit ExportDialog(const QList<ExportTarget>& targets, QWidget* parent = nullptr);

  // The folder of the last successful export (Pictures, else home, before the first one).
  static QString lastFolder();
  static void rememberFolderOf(const QString& filePath);

  ExportOptions options() const;
  ExportFormat format() const;
  QString filePath() const;
  const ExportTarget* currentTarget() const;
  int targetCount() const { return static_cast<int>(targets_.size()); }
  const ExportResult& lastResult() const { return lastResult_; }
  void setOverwriteConfirmer(OverwriteConfirmer confirmer) { confirmOverwrite_ = std::move(confirmer); }

  // Selects the target whose label is `label`; false when there is none.
  bool selectTarget(const QString& label);

  QComboBox* targetCombo() const { return target_; }
  QComboBox* formatCombo() const { return format_; }
  QComboBox* scaleCombo() const { return scale_; }
  QComboBox* sizeCombo() const { return size_; }
  QSpinBox* widthSpin() const { return width_; }
  QSpinBox* heightSpin() const { return height_; }
  QLineEdit* fileEdit() const { return file_; }
  QLabel* errorLabel() const { return error_; }

 public slots:
  // Exports; closes only when the file was written.
  void accept() override;

 signals:
  void exported(const QString& path);
  void exportFailed(const QString& message);

 private:
  void browse();
  void onTargetChanged();
  void onFormatChanged();
  void onFileEdited(const QString& text);
  void updateControls();
  void showError(const QString& message);

  QList<ExportTarget> targets_;
  QComboBox* target_;
  QComboBox* format_;
  QComboBox* scale_;
  QComboBox* size_;
  QSpinBox* width_;
  QSpinBox* height_;
  QLineEdit* file_;
  QPushButton* browse_;
  QLabel* output_;
  QLabel* error_;
  bool fileEditedByUser_ = false;
  ExportResult lastResult_;
  OverwriteConfirmer confirmOverwrite_;
};

}  // namespace ampscope::ui
