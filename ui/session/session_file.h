// SessionFile: an AmpScope session on disk, so a user's experiment survives closing the app and plots
// reappear without retraining. The document itself (layout, fields, checks) is the engine's session
// codec (ampscope/engine/session_codec.h, described in docs/record-format.md); this class does the
// file I/O and phrases the codec's errors for the user.
//
// Saving goes through QSaveFile: the old file is replaced only once the new one is completely written,
// so a crash mid-save leaves the previous version. Opening never writes. A file that is not JSON, is cut
// short, has another "format" or a newer "version", or has a bad field gives a message that names the
// line and column, the field path (e.g. "records[12].modes[0].loss") or the version.
#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <functional>
#include <optional>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/session_codec.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope::ui {

// The engine's Session with the lesson id as a QString, as the lesson views hold it.
struct Session {
  RunConfig config;
  QString lesson;                   // the lesson id the run belongs to; empty for a free experiment
  std::vector<StepRecord> records;  // in step order
  std::vector<FollowedRun> followed;  // runs followed from a training script's stream (not live)
};

class SessionFile {
  Q_DECLARE_TR_FUNCTIONS(SessionFile)

 public:
  static constexpr int kVersion = kSessionVersion;
  static const char* const kFormat;  // "ampscope-session"
  static const char* const kSuffix;  // "ampscope" (file name extension, without the dot)
  // The largest file open() reads: about 100x a long six-mode run, far below what would exhaust memory.
  static constexpr qint64 kMaxBytes = qint64{512} * 1024 * 1024;

  // How far open() got: the file's size, the bytes read of it, how far into them the decoder is, and the
  // records it decoded.
  struct Progress {
    qint64 fileBytes = 0;
    qint64 bytesRead = 0;
    qint64 bytesDecoded = 0;
    qint64 records = 0;
  };
  // Called from the thread that runs open(), every read chunk and every decoded record. Returning false
  // cancels: open() returns nullopt with the error "cancelled".
  using ProgressHook = std::function<bool(const Progress&)>;

  // Writes atomically. Returns false and sets *error (path and reason) on failure.
  static bool save(const QString& path, const Session& session, QString* error);
  // Reads and validates. Only a regular file of at most kMaxBytes is read: a folder, a named pipe or a
  // device is refused by its type without blocking. On failure returns nullopt and sets *error; the
  // file is never modified. Touches no widget: a worker thread may run it (SessionLoader does).
  static std::optional<Session> open(const QString& path, QString* error, const ProgressHook& progress = {});

  static QByteArray toJson(const Session& session);
  // `source` prefixes error messages (the file name). `progress` sees bytesDecoded and records.
  static std::optional<Session> fromJson(const QByteArray& json, const QString& source, QString* error,
                                         const ProgressHook& progress = {});
  // The codec's error in the user's language ("field \"records[3].step\": ..."; field messages stay English).
  static QString describe(const SessionError& error);
};

}  // namespace ampscope::ui
