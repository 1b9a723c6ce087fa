// The number-format panel as a student uses it: type a value, read the rows, click bits and arrows.
// Expected values come from IEEE-754 (binary16/binary32 layouts, round-to-nearest-even), the OCP FP8
// spec, and the chapter's gradient-underflow table (its section 5).
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSet>
#include <QTest>
#include <QToolButton>

#include <cmath>

#include "ui/formats/bit_cells_widget.h"
#include "ui/formats/format_row_widget.h"
#include "ui/formats/format_text.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/formats/range_strip_widget.h"
#include "ui/i18n/language_manager.h"

namespace ampscope::ui::formats {
namespace {

class NumberFormatsPanelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    panel.resize(1300, 860);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  }

  // Types the text into the entry the way a user does: select all, type, no Return needed.
  void type(const QString& text) {
    QLineEdit* edit = panel.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
  }

  FormatRowWidget* row(DType dtype) { return panel.row(dtype); }

  void clickBit(DType dtype, int bitIndex) {
    BitCellsWidget* cells = row(dtype)->bitCells();
    const QRect rect = cells->cellRect(bitIndex);
    ASSERT_FALSE(rect.isEmpty()) << "bit " << bitIndex << " is not drawn";
    QTest::mouseClick(cells, Qt::LeftButton, Qt::NoModifier, rect.center());
  }

  NumberFormatsPanel panel;
};

TEST_F(NumberFormatsPanelTest, HasOneRowPerDType) {
  for (DType dtype : allDTypes()) {
    ASSERT_NE(row(dtype), nullptr) << dtypeDisplayName(dtype).toStdString();
    EXPECT_EQ(row(dtype)->dtype(), dtype);
  }
}

TEST_F(NumberFormatsPanelTest, OneEMinus8FlushesToZeroInFP16AndSurvivesInBF16) {
  type(QStringLiteral("1e-8"));
  ASSERT_TRUE(panel.isInputValid());

  // The chapter, section 5: FP16 turns 1e-8 into 0, BF16 into 1.0012e-08.
  const RoundingResult& fp16 = row(DType::FP16)->result();
  EXPECT_EQ(fp16.stored, 0.0);
  EXPECT_EQ(fp16.bits, 0x0000u);
  EXPECT_TRUE(fp16.flushedToZero);
  EXPECT_EQ(row(DType::FP16)->highlight(), FormatRowWidget::Highlight::Flushed);
  EXPECT_EQ(row(DType::FP16)->storedText(), QStringLiteral("0"));
  EXPECT_TRUE(row(DType::FP16)->badgeText().contains(QStringLiteral("flushed")));
  EXPECT_DOUBLE_EQ(fp16.relError, 1.0);

  const RoundingResult& bf16 = row(DType::BF16)->result();
  EXPECT_EQ(scientific(bf16.stored, 4), QStringLiteral("1.0012e-08"));
  EXPECT_FALSE(bf16.flushedToZero);
  EXPECT_EQ(bf16.cls, ValueClass::Normal);
  EXPECT_EQ(row(DType::BF16)->highlight(), FormatRowWidget::Highlight::None);

  // FP8 E5M2's smallest subnormal is 2^-16 (OCP FP8): 1e-8 is lost there too; FP32 keeps it normal.
  EXPECT_EQ(row(DType::FP8E5M2)->highlight(), FormatRowWidget::Highlight::Flushed);
  EXPECT_EQ(row(DType::FP32)->result().cls, ValueClass::Normal);
  EXPECT_DOUBLE_EQ(panel.rangeStrip()->value(), 1e-8);
}

TEST_F(NumberFormatsPanelTest, SmallValueIsHighlightedAsSubnormalInFP16) {
  type(QStringLiteral("1e-6"));
  // 1e-6 < 2^-14 (FP16's smallest normal): stored as a subnormal, the chapter's 1.0133e-06.
  EXPECT_EQ(row(DType::FP16)->highlight(), FormatRowWidget::Highlight::Subnormal);
  EXPECT_EQ(scientific(row(DType::FP16)->result().stored, 4), QStringLiteral("1.0133e-06"));
  EXPECT_TRUE(row(DType::FP16)->formulaText().contains(QStringLiteral("0.m")));
}

TEST_F(NumberFormatsPanelTest, FP16BitPatternIsReadInTheChosenDType) {
  panel.setPatternDType(DType::FP16);
  type(QStringLiteral("0x3c00"));
  ASSERT_TRUE(panel.isInputValid());
  // IEEE-754 binary16: 0 01111 0000000000 = 2^(15-15) x 1.0 = 1.
  EXPECT_DOUBLE_EQ(panel.currentValue(), 1.0);
  EXPECT_EQ(row(DType::FP16)->bits(), 0x3c00u);
  EXPECT_EQ(row(DType::BF16)->bits(), 0x3f80u);  // 1.0 in bfloat16
  EXPECT_EQ(row(DType::FP32)->bits(), 0x3f800000u);
  for (DType dtype : allDTypes()) EXPECT_EQ(row(dtype)->result().stored, 1.0);
  EXPECT_EQ(row(DType::FP16)->highlight(), FormatRowWidget::Highlight::Exact);

  // The same pattern read as BF16: exponent field 0x78 = 120, so 2^(120-127) = 0.0078125.
  panel.patternDTypeBox()->setCurrentIndex(panel.patternDTypeBox()->findText(QStringLiteral("BF16")));
  EXPECT_DOUBLE_EQ(panel.currentValue(), 0.0078125);
  EXPECT_EQ(row(DType::BF16)->bits(), 0x3c00u);
}

TEST_F(NumberFormatsPanelTest, AcceptsSignedZeroInfinityAndNaN) {
  type(QStringLiteral("-0"));
  ASSERT_TRUE(panel.isInputValid());
  EXPECT_EQ(row(DType::FP16)->bits(), 0x8000u);  // only the sign bit
  EXPECT_EQ(row(DType::FP16)->result().cls, ValueClass::Zero);

  type(QStringLiteral("inf"));
  ASSERT_TRUE(panel.isInputValid());
  EXPECT_EQ(row(DType::FP16)->bits(), 0x7c00u);  // exponent all ones, mantissa 0
  EXPECT_EQ(row(DType::FP16)->result().cls, ValueClass::Infinite);
  // OCP E4M3FN has no infinity: its only non-finite encoding is NaN.
  EXPECT_EQ(row(DType::FP8E4M3FN)->result().cls, ValueClass::NaN);

  type(QStringLiteral("nan"));
  ASSERT_TRUE(panel.isInputValid());
  for (DType dtype : allDTypes()) {
    if (dtype == DType::FP4E2M1) continue;  // no NaN (OCP MX v1.0): below
    EXPECT_EQ(row(dtype)->result().cls, ValueClass::NaN);
  }
  EXPECT_EQ(row(DType::FP32)->highlight(), FormatRowWidget::Highlight::NaN);
  EXPECT_TRUE(row(DType::FP4E2M1)->result().noEncoding);
  EXPECT_EQ(row(DType::FP4E2M1)->badgeText(), QStringLiteral("no encoding"));
}

TEST_F(NumberFormatsPanelTest, FP16MaxIsExactAndOneStepMoreOverflows) {
  type(QStringLiteral("65504"));
  EXPECT_EQ(row(DType::FP16)->bits(), 0x7bffu);
  EXPECT_EQ(row(DType::FP16)->highlight(), FormatRowWidget::Highlight::Exact);
  // 65520 is halfway between 65504 and 2^16; ties-to-even picks the even encoding, 0x7c00 = inf.
  type(QStringLiteral("65520"));
  EXPECT_EQ(row(DType::FP16)->bits(), 0x7c00u);
  EXPECT_EQ(row(DType::FP16)->highlight(), FormatRowWidget::Highlight::Overflow);
  EXPECT_TRUE(row(DType::FP16)->badgeText().contains(QStringLiteral("inf")));
}

TEST_F(NumberFormatsPanelTest, ClickingABitFlipsItAndEveryRowFollows) {
  type(QStringLiteral("1"));
  clickBit(DType::FP16, 15);  // sign
  EXPECT_EQ(panel.valueEdit()->text(), QStringLiteral("-1"));
  EXPECT_EQ(row(DType::FP16)->bits(), 0xbc00u);
  for (DType dtype : allDTypes()) {
    if (dtype == DType::E8M0) continue;  // no sign: below
    EXPECT_EQ(row(dtype)->result().stored, -1.0);
  }
  EXPECT_TRUE(row(DType::E8M0)->result().noEncoding);
  // PyTorch's cast drops the sign: the row says so beside the exact result.
  EXPECT_TRUE(row(DType::E8M0)->notesText().contains(QStringLiteral("drops the sign"))) << row(DType::E8M0)->notesText().toStdString();

  type(QStringLiteral("1"));
  clickBit(DType::FP16, 10);  // lowest exponent bit: field 15 -> 14, so 2^-1
  EXPECT_DOUBLE_EQ(panel.currentValue(), 0.5);
  EXPECT_EQ(row(DType::FP16)->bits(), 0x3800u);
  EXPECT_EQ(row(DType::FP64)->result().stored, 0.5);

  clickBit(DType::FP16, 0);  // lowest mantissa bit: 0.5 x (1 + 2^-10)
  EXPECT_DOUBLE_EQ(panel.currentValue(), 0.5 * (1 + std::ldexp(1.0, -10)));
  EXPECT_EQ(row(DType::FP16)->bits(), 0x3801u);
  // BF16 has 7 mantissa bits: 1 + 2^-10 rounds back to 1.
  EXPECT_EQ(row(DType::BF16)->result().stored, 0.5);
}

TEST_F(NumberFormatsPanelTest, FP64BitsStayClickableWhenTheRowsAreNarrow) {
  panel.resize(1000, 700);
  QCoreApplication::processEvents();
  type(QStringLiteral("1"));
  clickBit(DType::FP64, 0);  // 1 + 2^-52: the next double after 1 (DBL_EPSILON)
  EXPECT_EQ(panel.currentValue(), 1.0 + std::ldexp(1.0, -52));
}

TEST_F(NumberFormatsPanelTest, NarrowPanelStacksEachRowAndKeepsEverythingReachable) {
  panel.resize(560, 700);
  QCoreApplication::processEvents();
  FormatRowWidget* fp64 = row(DType::FP64);
  ASSERT_LT(fp64->width(), FormatRowWidget::kWideLayoutMinWidth);
  EXPECT_TRUE(fp64->isCompact());
  // Every bit cell and both step buttons lie inside the row: nothing is clipped off to the right.
  for (int bit = 0; bit < 64; ++bit) {
    EXPECT_TRUE(fp64->rect().contains(fp64->bitCells()->cellRect(bit).translated(fp64->bitCells()->pos()))) << bit;
  }
  EXPECT_TRUE(fp64->rect().contains(fp64->nextButton()->geometry().translated(fp64->nextButton()->parentWidget()->pos())));
  type(QStringLiteral("1"));
  clickBit(DType::FP64, 63);
  EXPECT_EQ(panel.currentValue(), -1.0);

  // A very narrow dock: FP64's 64 bits take four lines of 16 and still fit.
  panel.resize(380, 700);
  QCoreApplication::processEvents();
  EXPECT_EQ(fp64->bitCells()->lineCount(), 4);
  for (int bit = 0; bit < 64; ++bit) {
    EXPECT_TRUE(fp64->rect().contains(fp64->bitCells()->cellRect(bit).translated(fp64->bitCells()->pos()))) << bit;
  }

  panel.resize(1300, 860);
  QCoreApplication::processEvents();
  EXPECT_FALSE(fp64->isCompact());
  EXPECT_EQ(fp64->bitCells()->lineCount(), 2);
}

TEST_F(NumberFormatsPanelTest, FlippingIntoNaNWritesTheBitPattern) {
  type(QStringLiteral("inf"));
  clickBit(DType::FP16, 0);  // exponent all ones, mantissa 1: a NaN with payload 1
  EXPECT_EQ(panel.valueEdit()->text(), QStringLiteral("0x7c01"));
  EXPECT_EQ(panel.patternDType(), DType::FP16);
  EXPECT_EQ(row(DType::FP16)->bits(), 0x7c01u);
  EXPECT_EQ(row(DType::FP32)->result().cls, ValueClass::NaN);
}

TEST_F(NumberFormatsPanelTest, NextAndPreviousStepToTheAdjacentRepresentableValue) {
  type(QStringLiteral("1"));
  QTest::mouseClick(row(DType::FP16)->nextButton(), Qt::LeftButton);
  // FP16 eps is 2^-10 (torch.finfo(float16).eps = 9.765625e-04).
  EXPECT_EQ(panel.valueEdit()->text(), QStringLiteral("1.0009765625"));
  EXPECT_EQ(row(DType::FP16)->bits(), 0x3c01u);
  EXPECT_EQ(row(DType::BF16)->result().stored, 1.0);  // below BF16's half-ulp at 1 (2^-8)

  type(QStringLiteral("1"));
  QTest::mouseClick(row(DType::FP16)->previousButton(), Qt::LeftButton);
  // Below 1 the binade is [0.5, 1): spacing 2^-11.
  EXPECT_DOUBLE_EQ(panel.currentValue(), 1 - std::ldexp(1.0, -11));

  type(QStringLiteral("1e-8"));  // FP16 stores 0
  QTest::mouseClick(row(DType::FP16)->nextButton(), Qt::LeftButton);
  // The next FP16 value after +0 is the smallest subnormal 2^-24 = 5.960464e-08.
  EXPECT_DOUBLE_EQ(panel.currentValue(), std::ldexp(1.0, -24));
  EXPECT_EQ(row(DType::FP16)->highlight(), FormatRowWidget::Highlight::Subnormal);
  EXPECT_EQ(row(DType::FP16)->result().absError, 0.0);
}

TEST_F(NumberFormatsPanelTest, BadInputMarksTheFieldAndKeepsTheRows) {
  type(QStringLiteral("0.1"));
  const uint64_t fp16Before = row(DType::FP16)->bits();
  const double storedBefore = row(DType::FP32)->result().stored;

  for (const QString& bad : {QStringLiteral("abc"), QStringLiteral("1.2.3"), QStringLiteral("0xZZ"),
                             QStringLiteral("--1"), QStringLiteral("1e-8x"), QStringLiteral("")}) {
    // Pasted in one go: typed key by key, a valid prefix such as "1.2" would become the last good value.
    panel.valueEdit()->setText(bad);
    EXPECT_FALSE(panel.isInputValid()) << bad.toStdString();
    EXPECT_TRUE(panel.valueEdit()->property("invalid").toBool()) << bad.toStdString();
    EXPECT_TRUE(panel.valueEdit()->actions().contains(panel.invalidInputAction())) << bad.toStdString();
    EXPECT_FALSE(panel.inputMessage().isEmpty()) << bad.toStdString();
    EXPECT_NE(panel.valueEdit()->palette().color(QPalette::Base),
              QApplication::palette(panel.valueEdit()).color(QPalette::Base));
    EXPECT_EQ(row(DType::FP16)->bits(), fp16Before) << bad.toStdString();
    EXPECT_EQ(row(DType::FP32)->result().stored, storedBefore) << bad.toStdString();
  }
  // The message is the parser's reason.
  panel.valueEdit()->setText(QStringLiteral("abc"));
  const ParsedValue parsed = parseValue("abc", DType::FP16);
  ASSERT_FALSE(parsed.ok);
  EXPECT_TRUE(panel.inputMessage().contains(QString::fromStdString(parsed.error).toHtmlEscaped()));

  type(QStringLiteral("0.25"));
  EXPECT_TRUE(panel.isInputValid());
  EXPECT_FALSE(panel.valueEdit()->property("invalid").toBool());
  EXPECT_FALSE(panel.valueEdit()->actions().contains(panel.invalidInputAction()));
  EXPECT_EQ(row(DType::FP16)->result().stored, 0.25);
}

TEST_F(NumberFormatsPanelTest, AnyTextEitherParsesConsistentlyOrIsMarkedBad) {
  // Edge cases plus a fixed-seed stream of random strings over the characters numbers are made of.
  QStringList inputs{QStringLiteral("1e400"), QStringLiteral("-1e-400"), QStringLiteral("4.9e-324"),
                     QStringLiteral("0b1"), QStringLiteral("0x"), QStringLiteral("0x7fffffffffffffff"),
                     QStringLiteral("0xFFFFFFFFFFFFFFFFFF"), QStringLiteral("   "), QStringLiteral("1e"),
                     QStringLiteral("+"), QStringLiteral("-inf"), QStringLiteral("NaN"), QStringLiteral("∞"),
                     QStringLiteral("1,5"), QStringLiteral("0x1p-3"), QStringLiteral("448"), QStringLiteral("480")};
  const QString alphabet = QStringLiteral("0123456789.eE+-xXbBinfaNpc ");
  uint32_t state = 12345;
  auto next = [&state] { return state = state * 1664525u + 1013904223u; };  // LCG: reproducible
  for (int i = 0; i < 300; ++i) {
    QString text;
    const int length = 1 + static_cast<int>(next() >> 28);
    for (int c = 0; c < length; ++c) text += alphabet[static_cast<int>((next() >> 16) % alphabet.size())];
    inputs << text;
  }
  for (DType patternType : {DType::FP16, DType::FP8E4M3FN, DType::FP64}) {
    panel.setPatternDType(patternType);
    for (const QString& text : inputs) {
      panel.valueEdit()->setText(text);
      const ParsedValue parsed = parseValue(text.trimmed().toStdString(), patternType);
      ASSERT_EQ(panel.isInputValid(), parsed.ok && !text.trimmed().isEmpty()) << text.toStdString();
      if (!panel.isInputValid()) continue;
      for (DType dtype : allDTypes()) {
        const double expected = parsed.isBitPattern && dtype == patternType ? decode(dtype, parsed.bits)
                                                                             : roundTo(dtype, panel.currentValue());
        const double stored = row(dtype)->result().stored;
        if (std::isnan(expected)) {
          EXPECT_TRUE(std::isnan(stored)) << text.toStdString();
        } else {
          EXPECT_EQ(stored, expected) << text.toStdString() << " in " << dtypeDisplayName(dtype).toStdString();
        }
      }
    }
  }
}

TEST_F(NumberFormatsPanelTest, FormulaShowsTheActualFieldsAndBias) {
  type(QStringLiteral("0.1"));
  // FP16 0.1 = 0x2e66: exponent field 11, bias 15, significand 1 + 614/1024 = 1.599609375.
  EXPECT_EQ(row(DType::FP16)->bits(), 0x2e66u);
  const QString formula = row(DType::FP16)->formulaText();
  EXPECT_TRUE(formula.contains(QStringLiteral("11&minus;15"))) << formula.toStdString();
  EXPECT_TRUE(formula.contains(QStringLiteral("1.599609375"))) << formula.toStdString();
}

TEST_F(NumberFormatsPanelTest, Fp8RowsShowTheSaturatingResultAndFp16PyTorchsDoubleRounding) {
  // OFP8 v1.0: E4M3 overflow is NaN, saturating 448; E5M2 overflow is inf, saturating 57344.
  type(QStringLiteral("1000"));
  EXPECT_EQ(row(DType::FP8E4M3FN)->result().cls, ValueClass::NaN);
  EXPECT_TRUE(row(DType::FP8E4M3FN)->notesText().contains(QStringLiteral("448 (0x7e)")));
  EXPECT_TRUE(row(DType::FP8E5M2)->notesText().isEmpty());  // 1024: no overflow, nothing to add
  EXPECT_EQ(row(DType::FP4E2M1)->result().stored, 6.0);     // OCP MX: E2M1 saturates
  EXPECT_TRUE(row(DType::FP4E2M1)->badgeText().contains(QStringLiteral("saturated")));
  type(QStringLiteral("65519.99999"));
  EXPECT_EQ(row(DType::FP16)->result().stored, 65504.0);
  EXPECT_TRUE(row(DType::FP16)->notesText().contains(QStringLiteral("PyTorch rounds to float32 first")));
  EXPECT_TRUE(row(DType::FP8E5M2)->notesText().contains(QStringLiteral("57344")));
}

// The colour legend wraps as whole chips: each chip or phrase is one unwrapped line of its own, shown at
// its full width inside the legend, none overlapping another. Chinese is where a wrapping label broke a
// chip ("冲为 0", flushed to 0) between two of its characters; the legend is built in English and
// switched at run time, as View > Language does.
TEST(NumberFormatsLegend, ChipsWrapWholeInChinese) {
  LanguageManager languages;
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en"), LanguageManager::Persist::No));
  NumberFormatsPanel panel;
  panel.resize(1300, 700);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("zh_CN"), LanguageManager::Persist::No));
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LanguageChange);
  for (const int width : {1300, 560, 420, 330}) {
    panel.resize(width, 700);
    QTest::qWait(30);
    QWidget* legend = panel.legend();
    ASSERT_NE(legend, nullptr);
    const QList<QLabel*>& items = panel.legendItems();
    ASSERT_GE(items.size(), 8);
    QString all;
    QSet<int> lines;
    for (int i = 0; i < items.size(); ++i) {
      const QLabel* item = items[i];
      all += item->text();
      EXPECT_FALSE(item->wordWrap()) << i;
      EXPECT_TRUE(item->isVisible()) << i;
      // One line, whole: the label has the size its unwrapped text needs.
      EXPECT_GE(item->width(), item->sizeHint().width()) << "item " << i << " at width " << width;
      EXPECT_LE(item->height(), item->sizeHint().height() + 1) << "item " << i << " at width " << width;
      EXPECT_TRUE(legend->rect().contains(item->geometry())) << "item " << i << " at width " << width << ": " << item->geometry().x() << "," << item->geometry().y() << " " << item->width() << "x" << item->height() << " in " << legend->width() << "x" << legend->height();
      for (int j = 0; j < i; ++j)
        EXPECT_FALSE(item->geometry().intersects(items[j]->geometry())) << i << " and " << j << " at " << width;
      lines.insert(item->y());
    }
    EXPECT_TRUE(all.contains(QString::fromUtf8("冲为&nbsp;0"))) << all.toStdString();
    EXPECT_TRUE(all.contains(QString::fromUtf8("符号"))) << all.toStdString();
    if (width == 1300) {
      EXPECT_EQ(lines.size(), 1);
    }
    if (width <= 420) {
      EXPECT_GE(lines.size(), 2) << "the narrow legend wraps onto more lines";
    }
  }
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en"), LanguageManager::Persist::No));
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LanguageChange);
  QString english;
  for (const QLabel* item : panel.legendItems()) english += item->text();
  EXPECT_TRUE(english.contains(QStringLiteral("flushed&nbsp;to&nbsp;0"))) << english.toStdString();
}

}  // namespace

}  // namespace ampscope::ui::formats
