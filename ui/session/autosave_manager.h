// AutosaveManager: keeps a copy of the running session on disk so a crash or a kill loses at most one
// interval of training. While started, a timer fires every `intervalMs`; when the session was marked
// dirty since the last save it asks the provider for a snapshot and writes it with SessionFile::save
// (QSaveFile: a half-written autosave never replaces a complete one). A clean shutdown (cleanShutdown())
// removes the file; so at the next start a file that is still there means the previous run ended
// abnormally, and hasRecoverableSession() tells the app to offer a restore.
//
// The default file is QStandardPaths::AppDataLocation/autosave.ampscope. Lives on the GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <functional>
#include <optional>

#include "ui/session/session_file.h"

namespace ampscope::ui {

class AutosaveManager : public QObject {
  Q_OBJECT

 public:
  static constexpr int kDefaultIntervalMs = 5000;

  // `path` empty: defaultPath().
  explicit AutosaveManager(QObject* parent = nullptr, const QString& path = QString(),
                           int intervalMs = kDefaultIntervalMs);

  static QString defaultPath();
  QString path() const { return path_; }
  int intervalMs() const { return timer_.interval(); }
  void setIntervalMs(int intervalMs);

  // Called on the timer when dirty: returns the session to write (config, lesson, records so far).
  void setSessionProvider(std::function<Session()> provider);

  void start();  // begins the periodic saves (training started)
  void stop();   // stops the timer; a pending dirty session is written first
  bool isActive() const { return timer_.isActive(); }
  void markDirty();  // new telemetry arrived
  bool isDirty() const { return dirty_; }
  bool saveNow();    // writes now if there is a provider; true on success

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

  QString path_;
  QTimer timer_;
  std::function<Session()> provider_;
  bool dirty_ = false;
};

}  // namespace ampscope::ui
