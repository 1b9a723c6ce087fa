// Followed runs in the autosave journal (issue 47, item 1; ui/session/autosave_manager.h): their steps
// are appended beside the engine's journal, one file per run, and recover() brings them back; after a
// crash the restored run continues when the same run (run-id) is followed again, without a step twice
// (by seq for a probe, by each mode's step for the engine's `train --jsonl` stream, which has no seq).
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QWidget>
#include <fstream>

#include "../follow/follow_test_support.h"
#include "ampscope/engine/session_codec.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/follow/follow_controller.h"
#include "ui/session/autosave_manager.h"
#include "ui/session/session_controller.h"

namespace ampscope::ui {
namespace {

using test::append;
using test::fileTarget;
using test::header;
using test::lines;
using test::pollUntil;
using test::probeSource;


QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

std::vector<int64_t> stepNumbers(const std::vector<ModeStep>& steps) {
  std::vector<int64_t> list;
  for (const auto& s : steps) list.push_back(s.step);
  return list;
}

std::vector<int64_t> range(int64_t first, int64_t last) {
  std::vector<int64_t> list;
  for (int64_t n = first; n <= last; ++n) list.push_back(n);
  return list;
}

// The engine's stream of FP32 steps first..last: no seq (the engine writes none, docs/record-format.md).
std::string engineLines(int64_t first, int64_t last) {
  std::string out;
  for (int64_t n = first; n <= last; ++n) {
    ModeStep s = test::probeStep(n, PrecisionMode::FP32);
    s.seq = 0;
    appendRecordStreamLine(out, s);
  }
  return out;
}

RunConfig fp32Config() {
  RunConfig config;
  config.modes = {PrecisionMode::FP32};
  return config;
}

// One write of everything pending, finished and reported. (Waiting for a `saved` signal alone is not
// enough: an earlier write's report may still be queued and arrive first.)
bool flushed(AutosaveManager& autosave) {
  autosave.waitForWrite();
  QCoreApplication::processEvents();  // the reports of earlier writes
  QSignalSpy saved(&autosave, &AutosaveManager::saved);
  QSignalSpy failed(&autosave, &AutosaveManager::saveFailed);
  if (!autosave.saveNow()) return false;
  autosave.waitForWrite();
  QCoreApplication::processEvents();  // this write's report
  return saved.count() == 1 && failed.isEmpty();
}

TEST(AutosaveManager, AFollowedRunIsAppendedToItsOwnJournalAndRecovered) {
  QTemporaryDir dir;
  const std::string stream = dir.filePath(QStringLiteral("run.jsonl")).toStdString();
  const QString path = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  append(stream, header(probeSource("probe-run", "00000000000000a1")) + lines(1, 5));
  TelemetryStore store;
  FollowController follow(&store);
  follow.setPolling(false);
  follow.follow(fileTarget(stream));
  ASSERT_TRUE(pollUntil(follow, [&] { return !follow.runs().empty() && follow.runs()[0].steps.size() == 5; }));

  AutosaveManager autosave(nullptr, path, 1000);
  autosave.setFollowedSource([&] { return follow.journalViews(); });
  autosave.markFollowedDirty();
  ASSERT_TRUE(flushed(autosave));
  // Followed runs alone: no engine journal, one file for the run.
  EXPECT_FALSE(QFileInfo::exists(path));
  ASSERT_TRUE(QFileInfo::exists(autosave.followedPath(0)));
  const QByteArray first = readAll(autosave.followedPath(0));
  // The file is the session codec's journal of that run (session_codec.h, followedJournalHeaderJson).
  std::string expected = followedJournalHeaderJson(follow.runs()[0].source, stream);
  for (std::size_t i = 0; i < follow.runs()[0].steps.size(); ++i)
    appendFollowedStepJson(expected, follow.runs()[0].steps[i], i);
  EXPECT_EQ(first.toStdString(), expected);

  // More steps arrive: appended (a marker in place of the first byte survives), not rewritten.
  QByteArray marked = first;
  marked[0] = '#';
  {
    QFile file(autosave.followedPath(0));
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(marked);
  }
  append(stream, lines(6, 8));
  ASSERT_TRUE(pollUntil(follow, [&] { return follow.runs()[0].steps.size() == 8; }));
  autosave.markFollowedDirty();
  ASSERT_TRUE(flushed(autosave));
  EXPECT_TRUE(readAll(autosave.followedPath(0)).startsWith(marked)) << "rewritten instead of appended to";
  {
    QFile file(autosave.followedPath(0));
    ASSERT_TRUE(file.open(QIODevice::ReadWrite));
    file.write("{");  // the document again, to be recovered
  }

  // A kill came in the middle of appending step 9: the torn line is dropped, with a note naming the run.
  {
    QFile file(autosave.followedPath(0));
    ASSERT_TRUE(file.open(QIODevice::Append));
    file.write(",\n{\"mode\":\"fp16-amp-sca");
  }
  QString error;
  QString note;
  const auto session = AutosaveManager(nullptr, path).recover(&error, &note);
  ASSERT_TRUE(session.has_value()) << error.toStdString();
  EXPECT_TRUE(session->records.empty());
  ASSERT_EQ(session->followed.size(), 1u);
  EXPECT_EQ(session->followed[0].source.runId, "00000000000000a1");
  EXPECT_EQ(session->followed[0].target, stream);
  EXPECT_EQ(stepNumbers(session->followed[0].steps), range(1, 8));
  EXPECT_TRUE(note.contains(QStringLiteral("probe-run")) && note.contains(QStringLiteral("8"))) << note.toStdString();

  // A clean shutdown removes the run's journal too.
  autosave.cleanShutdown();
  EXPECT_FALSE(autosave.hasRecoverableSession());
  EXPECT_FALSE(QFileInfo::exists(autosave.followedPath(0)));
}

TEST(AutosaveManager, ACrashJournalOfFollowedRunsAloneIsNotWrittenOverUntilAnswered) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  const QString crash = path + QStringLiteral(".followed-0");
  {
    QFile file(crash);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(followedJournalHeaderJson(probeSource("old", "00000000000000b1"), "x.jsonl").c_str());
  }
  const QByteArray before = readAll(crash);
  TelemetryStore store;
  FollowController follow(&store);
  AutosaveManager autosave(nullptr, path, 1000);
  EXPECT_TRUE(autosave.hasRecoverableSession()) << "a followed run's journal alone is a crash to restore";
  autosave.setFollowedSource([&] { return follow.journalViews(); });
  autosave.markFollowedDirty();
  EXPECT_FALSE(autosave.saveNow()) << "not this process's journal";
  autosave.cleanShutdown();
  EXPECT_EQ(readAll(crash), before);
}

// Wires a FollowController to a SessionController as MainWindow does (ui/main_window.cpp).
struct FollowingApp {
  QWidget window;
  TelemetryStore store;
  FollowController follow{&store};
  SessionController session;
  explicit FollowingApp(const QString& journal) : session(&window, journal) {
    follow.setPolling(false);
    session.autosave()->setFollowedSource([this] { return follow.journalViews(); });
    session.setFollowedRunsProvider([this] { return follow.followedRuns(); });
    session.setLoadHandler([this](const Session& s) {
      follow.clear();
      follow.restore(s.followed);
    });
    session.setQuestionPrompt([](const QString&, const QString&) { return true; });
    QObject::connect(&follow, &FollowController::dataAppended, &session, &SessionController::onFollowedData);
  }
};

// kill -9 while following, restore, follow the same stream again: `writeHeader` and `writeLines` make the
// stream (a probe's with seq, or the engine's without).
void restoreAndFollowAgain(const std::string& headerLine, const std::function<std::string(int64_t, int64_t)>& linesOf,
                           PrecisionMode mode) {
  QTemporaryDir dir;
  const std::string stream = dir.filePath(QStringLiteral("run.jsonl")).toStdString();
  const QString journal = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  append(stream, headerLine + linesOf(1, 5));
  {
    // The first app follows steps 1-5 and is killed: no shutdown(), its journal stays.
    FollowingApp crashed(journal);
    crashed.follow.follow(fileTarget(stream));
    ASSERT_TRUE(pollUntil(crashed.follow, [&] { return !crashed.follow.runs().empty() && crashed.follow.runs()[0].steps.size() == 5; }));
    ASSERT_TRUE(flushed(*crashed.session.autosave()));
  }
  append(stream, linesOf(6, 9));  // the training went on meanwhile

  FollowingApp next(journal);
  ASSERT_TRUE(next.session.offerRecovery());
  ASSERT_EQ(next.follow.runs().size(), 1u);
  EXPECT_FALSE(next.follow.runs()[0].live);
  EXPECT_EQ(stepNumbers(next.follow.runs()[0].steps), range(1, 5));

  // Following the same stream again continues the restored run: steps 6-9 once, 1-5 skipped as seen.
  const int id = next.follow.follow(fileTarget(stream));
  ASSERT_TRUE(pollUntil(next.follow, [&] { return next.follow.runs()[0].steps.size() >= 9; }));
  next.follow.poll();
  ASSERT_EQ(next.follow.runs().size(), 1u) << "the same run-id continues the restored run";
  EXPECT_TRUE(next.follow.runs()[0].live);
  EXPECT_EQ(stepNumbers(next.follow.runs()[0].steps), range(1, 9));
  EXPECT_EQ(next.follow.followById(id)->follower->reader().duplicates(), 5);
  const ModeSeries* series = next.store.series(SeriesKey{next.follow.runs()[0].storeRun, mode});
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->stepsSeen, 9);

  // The journal holds the continued run once: a second crash restores steps 1-9.
  ASSERT_TRUE(flushed(*next.session.autosave()));
  QString error;
  const auto again = AutosaveManager(nullptr, journal).recover(&error);
  ASSERT_TRUE(again.has_value()) << error.toStdString();
  ASSERT_EQ(again->followed.size(), 1u);
  EXPECT_EQ(stepNumbers(again->followed[0].steps), range(1, 9));
  next.session.shutdown();
  EXPECT_FALSE(next.session.autosave()->hasRecoverableSession());
}

TEST(SessionController, AFollowedProbeRunComesBackAfterACrashAndContinuesBySeq) {
  restoreAndFollowAgain(header(probeSource("probe-run", "00000000000000c1")),
                        [](int64_t a, int64_t b) { return lines(a, b); }, PrecisionMode::FP16AmpScaled);
}

TEST(SessionController, AFollowedEngineStreamComesBackAfterACrashAndContinuesByStep) {
  restoreAndFollowAgain(recordStreamHeader(fp32Config(), "00000000000000c2"), engineLines, PrecisionMode::FP32);
}

TEST(SessionController, AnEngineStreamWithoutARunIdFollowedAgainIsANewRun) {
  // Streams written before engine headers had a run-id: nothing says the run is the same one.
  QTemporaryDir dir;
  const std::string stream = dir.filePath(QStringLiteral("old.jsonl")).toStdString();
  append(stream, recordStreamHeader(fp32Config()) + engineLines(1, 3));
  TelemetryStore store;
  FollowController follow(&store);
  follow.setPolling(false);
  int id = follow.follow(fileTarget(stream));
  ASSERT_TRUE(pollUntil(follow, [&] { return !follow.runs().empty() && follow.runs()[0].steps.size() == 3; }));
  follow.stop(id);
  id = follow.follow(fileTarget(stream));
  ASSERT_TRUE(pollUntil(follow, [&] { return follow.runs().size() == 2 && follow.runs()[1].steps.size() == 3; }));
  EXPECT_EQ(follow.runs()[0].steps.size(), 3u);
}

}  // namespace
}  // namespace ampscope::ui
