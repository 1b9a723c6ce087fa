#include "ui/session/autosave_manager.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include "ampscope/engine/session_codec.h"
#include "ui/session/session_recorder.h"

namespace ampscope::ui {

namespace {

// Records serialized per chunk: small enough that a tick's new records make one or two chunks.
constexpr std::size_t kRecordsPerChunk = 256;

}  // namespace

AutosaveManager::AutosaveManager(QObject* parent, const QString& path, int intervalMs)
    : QObject(parent), path_(path.isEmpty() ? defaultPath() : path) {
  timer_.setInterval(intervalMs);
  connect(&timer_, &QTimer::timeout, this, &AutosaveManager::onTimeout);
}

AutosaveManager::~AutosaveManager() { waitForWrite(); }

QString AutosaveManager::defaultPath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave.") +
         QLatin1String(SessionFile::kSuffix);
}

void AutosaveManager::setIntervalMs(int intervalMs) { timer_.setInterval(intervalMs); }

void AutosaveManager::setSource(const SessionRecorder* recorder) {
  source_ = recorder;
  cacheValid_ = false;
}

void AutosaveManager::start() { timer_.start(); }

void AutosaveManager::stop() {
  timer_.stop();
  if (dirty_) saveNow();
}

void AutosaveManager::markDirty() { dirty_ = true; }

void AutosaveManager::waitForWrite() {
  if (writer_.joinable()) writer_.join();
}

void AutosaveManager::refreshCache() {
  const auto& records = source_->records();
  if (!cacheValid_ || cachedGeneration_ != source_->generation() || cachedRecords_ > records.size()) {
    chunks_.clear();
    cachedRecords_ = 0;
    cachedGeneration_ = source_->generation();
    cacheValid_ = true;
  }
  while (cachedRecords_ < records.size()) {
    const std::size_t end = std::min(records.size(), cachedRecords_ + kRecordsPerChunk);
    // Each record is encoded once, with the separator encodeSession() puts before it.
    std::string chunk;
    for (std::size_t i = cachedRecords_; i < end; ++i) appendSessionRecordJson(chunk, records[i], i);
    chunks_.push_back(QByteArray::fromStdString(chunk));
    cachedRecords_ = end;
  }
}

bool AutosaveManager::saveNow() {
  if (!source_ || writing_.load()) return false;
  waitForWrite();  // the previous writer has finished; reap its thread
  refreshCache();
  QDir().mkpath(QFileInfo(path_).absolutePath());

  // The worker gets shared (implicitly copied) chunks: nothing large is copied here.
  std::vector<QByteArray> parts;
  parts.reserve(chunks_.size() + 2);
  const Session& session = source_->session();
  parts.push_back(QByteArray::fromStdString(sessionHeaderJson(session.config, session.lesson.toStdString())));
  parts.insert(parts.end(), chunks_.begin(), chunks_.end());
  parts.push_back(QByteArray(kSessionFooterJson.data(), static_cast<int>(kSessionFooterJson.size())));
  dirty_ = false;
  writing_ = true;
  writer_ = std::thread([this, parts = std::move(parts), path = path_] {
    QSaveFile file(path);
    bool ok = file.open(QIODevice::WriteOnly);
    for (const QByteArray& part : parts) {
      if (!ok) break;
      ok = file.write(part) == part.size();
    }
    ok = ok && file.commit();
    const QString message = ok ? QString() : tr("Cannot write %1: %2").arg(path, file.errorString());
    if (!ok) file.cancelWriting();
    // The destructor joins this thread before `this` goes, so the queued call always has a target.
    QMetaObject::invokeMethod(
        this,
        [this, ok, message, path] {
          if (ok) {
            emit saved(path);
          } else {
            dirty_ = true;  // try again on the next tick (the disk may have been full for a moment)
            emit saveFailed(message);
          }
        },
        Qt::QueuedConnection);
    writing_ = false;
  });
  return true;
}

void AutosaveManager::onTimeout() {
  if (dirty_) saveNow();
}

void AutosaveManager::cleanShutdown() {
  timer_.stop();
  waitForWrite();  // a write still running would bring the file back after the removal
  dirty_ = false;
  QFile::remove(path_);
}

bool AutosaveManager::hasRecoverableSession() const { return QFileInfo::exists(path_); }

std::optional<Session> AutosaveManager::recover(QString* error) const {
  return SessionFile::open(path_, error);
}

}  // namespace ampscope::ui
