#include "ui/formats/table_csv.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSaveFile>

#include "ui/export/export_dialog.h"

namespace ampscope::ui::formats {

QString TableCsv::field(const QString& text) {
  const bool needsQuotes = text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
                           text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r'));
  if (!needsQuotes) return text;
  QString quoted = text;
  quoted.replace(QLatin1Char('"'), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString TableCsv::record(const QStringList& fields) {
  QStringList quoted;
  quoted.reserve(fields.size());
  for (const QString& text : fields) quoted << field(text);
  return quoted.join(QLatin1Char(',')) + QLatin1Char('\n');
}

QString TableCsv::writeFile(const QString& path, const QString& csv) {
  if (path.isEmpty()) return tr("No file name given.");
  if (QFileInfo(path).isDir()) return tr("%1 is a folder.").arg(QDir::toNativeSeparators(path));
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return file.errorString();
  const QByteArray bytes = csv.toUtf8();
  if (file.write(bytes) != bytes.size()) {
    const QString reason = file.errorString();
    file.cancelWriting();
    return reason;
  }
  if (!file.commit()) return file.errorString();
  return {};
}

void TableCsv::exportWithDialog(QWidget* parent, const QString& suggestedFileName, const QString& csv) {
  const QString start = QDir(ExportDialog::lastFolder()).filePath(suggestedFileName);
  // A dialog object rather than getSaveFileName: its default suffix is added before the overwrite
  // question, so "table" never silently replaces an existing "table.csv".
  QFileDialog dialog(parent, tr("Export CSV"), start, tr("CSV files (*.csv);;All files (*)"));
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.setFileMode(QFileDialog::AnyFile);
  dialog.setDefaultSuffix(QStringLiteral("csv"));
  dialog.selectFile(start);
  if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return;  // cancelled
  const QString path = dialog.selectedFiles().constFirst();
  const QString error = writeFile(path, csv);
  if (!error.isEmpty()) {
    QMessageBox::warning(parent, tr("Export CSV"),
                         tr("Could not write %1:\n%2").arg(QDir::toNativeSeparators(path), error));
    return;
  }
  ExportDialog::rememberFolderOf(path);
}

}  // namespace ampscope::ui::formats
