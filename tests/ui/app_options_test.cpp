// `ampscope` command-line parsing (exit codes: 0 ok, 1 runtime error, 2 usage error).
#include <gtest/gtest.h>

#include "ui/app_options.h"

namespace ampscope::ui {
namespace {

AppOptions parse(QStringList arguments) {
  arguments.prepend(QStringLiteral("ampscope"));
  return parseAppOptions(arguments);
}

TEST(AppOptions, NoArgumentsRunsTheApp) {
  const AppOptions options = parse({});
  EXPECT_EQ(options.action, AppOptions::Action::Run);
  EXPECT_FALSE(options.screenshotRequested());
}

TEST(AppOptions, HelpAndVersion) {
  const AppOptions help = parse({QStringLiteral("--help")});
  EXPECT_EQ(help.action, AppOptions::Action::ShowHelp);
  EXPECT_TRUE(help.message.contains(QStringLiteral("--screenshot")));
  // Qt names the program only when a QCoreApplication exists; the parser fills the name in otherwise.
  EXPECT_FALSE(help.message.contains(QStringLiteral("<executable_name>"))) << help.message.toStdString();
  EXPECT_EQ(parse({QStringLiteral("-h")}).action, AppOptions::Action::ShowHelp);
  EXPECT_EQ(parse({QStringLiteral("--version")}).action, AppOptions::Action::ShowVersion);
  EXPECT_EQ(parse({QStringLiteral("-v")}).action, AppOptions::Action::ShowVersion);
}

TEST(AppOptions, ScreenshotWithSizeAndScale) {
  const AppOptions options = parse({QStringLiteral("--screenshot"), QStringLiteral("/tmp/a.png"),
                                    QStringLiteral("--size"), QStringLiteral("1400x900"), QStringLiteral("--scale"),
                                    QStringLiteral("2")});
  EXPECT_EQ(options.action, AppOptions::Action::Run);
  EXPECT_EQ(options.screenshotPath, QStringLiteral("/tmp/a.png"));
  EXPECT_EQ(options.size, QSize(1400, 900));
  EXPECT_EQ(options.scale, 2.0);

  const AppOptions plain = parse({QStringLiteral("--screenshot=/tmp/b.png")});
  EXPECT_TRUE(plain.screenshotRequested());
  EXPECT_FALSE(plain.size.isValid());
  EXPECT_EQ(plain.scale, 0.0);
}

TEST(AppOptions, RejectsBadSizeScaleAndUnknownArgumentsWithAMessage) {
  const QList<QStringList> bad{
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("big")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("0x900")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("1400x")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("99999x10")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("0")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("-1")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("x")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("nan")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("100")},
      {QStringLiteral("--screenshot")},
      {QStringLiteral("--size"), QStringLiteral("800x600")},
      {QStringLiteral("--bogus")},
      {QStringLiteral("stray")},
  };
  for (const QStringList& arguments : bad) {
    const AppOptions options = parse(arguments);
    EXPECT_EQ(options.action, AppOptions::Action::Error) << arguments.join(' ').toStdString();
    EXPECT_FALSE(options.message.isEmpty()) << arguments.join(' ').toStdString();
  }
}

TEST(AppOptions, ParsesSizes) {
  EXPECT_EQ(parseSize(QStringLiteral("1024x700")), QSize(1024, 700));
  EXPECT_EQ(parseSize(QStringLiteral("800X600")), QSize(800, 600));
  EXPECT_FALSE(parseSize(QStringLiteral("800")).isValid());
  EXPECT_FALSE(parseSize(QStringLiteral("-800x600")).isValid());
  EXPECT_FALSE(parseSize(QStringLiteral("800x600x2")).isValid());
}

}  // namespace
}  // namespace ampscope::ui
