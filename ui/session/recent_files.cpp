#include "ui/session/recent_files.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace ampscope::ui {

const char* const RecentFiles::kSettingsKey = "recentFiles";

namespace {

QString normalized(const QString& path) { return QDir::cleanPath(QFileInfo(path).absoluteFilePath()); }

}  // namespace

RecentFiles::RecentFiles(QObject* parent) : QObject(parent) {}

QStringList RecentFiles::stored() const {
  return QSettings().value(QLatin1String(kSettingsKey)).toStringList();
}

void RecentFiles::store(const QStringList& files) {
  QSettings().setValue(QLatin1String(kSettingsKey), files);
  emit changed();
}

void RecentFiles::add(const QString& path) {
  const QString file = normalized(path);
  QStringList files = stored();
  files.removeAll(file);
  files.prepend(file);
  while (files.size() > kMaxFiles) files.removeLast();
  store(files);
}

void RecentFiles::remove(const QString& path) {
  QStringList files = stored();
  if (files.removeAll(normalized(path)) > 0) store(files);
}

void RecentFiles::clear() { store({}); }

QStringList RecentFiles::files() {
  const QStringList all = stored();
  QStringList existing;
  for (const QString& file : all) {
    if (QFileInfo::exists(file) && !existing.contains(file)) existing.append(file);
  }
  while (existing.size() > kMaxFiles) existing.removeLast();
  if (existing != all) store(existing);
  return existing;
}

}  // namespace ampscope::ui
