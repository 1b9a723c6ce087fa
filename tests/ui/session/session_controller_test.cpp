// SessionController (File menu commands, title, autosave, crash recovery) and SessionRecorder (full
// records with bounded memory). Dialogs are answered through the controller's prompt hooks.
#include "ui/session/session_controller.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <QThread>
#include <QWidget>
#include <filesystem>

#include "support/synthetic_records.h"
#include "ui/session/session_loader.h"
#include "ui/session/session_recorder.h"

namespace ampscope::ui {
namespace {

std::vector<StepRecord> steps(int64_t first, int64_t last, bool instrumented = false) {
  std::vector<StepRecord> records;
  for (int64_t step = first; step <= last; ++step) {
    StepRecord record;
    record.step = step;
    ModeStep s;
    s.mode = PrecisionMode::FP32;
    s.step = step;
    s.loss = 1.0 / static_cast<double>(step);
    s.instrumented = instrumented;
    if (instrumented) s.tensors.push_back({"net.0.weight", true, 1, {}, {}, TensorRole::Gradient, {}});
    record.modes.push_back(s);
    records.push_back(record);
  }
  return records;
}

RunConfig fp32Config() {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32};
  return config;
}

// A run of steps 1..`last` that is killed: no shutdown(), so its journal stays at `journal`.
void leaveCrashJournal(const QString& journal, int64_t last) {
  SessionController crashed(nullptr, journal);
  crashed.onRunStarted(fp32Config());
  crashed.onRecords(steps(1, last));
  crashed.onRunStopped();
  crashed.autosave()->waitForWrite();  // the file is written on a worker thread
}

// A controller whose dialogs are scripted: `paths` answers file dialogs, `answer` yes/no questions.
struct Harness {
  QTemporaryDir dir;
  QWidget window;
  SessionController controller{&window, dir.filePath(QStringLiteral("autosave.ampscope"))};
  QString nextPath;
  bool answer = true;
  QStringList questions;
  QStringList errors;
  std::vector<Session> loaded;

  Harness() {
    window.setWindowTitle(QStringLiteral("AmpScope"));
    controller.setPathPrompt([this](SessionController::PathKind, const QString&) { return nextPath; });
    controller.setQuestionPrompt([this](const QString& title, const QString&) {
      questions << title;
      return answer;
    });
    controller.setMessageSink([this](const QString&, const QString& text, bool error) {
      if (error) errors << text;
    });
    controller.setLoadHandler([this](const Session& session) { loaded.push_back(session); });
  }
};

TEST(SessionRecorder, KeepsEveryStepOnceInOrder) {
  SessionRecorder recorder;
  recorder.begin(fp32Config(), QStringLiteral("lesson"));
  recorder.append(steps(1, 10));
  recorder.append(steps(8, 12));  // overlapping steps are not duplicated
  ASSERT_EQ(recorder.records().size(), 12u);
  EXPECT_EQ(recorder.lastStep(), 12);
  EXPECT_EQ(recorder.session().lesson, QStringLiteral("lesson"));
}

TEST(SessionRecorder, ThinsToEveryOtherStepBeyondTheRecordLimitAndKeepsThatStride) {
  SessionRecorder recorder;
  recorder.begin(fp32Config());
  const uint64_t generation = recorder.generation();
  const int64_t total = static_cast<int64_t>(SessionRecorder::kMaxRecords) + 2;
  recorder.append(steps(1, total));
  // Every other step is left, evenly over the run, the first one included.
  ASSERT_EQ(recorder.records().size(), SessionRecorder::kMaxRecords / 2 + 1);
  EXPECT_EQ(recorder.records()[0].step, 1);
  EXPECT_EQ(recorder.records()[1].step, 3);
  EXPECT_NE(recorder.generation(), generation) << "records were removed: the autosave must rebuild";
  // Later steps arrive at the same stride: two more steps, one more record.
  recorder.append(steps(total + 1, total + 2));
  EXPECT_EQ(recorder.records().size(), SessionRecorder::kMaxRecords / 2 + 2);
}

TEST(SessionRecorder, DropsOldHistogramsButKeepsTheirScalarsBeyondTheInstrumentLimit) {
  SessionRecorder recorder;
  recorder.begin(fp32Config());
  const int64_t total = static_cast<int64_t>(SessionRecorder::kMaxInstrumentedSteps) + 1;
  recorder.append(steps(1, total, /*instrumented=*/true));
  ASSERT_EQ(recorder.records().size(), static_cast<size_t>(total));
  size_t withTensors = 0;
  for (const auto& record : recorder.records()) withTensors += record.modes[0].tensors.empty() ? 0 : 1;
  EXPECT_LE(withTensors, SessionRecorder::kMaxInstrumentedSteps);
  EXPECT_FALSE(recorder.records().front().modes[0].tensors.empty()) << "the first histogram survives";
  EXPECT_FALSE(recorder.records().back().modes[0].tensors.empty()) << "the newest histogram survives";
}

TEST(SessionController, InstallsTheFileMenuActionsBeforeExistingOnes) {
  Harness h;
  QMenu file;
  QAction* quit = file.addAction(QStringLiteral("Quit"));
  h.controller.installMenu(&file);
  const auto actions = file.actions();
  ASSERT_GE(actions.size(), 8);
  EXPECT_EQ(actions.first(), h.controller.openAction());
  EXPECT_EQ(actions.last(), quit);
  EXPECT_EQ(h.controller.openAction()->shortcut(), QKeySequence(QKeySequence::Open));
  EXPECT_EQ(h.controller.saveAction()->shortcut(), QKeySequence(QKeySequence::Save));
  // Nothing recorded yet: nothing to save or export.
  EXPECT_FALSE(h.controller.saveAction()->isEnabled());
  EXPECT_FALSE(h.controller.exportCsvAction()->isEnabled());
  EXPECT_FALSE(h.controller.recentMenu()->isEnabled());
}

TEST(SessionController, RecordsARunSavesItAndReopensItIntoTheViews) {
  Harness h;
  QMenu file;
  h.controller.installMenu(&file);
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 25));
  EXPECT_TRUE(h.controller.isModified());
  EXPECT_TRUE(h.window.isWindowModified());
  EXPECT_TRUE(h.controller.exportCsvAction()->isEnabled());

  h.nextPath = h.dir.filePath(QStringLiteral("first"));  // the suffix is added
  ASSERT_TRUE(h.controller.save());
  const QString saved = h.dir.filePath(QStringLiteral("first.ampscope"));
  EXPECT_EQ(h.controller.currentPath(), saved);
  EXPECT_FALSE(h.controller.isModified());
  EXPECT_TRUE(h.window.windowTitle().startsWith(QStringLiteral("first.ampscope")))
      << h.window.windowTitle().toStdString();
  EXPECT_EQ(h.controller.recentFiles()->files().value(0), saved);
  EXPECT_EQ(h.controller.recentMenu()->actions().size(), 3);  // the file, a separator, "Clear Recent"

  // A second controller (the next app start) opens it: the load handler gets the same 25 steps.
  Harness other;
  ASSERT_TRUE(other.controller.openFile(saved));
  ASSERT_EQ(other.loaded.size(), 1u);
  EXPECT_EQ(other.loaded[0].records.size(), 25u);
  EXPECT_EQ(other.controller.recorder()->lastStep(), 25);
  EXPECT_FALSE(other.controller.isModified());
}

TEST(SessionController, AFailedOpenReportsTheReasonAndKeepsTheCurrentSession) {
  Harness h;
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 5));
  const QString bad = h.dir.filePath(QStringLiteral("bad.ampscope"));
  QFile file(bad);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("{\"format\": \"ampscope-session\", \"version\": 99}");
  file.close();
  EXPECT_FALSE(h.controller.openFile(bad));
  ASSERT_EQ(h.errors.size(), 1);
  EXPECT_TRUE(h.errors[0].contains(QStringLiteral("version 99"))) << h.errors[0].toStdString();
  EXPECT_EQ(h.controller.recorder()->lastStep(), 5) << "the run in memory is untouched";
  EXPECT_TRUE(h.loaded.empty());
}

// The command line's session (app/gui/main.cpp) is opened before the window shows: its failure comes back
// to the caller, for stderr, and no message box is shown.
TEST(SessionController, AFailedOpenWithAnErrorOutParameterTellsTheCallerNotTheUser) {
  Harness h;
  const QString bad = h.dir.filePath(QStringLiteral("bad.ampscope"));
  QFile file(bad);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("{\"format\": \"ampscope-session\", \"version\": 99}");
  file.close();
  QString error = QStringLiteral("stale");
  EXPECT_FALSE(h.controller.openFile(bad, &error));
  EXPECT_TRUE(h.errors.isEmpty()) << h.errors.join('\n').toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("bad.ampscope")) && error.contains(QStringLiteral("version 99")))
      << error.toStdString();
  EXPECT_TRUE(h.loaded.empty());

  const QString good = h.dir.filePath(QStringLiteral("good.ampscope"));
  Session session;
  session.config = fp32Config();
  session.records = steps(1, 4);
  ASSERT_TRUE(SessionFile::save(good, session, &error)) << error.toStdString();
  EXPECT_TRUE(h.controller.openFile(good, &error));
  EXPECT_TRUE(error.isEmpty()) << error.toStdString();
  ASSERT_EQ(h.loaded.size(), 1u);
  EXPECT_EQ(h.controller.currentPath(), good);
}

TEST(SessionController, ExportsCsvJsonAndAPyTorchFolder) {
  Harness h;
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 3));
  ASSERT_TRUE(h.controller.exportCsv(h.dir.filePath(QStringLiteral("run.csv"))));
  ASSERT_TRUE(h.controller.exportJson(h.dir.filePath(QStringLiteral("run.json"))));
  const QString folder = h.dir.filePath(QStringLiteral("pytorch"));
  ASSERT_TRUE(h.controller.reproduceInPyTorch(folder)) << h.errors.join('\n').toStdString();
  EXPECT_TRUE(QFileInfo::exists(folder + QStringLiteral("/run.py")));
  EXPECT_TRUE(QFileInfo::exists(folder + QStringLiteral("/ampscope_loss.csv")));
  // Only the 3 recorded steps' batches: (3, 32, 128) float32 after a 128-byte header.
  EXPECT_EQ(QFileInfo(folder + QStringLiteral("/batches/inputs.npy")).size(), 128 + 3 * 32 * 128 * 4);
}

// A folder holding someone's files: the export asks first, naming a few of them; "no" leaves the folder
// as it was, "yes" writes the export beside them and keeps them byte for byte.
TEST(SessionController, ReproduceAsksBeforeWritingIntoSomeonesFolder) {
  Harness h;
  QStringList texts;
  h.controller.setQuestionPrompt([&](const QString&, const QString& text) {
    texts << text;
    return h.answer;
  });
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 2));
  const QString folder = h.dir.filePath(QStringLiteral("mine"));
  ASSERT_TRUE(QDir().mkpath(folder));
  for (int i = 0; i < 7; ++i) {
    QFile file(folder + QStringLiteral("/note%1.txt").arg(i));
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("mine");
  }
  h.answer = false;
  EXPECT_FALSE(h.controller.reproduceInPyTorch(folder));
  ASSERT_EQ(texts.size(), 1);
  EXPECT_TRUE(texts[0].contains(QStringLiteral("did not write: note0.txt, note1.txt, note2.txt, note3.txt, "
                                               "note4.txt and 2 more. Write into it anyway?")))
      << texts[0].toStdString();
  EXPECT_FALSE(QFileInfo::exists(folder + QStringLiteral("/run.py")));
  EXPECT_TRUE(h.errors.isEmpty()) << "declining is no error";

  h.answer = true;
  ASSERT_TRUE(h.controller.reproduceInPyTorch(folder)) << h.errors.join('\n').toStdString();
  EXPECT_EQ(texts.size(), 2);
  EXPECT_TRUE(QFileInfo::exists(folder + QStringLiteral("/run.py")));
  QFile kept(folder + QStringLiteral("/note6.txt"));
  ASSERT_TRUE(kept.open(QIODevice::ReadOnly));
  EXPECT_EQ(kept.readAll(), QByteArray("mine"));
  // Now the export's own folder: no question the next time.
  ASSERT_TRUE(h.controller.reproduceInPyTorch(folder));
  EXPECT_EQ(texts.size(), 2);
}

TEST(SessionController, OffersToRestoreAnAutosaveLeftByACrash) {
  QTemporaryDir dir;
  const QString autosave = dir.filePath(QStringLiteral("autosave.ampscope"));
  {
    // The first app run records 7 steps and is killed: no shutdown(), the autosave stays.
    QWidget window;
    SessionController crashed(&window, autosave);
    crashed.onRunStarted(fp32Config());
    crashed.onRecords(steps(1, 7));
    crashed.onRunStopped();
    crashed.autosave()->waitForWrite();  // the file is written on a worker thread
    ASSERT_TRUE(QFileInfo::exists(autosave));
  }
  QWidget window;
  SessionController next(&window, autosave);
  QStringList asked;
  std::vector<Session> loaded;
  next.setQuestionPrompt([&](const QString& title, const QString&) {
    asked << title;
    return true;
  });
  next.setLoadHandler([&](const Session& s) { loaded.push_back(s); });
  ASSERT_TRUE(next.offerRecovery());
  EXPECT_EQ(asked.size(), 1);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].records.size(), 7u);
  EXPECT_TRUE(next.isModified()) << "a restored session is unsaved until the user saves it";
  next.shutdown();
  EXPECT_FALSE(QFileInfo::exists(autosave)) << "a clean exit leaves no autosave";
}

TEST(SessionController, RestoresAJournalTornByAKillAndSaysWhatWasDropped) {
  QTemporaryDir dir;
  const QString journal = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  leaveCrashJournal(journal, 5);
  {
    // The kill came in the middle of appending step 6.
    QFile file(journal);
    ASSERT_TRUE(file.open(QIODevice::Append));
    file.write(",\n{\"step\":6,\"modes\":[{\"mo");
  }
  QWidget window;
  SessionController next(&window, journal);
  QStringList notes;
  next.setQuestionPrompt([](const QString&, const QString&) { return true; });
  next.setMessageSink([&](const QString&, const QString& text, bool error) {
    if (!error) notes << text;
  });
  std::vector<Session> loaded;
  next.setLoadHandler([&](const Session& s) { loaded.push_back(s); });
  ASSERT_TRUE(next.offerRecovery());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].records.size(), 5u);
  ASSERT_EQ(notes.size(), 1);
  EXPECT_TRUE(notes[0].contains(QStringLiteral("5"))) << notes[0].toStdString();
  // The restored session is journaled again, whole: a second crash restores it without a note.
  next.autosave()->waitForWrite();
  QString error;
  QString note;
  const auto again = next.autosave()->recover(&error, &note);
  ASSERT_TRUE(again.has_value()) << error.toStdString();
  EXPECT_EQ(again->records.size(), 5u);
  EXPECT_TRUE(note.isEmpty()) << note.toStdString();
}

TEST(SessionController, DecliningTheRestoreDiscardsTheAutosave) {
  Harness h;
  {
    SessionController crashed(nullptr, h.controller.autosave()->path());
    crashed.onRunStarted(fp32Config());
    crashed.onRecords(steps(1, 2));
    crashed.onRunStopped();
  }
  h.answer = false;
  EXPECT_FALSE(h.controller.offerRecovery());
  EXPECT_FALSE(h.controller.autosave()->hasRecoverableSession());
  EXPECT_TRUE(h.loaded.empty());
}

TEST(SessionController, ConfirmCloseAsksOnlyForUnsavedData) {
  Harness h;
  EXPECT_TRUE(h.controller.confirmClose());
  EXPECT_TRUE(h.questions.isEmpty());
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 3));
  h.answer = true;
  h.nextPath = QString();  // "Save?" yes, then the file dialog is cancelled: stay open
  EXPECT_FALSE(h.controller.confirmClose());
  EXPECT_EQ(h.questions.size(), 1);
  h.nextPath = h.dir.filePath(QStringLiteral("closing.ampscope"));
  EXPECT_TRUE(h.controller.confirmClose());
  EXPECT_TRUE(QFileInfo::exists(h.nextPath));
  EXPECT_TRUE(h.controller.confirmClose()) << "saved: nothing to ask";
  EXPECT_EQ(h.questions.size(), 2);
}

TEST(SessionController, WithoutAnyoneToAskItNeitherBlocksNorDiscardsAnAutosave) {
  // The GUI tests run offscreen: the default prompts must answer at once, and a crash's autosave must
  // survive a start that cannot ask (tests, --screenshot) for the next interactive one.
  QTemporaryDir dir;
  const QString autosave = dir.filePath(QStringLiteral("autosave.ampscope"));
  {
    SessionController crashed(nullptr, autosave);
    crashed.onRunStarted(fp32Config());
    crashed.onRecords(steps(1, 2));
    crashed.onRunStopped();
  }
  SessionController next(nullptr, autosave);
  EXPECT_FALSE(next.offerRecovery());
  EXPECT_TRUE(QFileInfo::exists(autosave));
  next.onRunStarted(fp32Config());
  next.onRecords(steps(1, 2));
  EXPECT_TRUE(next.confirmClose()) << "no dialog offscreen: closing goes ahead";
  EXPECT_FALSE(next.saveAs()) << "the file dialog is cancelled, not shown";
}

// A run in a process that did not answer for a crash's journal (a headless --screenshot run, or a start
// that cannot ask) neither writes over it nor removes it at its clean exit: the crash's steps stay, byte
// for byte, for the next interactive start.
TEST(SessionController, ARunThatCannotAskLeavesACrashJournalAsItWas) {
  QTemporaryDir dir;
  const QString journal = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  leaveCrashJournal(journal, 3);
  QFile before(journal);
  ASSERT_TRUE(before.open(QIODevice::ReadOnly));
  const QByteArray crashBytes = before.readAll();
  before.close();
  ASSERT_FALSE(crashBytes.isEmpty());

  SessionController headless(nullptr, journal);
  EXPECT_FALSE(headless.offerRecovery());
  headless.onRunStarted(fp32Config());
  headless.onRecords(steps(1, 40));
  EXPECT_FALSE(headless.autosave()->saveNow()) << "the crash's journal is not this run's to write";
  headless.onRunStopped();
  headless.autosave()->waitForWrite();
  headless.shutdown();

  QFile after(journal);
  ASSERT_TRUE(after.open(QIODevice::ReadOnly)) << "the clean exit removed a journal it never wrote";
  EXPECT_EQ(after.readAll(), crashBytes);
  // The next interactive start still restores the crashed run's three steps.
  SessionController next(nullptr, journal);
  next.setQuestionPrompt([](const QString&, const QString&) { return true; });
  std::vector<Session> loaded;
  next.setLoadHandler([&](const Session& s) { loaded.push_back(s); });
  ASSERT_TRUE(next.offerRecovery());
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].records.size(), 3u);
}

// A session of `count` six-mode steps with histograms on every step: several MB, so reading and
// decoding it takes many progress reports.
Session largeSession(int64_t count) {
  Session session;
  session.config = presetFor(ModelKind::TinyMLP);
  test::SyntheticOptions options;
  options.modes = {PrecisionMode::FP32,    PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp,
                   PrecisionMode::BF16Amp, PrecisionMode::FP16Pure,      PrecisionMode::BF16Pure};
  session.config.modes = options.modes;
  session.config.steps = std::max(session.config.steps, count);  // a record past the run is refused
  for (int64_t step = 1; step <= count; ++step) session.records.push_back(test::syntheticRecord(step, options));
  return session;
}

// Opening reads and decodes on the loader's thread and delivers exactly what the file holds: re-encoded,
// the same bytes. Its progress reports reach the GUI thread while the load is still going, so that
// thread is free meanwhile (it runs their queued calls before the session arrives).
TEST(SessionController, OpensOnAWorkerThreadToTheSameSession) {
  Harness h;
  const QString path = h.dir.filePath(QStringLiteral("large.ampscope"));
  QString error;
  ASSERT_TRUE(SessionFile::save(path, largeSession(300), &error)) << error.toStdString();
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QByteArray bytes = file.readAll();

  std::vector<bool> onTheGuiThreadBeforeTheSession;
  qint64 lastRecords = 0;
  QObject::connect(h.controller.loader(), &SessionLoader::progressed, h.controller.loader(),
                   [&](const SessionFile::Progress& p) {
                     onTheGuiThreadBeforeTheSession.push_back(QThread::currentThread() == qApp->thread() &&
                                                              h.controller.loader()->isRunning() &&
                                                              h.loaded.empty());
                     lastRecords = p.records;
                   }, Qt::DirectConnection);
  ASSERT_TRUE(h.controller.openFile(path)) << h.errors.join('\n').toStdString();
  ASSERT_EQ(h.loaded.size(), 1u);
  EXPECT_EQ(SessionFile::toJson(h.loaded[0]), bytes);
  EXPECT_EQ(SessionFile::toJson(h.controller.recorder()->session()), bytes);
  ASSERT_FALSE(onTheGuiThreadBeforeTheSession.empty()) << "the first chunk read is reported at once";
  EXPECT_EQ(std::count(onTheGuiThreadBeforeTheSession.begin(), onTheGuiThreadBeforeTheSession.end(), true),
            static_cast<std::ptrdiff_t>(onTheGuiThreadBeforeTheSession.size()));
  EXPECT_LE(lastRecords, 300);
  EXPECT_EQ(h.controller.currentPath(), path);
}

// Cancel, whenever it comes, leaves the session that was there: no records, no path, no handler call.
TEST(SessionController, CancellingAnOpenLeavesTheCurrentSession) {
  Harness h;
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 5));
  const QString path = h.dir.filePath(QStringLiteral("large.ampscope"));
  QString error;
  ASSERT_TRUE(SessionFile::save(path, largeSession(600), &error)) << error.toStdString();

  int reports = 0;
  QObject::connect(h.controller.loader(), &SessionLoader::progressed, &h.window,
                   [&](const SessionFile::Progress&) {
                     ++reports;
                     h.controller.loader()->cancel();
                   });
  EXPECT_FALSE(h.controller.openFile(path));
  EXPECT_GE(reports, 1);
  EXPECT_TRUE(h.controller.loader()->wasCancelled());
  EXPECT_TRUE(h.errors.isEmpty()) << "cancelling is no error: " << h.errors.join('\n').toStdString();
  EXPECT_TRUE(h.loaded.empty());
  EXPECT_EQ(h.controller.recorder()->lastStep(), 5);
  EXPECT_TRUE(h.controller.currentPath().isEmpty());
  EXPECT_TRUE(h.controller.isModified());
  EXPECT_TRUE(h.controller.recentFiles()->files().isEmpty());

  // The next open of the same file goes through.
  QObject::disconnect(h.controller.loader(), &SessionLoader::progressed, &h.window, nullptr);
  ASSERT_TRUE(h.controller.openFile(path)) << h.errors.join('\n').toStdString();
  EXPECT_EQ(h.controller.recorder()->lastStep(), 600);
}

TEST(SessionController, ADamagedSessionOpenedOnTheWorkerStillNamesTheField) {
  Harness h;
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 5));
  QByteArray json = SessionFile::toJson(largeSession(40));
  const qsizetype line = json.indexOf("\n{\"step\":31,");
  const qsizetype loss = json.indexOf("\"loss\":", line);
  json.replace(loss, json.indexOf(',', loss) - loss, "\"loss\":[]");
  const QString path = h.dir.filePath(QStringLiteral("damaged.ampscope"));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(json);
  file.close();
  EXPECT_FALSE(h.controller.openFile(path));
  ASSERT_EQ(h.errors.size(), 1);
  EXPECT_TRUE(h.errors[0].contains(QStringLiteral("damaged.ampscope")));
  EXPECT_TRUE(h.errors[0].contains(QStringLiteral("field \"records[30].modes[0].loss\"")))
      << h.errors[0].toStdString();
  EXPECT_EQ(h.controller.recorder()->lastStep(), 5);
  EXPECT_TRUE(h.loaded.empty());
}

// Writing into a folder of someone else's files is asked with "No" as the default (Enter, a stray
// keypress); restoring a crashed session and saving before closing keep "Yes".
TEST(SessionController, TheReproduceQuestionDefaultsToNo) {
  Harness h;
  std::vector<std::pair<QString, SessionController::DefaultAnswer>> asked;
  h.controller.setQuestionPrompt(
      [&](const QString& title, const QString&, SessionController::DefaultAnswer defaultAnswer) {
        asked.emplace_back(title, defaultAnswer);
        return false;
      });
  h.controller.onRunStarted(fp32Config());
  h.controller.onRecords(steps(1, 2));
  const QString folder = h.dir.filePath(QStringLiteral("theirs"));
  ASSERT_TRUE(QDir().mkpath(folder));
  QFile note(folder + QStringLiteral("/note.txt"));
  ASSERT_TRUE(note.open(QIODevice::WriteOnly));
  note.close();
  EXPECT_FALSE(h.controller.reproduceInPyTorch(folder));
  EXPECT_TRUE(h.controller.confirmClose());
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].first, QStringLiteral("Reproduce in PyTorch"));
  EXPECT_EQ(asked[0].second, SessionController::DefaultAnswer::No);
  EXPECT_EQ(asked[1].first, QStringLiteral("Save the session?"));
  EXPECT_EQ(asked[1].second, SessionController::DefaultAnswer::Yes);

  // The dialog the default prompt shows: its default (Enter) button is the one asked for.
  std::unique_ptr<QMessageBox> no(
      SessionController::questionBox(&h.window, QStringLiteral("t"), QStringLiteral("q"),
                                     SessionController::DefaultAnswer::No));
  EXPECT_EQ(no->defaultButton(), no->button(QMessageBox::No));
  EXPECT_EQ(no->escapeButton(), no->button(QMessageBox::No));
  std::unique_ptr<QMessageBox> yes(
      SessionController::questionBox(&h.window, QStringLiteral("t"), QStringLiteral("q"),
                                     SessionController::DefaultAnswer::Yes));
  EXPECT_EQ(yes->defaultButton(), yes->button(QMessageBox::Yes));
}

}  // namespace
}  // namespace ampscope::ui
