#include "ui/session/session_file.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
    case Kind::Cancelled: return tr("opening was cancelled");
  }
  return QString::fromStdString(e.text());
}

QByteArray SessionFile::toJson(const Session& session) {
  return QByteArray::fromStdString(encodeSession(session.config, session.lesson.toStdString(), session.records, session.followed));
}

std::optional<Session> SessionFile::fromJson(const QByteArray& json, const QString& source, QString* error,
                                             const ProgressHook& progress) {
  SessionError codecError;
  SessionDecodeProgress decodeProgress;
  if (progress) {
    decodeProgress = [&progress, size = json.size()](std::size_t bytesParsed, std::size_t records) {
      return progress({size, size, static_cast<qint64>(bytesParsed), static_cast<qint64>(records)});
    };
  }
  auto decoded = decodeSession(std::string_view(json.constData(), static_cast<std::size_t>(json.size())),
                               &codecError, decodeProgress);
  if (!decoded) {
    if (error) *error = source + QStringLiteral(": ") + describe(codecError);
    return std::nullopt;
  }
  Session session;
  session.config = std::move(decoded->config);
  session.lesson = QString::fromStdString(decoded->lesson);
  session.records = std::move(decoded->records);
  session.followed = std::move(decoded->followed);
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

std::optional<Session> SessionFile::open(const QString& path, QString* error, const ProgressHook& progress) {
  const auto fail = [&](const QString& reason) -> std::optional<Session> {
    if (error) *error = SessionFile::tr("Cannot open %1: %2").arg(path, reason);
    return std::nullopt;
  };
  // O_NONBLOCK: opening a named pipe would otherwise wait for a writer. The type is then read from the
  // open descriptor, so what is checked is what is read.
  const QByteArray native = QFile::encodeName(path);
  const int fd = ::open(native.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    QFile file(path);
    file.open(QIODevice::ReadOnly);
    return fail(file.errorString());
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    ::close(fd);
    return fail(QString::fromLocal8Bit(std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    if (S_ISDIR(info.st_mode)) return fail(tr("it is a folder, not a session file"));
    if (S_ISFIFO(info.st_mode)) return fail(tr("it is a named pipe, not a session file"));
    return fail(tr("it is not a regular file (a device or a socket), not a session file"));
  }
  if (info.st_size > kMaxBytes) {
    ::close(fd);
    return fail(tr("the file holds %1 MiB; a session may hold at most %2 MiB")
                    .arg(static_cast<double>(info.st_size) / (1024.0 * 1024.0), 0, 'f', 1)
                    .arg(kMaxBytes / (1024 * 1024)));
  }
  QFile file;
  if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
    ::close(fd);
    return fail(file.errorString());
  }
  // Read in chunks, to report progress and to be cancelled. The size may grow between fstat and the
  // read: never read past the bound.
  constexpr qint64 kChunk = qint64{4} * 1024 * 1024;
  const qint64 fileBytes = static_cast<qint64>(info.st_size);
  QByteArray json;
  json.reserve(fileBytes + 1);
  for (;;) {
    const qint64 at = json.size();
    // Up to the size fstat gave, so the buffer is allocated once; past it only when the file grew.
    if (at >= fileBytes && file.atEnd()) break;
    const qint64 want = std::min(at < fileBytes ? std::min(kChunk, fileBytes - at) : kChunk, kMaxBytes + 1 - at);
    if (want <= 0) break;
    json.resize(at + want);
    const qint64 got = file.read(json.data() + at, want);
    json.resize(at + std::max<qint64>(got, 0));
    if (got < 0 || file.error() != QFileDevice::NoError) return fail(file.errorString());
    if (got == 0) break;
    if (progress && !progress({std::max(fileBytes, json.size()), json.size(), 0, 0})) {
      return fail(tr("opening was cancelled"));
    }
  }
  if (json.size() > kMaxBytes) {
    return fail(tr("the file holds more than %1 MiB, the most a session may hold").arg(kMaxBytes / (1024 * 1024)));
  }
  file.close();
  return fromJson(json, QFileInfo(path).fileName(), error, progress);
}

}  // namespace ampscope::ui
