// CSV of the number-format panel's tables: RFC 4180 quoting, the values of the chapter's
// sections 1, 2 and 5 in every table's CSV, and atomic writes that leave no file
// when the path cannot be written.
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QSettings>
#include <QTimer>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

#include "ui/formats/finfo_table_widget.h"
#include "ui/formats/memory_calculator_widget.h"
#include "ui/formats/table_csv.h"
#include "ui/formats/underflow_table_widget.h"

namespace ampscope::ui::formats {
namespace {

QStringList csvLines(const QString& csv) {
  EXPECT_TRUE(csv.endsWith(QLatin1Char('\n')));
  return csv.chopped(1).split(QLatin1Char('\n'));
}

// The one line whose first fields are `prefix` (a whole-field match, not a substring).
QStringList fieldsOfLineStartingWith(const QString& csv, const QString& prefix) {
  for (const QString& line : csvLines(csv)) {
    if (line.startsWith(prefix + QLatin1Char(','))) return line.split(QLatin1Char(','));
  }
  return {};
}

TEST(TableCsv, LeavesPlainFieldsUnquoted) {
  EXPECT_EQ(TableCsv::field(QStringLiteral("1.0002e-02")), QStringLiteral("1.0002e-02"));
  EXPECT_EQ(TableCsv::record({QStringLiteral("a"), QString(), QStringLiteral("b c")}), QStringLiteral("a,,b c\n"));
}

TEST(TableCsv, QuotesCommasQuotesAndLineBreaksAsRfc4180Says) {
  // RFC 4180 section 2, rules 6 and 7: such a field is enclosed in double quotes, and a double quote
  // inside it is escaped by a second one.
  EXPECT_EQ(TableCsv::field(QStringLiteral("1,000")), QStringLiteral("\"1,000\""));
  EXPECT_EQ(TableCsv::field(QStringLiteral("the \"tiny\" value")), QStringLiteral("\"the \"\"tiny\"\" value\""));
  EXPECT_EQ(TableCsv::field(QStringLiteral("two\nlines")), QStringLiteral("\"two\nlines\""));
  EXPECT_EQ(TableCsv::field(QStringLiteral("cr\r")), QStringLiteral("\"cr\r\""));
  EXPECT_EQ(TableCsv::record({QStringLiteral("x,y"), QStringLiteral("\""), QStringLiteral("z")}),
            QStringLiteral("\"x,y\",\"\"\"\",z\n"));
}

TEST(TableCsv, WritesUtf8IntoATemporaryFolder) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("table.csv"));
  const QString csv = TableCsv::record({QStringLiteral("name"), QStringLiteral("value")}) +
                      TableCsv::record({QStringLiteral("精度"), QStringLiteral("1,5")});
  EXPECT_EQ(TableCsv::writeFile(path, csv), QString());
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_EQ(file.readAll(), QByteArray("name,value\n\xe7\xb2\xbe\xe5\xba\xa6,\"1,5\"\n"));
  // Only the file itself: QSaveFile's temporary file is gone after the commit.
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("table.csv")});
}

TEST(TableCsv, UnwritablePathReturnsTheReasonAndLeavesNoFile) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  // A missing parent folder cannot be written by anyone, root included.
  const QString inMissingFolder = dir.filePath(QStringLiteral("no-such-folder/table.csv"));
  EXPECT_FALSE(TableCsv::writeFile(inMissingFolder, QStringLiteral("a\n")).isEmpty());
  EXPECT_FALSE(QFile::exists(inMissingFolder));
  // A path that is a folder.
  const QString error = TableCsv::writeFile(dir.path(), QStringLiteral("a\n"));
  EXPECT_FALSE(error.isEmpty());
  EXPECT_TRUE(QFileInfo(dir.path()).isDir());
  EXPECT_FALSE(TableCsv::writeFile(QString(), QStringLiteral("a\n")).isEmpty());
  EXPECT_TRUE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
}

TEST(FinfoTableCsv, HasTheChaptersTorchFinfoAtFullPrecision) {
  FinfoTableWidget widget;
  const QString csv = widget.toCsv();
  EXPECT_TRUE(csv.startsWith(QStringLiteral("dtype,torch_name,exponent_bits,mantissa_bits,max,lowest,"
                                            "smallest_normal,smallest_subnormal,eps,digits\n")));
  // The chapter, section 1: float16 max 6.550400e+04, eps 9.765625e-04; torch.finfo's tiny
  // 6.103516e-05 and the smallest subnormal 5.960464e-08 (IEEE 754-2019 binary16) - here at 17
  // significant digits. FP16: 1 + 5 + 10 bits, 3 decimal digits.
  EXPECT_EQ(fieldsOfLineStartingWith(csv, QStringLiteral("FP16")),
            (QStringList{QStringLiteral("FP16"), QStringLiteral("float16"), QStringLiteral("5"), QStringLiteral("10"),
                         QStringLiteral("6.5504000000000000e+04"), QStringLiteral("-6.5504000000000000e+04"),
                         QStringLiteral("6.1035156250000000e-05"), QStringLiteral("5.9604644775390625e-08"),
                         QStringLiteral("9.7656250000000000e-04"), QStringLiteral("3")}));
  // BF16's eps 7.812500e-03 (2^-7).
  EXPECT_EQ(fieldsOfLineStartingWith(csv, QStringLiteral("BF16")).value(8), QStringLiteral("7.8125000000000000e-03"));
  EXPECT_NE(widget.findChild<QPushButton*>(QStringLiteral("exportFinfoCsvButton")), nullptr);
}

TEST(UnderflowTableCsv, HasTheChaptersFP16AndBF16CastsAsShownAndExact) {
  UnderflowTableWidget widget;
  const QString csv = widget.toCsv();
  const QStringList lines = csvLines(csv);
  ASSERT_EQ(lines.size(), 1 + UnderflowTableWidget::inputs().size());
  EXPECT_EQ(lines[0], QStringLiteral("value,float32,float16,bfloat16,float32_exact,float16_exact,bfloat16_exact"));
  // The chapter, section 5: FP16 [1.0002e-02, 1.0002e-04, 1.0133e-06, 1.1921e-07, 0, 0] and
  // BF16 [1.0010e-02, 1.0014e-04, 9.9838e-07, 1.0012e-07, 1.0012e-08, 9.9681e-10].
  const QStringList fp16{QStringLiteral("1.0002e-02"), QStringLiteral("1.0002e-04"), QStringLiteral("1.0133e-06"),
                         QStringLiteral("1.1921e-07"), QStringLiteral("0.0000e+00"), QStringLiteral("0.0000e+00")};
  const QStringList bf16{QStringLiteral("1.0010e-02"), QStringLiteral("1.0014e-04"), QStringLiteral("9.9838e-07"),
                         QStringLiteral("1.0012e-07"), QStringLiteral("1.0012e-08"), QStringLiteral("9.9681e-10")};
  QStringList fp16Column;
  QStringList bf16Column;
  for (int row = 1; row < lines.size(); ++row) {
    const QStringList fields = lines[row].split(QLatin1Char(','));
    ASSERT_EQ(fields.size(), 7) << lines[row].toStdString();
    fp16Column << fields[2];
    bf16Column << fields[3];
  }
  EXPECT_EQ(fp16Column, fp16);
  EXPECT_EQ(bf16Column, bf16);
  // 1e-7 lands on FP16's subnormal 2 * 2^-24 exactly; the flushed values are exactly 0.
  EXPECT_EQ(lines[4].split(QLatin1Char(',')).value(5), QStringLiteral("1.1920928955078125e-07"));
  EXPECT_EQ(lines[5].split(QLatin1Char(',')).value(5), QStringLiteral("0"));

  widget.copyCsvToClipboard();
  EXPECT_EQ(QApplication::clipboard()->text(), csv);
  EXPECT_NE(widget.findChild<QPushButton*>(QStringLiteral("exportUnderflowCsvButton")), nullptr);
}

TEST(MemoryTableCsv, HasTheChaptersOneBillionElementsWithoutDigitGrouping) {
  MemoryCalculatorWidget widget;
  const QString csv = widget.toCsv();
  EXPECT_TRUE(csv.startsWith(QStringLiteral("elements,dtype,bytes_per_element,bytes,gib,gib_exact\n")));
  // The chapter, section 2: float32 3.7253 GiB, float16 1.8626 GiB for 1e9 elements; 4e9 bytes is
  // 4e9 / 2^30 = 3.725290298461914 GiB.
  EXPECT_EQ(fieldsOfLineStartingWith(csv, QStringLiteral("1000000000,FP32")),
            (QStringList{QStringLiteral("1000000000"), QStringLiteral("FP32"), QStringLiteral("4"),
                         QStringLiteral("4000000000"), QStringLiteral("3.7253"), QStringLiteral("3.725290298461914")}));
  EXPECT_EQ(fieldsOfLineStartingWith(csv, QStringLiteral("1000000000,FP64")).value(4), QStringLiteral("7.4506"));
  EXPECT_EQ(fieldsOfLineStartingWith(csv, QStringLiteral("1000000000,FP16")).value(4), QStringLiteral("1.8626"));

  // A bad count keeps the table, and the CSV, at the last good count.
  widget.countEdit()->setText(QStringLiteral("7e9"));
  widget.countEdit()->setText(QStringLiteral("seven"));
  EXPECT_EQ(fieldsOfLineStartingWith(widget.toCsv(), QStringLiteral("7000000000,BF16")).value(3),
            QStringLiteral("14000000000"));

  widget.copyCsvToClipboard();
  EXPECT_EQ(QApplication::clipboard()->text(), widget.toCsv());
  EXPECT_NE(widget.findChild<QPushButton*>(QStringLiteral("exportMemoryCsvButton")), nullptr);
}

// Answers the next modal dialog once it is up: a file dialog with `path`, a message box by noting its
// text and closing it.
class ModalAnswerer {
 public:
  explicit ModalAnswerer(const QString& path) : m_path(path) { poll(); }
  QString messageText() const { return m_messageText; }

 private:
  void poll() {
    // m_context ends the polling when the answerer goes out of scope.
    QTimer::singleShot(20, &m_context, [this] {
      QWidget* modal = QApplication::activeModalWidget();
      if (auto* dialog = qobject_cast<QFileDialog*>(modal)) {
        // Typed as a user would: selectFile() on a path outside the dialog's folder keeps the old name
        // while the folder loads. "fileNameEdit" is the object name of Qt's own dialog's name field.
        auto* nameEdit = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        if (!nameEdit) return;  // not Qt's widget dialog: the test fails on the missing file
        nameEdit->setText(m_path);
        QMetaObject::invokeMethod(dialog, "accept", Qt::QueuedConnection);
      } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
        m_messageText = box->text();
        box->accept();
        return;
      }
      if (++m_polls < 200) poll();
    });
  }

  QObject m_context;
  QString m_path;
  QString m_messageText;
  int m_polls = 0;
};

TEST(TableCsvExport, ButtonWritesTheChosenFileAndRemembersItsFolderForAllExports) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  UnderflowTableWidget widget;
  auto* button = widget.findChild<QPushButton*>(QStringLiteral("exportUnderflowCsvButton"));
  ASSERT_NE(button, nullptr);
  // No suffix typed: the dialog's default suffix adds ".csv".
  ModalAnswerer answerer(dir.filePath(QStringLiteral("casts")));
  QTest::mouseClick(button, Qt::LeftButton);
  QFile file(dir.filePath(QStringLiteral("casts.csv")));
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_EQ(QString::fromUtf8(file.readAll()), widget.toCsv());
  // The key File > Export uses too.
  EXPECT_EQ(QSettings().value(QStringLiteral("export/lastFolder")).toString(), QFileInfo(dir.path()).absoluteFilePath());
}

TEST(TableCsvExport, UnwritablePathShowsTheReasonAndWritesNothing) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  MemoryCalculatorWidget widget;
  auto* button = widget.findChild<QPushButton*>(QStringLiteral("exportMemoryCsvButton"));
  ASSERT_NE(button, nullptr);
  const QString path = dir.filePath(QStringLiteral("no-such-folder/memory.csv"));
  ModalAnswerer answerer(path);
  QTest::mouseClick(button, Qt::LeftButton);
  EXPECT_TRUE(QTest::qWaitFor([&] { return !answerer.messageText().isEmpty(); }, 3000));
  EXPECT_TRUE(answerer.messageText().contains(QDir::toNativeSeparators(path)))
      << answerer.messageText().toStdString();
  EXPECT_FALSE(QFile::exists(path));
  EXPECT_TRUE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
}

}  // namespace
}  // namespace ampscope::ui::formats
