#include "ui/session/session_file.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <string_view>

namespace ampscope::ui {

const char* const SessionFile::kFormat = kSessionFormat.data();  // a literal: NUL-terminated
const char* const SessionFile::kSuffix = "ampscope";

QString SessionFile::describe(const SessionError& e) {
  using Kind = SessionError::Kind;
  switch (e.kind) {
    case Kind::Empty: return tr("the file is empty");
    case Kind::Syntax:
      return tr("not a valid session file (%1: %2); it may be damaged or cut short")
          .arg(tr("line %1, column %2").arg(e.line).arg(e.column), QString::fromStdString(e.message));
    case Kind::NotAnObject: return tr("not an AmpScope session (the top level is not a JSON object)");
    case Kind::NoFormat: return tr("not an AmpScope session (no \"format\" field)");
    case Kind::WrongFormat:
      return tr("not an AmpScope session (format \"%1\", expected \"%2\")")
          .arg(e.found.empty() ? tr("not a string") : QString::fromStdString(e.found),
               QLatin1String(kFormat));
    case Kind::BadVersion: return tr("field \"version\": expected a positive integer");
    case Kind::NewerVersion:
      return tr("written by a newer AmpScope (session format version %1; this AmpScope reads up to "
                "version %2). Update AmpScope to open it.")
          .arg(QString::fromStdString(e.found))
          .arg(kVersion);
    case Kind::Field:
      return tr("field \"%1\": %2").arg(QString::fromStdString(e.path), QString::fromStdString(e.message));
  }
  return QString::fromStdString(e.text());
}

QByteArray SessionFile::toJson(const Session& session) {
  return QByteArray::fromStdString(encodeSession(session.config, session.lesson.toStdString(), session.records));
}

std::optional<Session> SessionFile::fromJson(const QByteArray& json, const QString& source, QString* error) {
  SessionError codecError;
  auto decoded = decodeSession(std::string_view(json.constData(), static_cast<std::size_t>(json.size())),
                               &codecError);
  if (!decoded) {
    if (error) *error = source + QStringLiteral(": ") + describe(codecError);
    return std::nullopt;
  }
  Session session;
  session.config = std::move(decoded->config);
  session.lesson = QString::fromStdString(decoded->lesson);
  session.records = std::move(decoded->records);
  return session;
}

bool SessionFile::save(const QString& path, const Session& session, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = SessionFile::tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  const QByteArray json = toJson(session);
  if (file.write(json) != json.size() || !file.commit()) {
    if (error) *error = SessionFile::tr("Cannot write %1: %2").arg(path, file.errorString());
    file.cancelWriting();
    return false;
  }
  return true;
}

std::optional<Session> SessionFile::open(const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = SessionFile::tr("Cannot open %1: %2").arg(path, file.errorString());
    return std::nullopt;
  }
  return fromJson(file.readAll(), QFileInfo(path).fileName(), error);
}

}  // namespace ampscope::ui
