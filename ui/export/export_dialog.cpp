#include "ui/export/export_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <cmath>

#include "ui/export/export_writer.h"

namespace ampscope::ui {

namespace {

// QSettings key of the folder of the last export.
const char* const kLastFolderKey = "export/lastFolder";
// Limits of the custom size, per edge, in logical pixels.
constexpr int kMinCustomEdge = 16;
constexpr int kMaxCustomEdge = 10000;

}  // namespace

QString ExportDialog::lastFolder() {
  const QString saved = QSettings().value(QLatin1String(kLastFolderKey)).toString();
  if (!saved.isEmpty() && QFileInfo(saved).isDir()) return saved;
  const QString pictures = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
  if (!pictures.isEmpty() && QFileInfo(pictures).isDir()) return pictures;
  return QDir::homePath();
}

void ExportDialog::rememberFolderOf(const QString& filePath) {
  QSettings().setValue(QLatin1String(kLastFolderKey), QFileInfo(filePath).absolutePath());
}

ExportDialog::ExportDialog(const QList<ExportTarget>& targets, QWidget* parent)
    : QDialog(parent), targets_(targets) {
  setObjectName(QStringLiteral("exportDialog"));
  setWindowTitle(tr("Export"));

  target_ = new QComboBox(this);
  target_->setObjectName(QStringLiteral("exportTarget"));
  for (const ExportTarget& t : targets_) target_->addItem(t.label);

  format_ = new QComboBox(this);
  format_->setObjectName(QStringLiteral("exportFormat"));
  format_->addItem(tr("PNG image"), static_cast<int>(ExportFormat::Png));
  format_->addItem(tr("PDF (vector)"), static_cast<int>(ExportFormat::Pdf));
  format_->addItem(tr("SVG (vector)"), static_cast<int>(ExportFormat::Svg));

  scale_ = new QComboBox(this);
  scale_->setObjectName(QStringLiteral("exportScale"));
  for (int s = 1; s <= 3; ++s) scale_->addItem(tr("%1x (%2 dpi)").arg(s).arg(kExportBaseDpi * s), s);
  scale_->setToolTip(tr("Pixels per screen pixel. 2x or 3x stays sharp on a projector or a HiDPI screen."));

  size_ = new QComboBox(this);
  size_->setObjectName(QStringLiteral("exportSize"));
  size_->addItem(QString());  // current size: text set by updateControls()
  size_->addItem(tr("Slide, %1×%2 (larger fonts, thicker lines)").arg(kSlideWidth).arg(kSlideHeight));
  size_->addItem(tr("Custom"));
  width_ = new QSpinBox(this);
  height_ = new QSpinBox(this);
  width_->setObjectName(QStringLiteral("exportWidth"));
  height_->setObjectName(QStringLiteral("exportHeight"));
  for (QSpinBox* spin : {width_, height_}) {
    spin->setRange(kMinCustomEdge, kMaxCustomEdge);
    spin->setSuffix(tr(" px"));
  }
  width_->setValue(kSlideWidth);
  height_->setValue(kSlideHeight);
  auto* customRow = new QHBoxLayout;
  customRow->addWidget(width_);
  customRow->addWidget(new QLabel(QStringLiteral("×"), this));
  customRow->addWidget(height_);
  customRow->addStretch();

  file_ = new QLineEdit(this);
  file_->setObjectName(QStringLiteral("exportFile"));
  file_->setMinimumWidth(360);
  browse_ = new QPushButton(tr("Browse…"), this);
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(file_, 1);
  fileRow->addWidget(browse_);

  output_ = new QLabel(this);
  output_->setObjectName(QStringLiteral("exportOutputSize"));
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("exportError"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c00000"));
  error_->hide();

  auto* form = new QFormLayout;
  form->addRow(tr("&What:"), target_);
  form->addRow(tr("&Format:"), format_);
  form->addRow(tr("S&cale:"), scale_);
  form->addRow(tr("Si&ze:"), size_);
  form->addRow(QString(), customRow);
  // A layout as the field gets no buddy from QFormLayout: the label's mnemonic needs one.
  auto* fileLabel = new QLabel(tr("F&ile:"), this);
  fileLabel->setBuddy(file_);
  form->addRow(fileLabel, fileRow);
  form->addRow(QString(), output_);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  QPushButton* exportButton = buttons->addButton(tr("&Export"), QDialogButtonBox::AcceptRole);
  exportButton->setObjectName(QStringLiteral("exportButton"));
  exportButton->setDefault(true);
  connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &ExportDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(error_);
  layout->addWidget(buttons);

  confirmOverwrite_ = [this](const QString& path) {
    return QMessageBox::question(this, tr("Replace file?"),
                                 tr("%1 already exists. Replace it?").arg(QDir::toNativeSeparators(path)),
                                 QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
  };

  connect(target_, &QComboBox::currentIndexChanged, this, &ExportDialog::onTargetChanged);
  connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::onFormatChanged);
  connect(scale_, &QComboBox::currentIndexChanged, this, &ExportDialog::updateControls);
  connect(size_, &QComboBox::currentIndexChanged, this, &ExportDialog::updateControls);
  connect(width_, &QSpinBox::valueChanged, this, &ExportDialog::updateControls);
  connect(height_, &QSpinBox::valueChanged, this, &ExportDialog::updateControls);
  connect(file_, &QLineEdit::textEdited, this, &ExportDialog::onFileEdited);
  connect(browse_, &QPushButton::clicked, this, &ExportDialog::browse);
  onTargetChanged();
}

const ExportTarget* ExportDialog::currentTarget() const {
  const int i = target_->currentIndex();
  return i >= 0 && i < targets_.size() ? &targets_[i] : nullptr;
}

bool ExportDialog::selectTarget(const QString& label) {
  const int i = target_->findText(label);
  if (i < 0) return false;
  target_->setCurrentIndex(i);
  return true;
}

ExportFormat ExportDialog::format() const { return static_cast<ExportFormat>(format_->currentData().toInt()); }

QString ExportDialog::filePath() const { return file_->text().trimmed(); }

ExportOptions ExportDialog::options() const {
  ExportOptions options;
  options.scale = format() == ExportFormat::Png ? scale_->currentData().toDouble() : 1.0;
  switch (size_->currentIndex()) {
    case kSlideSize:
      options.slide = true;
      break;
    case kCustomSize:
      options.size = QSize(width_->value(), height_->value());
      break;
    default:
      break;
  }
  return options;
}

void ExportDialog::onTargetChanged() {
  if (!fileEditedByUser_) {
    const ExportTarget* t = currentTarget();
    const QString stem = t ? t->fileStem : QStringLiteral("export");
    file_->setText(QDir(lastFolder()).filePath(stem + QLatin1Char('.') + exportFormatSuffix(format())));
  }
  updateControls();
}

void ExportDialog::onFormatChanged() {
  // The extension follows the format; the rest of the name is the user's.
  const QString path = filePath();
  if (!path.isEmpty()) {
    const QFileInfo info(path);
    const QString base = exportFormatForPath(path) ? info.completeBaseName() : info.fileName();
    file_->setText(QDir(info.path()).filePath(base + QLatin1Char('.') + exportFormatSuffix(format())));
  }
  updateControls();
}

void ExportDialog::onFileEdited(const QString& text) {
  fileEditedByUser_ = true;
  if (const auto typed = exportFormatForPath(text)) {
    const QSignalBlocker block(format_);
    format_->setCurrentIndex(format_->findData(static_cast<int>(*typed)));
  }
  updateControls();
}

void ExportDialog::updateControls() {
  const ExportTarget* t = currentTarget();
  const QSize current = t ? t->exportSize(ExportOptions{}) : QSize();
  size_->setItemText(kCurrentSize, tr("Current size, %1×%2").arg(current.width()).arg(current.height()));
  const bool png = format() == ExportFormat::Png;
  scale_->setEnabled(png);
  width_->setEnabled(size_->currentIndex() == kCustomSize);
  height_->setEnabled(size_->currentIndex() == kCustomSize);
  const ExportOptions o = options();
  const QSize logical = t ? t->exportSize(o) : QSize();
  if (png) {
    output_->setText(tr("%1×%2 pixels").arg(std::lround(logical.width() * o.scale)).arg(std::lround(logical.height() * o.scale)));
  } else {
    output_->setText(tr("%1×%2 page, vector").arg(logical.width()).arg(logical.height()));
  }
  error_->hide();
}

void ExportDialog::browse() {
  const QString filter = tr("%1 files (*.%2)").arg(exportFormatName(format()), exportFormatSuffix(format()));
  // Our own overwrite question follows in accept(); the file dialog must not ask a second time.
  const QString chosen = QFileDialog::getSaveFileName(this, tr("Export to"), filePath(), filter, nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
  if (chosen.isEmpty()) return;
  file_->setText(chosen);
  onFileEdited(chosen);
}

void ExportDialog::showError(const QString& message) {
  error_->setText(message);
  error_->show();
  lastResult_.ok = false;
  lastResult_.error = message;
  auto* box = new QMessageBox(QMessageBox::Warning, tr("Export failed"), message, QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("exportErrorBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
  emit exportFailed(message);
}

void ExportDialog::accept() {
  const QString path = filePath();
  const QString problem = ExportWriter::checkPath(path);
  if (!problem.isEmpty()) {
    showError(problem);
    return;
  }
  const ExportTarget* t = currentTarget();
  if (!t) {
    showError(tr("There is nothing to export."));
    return;
  }
  if (QFileInfo::exists(path) && !confirmOverwrite_(path)) return;
  lastResult_ = t->exportToFile(path, options());
  if (!lastResult_.ok) {
    showError(lastResult_.error);
    return;
  }
  rememberFolderOf(path);
  emit exported(path);
  QDialog::accept();
}

}  // namespace ampscope::ui
