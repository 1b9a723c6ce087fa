// CSV for the number-format panel's tables: RFC 4180 quoting (a field holding a comma, a double quote
// or a line break is wrapped in double quotes, inner quotes doubled), one record per line ending in
// "\n", UTF-8 without a byte-order mark. Files are written through QSaveFile, so a failed export
// leaves no file behind and never a half-written one.
#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

class QWidget;

namespace ampscope::ui::formats {

class TableCsv {
  Q_DECLARE_TR_FUNCTIONS(TableCsv)

 public:
  // One field, quoted only when it must be.
  static QString field(const QString& text);
  // One record: the quoted fields joined by commas, with the line ending.
  static QString record(const QStringList& fields);

  // Writes `csv` as UTF-8 to `path`, atomically. Returns an empty string on success, else the reason.
  static QString writeFile(const QString& path, const QString& csv);

  // Asks for a file name (starting in the folder of the last export, shared with File > Export),
  // writes `csv` there and names the reason in a message box when that fails.
  static void exportWithDialog(QWidget* parent, const QString& suggestedFileName, const QString& csv);
};

}  // namespace ampscope::ui::formats
