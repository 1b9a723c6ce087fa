#include "ui/session/session_loader.h"

#include <QMetaObject>
#include <chrono>

namespace ampscope::ui {

SessionLoader::SessionLoader(QObject* parent) : QObject(parent) {
  qRegisterMetaType<SessionFile::Progress>();
}

SessionLoader::~SessionLoader() {
  cancel();
  joinWorker();
}

void SessionLoader::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

void SessionLoader::cancel() { cancel_.store(true); }

bool SessionLoader::start(const QString& path) {
  if (running_) return false;
  joinWorker();
  running_ = true;
  cancelled_ = false;
  cancel_.store(false);
  session_.reset();
  error_.clear();
  worker_ = std::thread([this, path] {
    using Clock = std::chrono::steady_clock;
    auto lastReport = Clock::now() - std::chrono::seconds(1);  // the first chunk read is reported at once
    const auto progress = [&](const SessionFile::Progress& p) {
      if (cancel_.load(std::memory_order_relaxed)) return false;
      const auto now = Clock::now();
      if (now - lastReport >= std::chrono::milliseconds(40)) {
        lastReport = now;
        {
          const std::lock_guard<std::mutex> lock(progressMutex_);
          progress_ = p;
        }
        // progressed() is emitted on the GUI thread: a signal queued from here would copy its argument
        // inside Qt, a hand-over that ThreadSanitizer cannot see in an uninstrumented Qt.
        QMetaObject::invokeMethod(this, "reportProgress", Qt::QueuedConnection);
      }
      return true;
    };
    loaded_ = SessionFile::open(path, &loadError_, progress);
    // The GUI thread takes the result after joining this thread (the join orders the two), so the
    // result never rides inside a queued functor, a hand-over ThreadSanitizer cannot see in Qt. Queued
    // with `this` as the context: a loader destroyed first (it joins this thread) drops the call.
    QMetaObject::invokeMethod(this, "takeResult", Qt::QueuedConnection);
  });
  return true;
}

void SessionLoader::reportProgress() {
  SessionFile::Progress p;
  {
    const std::lock_guard<std::mutex> lock(progressMutex_);
    p = progress_;
  }
  if (running_) emit progressed(p);
}

void SessionLoader::takeResult() {
  joinWorker();
  running_ = false;
  cancelled_ = cancel_.load();  // even when it finished anyway: Cancel means nothing changes
  session_ = std::move(loaded_);
  loaded_.reset();
  error_ = cancelled_ ? QString() : loadError_;
  loadError_.clear();
  emit finished();
}

}  // namespace ampscope::ui
