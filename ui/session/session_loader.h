// SessionLoader: opens a session file on a worker thread, so the GUI keeps drawing (and can offer
// Cancel) while a long session is read and decoded. The worker only runs SessionFile::open(); the caller
// applies the result on the GUI thread after finished(), so a cancelled or failed open changes nothing.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "ui/session/session_file.h"

namespace ampscope::ui {

class SessionLoader : public QObject {
  Q_OBJECT

 public:
  explicit SessionLoader(QObject* parent = nullptr);
  // Cancels a load still running and waits for its thread.
  ~SessionLoader() override;

  // Starts reading `path`; finished() follows on this object's thread, also after cancel(). One load at a
  // time: false when one is running.
  bool start(const QString& path);
  void cancel();  // any thread
  bool isRunning() const { return running_; }

  // After finished(): the session (taken once), or nullopt with error() (empty when cancelled).
  std::optional<Session> takeSession() { return std::move(session_); }
  QString error() const { return error_; }
  bool wasCancelled() const { return cancelled_; }

 signals:
  // At most every few tens of milliseconds while the worker reads, on this object's (the GUI) thread.
  void progressed(const ampscope::ui::SessionFile::Progress& progress);
  void finished();

 private:
  void joinWorker();
  // On the GUI thread, queued by the worker when it is done: joins it and takes loaded_/loadError_.
  Q_INVOKABLE void takeResult();
  // On the GUI thread, queued by the worker: emits progressed() with the worker's latest progress_.
  Q_INVOKABLE void reportProgress();

  std::thread worker_;
  std::atomic<bool> cancel_{false};
  bool running_ = false;
  bool cancelled_ = false;
  std::optional<Session> session_;
  std::optional<Session> loaded_;  // the worker's, until takeResult
  QString loadError_;
  std::mutex progressMutex_;
  SessionFile::Progress progress_;  // the worker's latest, under progressMutex_
  QString error_;
};

}  // namespace ampscope::ui

Q_DECLARE_METATYPE(ampscope::ui::SessionFile::Progress)
