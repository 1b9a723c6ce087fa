// AutosaveManager: a journal of the running session on disk, so a crash or a kill -9 loses at most about
// a quarter of a second of training, and a power cut about a second. While started, a timer fires every
// writeIntervalMs() (a quarter second, or `intervalMs` when that is shorter); when records arrived since
// the last flush (markDirty()) it appends them to the journal file. What is written survives a killed
// process (the kernel holds it); fsync, for a power cut, runs at most once per `intervalMs`: with a write
// when the last sync is that old, or on a tick of its own for written data still unsynced.
// A clean shutdown (cleanShutdown()) removes the file; so at the next start a journal that is still there
// means the previous run ended abnormally, and hasRecoverableSession() tells the app to offer a restore.
// A journal this manager did not write (a crash's, found at start) is never written over or removed by
// it: until the user's answer discards it (discard()) or adopts the restored session (claim()), this
// process journals nothing, and its clean shutdown leaves the file for the next interactive start (a
// headless --screenshot run after a crash must not destroy the crash's data).
//
// The journal is a session document (the session codec's) without its footer: the header line, then one
// record per line, each encoded once, when it arrives. Appending keeps the file a valid prefix of the
// document, so recover() only adds the footer, and drops a last line that a kill cut in half (with a
// note). When records already on disk were replaced (a new run, a load, the recorder's thinning) or a
// compact() was asked for (after File > Save), the next flush rewrites the whole journal atomically
// (QSaveFile) instead of appending; a failed append also forces a rewrite, since the file's end is then
// unknown.
//
// Runs followed from streams (setFollowedSource) are journaled the same way, each in a file of its own
// beside the engine's (<path>.followed-<i>, i the run's place): a session document of that run alone
// without its footer (session_codec.h, followedJournalHeaderJson), its steps appended as they arrive,
// written and synced on the same ticks, rewritten whole when the run's kept steps were replaced
// (thinning) or another run took its place. recover() adds them to the session as its followed runs.
// A session of followed runs alone writes no engine journal.
//
// Only encoding happens on the GUI thread: every write, flush and fsync runs on a worker thread (a tick
// that finds the previous write still running leaves its records for the next tick).
//
// The default file is QStandardPaths::AppDataLocation/autosave.ampscope-journal. Lives on the GUI thread.
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QStringList>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/telemetry.h"
#include "ui/session/session_file.h"

namespace ampscope::ui {

class SessionRecorder;

class AutosaveManager : public QObject {
  Q_OBJECT

 public:
  // At most this long between a record's arrival and its fsync (plus the write itself).
  static constexpr int kDefaultIntervalMs = 1000;
  // At most this long between a record's arrival and its write(2) (plus encoding it).
  static constexpr int kWriteIntervalMs = 250;

  // `path` empty: defaultPath().
  explicit AutosaveManager(QObject* parent = nullptr, const QString& path = QString(),
                           int intervalMs = kDefaultIntervalMs);
  ~AutosaveManager() override;  // waits for a write in flight

  static QString defaultPath();
  QString path() const { return path_; }
  int intervalMs() const { return syncIntervalMs_; }
  int writeIntervalMs() const { return timer_.interval(); }
  void setIntervalMs(int intervalMs);

  // What to journal; it must outlive this manager (or be replaced first).
  void setSource(const SessionRecorder* recorder);

  // One followed run as the journal sees it. The pointers are read on the GUI thread, during the
  // provider's call and the flush that made it, only.
  struct FollowedView {
    uint64_t key = 0;         // the run's identity: another key at the same place is another run
    uint64_t generation = 0;  // changes when steps already handed out were replaced (thinning)
    const StreamSource* source = nullptr;
    std::string target;
    const std::vector<ModeStep>* steps = nullptr;  // kept steps, appended to between flushes
  };
  using FollowedSource = std::function<std::vector<FollowedView>()>;
  // The followed runs to journal, in a stable order (a run keeps its place until they are cleared).
  void setFollowedSource(FollowedSource source);
  void markFollowedDirty();  // steps of a followed run arrived
  // The journal of the followed run at `index` (its place in the provider's list).
  QString followedPath(int index) const;
  // Every journal file now on disk: the engine's first, then the followed runs' by place.
  QStringList journalFiles() const;

  void start();  // begins the periodic flushes (training started)
  void stop();   // stops the timer; pending records are written first
  bool isActive() const { return timer_.isActive(); }
  void markDirty();  // new telemetry arrived
  bool isDirty() const { return dirty_ || followedDirty_; }
  // The next flush rewrites the journal as one compact file (after a save); marks it dirty.
  void compact();
  // Starts writing now, with an fsync (if there is a source and no write is running); true if a write
  // started.
  bool saveNow();
  // Blocks until a write in flight has finished (its saved/saveFailed signal is still queued).
  void waitForWrite();

  // The user declined the recovery offer: the journal is removed (a later flush starts a new one).
  void discard();
  // The restored session now owns the journal: later flushes may rewrite it (recover() first).
  void claim();
  // The app is closing normally: no journal of its own stays behind (a crash's it never claimed does),
  // and nothing is journaled any more.
  void cleanShutdown();

  bool hasRecoverableSession() const;
  // Reads the journal; on failure sets *error (a damaged journal is left in place for inspection). A torn
  // last line is dropped and described in *note (cleared otherwise).
  std::optional<Session> recover(QString* error, QString* note = nullptr) const;

 signals:
  void saved(const QString& path);
  void saveFailed(const QString& message);

 private:
  // The writer's results, on the GUI thread: saved() or saveFailed() for each finished write.
  Q_INVOKABLE void reportFinishedWrites();
  void onTimeout();
  void refreshCache();
  bool flush(bool sync);
  void invalidateJournals();  // the next flush rewrites every file
  // Reads one journal file and decodes it with `footer` added; a torn last line is dropped (*torn set).
  static std::optional<Session> decodeJournal(const QString& path, std::string_view footer, QString* error,
                                              bool* torn);

  QString path_;
  QTimer timer_;
  int syncIntervalMs_ = kDefaultIntervalMs;
  QElapsedTimer lastSync_;    // since the last write that synced (invalid before the first)
  bool syncPending_ = false;  // written without an fsync since
  const SessionRecorder* source_ = nullptr;
  bool dirty_ = false;
  bool shutDown_ = false;
  // This process wrote, claimed or found no file at path_; until then a file there is someone else's.
  bool ownsJournal_ = false;

  // Encoded records [0, cachedRecords_) of generation cachedGeneration_, one chunk per flush; chunks
  // never change once built (a worker can hold them while more are appended).
  std::vector<QByteArray> chunks_;
  std::size_t cachedRecords_ = 0;
  uint64_t cachedGeneration_ = 0;
  bool cacheValid_ = false;
  // What the journal on disk holds: the first journaledChunks_ chunks, when journalValid_.
  std::size_t journaledChunks_ = 0;
  bool journalValid_ = false;

  // The followed runs' journals, by place: the same bookkeeping per file.
  struct FollowedJournal {
    uint64_t key = 0;
    uint64_t generation = 0;
    std::size_t cachedSteps = 0;
    std::vector<QByteArray> chunks;
    std::size_t journaledChunks = 0;
    bool valid = false;
  };
  FollowedSource followedSource_;
  std::vector<FollowedJournal> followed_;
  std::size_t followedFiles_ = 0;  // followed journals this process may have on disk: places [0, this)
  bool followedDirty_ = false;

  struct FinishedWrite {
    bool ok;
    QString message;
    QString path;
  };
  std::mutex finishedMutex_;
  std::vector<FinishedWrite> finished_;  // by the writer, for reportFinishedWrites
  std::thread writer_;
  std::atomic<bool> writing_{false};
  std::atomic<bool> failed_{false};  // the last write failed (its queued report may not have run yet)
};

}  // namespace ampscope::ui
