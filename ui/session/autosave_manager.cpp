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
  timer_.setObjectName(QStringLiteral("autosaveTimer"));
}

void AutosaveManager::setSource(const SessionRecorder* recorder) {
  source_ = recorder;
  cacheValid_ = false;
}

void AutosaveManager::setFollowedSource(FollowedSource source) {
  followedSource_ = std::move(source);
  followedDirty_ = true;
}

void AutosaveManager::markFollowedDirty() { followedDirty_ = true; }

QString AutosaveManager::followedPath(int index) const {
  return path_ + QStringLiteral(".followed-%1").arg(index);
}

QStringList AutosaveManager::journalFiles() const {
  QStringList files;
  if (QFileInfo::exists(path_)) files << path_;
  const QFileInfo info(path_);
  const QString prefix = info.fileName() + QStringLiteral(".followed-");
  std::vector<std::pair<int, QString>> followed;
  for (const QString& name : QDir(info.absolutePath()).entryList({prefix + QLatin1Char('*')}, QDir::Files)) {
    bool ok = false;
    const int index = name.mid(prefix.size()).toInt(&ok);
    if (ok && index >= 0) followed.emplace_back(index, info.absolutePath() + QLatin1Char('/') + name);
  }
  std::sort(followed.begin(), followed.end());
  for (const auto& [index, path] : followed) files << path;
  return files;
}

void AutosaveManager::invalidateJournals() {
  journalValid_ = false;
  for (FollowedJournal& f : followed_) f.valid = false;
}

void AutosaveManager::start() {
  if (!shutDown_) timer_.start();
}

void AutosaveManager::stop() {
  timer_.stop();
  if (dirty_ || followedDirty_ || syncPending_) saveNow();
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
  if ((!source_ && !followedSource_) || shutDown_ || writing_.load()) return false;
  if (!ownsJournal_) {
    if (hasRecoverableSession()) return false;  // a crash's journal, not yet answered for
    ownsJournal_ = true;
  }
  waitForWrite();  // the previous writer has finished; reap its thread
  if (failed_.exchange(false)) invalidateJournals();
  QDir().mkpath(QFileInfo(path_).absolutePath());
  // A rewrite always syncs (QSaveFile's commit); appends when asked or when the last sync is old.
  // (With an interval no longer than a write tick, every write syncs, as each tick is a sync interval.)
  sync = sync || syncIntervalMs_ <= timer_.interval() || !lastSync_.isValid() ||
         lastSync_.elapsed() >= syncIntervalMs_;

  // The worker gets shared (implicitly copied) chunks: nothing large is copied here. Each chunk is
  // counted as on disk now; a failed write makes the next flush rewrite everything.
  struct FileWrite {
    enum class Kind { Append, Rewrite, Remove } kind;
    QString path;
    std::vector<QByteArray> parts;
  };
  std::vector<FileWrite> writes;
  bool appended = false;  // an append that did not sync
  const std::vector<FollowedView> views = followedSource_ ? followedSource_() : std::vector<FollowedView>{};

  // The engine's journal; a session of followed runs alone has none (unless one was written already).
  if (source_ && (dirty_ || journalValid_ || views.empty() || !source_->isEmpty())) {
    refreshCache();
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
    journaledChunks_ = chunks_.size();
    journalValid_ = true;
    appended = appended || (append && !parts.empty());
    writes.push_back({append ? FileWrite::Kind::Append : FileWrite::Kind::Rewrite, path_, std::move(parts)});
  }
  dirty_ = false;

  // The followed runs', one file each, by place.
  if (followed_.size() < views.size()) followed_.resize(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    const FollowedView& view = views[i];
    FollowedJournal& journal = followed_[i];
    if (journal.key != view.key || journal.generation != view.generation || journal.cachedSteps > view.steps->size()) {
      journal = FollowedJournal{};
      journal.key = view.key;
      journal.generation = view.generation;
    }
    if (journal.cachedSteps < view.steps->size()) {
      std::string chunk;
      for (std::size_t k = journal.cachedSteps; k < view.steps->size(); ++k)
        appendFollowedStepJson(chunk, (*view.steps)[k], k);
      journal.chunks.push_back(QByteArray::fromStdString(chunk));
      journal.cachedSteps = view.steps->size();
    }
    const bool append = journal.valid;
    if (append && journal.journaledChunks == journal.chunks.size() && !sync) continue;  // nothing to do
    std::vector<QByteArray> parts;
    if (!append) parts.push_back(QByteArray::fromStdString(followedJournalHeaderJson(*view.source, view.target)));
    parts.insert(parts.end(), journal.chunks.begin() + static_cast<std::ptrdiff_t>(append ? journal.journaledChunks : 0),
                 journal.chunks.end());
    journal.journaledChunks = journal.chunks.size();
    journal.valid = true;
    appended = appended || (append && !parts.empty());
    writes.push_back({append ? FileWrite::Kind::Append : FileWrite::Kind::Rewrite,
                      followedPath(static_cast<int>(i)), std::move(parts)});
  }
  // Places no run holds any more (the runs were cleared): their files go.
  for (std::size_t i = views.size(); i < followedFiles_; ++i)
    writes.push_back({FileWrite::Kind::Remove, followedPath(static_cast<int>(i)), {}});
  followed_.resize(views.size());
  followedFiles_ = views.size();
  followedDirty_ = false;
  if (writes.empty()) return false;

  if (sync) lastSync_.start();
  syncPending_ = !sync && (appended || syncPending_);
  writing_ = true;
  writer_ = std::thread([this, sync, writes = std::move(writes)] {
    bool ok = true;
    QString failure;
    for (const FileWrite& write : writes) {
      QString reason;
      bool done = true;
      if (write.kind == FileWrite::Kind::Remove) {
        QFile file(write.path);
        done = !file.exists() || file.remove();
        if (!done) reason = file.errorString();
      } else if (write.kind == FileWrite::Kind::Append) {
        QFile file(write.path);
        done = file.open(QIODevice::WriteOnly | QIODevice::Append);
        for (const QByteArray& part : write.parts) {
          if (!done) break;
          done = file.write(part) == part.size();
        }
        done = done && file.flush() && (!sync || ::fsync(file.handle()) == 0);
        if (!done) reason = file.errorString();
      } else {
        QSaveFile file(write.path);  // commit() syncs the new file before it replaces the old one
        done = file.open(QIODevice::WriteOnly);
        for (const QByteArray& part : write.parts) {
          if (!done) break;
          done = file.write(part) == part.size();
        }
        done = done && file.commit();
        if (!done) {
          reason = file.errorString();
          file.cancelWriting();
        }
      }
      if (!done && ok) failure = tr("Cannot write %1: %2").arg(write.path, reason);
      ok = ok && done;
    }
    {
      const std::lock_guard<std::mutex> lock(finishedMutex_);
      finished_.push_back({ok, failure, path_});
    }
    // Done before the report is queued: a flush that its saved() signal prompts finds no write running
    // (it joins this thread before starting another).
    if (!ok) failed_ = true;
    writing_ = false;
    // Called by name: the results cross threads under finishedMutex_, not inside a functor that Qt's
    // event queue hands over (a hand-over ThreadSanitizer cannot see in an uninstrumented Qt). The
    // destructor joins this thread before `this` goes, so the queued call always has a target.
    QMetaObject::invokeMethod(this, "reportFinishedWrites", Qt::QueuedConnection);
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
      invalidateJournals();
      dirty_ = true;
      followedDirty_ = true;
      emit saveFailed(write.message);
    }
  }
}

void AutosaveManager::onTimeout() {
  if (dirty_ || followedDirty_) {
    flush(false);
  } else if (syncPending_ && lastSync_.elapsed() >= syncIntervalMs_) {
    flush(true);  // nothing new: an empty append that only syncs what the last ticks wrote
  }
}

void AutosaveManager::discard() {
  waitForWrite();  // a write still running would bring the file back after the removal
  failed_ = false;
  syncPending_ = false;
  invalidateJournals();  // the next flush starts new journals with their headers
  for (const QString& file : journalFiles()) QFile::remove(file);
  followedFiles_ = 0;
  ownsJournal_ = true;
}

void AutosaveManager::cleanShutdown() {
  timer_.stop();
  shutDown_ = true;
  dirty_ = false;
  followedDirty_ = false;
  if (ownsJournal_) {
    discard();
  } else {
    waitForWrite();
  }
}

void AutosaveManager::claim() {
  ownsJournal_ = true;
  // The crash's followed journals are this process's now: a place no run takes again is removed.
  const QString prefix = path_ + QStringLiteral(".followed-");
  for (const QString& file : journalFiles()) {
    if (!file.startsWith(prefix)) continue;
    followedFiles_ = std::max<std::size_t>(followedFiles_, file.mid(prefix.size()).toULongLong() + 1);
  }
}

bool AutosaveManager::hasRecoverableSession() const { return !journalFiles().isEmpty(); }

std::optional<Session> AutosaveManager::decodeJournal(const QString& path, std::string_view footerText,
                                                      QString* error, bool* torn) {
  *torn = false;
  QFile file(path);
  if (!QFileInfo(path).isFile() || !file.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot read %1: %2").arg(path, file.errorString());
    return std::nullopt;
  }
  const QByteArray journal = file.readAll();
  const QByteArray footer(footerText.data(), static_cast<int>(footerText.size()));
  const QString source = QFileInfo(path).fileName();
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
      *torn = !journal.mid(lastBreak).trimmed().isEmpty();
      return session;
    }
  }
  if (error) *error = firstError;
  return std::nullopt;
}

std::optional<Session> AutosaveManager::recover(QString* error, QString* note) const {
  if (note) note->clear();
  const QStringList files = journalFiles();
  bool torn = false;
  if (files.isEmpty()) return decodeJournal(path_, kSessionFooterJson, error, &torn);  // says why
  Session session;
  QStringList notes;
  for (const QString& file : files) {
    const bool engine = file == path_;
    auto part = decodeJournal(file, engine ? kSessionFooterJson : kFollowedJournalFooterJson, error, &torn);
    if (!part) return std::nullopt;  // left in place for inspection
    if (engine) {
      if (torn) {
        notes << tr("The last line of the journal was cut short when AmpScope stopped and was dropped; "
                    "%n step(s) were restored.",
                    nullptr, static_cast<int>(part->records.size()));
      }
      part->followed.swap(session.followed);
      session = std::move(*part);
    } else {
      for (FollowedRun& run : part->followed) {
        if (torn) {
          notes << tr("The last line of the journal of the followed run %1 was cut short when AmpScope stopped "
                      "and was dropped; %n step(s) were restored.",
                      nullptr, static_cast<int>(run.steps.size()))
                       .arg(QString::fromStdString(run.source.run.empty() ? run.target : run.source.run));
        }
        session.followed.push_back(std::move(run));
      }
    }
  }
  if (note) *note = notes.join(QLatin1Char('\n'));
  return session;
}

}  // namespace ampscope::ui
