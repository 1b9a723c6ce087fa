// The one GoogleTest main of every GUI test binary: offscreen platform when none is set (CTest's
// gtest_discover_tests runs the binaries at build time without the tests' ENVIRONMENT), one
// QApplication for all tests, and QSettings/QStandardPaths isolated so tests never read or write the
// user's configuration.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  ::testing::InitGoogleTest(&argc, argv);

  // Test mode moves QStandardPaths (and QSettings' user files) under ~/.qttest; the temporary
  // directory and the per-process organization name keep parallel test binaries apart as well.
  QStandardPaths::setTestModeEnabled(true);
  QTemporaryDir settingsDir;  // created 0700, as XDG_RUNTIME_DIR must be
  if (settingsDir.isValid()) {
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) qputenv("XDG_RUNTIME_DIR", settingsDir.path().toLocal8Bit());
    // The precision-path timings (and anything else cached) stay out of the user's cache, for this
    // process and the ampscope processes the tests start.
    if (qEnvironmentVariableIsEmpty("AMPSCOPE_CACHE_DIR")) {
      qputenv("AMPSCOPE_CACHE_DIR", (settingsDir.path() + QStringLiteral("/cache")).toLocal8Bit());
    }
  }
  QCoreApplication::setOrganizationName(
      QStringLiteral("AmpScopeTests-%1").arg(QCoreApplication::applicationPid()));
  QCoreApplication::setApplicationName(QStringLiteral("AmpScopeTests"));

  QApplication app(argc, argv);
  return RUN_ALL_TESTS();
}
