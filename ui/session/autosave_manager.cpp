#include "ui/session/autosave_manager.h"

#include <unistd.h>

#include <algorithm>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include "ampscope/engine/session_codec.h"
#include "ui/session/session_recorder.h"

namespace ampscope::ui {

AutosaveManager::AutosaveManager(QObject* parent, const QString& path, int intervalMs)
    : QObject(parent), path_(path.isEmpty() ? defaultPath() : path) {
  setIntervalMs(intervalMs);
  connect(&timer_, &QTimer::timeout, this, &AutosaveManager::onTimeout);
}

AutosaveManager::~AutosaveManager() { waitForWrite(); }

QString AutosaveManager::defaultPath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave.") +
         QLatin1String(SessionFile::kSuffix) + QStringLiteral("-journal");
}

void AutosaveManager::setIntervalMs(int intervalMs) {
  syncIntervalMs_ = intervalMs;
  timer_.setInterval(std::min(intervalMs, kWriteIntervalMs));
}

void AutosaveManager::setSource(const SessionRecorder* recorder) {
  source_ = recorder;
  cacheValid_ = false;
}

void AutosaveManager::start() {
  if (!shutDown_) timer_.start();
}

void AutosaveManager::stop() {
  timer_.stop();
  if (dirty_ || syncPending_) saveNow();
}

void AutosaveManager::markDirty() { dirty_ = true; }

void AutosaveManager::compact() {
  journalValid_ = false;
  dirty_ = true;
}

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
    journalValid_ = false;  // the records on disk are not these any more
  }
  if (cachedRecords_ == records.size()) return;
  // Each record is encoded once, with the separator encodeSession() puts before it.
  std::string chunk;
  for (std::size_t i = cachedRecords_; i < records.size(); ++i) appendSessionRecordJson(chunk, records[i], i);
  chunks_.push_back(QByteArray::fromStdString(chunk));
  cachedRecords_ = records.size();
}

bool AutosaveManager::saveNow() { return flush(true); }

bool AutosaveManager::flush(bool sync) {
  if (!source_ || shutDown_ || writing_.load()) return false;
  if (!ownsJournal_) {
    if (QFileInfo::exists(path_)) return false;  // a crash's journal, not yet answered for
    ownsJournal_ = true;
  }
  waitForWrite();  // the previous writer has finished; reap its thread
  if (failed_.exchange(false)) journalValid_ = false;
  refreshCache();
  QDir().mkpath(QFileInfo(path_).absolutePath());

  // The worker gets shared (implicitly copied) chunks: nothing large is copied here.
  const bool append = journalValid_;
  std::vector<QByteArray> parts;
  if (!append) {
    const Session& session = source_->session();
    parts.reserve(chunks_.size() + 1);
    parts.push_back(
        QByteArray::fromStdString(sessionHeaderJson(session.config, session.lesson.toStdString())));
  }
  parts.insert(parts.end(), chunks_.begin() + static_cast<std::ptrdiff_t>(append ? journaledChunks_ : 0),
               chunks_.end());
  // Counted as on disk now; a failed write makes the next flush rewrite everything.
  journaledChunks_ = chunks_.size();
  journalValid_ = true;
  dirty_ = false;
  // A rewrite always syncs (QSaveFile's commit); an append when asked or when the last sync is old.
  // (With an interval no longer than a write tick, every write syncs, as each tick is a sync interval.)
  sync = sync || !append || syncIntervalMs_ <= timer_.interval() || !lastSync_.isValid() ||
         lastSync_.elapsed() >= syncIntervalMs_;
  if (sync) lastSync_.start();
  syncPending_ = !sync;
  writing_ = true;
  writer_ = std::thread([this, append, sync, parts = std::move(parts), path = path_] {
    bool ok = true;
    QString reason;
    if (append) {
      QFile file(path);
      ok = file.open(QIODevice::WriteOnly | QIODevice::Append);
      for (const QByteArray& part : parts) {
        if (!ok) break;
        ok = file.write(part) == part.size();
      }
      ok = ok && file.flush() && (!sync || ::fsync(file.handle()) == 0);
      if (!ok) reason = file.errorString();
    } else {
      QSaveFile file(path);  // commit() syncs the new file before it replaces the old one
      ok = file.open(QIODevice::WriteOnly);
      for (const QByteArray& part : parts) {
        if (!ok) break;
        ok = file.write(part) == part.size();
      }
      ok = ok && file.commit();
      if (!ok) {
        reason = file.errorString();
        file.cancelWriting();
      }
    }
    {
      const std::lock_guard<std::mutex> lock(finishedMutex_);
      finished_.push_back({ok, ok ? QString() : tr("Cannot write %1: %2").arg(path, reason), path});
    }
    // Called by name: the results cross threads under finishedMutex_, not inside a functor that Qt's
    // event queue hands over (a hand-over ThreadSanitizer cannot see in an uninstrumented Qt). The
    // destructor joins this thread before `this` goes, so the queued call always has a target.
    QMetaObject::invokeMethod(this, "reportFinishedWrites", Qt::QueuedConnection);
    if (!ok) failed_ = true;
    writing_ = false;
  });
  return true;
}

void AutosaveManager::reportFinishedWrites() {
  std::vector<FinishedWrite> finished;
  {
    const std::lock_guard<std::mutex> lock(finishedMutex_);
    finished.swap(finished_);
  }
  for (const FinishedWrite& write : finished) {
    if (write.ok) {
      emit saved(write.path);
    } else {
      // Rewrite everything on the next tick (the disk may have been full for a moment).
      journalValid_ = false;
      dirty_ = true;
      emit saveFailed(write.message);
    }
  }
}

void AutosaveManager::onTimeout() {
  if (dirty_) {
    flush(false);
  } else if (syncPending_ && lastSync_.elapsed() >= syncIntervalMs_) {
    flush(true);  // nothing new: an empty append that only syncs what the last ticks wrote
  }
}

void AutosaveManager::discard() {
  waitForWrite();  // a write still running would bring the file back after the removal
  failed_ = false;
  syncPending_ = false;
  journalValid_ = false;  // the next flush starts a new journal with its header
  QFile::remove(path_);
  ownsJournal_ = true;
}

void AutosaveManager::cleanShutdown() {
  timer_.stop();
  shutDown_ = true;
  dirty_ = false;
  if (ownsJournal_) {
    discard();
  } else {
    waitForWrite();
  }
}

bool AutosaveManager::hasRecoverableSession() const { return QFileInfo::exists(path_); }

std::optional<Session> AutosaveManager::recover(QString* error, QString* note) const {
  if (note) note->clear();
  QFile file(path_);
  if (!QFileInfo(path_).isFile() || !file.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot read %1: %2").arg(path_, file.errorString());
    return std::nullopt;
  }
  const QByteArray journal = file.readAll();
  const QByteArray footer(kSessionFooterJson.data(), static_cast<int>(kSessionFooterJson.size()));
  const QString source = QFileInfo(path_).fileName();
  QString firstError;
  if (auto session = SessionFile::fromJson(journal + footer, source, &firstError)) return session;
  // A kill in the middle of an append leaves a partial last line (records are one per line, after the
  // header's): drop it and the separator before it.
  const int lastBreak = journal.lastIndexOf('\n');
  if (lastBreak > 0) {
    QByteArray complete = journal.left(lastBreak);
    if (complete.endsWith(',')) complete.chop(1);
    QString ignored;
    if (auto session = SessionFile::fromJson(complete + footer, source, &ignored)) {
      if (note && !journal.mid(lastBreak).trimmed().isEmpty()) {
        *note = tr("The last line of the journal was cut short when AmpScope stopped and was dropped; "
                   "%n step(s) were restored.",
                   nullptr, static_cast<int>(session->records.size()));
      }
      return session;
    }
  }
  if (error) *error = firstError;
  return std::nullopt;
}

}  // namespace ampscope::ui
