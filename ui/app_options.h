// Command-line options of the `ampscope` GUI, parsed into a plain struct so main() only wires and the
// parsing is unit-tested. To add an option: a field here, a QCommandLineOption and its check in
// parseAppOptions().
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

namespace ampscope::ui {

struct AppOptions {
  enum class Action { Run, ShowHelp, ShowVersion, Error };
  Action action = Action::Run;
  QString message;  // the error (Action::Error) or the help text (Action::ShowHelp)
  // Action::Error about a FILE argument (missing, unreadable, a folder, neither kind, too many sessions),
  // the only arguments a desktop passes: main() also shows it in a message box when there is no terminal.
  bool fileError = false;

  // --screenshot FILE [--size WxH] [--scale S]: render the window offscreen into FILE and exit.
  QString screenshotPath;
  QSize size;          // invalid: the window's own default size
  double scale = 0;    // 0: the screen's device pixel ratio
  // --steps N (with --screenshot): train N steps of the run panel's configuration first.
  qint64 steps = 0;    // 0: no training

  // --lesson NAME: open this lesson at start (default: the one opened last, else the first).
  QString lesson;
  // --lang en|zh_CN: the UI language for this run (not saved; default: the saved choice or the system's).
  QString language;
  // --theme light|dark: the theme for this run (not saved; default: the saved choice).
  QString theme;
  // --presenter: start with presenter scaling on (larger fonts and plot lines).
  bool presenter = false;

  // FILE… (positional): what the desktop passes for a double-clicked file (Exec=ampscope %F; a file://
  // URL is taken as its path too). Each is sorted by its content (fileKindOf): at most one saved
  // session, opened as File > Open Session opens it, or record streams (and HOST:PORT, tcp://HOST:PORT), each followed as File > Follow Run follows
  // it; not both. Files are absolute paths; a file that is missing, a folder, not a regular file,
  // unreadable or neither kind is refused here, naming it. A session is decoded by main() before the
  // window shows, so a damaged one is refused (exit 2) before any window opens.
  QString sessionFile;         // empty: none
  QStringList followTargets;   // record stream files (absolute) and HOST:PORT targets, in the given order

  bool screenshotRequested() const { return !screenshotPath.isEmpty(); }
  bool opensFiles() const { return !sessionFile.isEmpty() || !followTargets.isEmpty(); }
};

// What a file holds, told by its first bytes: a session begins {"format":"ampscope-session" (the session
// codec writes the format first), a record stream's header line {"format":"ampscope-records". Otherwise
// the name decides: ".ampscope" is a session (its decoder then says what is wrong with it); any other
// empty file or JSON object (a stream not yet written, or version 1's header-less lines) is a stream.
// Unknown: another "format" (an export, say), or not JSON at all.
enum class FileKind { Session, RecordStream, Unknown };
FileKind fileKindOf(const QByteArray& head, const QString& fileName);
// How many leading bytes fileKindOf() needs.
inline constexpr int kFileKindHeadBytes = 512;

// Exit codes of `ampscope`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntimeError = 1;  // e.g. the screenshot file cannot be written
inline constexpr int kExitUsageError = 2;    // bad arguments

// Largest --scale accepted; a 1400x900 window at 4x is already a 5600x3600 image.
inline constexpr double kMaxScreenshotScale = 4.0;
// Largest --size edge accepted.
inline constexpr int kMaxScreenshotEdge = 10000;
// Largest --steps accepted (far more than a screenshot needs; keeps a typo from training for days).
inline constexpr qint64 kMaxHeadlessSteps = 10000000;

// `arguments` includes the program name first, as QCoreApplication::arguments() does. Works before a
// QApplication exists (main() needs --scale before creating it).
AppOptions parseAppOptions(const QStringList& arguments);
// The value of --lang (empty when not given), read without checking the rest: main() parses again in
// that language to report an error in it.
QString languageArgument(const QStringList& arguments);

// "1400x900" -> QSize(1400, 900); an invalid QSize if the text is not WxH with positive integers.
QSize parseSize(const QString& text);

}  // namespace ampscope::ui
