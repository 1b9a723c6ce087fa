// The panel's tables against the chapter's: torch.finfo (its section 1), the memory of 1e9 elements
// (section 2) and the gradient-underflow table (section 5).
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLineEdit>
#include <QTableWidget>
#include <QTest>

#include <limits>

#include "ui/formats/finfo_table_widget.h"
#include "ui/formats/format_text.h"
#include "ui/formats/memory_calculator_widget.h"
#include "ui/formats/range_strip_widget.h"
#include "ui/formats/underflow_table_widget.h"

namespace ampscope::ui::formats {
namespace {

int columnNamed(const QTableWidget* table, const QString& header) {
  for (int c = 0; c < table->columnCount(); ++c) {
    if (table->horizontalHeaderItem(c) && table->horizontalHeaderItem(c)->text() == header) return c;
  }
  return -1;
}

int rowNamed(const QTableWidget* table, const QString& name) {
  for (int r = 0; r < table->rowCount(); ++r) {
    if (table->item(r, 0) && table->item(r, 0)->text() == name) return r;
  }
  return -1;
}

QString cell(const QTableWidget* table, const QString& rowName, const QString& columnName) {
  const int r = rowNamed(table, rowName);
  const int c = columnNamed(table, columnName);
  if (r < 0 || c < 0 || !table->item(r, c)) return QStringLiteral("<missing %1/%2>").arg(rowName, columnName);
  return table->item(r, c)->text();
}

TEST(FinfoTable, MatchesTheChaptersTorchFinfo) {
  FinfoTableWidget widget;
  const QTableWidget* t = widget.table();
  EXPECT_EQ(t->rowCount(), static_cast<int>(allDTypes().size()));
  // The chapter prints min, max and eps with %.6e (section 1).
  struct Expected {
    const char* dtype;
    const char* max;
    const char* lowest;
    const char* eps;
  };
  const Expected chapter[] = {
      {"FP64", "1.797693e+308", "-1.797693e+308", "2.220446e-16"},
      {"FP32", "3.402823e+38", "-3.402823e+38", "1.192093e-07"},
      {"FP16", "6.550400e+04", "-6.550400e+04", "9.765625e-04"},
      {"BF16", "3.389531e+38", "-3.389531e+38", "7.812500e-03"},
  };
  for (const Expected& e : chapter) {
    const QString dtype = QString::fromLatin1(e.dtype);
    EXPECT_EQ(cell(t, dtype, QStringLiteral("max")), QLatin1String(e.max)) << e.dtype;
    EXPECT_EQ(cell(t, dtype, QStringLiteral("lowest (min)")), QLatin1String(e.lowest)) << e.dtype;
    EXPECT_EQ(cell(t, dtype, QStringLiteral("eps")), QLatin1String(e.eps)) << e.dtype;
  }
  // torch.finfo(...).tiny and the smallest subnormal: not in the chapter's table; IEEE 754-2019 gives
  // 2^(1-bias) and 2^(1-bias-mantissa_bits).
  EXPECT_EQ(cell(t, QStringLiteral("FP16"), QStringLiteral("smallest normal")), QStringLiteral("6.103516e-05"));
  EXPECT_EQ(cell(t, QStringLiteral("FP16"), QStringLiteral("smallest subnormal")), QStringLiteral("5.960464e-08"));
  EXPECT_EQ(cell(t, QStringLiteral("BF16"), QStringLiteral("smallest normal")), QStringLiteral("1.175494e-38"));
  EXPECT_EQ(cell(t, QStringLiteral("BF16"), QStringLiteral("smallest subnormal")), QStringLiteral("9.183550e-41"));
  // OCP FP8: E4M3FN max 448, E5M2 max 57344.
  EXPECT_EQ(cell(t, QStringLiteral("FP8 E4M3FN"), QStringLiteral("max")), QStringLiteral("4.480000e+02"));
  EXPECT_EQ(cell(t, QStringLiteral("FP8 E5M2"), QStringLiteral("max")), QStringLiteral("5.734400e+04"));
  // torch.finfo resolution digits: float16 3, bfloat16 2, float32 6, float64 15.
  EXPECT_EQ(cell(t, QStringLiteral("FP16"), QStringLiteral("digits")), QStringLiteral("3"));
  EXPECT_EQ(cell(t, QStringLiteral("BF16"), QStringLiteral("digits")), QStringLiteral("2"));
  EXPECT_EQ(cell(t, QStringLiteral("FP32"), QStringLiteral("digits")), QStringLiteral("6"));
  EXPECT_EQ(cell(t, QStringLiteral("FP64"), QStringLiteral("digits")), QStringLiteral("15"));
}

TEST(FinfoTable, CopiesCsvWithAHeaderAndOneLinePerDType) {
  FinfoTableWidget widget;
  const QString csv = widget.toCsv();
  const QStringList lines = csv.trimmed().split(QLatin1Char('\n'));
  ASSERT_EQ(lines.size(), 1 + static_cast<int>(allDTypes().size()));
  EXPECT_TRUE(lines[0].startsWith(QStringLiteral("dtype,")));
  for (const QString& line : lines) EXPECT_EQ(line.count(QLatin1Char(',')), lines[0].count(QLatin1Char(',')));
  EXPECT_TRUE(csv.contains(QStringLiteral("FP16,float16,5,10,6.5504000000000000e+04")));

  widget.copyCsvToClipboard();
  EXPECT_EQ(QApplication::clipboard()->text(), csv);
}

TEST(MemoryCalculator, OneBillionElementsByDefaultAsInTheChapter) {
  MemoryCalculatorWidget widget;
  EXPECT_EQ(widget.countEdit()->text(), QStringLiteral("1e9"));
  ASSERT_TRUE(widget.isCountValid());
  const QTableWidget* t = widget.table();
  // The chapter, section 2: float64 7.4506, float32 3.7253, float16 1.8626, bfloat16 1.8626 GiB.
  EXPECT_EQ(cell(t, QStringLiteral("FP64"), QStringLiteral("GiB")), QStringLiteral("7.4506"));
  EXPECT_EQ(cell(t, QStringLiteral("FP32"), QStringLiteral("GiB")), QStringLiteral("3.7253"));
  EXPECT_EQ(cell(t, QStringLiteral("FP16"), QStringLiteral("GiB")), QStringLiteral("1.8626"));
  EXPECT_EQ(cell(t, QStringLiteral("BF16"), QStringLiteral("GiB")), QStringLiteral("1.8626"));
  // TF32 is stored in FP32 containers; FP8 is one byte: 1e9 / 2^30 = 0.9313 GiB.
  EXPECT_EQ(cell(t, QStringLiteral("TF32"), QStringLiteral("GiB")), QStringLiteral("3.7253"));
  EXPECT_EQ(cell(t, QStringLiteral("FP8 E5M2"), QStringLiteral("GiB")), QStringLiteral("0.9313"));
}

TEST(MemoryCalculator, AcceptsScientificAndGroupedCounts) {
  MemoryCalculatorWidget widget;
  widget.countEdit()->setText(QStringLiteral("7e9"));
  ASSERT_TRUE(widget.isCountValid());
  // 7e9 x 2 bytes / 2^30 = 13.0385 GiB: a 7B-parameter model's weights in BF16.
  EXPECT_EQ(cell(widget.table(), QStringLiteral("BF16"), QStringLiteral("GiB")), QStringLiteral("13.0385"));

  widget.countEdit()->setText(QStringLiteral("1,000,000"));
  ASSERT_TRUE(widget.isCountValid());
  // 1e6 x 4 bytes / 2^30 = 0.0037 GiB.
  EXPECT_EQ(cell(widget.table(), QStringLiteral("FP32"), QStringLiteral("GiB")), QStringLiteral("0.0037"));
}

TEST(MemoryCalculator, RejectsNegativeAndGarbageWithAMessageAndKeepsTheTable) {
  MemoryCalculatorWidget widget;
  for (const QString& bad : {QStringLiteral("-5"), QStringLiteral("lots"), QStringLiteral("1e9x")}) {
    widget.countEdit()->setText(bad);
    EXPECT_FALSE(widget.isCountValid()) << bad.toStdString();
    EXPECT_FALSE(widget.message().isEmpty()) << bad.toStdString();
    EXPECT_EQ(cell(widget.table(), QStringLiteral("FP32"), QStringLiteral("GiB")), QStringLiteral("3.7253"));
  }
  widget.countEdit()->setText(QStringLiteral("-5"));
  EXPECT_TRUE(widget.message().contains(QStringLiteral("negative")));
}

TEST(UnderflowTable, ReproducesTheChaptersFP16AndBF16Casts) {
  UnderflowTableWidget widget;
  const QTableWidget* t = widget.table();
  ASSERT_EQ(t->rowCount(), 6);
  // The chapter, section 5: the FP32 tensor [1e-2, 1e-4, 1e-6, 1e-7, 1e-8, 1e-9] cast to each dtype.
  const QStringList fp16{"1.0002e-02", "1.0002e-04", "1.0133e-06", "1.1921e-07", "0.0000e+00", "0.0000e+00"};
  const QStringList bf16{"1.0010e-02", "1.0014e-04", "9.9838e-07", "1.0012e-07", "1.0012e-08", "9.9681e-10"};
  const int fp16Column = columnNamed(t, QStringLiteral("FP16"));
  const int bf16Column = columnNamed(t, QStringLiteral("BF16"));
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(t->item(r, fp16Column)->text(), fp16[r]) << "row " << r;
    EXPECT_EQ(t->item(r, bf16Column)->text(), bf16[r]) << "row " << r;
  }
  // The zeros are highlighted; BF16 keeps every value (no highlight of a zero there).
  EXPECT_EQ(t->item(4, fp16Column)->background().color(), QColor(kFlushedColor));
  EXPECT_EQ(t->item(5, fp16Column)->background().color(), QColor(kFlushedColor));
  EXPECT_NE(t->item(5, bf16Column)->background().color(), QColor(kFlushedColor));
  // 1e-6 and 1e-7 are below FP16's smallest normal 2^-14: subnormal.
  EXPECT_EQ(t->item(2, fp16Column)->background().color(), QColor(kSubnormalColor));
}

TEST(RangeStrip, ShowsWhyFP16NeedsLossScalingAndBF16DoesNot) {
  using Verdict = RangeStripWidget::GradientVerdict;
  // Smallest subnormals (IEEE-754, OCP FP8): FP16 2^-24 and E5M2 2^-16 lie inside the 2^-40..2^-10
  // band; BF16 2^-133, FP32 2^-149, TF32 2^-136 and FP64 2^-1074 lie below it; E4M3FN's 2^-9 above it.
  EXPECT_EQ(RangeStripWidget::gradientVerdict(DType::FP16), Verdict::LosesSmallest);
  EXPECT_EQ(RangeStripWidget::gradientVerdict(DType::FP8E5M2), Verdict::LosesSmallest);
  EXPECT_EQ(RangeStripWidget::gradientVerdict(DType::FP8E4M3FN), Verdict::LosesAll);
  for (DType dtype : {DType::BF16, DType::FP32, DType::TF32, DType::FP64}) {
    EXPECT_EQ(RangeStripWidget::gradientVerdict(dtype), Verdict::HoldsAll) << dtypeDisplayName(dtype).toStdString();
  }
}

TEST(RangeStrip, MarksTheEntryValue) {
  RangeStripWidget strip;
  strip.resize(strip.sizeHint());
  strip.setValue(1e-8);
  EXPECT_DOUBLE_EQ(strip.value(), 1e-8);
  // Painting with a value off the axis, zero, inf and NaN must not fail.
  for (double v : {1e-300, 0.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    strip.setValue(v);
    EXPECT_FALSE(strip.grab().isNull());
  }
}

}  // namespace
}  // namespace ampscope::ui::formats
