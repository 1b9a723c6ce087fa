// RecentFiles: the File menu's most-recently-used sessions, stored in QSettings under "recentFiles".
// Newest first, at most kMaxFiles, no duplicates (paths compared after making them absolute and clean);
// files that no longer exist are dropped whenever the list is read.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

namespace ampscope::ui {

class RecentFiles : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMaxFiles = 10;
  static const char* const kSettingsKey;  // "recentFiles"

  explicit RecentFiles(QObject* parent = nullptr);

  void add(const QString& path);     // moves it to the front
  void remove(const QString& path);  // e.g. after it failed to open
  void clear();
  QStringList files();  // existing files, newest first; prunes missing ones from the settings

 signals:
  void changed();

 private:
  QStringList stored() const;
  void store(const QStringList& files);
};

}  // namespace ampscope::ui
