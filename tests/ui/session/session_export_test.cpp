// RunExporter (CSV and JSON of a run), AutosaveManager (a journal appended when dirty, removed on a clean
// shutdown, recoverable after a crash, a torn last line dropped) and RecentFiles (MRU list in QSettings).
#include <gtest/gtest.h>

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <limits>

#include "ui/session/autosave_manager.h"
#include "ui/session/recent_files.h"
#include "ui/session/run_exporter.h"
#include "ui/session/session_file.h"
#include "ui/session/session_recorder.h"

namespace ampscope::ui {
namespace {

Session twoModeSession(int steps) {
  Session session;
  session.config = presetFor(ModelKind::TinyMLP);
  session.config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled};
  session.lesson = QStringLiteral("grad-scaler");
  for (int step = 1; step <= steps; ++step) {
    StepRecord record;
    record.step = step;
    for (PrecisionMode mode : session.config.modes) {
      ModeStep s;
      s.mode = mode;
      s.step = step;
      s.loss = 0.001 * step;
      s.lossScale = mode == PrecisionMode::FP32 ? 1.0 : 65536.0;
      s.instrumented = step == 2;
      if (s.instrumented) {
        s.rounding = {100, 1, 2, 3, 4};
        ExponentHistogram h;
        h.counts.set(-10, 5);
        s.tensors.push_back({"net.0.weight", true, 5, h, h, TensorRole::Gradient, {}});
      }
      record.modes.push_back(s);
    }
    session.records.push_back(record);
  }
  return session;
}

TEST(RunExporter, CsvHasOneRowPerStepAndModeWithNonFiniteSpelledOut) {
  Session session = twoModeSession(3);
  session.records[2].modes[1].loss = std::numeric_limits<double>::quiet_NaN();
  session.records[2].modes[1].lossScale = std::numeric_limits<double>::infinity();
  const QList<QByteArray> lines = RunExporter::toCsv(session.records).split('\n');
  ASSERT_EQ(lines.size(), 1 + 3 * 2 + 1);  // header, 6 rows, the empty piece after the last '\n'
  EXPECT_TRUE(lines[0].startsWith("step,mode,loss,loss_scale,skipped,found_inf,"));
  EXPECT_EQ(lines[0].count(','), lines[1].count(',')) << "every row has every column";
  EXPECT_TRUE(lines[1].startsWith("1,fp32,0.001,1,0,0,")) << lines[1].toStdString();
  EXPECT_TRUE(lines[2].startsWith("1,fp16-amp-scaled,0.001,65536,")) << lines[2].toStdString();
  EXPECT_TRUE(lines[4].endsWith(",1,100,1,2,3,4"))
      << "instrumented step 2 carries its rounding totals: " << lines[4].toStdString();
  EXPECT_TRUE(lines[6].startsWith("3,fp16-amp-scaled,nan,inf,")) << lines[6].toStdString();
  EXPECT_TRUE(lines[7].isEmpty());
}

TEST(RunExporter, JsonGroupsStepsPerModeWithConfigAndHistograms) {
  const QJsonObject root = QJsonDocument::fromJson(RunExporter::toJson(twoModeSession(3))).object();
  EXPECT_EQ(root["format"].toString(), QStringLiteral("ampscope-run"));
  EXPECT_EQ(root["lesson"].toString(), QStringLiteral("grad-scaler"));
  EXPECT_EQ(root["config"].toObject()["model"].toString(), QStringLiteral("tiny-mlp"));
  const QJsonArray fp16 = root["modes"].toObject()["fp16-amp-scaled"].toArray();
  ASSERT_EQ(fp16.size(), 3);
  EXPECT_EQ(fp16[1].toObject()["loss-scale"].toDouble(), 65536.0);
  const QJsonArray bins =
      fp16[1].toObject()["tensors"].toArray()[0].toObject()["unscaled"].toObject()["bins"].toArray();
  ASSERT_EQ(bins.size(), 1);
  EXPECT_EQ(bins[0].toArray()[0].toInt(), -10);
  EXPECT_EQ(bins[0].toArray()[1].toInt(), 5);
}

TEST(RunExporter, ReportsAnUnwritablePath) {
  QString error;
  EXPECT_FALSE(RunExporter::exportCsv(QStringLiteral("/nonexistent-folder/run.csv"), {}, &error));
  EXPECT_TRUE(error.contains(QStringLiteral("/nonexistent-folder/run.csv"))) << error.toStdString();
}

TEST(AutosaveManager, DefaultPathIsInTheAppDataLocation) {
  EXPECT_EQ(QFileInfo(AutosaveManager::defaultPath()).absolutePath(),
            QStandardPaths::writableLocation(QStandardPaths::AppDataLocation));
  EXPECT_TRUE(AutosaveManager::defaultPath().endsWith(QStringLiteral("autosave.ampscope-journal")));
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QByteArray footer() { return QByteArray(kSessionFooterJson.data(), static_cast<int>(kSessionFooterJson.size())); }

TEST(AutosaveManager, SyncsAtLeastOnceASecondByDefault) {
  // A power cut may lose what arrived since the last fsync: one interval.
  EXPECT_LE(AutosaveManager::kDefaultIntervalMs, 1000);
  QTemporaryDir dir;
  AutosaveManager autosave(nullptr, dir.filePath(QStringLiteral("j")));
  EXPECT_EQ(autosave.intervalMs(), AutosaveManager::kDefaultIntervalMs);
}

// A kill -9 loses only what was not yet written (the kernel keeps what was): records are written every
// quarter second, synced once a second; a shorter sync interval writes (and syncs) at its own pace.
TEST(AutosaveManager, WritesEveryQuarterSecondAndSyncsOnceASecond) {
  QTemporaryDir dir;
  AutosaveManager autosave(nullptr, dir.filePath(QStringLiteral("j")));
  EXPECT_EQ(autosave.writeIntervalMs(), 250);
  EXPECT_EQ(autosave.intervalMs(), 1000);
  autosave.setIntervalMs(50);
  EXPECT_EQ(autosave.writeIntervalMs(), 50);
  EXPECT_EQ(autosave.intervalMs(), 50);
}

TEST(AutosaveManager, AppendsOnlyTheNewRecordsToTheJournal) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  AutosaveManager autosave(nullptr, path, 1000);
  SessionRecorder recorder;
  const Session full = twoModeSession(5);
  recorder.begin(full.config, full.lesson);
  recorder.append({full.records.begin(), full.records.begin() + 2});
  autosave.setSource(&recorder);
  QSignalSpy saved(&autosave, &AutosaveManager::saved);
  autosave.markDirty();
  ASSERT_TRUE(autosave.saveNow());
  ASSERT_TRUE(saved.wait(30000));
  const QByteArray first = readAll(path);
  // The journal is the session document (the codec's) without its footer.
  EXPECT_EQ(first + footer(), SessionFile::toJson(recorder.session()));

  // Replace what is on disk by a marker of the same length: an append keeps it, a rewrite would not.
  QByteArray marked = first;
  marked.replace(0, 1, "#");
  {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(marked);
  }
  recorder.append({full.records.begin() + 2, full.records.end()});
  autosave.markDirty();
  ASSERT_TRUE(autosave.saveNow());
  ASSERT_TRUE(saved.wait(30000));
  const QByteArray second = readAll(path);
  EXPECT_TRUE(second.startsWith(marked)) << "the journal was rewritten instead of appended to";
  EXPECT_EQ(second.mid(1) + footer(), SessionFile::toJson(recorder.session()).mid(1));

  // After a save the journal is compacted: rewritten whole (the marker is gone).
  autosave.compact();
  ASSERT_TRUE(autosave.saveNow());
  ASSERT_TRUE(saved.wait(30000));
  EXPECT_EQ(readAll(path) + footer(), SessionFile::toJson(recorder.session()));
}

TEST(AutosaveManager, ATornLastLineIsDroppedWithANote) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  const QByteArray document = SessionFile::toJson(twoModeSession(4));
  const QByteArray journal = document.left(document.size() - footer().size());
  // Cut inside the last record (a kill in the middle of an append), and cut right after a separator.
  const int lastRecord = journal.lastIndexOf('\n') + 1;
  const QByteArray tornInRecord = journal.left(lastRecord + 7);
  const QByteArray tornAfterSeparator = journal.left(lastRecord);
  for (const QByteArray& torn : {tornInRecord, tornAfterSeparator}) {
    {
      QFile file(path);
      ASSERT_TRUE(file.open(QIODevice::WriteOnly));
      file.write(torn);
    }
    AutosaveManager autosave(nullptr, path);
    QString error;
    QString note;
    const auto recovered = autosave.recover(&error, &note);
    ASSERT_TRUE(recovered.has_value()) << error.toStdString();
    EXPECT_EQ(recovered->records.size(), 3u) << "the three complete records";
    EXPECT_EQ(recovered->records.back().step, 3);
    if (torn == tornInRecord) {
      EXPECT_TRUE(note.contains(QStringLiteral("3"))) << note.toStdString();
    } else {
      EXPECT_TRUE(note.isEmpty()) << "nothing of a record was lost: " << note.toStdString();
    }
  }
  // A complete journal recovers every record without a note.
  {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(journal);
  }
  QString error;
  QString note;
  const auto recovered = AutosaveManager(nullptr, path).recover(&error, &note);
  ASSERT_TRUE(recovered.has_value()) << error.toStdString();
  EXPECT_EQ(recovered->records.size(), 4u);
  EXPECT_TRUE(note.isEmpty());
}

TEST(AutosaveManager, NothingIsJournaledAfterACleanShutdown) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("autosave.ampscope-journal"));
  SessionRecorder recorder;
  recorder.begin(presetFor(ModelKind::TinyMLP));
  recorder.append(twoModeSession(2).records);
  AutosaveManager autosave(nullptr, path, 50);
  autosave.setSource(&recorder);
  autosave.start();
  autosave.markDirty();
  ASSERT_TRUE(autosave.saveNow());
  autosave.cleanShutdown();
  EXPECT_FALSE(QFile::exists(path));
  // Records that still arrive (a run stopping after the window closed) bring no journal back.
  autosave.start();
  autosave.markDirty();
  EXPECT_FALSE(autosave.saveNow());
  EXPECT_FALSE(autosave.isActive());
  autosave.stop();
  autosave.waitForWrite();
  EXPECT_FALSE(QFile::exists(path));
}

TEST(AutosaveManager, WritesOnlyWhenDirtyAfterTheInterval) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("sub/autosave.ampscope"));
  AutosaveManager autosave(nullptr, path, /*intervalMs=*/50);
  SessionRecorder recorder;
  const Session first = twoModeSession(2);
  recorder.begin(first.config, first.lesson);
  recorder.append(first.records);
  autosave.setSource(&recorder);
  QSignalSpy saved(&autosave, &AutosaveManager::saved);
  autosave.start();
  QTest::qWait(200);  // several intervals, nothing dirty: nothing written
  EXPECT_EQ(saved.count(), 0);
  EXPECT_FALSE(QFile::exists(path));
  EXPECT_FALSE(autosave.hasRecoverableSession());

  autosave.markDirty();
  ASSERT_TRUE(saved.wait(30000));
  EXPECT_FALSE(autosave.isDirty());
  ASSERT_TRUE(autosave.hasRecoverableSession());
  QString error;
  auto recovered = autosave.recover(&error);
  ASSERT_TRUE(recovered.has_value()) << error.toStdString();
  EXPECT_EQ(recovered->records.size(), 2u);
  EXPECT_EQ(recovered->lesson, QStringLiteral("grad-scaler"));

  QTest::qWait(200);  // clean again: no further writes
  EXPECT_EQ(saved.count(), 1);

  // New steps: only they are serialized, and the file equals a full save byte for byte.
  recorder.append(twoModeSession(5).records);
  autosave.markDirty();
  ASSERT_TRUE(saved.wait(30000));
  recovered = autosave.recover(&error);
  ASSERT_TRUE(recovered.has_value()) << error.toStdString();
  EXPECT_EQ(recovered->records.size(), 5u) << "the newest telemetry was appended";
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_EQ(file.readAll() + footer(), SessionFile::toJson(recorder.session()));

  // A new run starts over (the recorder's generation changed): no records of the old run remain.
  recorder.begin(first.config);
  recorder.append(twoModeSession(1).records);
  autosave.markDirty();
  ASSERT_TRUE(saved.wait(30000));
  recovered = autosave.recover(&error);
  ASSERT_TRUE(recovered.has_value()) << error.toStdString();
  EXPECT_EQ(recovered->records.size(), 1u);
}

TEST(AutosaveManager, SurvivesAnAbandonedRunAndIsRemovedOnCleanShutdown) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("autosave.ampscope"));
  SessionRecorder recorder;
  recorder.begin(presetFor(ModelKind::TinyMLP));
  recorder.append(twoModeSession(4).records);
  {
    // A run that "crashes": the manager goes away without cleanShutdown().
    AutosaveManager autosave(nullptr, path, 1000);
    autosave.setSource(&recorder);
    autosave.start();
    autosave.markDirty();
    autosave.stop();  // stop() writes what is pending (the destructor waits for the write)
  }
  AutosaveManager nextStart(nullptr, path);
  ASSERT_TRUE(nextStart.hasRecoverableSession());
  QString error;
  ASSERT_TRUE(nextStart.recover(&error).has_value()) << error.toStdString();
  {
    // Reading it is not answering for it: a start that only looked (or could not ask) keeps it.
    AutosaveManager lookedOnly(nullptr, path);
    ASSERT_TRUE(lookedOnly.recover(&error).has_value()) << error.toStdString();
    lookedOnly.cleanShutdown();
    EXPECT_TRUE(QFile::exists(path));
  }
  nextStart.claim();  // the session was restored (SessionController::offerRecovery)
  nextStart.cleanShutdown();
  EXPECT_FALSE(QFile::exists(path));
  EXPECT_FALSE(nextStart.hasRecoverableSession());
}

TEST(AutosaveManager, AnUnwritableLocationReportsAndStaysDirty) {
  SessionRecorder recorder;
  recorder.begin(presetFor(ModelKind::TinyMLP));
  recorder.append(twoModeSession(1).records);
  AutosaveManager autosave(nullptr, QStringLiteral("/proc/ampscope-no-such-dir/autosave.ampscope"), 1000);
  autosave.setSource(&recorder);
  QSignalSpy failed(&autosave, &AutosaveManager::saveFailed);
  autosave.markDirty();
  ASSERT_TRUE(autosave.saveNow());
  ASSERT_TRUE(failed.wait(30000));
  EXPECT_TRUE(failed.first().first().toString().contains(QStringLiteral("/proc/ampscope-no-such-dir")));
  EXPECT_TRUE(autosave.isDirty()) << "the next tick tries again";
}

TEST(AutosaveManager, ADamagedAutosaveIsReportedNotRecovered) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("autosave.ampscope"));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(SessionFile::toJson(twoModeSession(3)).left(100));
  file.close();
  AutosaveManager autosave(nullptr, path);
  EXPECT_TRUE(autosave.hasRecoverableSession());
  QString error;
  EXPECT_FALSE(autosave.recover(&error).has_value());
  EXPECT_TRUE(error.contains(QStringLiteral("autosave.ampscope"))) << error.toStdString();
}

TEST(RecentFiles, NewestFirstWithoutDuplicatesAndAtMostTen) {
  QTemporaryDir dir;
  RecentFiles recent;
  recent.clear();
  QSignalSpy changed(&recent, &RecentFiles::changed);
  QStringList paths;
  for (int i = 0; i < 12; ++i) {
    const QString path = dir.filePath(QStringLiteral("s%1.ampscope").arg(i));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    paths.append(path);
    recent.add(path);
  }
  EXPECT_EQ(changed.count(), 12);
  QStringList files = recent.files();
  ASSERT_EQ(files.size(), RecentFiles::kMaxFiles);
  EXPECT_EQ(files.front(), paths[11]);
  EXPECT_EQ(files.back(), paths[2]);

  recent.add(paths[5]);  // reopened: moves to the front, listed once
  files = recent.files();
  EXPECT_EQ(files.front(), paths[5]);
  EXPECT_EQ(files.count(paths[5]), 1);
  EXPECT_EQ(files.size(), RecentFiles::kMaxFiles);

  RecentFiles again;  // another instance reads the same settings
  EXPECT_EQ(again.files(), files);
}

TEST(RecentFiles, MissingFilesArePruned) {
  QTemporaryDir dir;
  RecentFiles recent;
  recent.clear();
  const QString kept = dir.filePath(QStringLiteral("kept.ampscope"));
  const QString gone = dir.filePath(QStringLiteral("gone.ampscope"));
  for (const QString& path : {kept, gone}) {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    recent.add(path);
  }
  ASSERT_EQ(recent.files().size(), 2);
  ASSERT_TRUE(QFile::remove(gone));
  EXPECT_EQ(recent.files(), QStringList{kept});
  EXPECT_EQ(RecentFiles().files(), QStringList{kept}) << "the pruned list was written back";
}

}  // namespace
}  // namespace ampscope::ui
