#include "ui/session/autosave_manager.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace ampscope::ui {

AutosaveManager::AutosaveManager(QObject* parent, const QString& path, int intervalMs)
    : QObject(parent), path_(path.isEmpty() ? defaultPath() : path) {
  timer_.setInterval(intervalMs);
  connect(&timer_, &QTimer::timeout, this, &AutosaveManager::onTimeout);
}

QString AutosaveManager::defaultPath() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/autosave.") + QLatin1String(SessionFile::kSuffix);
}

void AutosaveManager::setIntervalMs(int intervalMs) { timer_.setInterval(intervalMs); }

void AutosaveManager::setSessionProvider(std::function<Session()> provider) {
  provider_ = std::move(provider);
}

void AutosaveManager::start() { timer_.start(); }

void AutosaveManager::stop() {
  timer_.stop();
  if (dirty_) saveNow();
}

void AutosaveManager::markDirty() { dirty_ = true; }

bool AutosaveManager::saveNow() {
  if (!provider_) return false;
  QDir().mkpath(QFileInfo(path_).absolutePath());
  QString error;
  if (!SessionFile::save(path_, provider_(), &error)) {
    // Stay dirty: the next tick tries again (the disk may have been full for a moment).
    emit saveFailed(error);
    return false;
  }
  dirty_ = false;
  emit saved(path_);
  return true;
}

void AutosaveManager::onTimeout() {
  if (dirty_) saveNow();
}

void AutosaveManager::cleanShutdown() {
  timer_.stop();
  dirty_ = false;
  QFile::remove(path_);
}

bool AutosaveManager::hasRecoverableSession() const { return QFileInfo::exists(path_); }

std::optional<Session> AutosaveManager::recover(QString* error) const {
  return SessionFile::open(path_, error);
}

}  // namespace ampscope::ui
