// Element counts as people type them into the memory calculator.
#include <gtest/gtest.h>

#include "ui/formats/element_count.h"

namespace ampscope::ui::formats {
namespace {

TEST(ElementCount, AcceptsScientificPlainAndGroupedNumbers) {
  EXPECT_EQ(parseElementCount(QStringLiteral("1e9")).value, 1e9L);
  EXPECT_EQ(parseElementCount(QStringLiteral("7E9")).value, 7e9L);
  EXPECT_EQ(parseElementCount(QStringLiteral(" 1000000 ")).value, 1e6L);
  EXPECT_EQ(parseElementCount(QStringLiteral("1,000,000")).value, 1e6L);
  EXPECT_EQ(parseElementCount(QStringLiteral("1_000_000_000")).value, 1e9L);
  EXPECT_EQ(parseElementCount(QStringLiteral("2.5e3")).value, 2500.0L);
  EXPECT_EQ(parseElementCount(QStringLiteral("0")).value, 0.0L);
  EXPECT_TRUE(parseElementCount(QStringLiteral("1e18")).ok);
}

TEST(ElementCount, RejectsNegativeFractionalHugeAndGarbageWithAReason) {
  const QString bad[] = {QStringLiteral("-1"), QStringLiteral("1.5"), QStringLiteral("1e19"), QStringLiteral("abc"),
                         QStringLiteral(""), QStringLiteral("1,00"), QStringLiteral("1e9x"), QStringLiteral("inf"),
                         QStringLiteral("nan"), QStringLiteral("1e99999")};
  for (const QString& text : bad) {
    const ElementCount count = parseElementCount(text);
    EXPECT_FALSE(count.ok) << text.toStdString();
    EXPECT_FALSE(count.error.isEmpty()) << text.toStdString();
  }
  EXPECT_TRUE(parseElementCount(QStringLiteral("-1")).error.contains(QStringLiteral("negative")));
  EXPECT_TRUE(parseElementCount(QStringLiteral("1.5")).error.contains(QStringLiteral("whole")));
}

}  // namespace
}  // namespace ampscope::ui::formats
