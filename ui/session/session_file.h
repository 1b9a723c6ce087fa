// SessionFile: an AmpScope session on disk, so a user's experiment survives closing the app and plots
// reappear without retraining. A session is the RunConfig (every field), the lesson it belongs to, and
// the recorded telemetry: every step of every mode with its ModeStep scalars, rounding counts and, on
// instrumented steps, the rounding points and exponent histograms.
//
// Format: UTF-8 JSON, {"format": "ampscope-session", "version": 1, "app": ..., "lesson": ...,
// "config": {...}, "records": [...]}, one record (a step of every mode) per line. The config keys are those
// of the lesson files ("batch", "loss-weight", "scaler": {"init-scale", ...}, "clip": {"order", "max-norm"}).
// JSON has no NaN or infinity, and a NaN loss is exactly what a lesson wants kept, so every floating-point
// field is either a JSON number or one of the strings "nan", "inf", "-inf". Histograms are sparse: "bins"
// lists [exponent, count] pairs for the non-empty exponent bins only.
//
// Saving goes through QSaveFile: the old file is replaced only once the new one is completely written,
// so a crash mid-save leaves the previous version. Opening never writes. A file that is not JSON, is cut
// short, has another "format" or a newer "version", or has a bad field gives a message that names the
// line and column, the field path (e.g. "records[12].modes[0].loss") or the version.
#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <optional>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope::ui {

struct Session {
  RunConfig config;
  QString lesson;                   // the lesson id the run belongs to; empty for a free experiment
  std::vector<StepRecord> records;  // in step order
};

class SessionFile {
  Q_DECLARE_TR_FUNCTIONS(SessionFile)

 public:
  static constexpr int kVersion = 1;
  static const char* const kFormat;  // "ampscope-session"
  static const char* const kSuffix;  // "ampscope" (file name extension, without the dot)

  // Writes atomically. Returns false and sets *error (path and reason) on failure.
  static bool save(const QString& path, const Session& session, QString* error);
  // Reads and validates. On failure returns nullopt and sets *error; the file is never modified.
  static std::optional<Session> open(const QString& path, QString* error);

  static QByteArray toJson(const Session& session);
  // `source` prefixes error messages (the file name).
  static std::optional<Session> fromJson(const QByteArray& json, const QString& source, QString* error);

  // The pieces: toJson() is headerJson() + records joined by ",\n" (each preceded by "\n" for the
  // first) + footerJson(). AutosaveManager keeps the serialized records and appends only new ones;
  // RunExporter reuses the config and step encoders.
  static QByteArray headerJson(const Session& session);  // up to and including "records":[
  static QByteArray footerJson();                        // "]}\n"
  static void appendRecordJson(QByteArray& out, const StepRecord& record);
  static void appendConfigJson(QByteArray& out, const RunConfig& config);
  static void appendModeStepJson(QByteArray& out, const ModeStep& step);
  static void appendString(QByteArray& out, const QString& text);  // a quoted, escaped JSON string
};

}  // namespace ampscope::ui
