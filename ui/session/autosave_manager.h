// AutosaveManager: keeps a copy of the running session on disk so a crash or a kill loses at most one
// interval of training. While started, a timer fires every `intervalMs`; when the session was marked
// dirty since the last save it writes the recorder's session to the autosave file. A clean shutdown
// (cleanShutdown()) removes the file; so at the next start a file that is still there means the previous
// run ended abnormally, and hasRecoverableSession() tells the app to offer a restore.
//
// Cost on the GUI thread stays small however long the run: the serialized records are cached in chunks
// and only records the autosave has not seen yet are serialized on each tick (the recorder's
// generation() says when the cache is stale: a new run, a load, a thinning). The file itself is written
// on a worker thread through QSaveFile (a half-written autosave never replaces a complete one; a tick
// that finds the previous write still running waits for the next tick). The file is the same
// SessionFile format as File > Save.
//
// The default file is QStandardPaths::AppDataLocation/autosave.ampscope. Lives on the GUI thread.
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>
#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "ui/session/session_file.h"

namespace ampscope::ui {

class SessionRecorder;

class AutosaveManager : public QObject {
  Q_OBJECT

 public:
  static constexpr int kDefaultIntervalMs = 5000;

  // `path` empty: defaultPath().
  explicit AutosaveManager(QObject* parent = nullptr, const QString& path = QString(),
                           int intervalMs = kDefaultIntervalMs);
  ~AutosaveManager() override;  // waits for a write in flight

  static QString defaultPath();
  QString path() const { return path_; }
  int intervalMs() const { return timer_.interval(); }
  void setIntervalMs(int intervalMs);

  // What to save; it must outlive this manager (or be replaced first).
  void setSource(const SessionRecorder* recorder);

  void start();  // begins the periodic saves (training started)
  void stop();   // stops the timer; a pending dirty session is written first
  bool isActive() const { return timer_.isActive(); }
  void markDirty();  // new telemetry arrived
  bool isDirty() const { return dirty_; }
  // Starts writing now (if there is a source and no write is running); true if a write started.
  bool saveNow();
  // Blocks until a write in flight has finished (its saved/saveFailed signal is still queued).
  void waitForWrite();

  // The app is closing normally (or the user discarded the recovery offer): no autosave stays behind.
  void cleanShutdown();

  bool hasRecoverableSession() const;
  // Reads the autosave; on failure sets *error (a damaged autosave is left in place for inspection).
  std::optional<Session> recover(QString* error) const;

 signals:
  void saved(const QString& path);
  void saveFailed(const QString& message);

 private:
  void onTimeout();
  void refreshCache();

  QString path_;
  QTimer timer_;
  const SessionRecorder* source_ = nullptr;
  bool dirty_ = false;

  // Serialized records [0, cachedRecords_) of generation cachedGeneration_, in chunks that never change
  // once built (a worker can hold them while more are appended).
  std::vector<QByteArray> chunks_;
  std::size_t cachedRecords_ = 0;
  uint64_t cachedGeneration_ = 0;
  bool cacheValid_ = false;

  std::thread writer_;
  std::atomic<bool> writing_{false};
};

}  // namespace ampscope::ui
