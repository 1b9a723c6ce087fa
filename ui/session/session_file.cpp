#include "ui/session/session_file.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <QSaveFile>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ampscope/engine/version.h"

namespace ampscope::ui {

const char* const SessionFile::kFormat = "ampscope-session";
const char* const SessionFile::kSuffix = "ampscope";

namespace {

// Where a field is: a chain of keys and indices ("records[3].modes[0].loss"), built as text only when
// an error names it (building it for every field read tripled the time to open a long session).
class Path {
 public:
  Path() = default;  // the document's root
  Path(const Path& parent, const char* key) : parent_(&parent), key_(key) {}
  Path(const Path& parent, int index) : parent_(&parent), index_(index) {}
  QString str() const {
    const QString head = parent_ ? parent_->str() : QString();
    if (key_)
      return head.isEmpty() ? QString::fromLatin1(key_) : head + QLatin1Char('.') + QLatin1String(key_);
    if (index_ >= 0) return head + QLatin1Char('[') + QString::number(index_) + QLatin1Char(']');
    return head;
  }

 private:
  const Path* parent_ = nullptr;
  const char* key_ = nullptr;
  int index_ = -1;
};

// A field that does not read: where (a path like "records[3].modes[0].loss") and why.
struct FieldError {
  FieldError(const Path& where, QString why) : path(where.str()), message(std::move(why)) {}
  FieldError(QString where, QString why) : path(std::move(where)), message(std::move(why)) {}
  QString path;
  QString message;
};

// The writer appends JSON text directly (QJsonObject costs ~10x more, and autosave runs on the GUI
// thread). Keys are written in a fixed order, so the same session always gives the same bytes.

// JSON has no NaN/Inf: they travel as the strings "nan", "inf", "-inf". Finite values use the shortest
// text that reads back as the same double (std::to_chars).
void putDouble(QByteArray& out, double value) {
  if (std::isnan(value)) {
    out += "\"nan\"";
  } else if (std::isinf(value)) {
    out += value > 0 ? "\"inf\"" : "\"-inf\"";
  } else {
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, static_cast<int>(result.ptr - buffer));
  }
}

void putInt(QByteArray& out, int64_t value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, static_cast<int>(result.ptr - buffer));
}

void putBool(QByteArray& out, bool value) { out += value ? "true" : "false"; }

void putString(QByteArray& out, const QByteArray& utf8) {
  out += '"';
  for (char c : utf8) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", u);
      out += escape;
    } else {
      out += c;
    }
  }
  out += '"';
}

void putString(QByteArray& out, const std::string& text) { putString(out, QByteArray::fromStdString(text)); }

// `"key":` with a leading comma unless it is the first member.
void putKey(QByteArray& out, const char* key, bool first = false) {
  if (!first) out += ',';
  out += '"';
  out += key;
  out += "\":";
}

void putCounts(QByteArray& out, const RoundingCounts& c) {
  out += '{';
  putKey(out, "elements", true);
  putInt(out, c.elements);
  putKey(out, "flushed-to-zero");
  putInt(out, c.flushedToZero);
  putKey(out, "subnormal");
  putInt(out, c.subnormal);
  putKey(out, "overflowed");
  putInt(out, c.overflowed);
  putKey(out, "nan");
  putInt(out, c.nan);
  out += '}';
}

void putHistogram(QByteArray& out, const ExponentHistogram& h) {
  out += "{\"bins\":[";
  bool first = true;
  for (int e = ExponentHistogram::kMinExponent; e <= ExponentHistogram::kMaxExponent; ++e) {
    const int64_t count = h.countAt(e);
    if (count == 0) continue;
    if (!first) out += ',';
    first = false;
    out += '[';
    putInt(out, e);
    out += ',';
    putInt(out, count);
    out += ']';
  }
  out += ']';
  putKey(out, "zero");
  putInt(out, h.zero);
  putKey(out, "pos-inf");
  putInt(out, h.posInf);
  putKey(out, "neg-inf");
  putInt(out, h.negInf);
  putKey(out, "nan");
  putInt(out, h.nan);
  putKey(out, "target-subnormal");
  putInt(out, h.targetSubnormal);
  putKey(out, "target-underflow");
  putInt(out, h.targetUnderflow);
  out += '}';
}

bool anyCounts(const RoundingCounts& c) {
  return c.elements != 0 || c.flushedToZero != 0 || c.subnormal != 0 || c.overflowed != 0 || c.nan != 0;
}

// Reading: every accessor names the full path of the field it could not read.
// The returned Path refers to `path`: use it within the full expression, or keep `path` alive.
Path at(const Path& path, const char* key) { return Path(path, key); }
Path at(const Path& path, int index) { return Path(path, index); }

QJsonValue required(const QJsonObject& o, const Path& path, const char* key) {
  const auto it = o.constFind(QLatin1String(key));
  if (it == o.constEnd()) throw FieldError{at(path, key), SessionFile::tr("missing")};
  return *it;
}

double readDouble(const QJsonValue& v, const Path& path) {
  if (v.isDouble()) return v.toDouble();
  if (v.isString()) {
    const QString s = v.toString();
    if (s == QLatin1String("nan")) return std::numeric_limits<double>::quiet_NaN();
    if (s == QLatin1String("inf")) return std::numeric_limits<double>::infinity();
    if (s == QLatin1String("-inf")) return -std::numeric_limits<double>::infinity();
  }
  throw FieldError{path, SessionFile::tr("expected a number or \"nan\", \"inf\", \"-inf\"")};
}

double readDouble(const QJsonObject& o, const Path& path, const char* key) {
  return readDouble(required(o, path, key), at(path, key));
}

int64_t readInt(const QJsonValue& v, const Path& path) {
  // Integers are written as JSON integers; a fraction or a value beyond 2^63 is a damaged file.
  if (!v.isDouble()) throw FieldError{path, SessionFile::tr("expected an integer")};
  const double d = v.toDouble();
  if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9.2e18) {
    throw FieldError{path, SessionFile::tr("expected an integer")};
  }
  return v.toInteger(static_cast<qint64>(d));
}

int64_t readInt(const QJsonObject& o, const Path& path, const char* key) {
  return readInt(required(o, path, key), at(path, key));
}

int64_t readCount(const QJsonObject& o, const Path& path, const char* key) {
  const int64_t value = readInt(o, path, key);
  if (value < 0) throw FieldError{at(path, key), SessionFile::tr("must not be negative")};
  return value;
}

bool readBool(const QJsonObject& o, const Path& path, const char* key) {
  const QJsonValue v = required(o, path, key);
  if (!v.isBool()) throw FieldError{at(path, key), SessionFile::tr("expected true or false")};
  return v.toBool();
}

QString readString(const QJsonObject& o, const Path& path, const char* key) {
  const QJsonValue v = required(o, path, key);
  if (!v.isString()) throw FieldError{at(path, key), SessionFile::tr("expected a string")};
  return v.toString();
}

QJsonObject readObject(const QJsonValue& v, const Path& path) {
  if (!v.isObject()) throw FieldError{path, SessionFile::tr("expected an object")};
  return v.toObject();
}

QJsonArray readArray(const QJsonValue& v, const Path& path) {
  if (!v.isArray()) throw FieldError{path, SessionFile::tr("expected an array")};
  return v.toArray();
}

PrecisionMode readMode(const QJsonObject& o, const Path& path, const char* key) {
  const QString name = readString(o, path, key);
  const auto mode = parseMode(name.toStdString());
  if (!mode) throw FieldError{at(path, key), SessionFile::tr("unknown precision mode '%1'").arg(name)};
  return *mode;
}

RoundingCounts countsFromJson(const QJsonValue& v, const Path& path) {
  const QJsonObject o = readObject(v, path);
  RoundingCounts c;
  c.elements = readCount(o, path, "elements");
  c.flushedToZero = readCount(o, path, "flushed-to-zero");
  c.subnormal = readCount(o, path, "subnormal");
  c.overflowed = readCount(o, path, "overflowed");
  c.nan = readCount(o, path, "nan");
  return c;
}

ExponentHistogram histogramFromJson(const QJsonValue& v, const Path& path) {
  const QJsonObject o = readObject(v, path);
  ExponentHistogram h;
  const Path binsPath = at(path, "bins");
  const QJsonArray bins = readArray(required(o, path, "bins"), binsPath);
  for (int i = 0; i < bins.size(); ++i) {
    const Path binPath = at(binsPath, i);
    const QJsonArray pair = readArray(bins[i], binPath);
    if (pair.size() != 2) throw FieldError{binPath, SessionFile::tr("expected [exponent, count]")};
    const int64_t exponent = readInt(pair[0], at(binPath, 0));
    if (exponent < ExponentHistogram::kMinExponent || exponent > ExponentHistogram::kMaxExponent) {
      throw FieldError{at(binPath, 0), SessionFile::tr("exponent %1 is outside [%2, %3]")
                                           .arg(exponent)
                                           .arg(ExponentHistogram::kMinExponent)
                                           .arg(ExponentHistogram::kMaxExponent)};
    }
    const int64_t count = readInt(pair[1], at(binPath, 1));
    if (count < 0) throw FieldError{at(binPath, 1), SessionFile::tr("must not be negative")};
    h.counts[static_cast<size_t>(exponent - ExponentHistogram::kMinExponent)] = count;
  }
  h.zero = readCount(o, path, "zero");
  h.posInf = readCount(o, path, "pos-inf");
  h.negInf = readCount(o, path, "neg-inf");
  h.nan = readCount(o, path, "nan");
  h.targetSubnormal = readCount(o, path, "target-subnormal");
  h.targetUnderflow = readCount(o, path, "target-underflow");
  return h;
}

RunConfig configFromJson(const QJsonValue& v, const Path& path) {
  const QJsonObject o = readObject(v, path);
  RunConfig c;
  const QString model = readString(o, path, "model");
  const auto kind = parseModel(model.toStdString());
  if (!kind) throw FieldError{at(path, "model"), SessionFile::tr("unknown model '%1'").arg(model)};
  c.model = *kind;
  c.modes.clear();
  const Path modesPath = at(path, "modes");
  const QJsonArray modes = readArray(required(o, path, "modes"), modesPath);
  for (int i = 0; i < modes.size(); ++i) {
    const QString name = modes[i].toString();
    const auto mode = parseMode(name.toStdString());
    if (!mode) throw FieldError{at(modesPath, i), SessionFile::tr("unknown precision mode '%1'").arg(name)};
    c.modes.push_back(*mode);
  }
  const QString optimizer = readString(o, path, "optimizer");
  const auto opt = parseOptimizer(optimizer.toStdString());
  if (!opt) throw FieldError{at(path, "optimizer"), SessionFile::tr("unknown optimizer '%1'").arg(optimizer)};
  c.optimizer = *opt;
  c.lr = readDouble(o, path, "lr");
  c.momentum = readDouble(o, path, "momentum");
  c.weightDecay = readDouble(o, path, "weight-decay");
  c.adamEps = readDouble(o, path, "adam-eps");
  c.batchSize = readInt(o, path, "batch");
  const int64_t seed = readInt(o, path, "seed");
  if (seed < 0) throw FieldError{at(path, "seed"), SessionFile::tr("must not be negative")};
  c.seed = static_cast<uint64_t>(seed);
  c.steps = readInt(o, path, "steps");
  c.lossWeight = readDouble(o, path, "loss-weight");
  const Path scalerPath = at(path, "scaler");
  const QJsonObject scaler = readObject(required(o, path, "scaler"), scalerPath);
  c.scaler.initScale = readDouble(scaler, scalerPath, "init-scale");
  c.scaler.growthFactor = readDouble(scaler, scalerPath, "growth-factor");
  c.scaler.backoffFactor = readDouble(scaler, scalerPath, "backoff-factor");
  c.scaler.growthInterval = readInt(scaler, scalerPath, "growth-interval");
  c.scaler.enabled = readBool(scaler, scalerPath, "enabled");
  c.scalerForPureFp16 = readBool(o, path, "scaler-for-pure-fp16");
  const Path clipPath = at(path, "clip");
  const QJsonObject clip = readObject(required(o, path, "clip"), clipPath);
  const QString order = readString(clip, clipPath, "order");
  const auto clipOrder = parseClipOrder(order.toStdString());
  if (!clipOrder)
    throw FieldError{at(clipPath, "order"), SessionFile::tr("unknown clipping order '%1'").arg(order)};
  c.clipOrder = *clipOrder;
  c.clipMaxNorm = readDouble(clip, clipPath, "max-norm");
  c.instrumentEvery = readInt(o, path, "instrument-every");
  const int64_t threads = readInt(o, path, "threads");
  if (threads < 1 || threads > 1024)
    throw FieldError{at(path, "threads"), SessionFile::tr("must be in [1, 1024]")};
  c.threadsPerMode = static_cast<int>(threads);
  const auto errors = validate(c);
  if (!errors.empty()) {
    throw FieldError{path.str() + QLatin1Char('.') + QString::fromStdString(errors.front().field),
                     QString::fromStdString(errors.front().message)};
  }
  return c;
}

ModeStep modeStepFromJson(const QJsonValue& v, const Path& path) {
  const QJsonObject o = readObject(v, path);
  ModeStep s;
  s.mode = readMode(o, path, "mode");
  s.step = readInt(o, path, "step");
  s.loss = readDouble(o, path, "loss");
  s.lossScale = readDouble(o, path, "loss-scale");
  s.skipped = readBool(o, path, "skipped");
  s.foundInf = readBool(o, path, "found-inf");
  s.gradNormBeforeClip = readDouble(o, path, "grad-norm-before-clip");
  s.gradNormAfterClip = readDouble(o, path, "grad-norm-after-clip");
  s.clipNormSeen = readDouble(o, path, "clip-norm-seen");
  s.lr = readDouble(o, path, "lr");
  s.stepTimeMs = readDouble(o, path, "step-time-ms");
  s.currentBytes = readInt(o, path, "current-bytes");
  s.peakBytes = readInt(o, path, "peak-bytes");
  s.diverged = readBool(o, path, "diverged");
  s.instrumented = readBool(o, path, "instrumented");
  if (o.contains(QLatin1String("rounding"))) s.rounding = countsFromJson(o["rounding"], at(path, "rounding"));
  if (o.contains(QLatin1String("rounding-points"))) {
    const Path listPath = at(path, "rounding-points");
    const QJsonArray points = readArray(o["rounding-points"], listPath);
    for (int i = 0; i < points.size(); ++i) {
      const Path p = at(listPath, i);
      const QJsonObject po = readObject(points[i], p);
      RoundingPointStats point;
      point.name = readString(po, p, "name").toStdString();
      point.layer = readString(po, p, "layer").toStdString();
      point.backward = readBool(po, p, "backward");
      point.counts = countsFromJson(required(po, p, "counts"), at(p, "counts"));
      s.roundingPoints.push_back(std::move(point));
    }
  }
  if (o.contains(QLatin1String("tensors"))) {
    const Path listPath = at(path, "tensors");
    const QJsonArray tensors = readArray(o["tensors"], listPath);
    for (int i = 0; i < tensors.size(); ++i) {
      const Path p = at(listPath, i);
      const QJsonObject to = readObject(tensors[i], p);
      TensorStats tensor;
      tensor.name = readString(to, p, "name").toStdString();
      tensor.isParameter = readBool(to, p, "is-parameter");
      tensor.numel = readCount(to, p, "numel");
      tensor.scaled = histogramFromJson(required(to, p, "scaled"), at(p, "scaled"));
      tensor.unscaled = histogramFromJson(required(to, p, "unscaled"), at(p, "unscaled"));
      s.tensors.push_back(std::move(tensor));
    }
  }
  return s;
}

// 1-based line and column of a byte offset, for parse errors a user can find in an editor.
QString lineColumn(const QByteArray& json, int offset) {
  int line = 1;
  int column = 1;
  for (int i = 0; i < offset && i < json.size(); ++i) {
    if (json[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return SessionFile::tr("line %1, column %2").arg(line).arg(column);
}

}  // namespace

void SessionFile::appendConfigJson(QByteArray& out, const RunConfig& c) {
  out += '{';
  putKey(out, "model", true);
  putString(out, modelName(c.model));
  putKey(out, "modes");
  out += '[';
  for (size_t i = 0; i < c.modes.size(); ++i) {
    if (i > 0) out += ',';
    putString(out, modeName(c.modes[i]));
  }
  out += ']';
  putKey(out, "optimizer");
  putString(out, optimizerName(c.optimizer));
  putKey(out, "lr");
  putDouble(out, c.lr);
  putKey(out, "momentum");
  putDouble(out, c.momentum);
  putKey(out, "weight-decay");
  putDouble(out, c.weightDecay);
  putKey(out, "adam-eps");
  putDouble(out, c.adamEps);
  putKey(out, "batch");
  putInt(out, c.batchSize);
  // A seed above 2^63 would not read back as a JSON integer; the UI's seeds are far below.
  putKey(out, "seed");
  putInt(out, static_cast<int64_t>(c.seed));
  putKey(out, "steps");
  putInt(out, c.steps);
  putKey(out, "loss-weight");
  putDouble(out, c.lossWeight);
  putKey(out, "scaler");
  out += '{';
  putKey(out, "init-scale", true);
  putDouble(out, c.scaler.initScale);
  putKey(out, "growth-factor");
  putDouble(out, c.scaler.growthFactor);
  putKey(out, "backoff-factor");
  putDouble(out, c.scaler.backoffFactor);
  putKey(out, "growth-interval");
  putInt(out, c.scaler.growthInterval);
  putKey(out, "enabled");
  putBool(out, c.scaler.enabled);
  out += '}';
  putKey(out, "scaler-for-pure-fp16");
  putBool(out, c.scalerForPureFp16);
  putKey(out, "clip");
  out += '{';
  putKey(out, "order", true);
  putString(out, clipOrderName(c.clipOrder));
  putKey(out, "max-norm");
  putDouble(out, c.clipMaxNorm);
  out += '}';
  putKey(out, "instrument-every");
  putInt(out, c.instrumentEvery);
  putKey(out, "threads");
  putInt(out, c.threadsPerMode);
  out += '}';
}

void SessionFile::appendModeStepJson(QByteArray& out, const ModeStep& s) {
  out += '{';
  putKey(out, "mode", true);
  putString(out, modeName(s.mode));
  putKey(out, "step");
  putInt(out, s.step);
  putKey(out, "loss");
  putDouble(out, s.loss);
  putKey(out, "loss-scale");
  putDouble(out, s.lossScale);
  putKey(out, "skipped");
  putBool(out, s.skipped);
  putKey(out, "found-inf");
  putBool(out, s.foundInf);
  putKey(out, "grad-norm-before-clip");
  putDouble(out, s.gradNormBeforeClip);
  putKey(out, "grad-norm-after-clip");
  putDouble(out, s.gradNormAfterClip);
  putKey(out, "clip-norm-seen");
  putDouble(out, s.clipNormSeen);
  putKey(out, "lr");
  putDouble(out, s.lr);
  putKey(out, "step-time-ms");
  putDouble(out, s.stepTimeMs);
  putKey(out, "current-bytes");
  putInt(out, s.currentBytes);
  putKey(out, "peak-bytes");
  putInt(out, s.peakBytes);
  putKey(out, "diverged");
  putBool(out, s.diverged);
  putKey(out, "instrumented");
  putBool(out, s.instrumented);
  if (s.instrumented || anyCounts(s.rounding)) {
    putKey(out, "rounding");
    putCounts(out, s.rounding);
  }
  if (!s.roundingPoints.empty()) {
    putKey(out, "rounding-points");
    out += '[';
    for (size_t i = 0; i < s.roundingPoints.size(); ++i) {
      const auto& p = s.roundingPoints[i];
      if (i > 0) out += ',';
      out += '{';
      putKey(out, "name", true);
      putString(out, p.name);
      putKey(out, "layer");
      putString(out, p.layer);
      putKey(out, "backward");
      putBool(out, p.backward);
      putKey(out, "counts");
      putCounts(out, p.counts);
      out += '}';
    }
    out += ']';
  }
  if (!s.tensors.empty()) {
    putKey(out, "tensors");
    out += '[';
    for (size_t i = 0; i < s.tensors.size(); ++i) {
      const auto& t = s.tensors[i];
      if (i > 0) out += ',';
      out += '{';
      putKey(out, "name", true);
      putString(out, t.name);
      putKey(out, "is-parameter");
      putBool(out, t.isParameter);
      putKey(out, "numel");
      putInt(out, t.numel);
      putKey(out, "scaled");
      putHistogram(out, t.scaled);
      putKey(out, "unscaled");
      putHistogram(out, t.unscaled);
      out += '}';
    }
    out += ']';
  }
  out += '}';
}

void SessionFile::appendRecordJson(QByteArray& out, const StepRecord& record) {
  out += "{\"step\":";
  putInt(out, record.step);
  out += ",\"modes\":[";
  for (size_t i = 0; i < record.modes.size(); ++i) {
    if (i > 0) out += ',';
    appendModeStepJson(out, record.modes[i]);
  }
  out += "]}";
}

QByteArray SessionFile::headerJson(const Session& session) {
  QByteArray out;
  out += '{';
  putKey(out, "format", true);
  putString(out, QByteArray(kFormat));
  putKey(out, "version");
  putInt(out, kVersion);
  putKey(out, "app");
  putString(out, "AmpScope " + ampscopeVersion());
  putKey(out, "lesson");
  putString(out, session.lesson.toUtf8());
  putKey(out, "config");
  appendConfigJson(out, session.config);
  putKey(out, "records");
  out += '[';
  return out;
}

void SessionFile::appendString(QByteArray& out, const QString& text) { putString(out, text.toUtf8()); }

QByteArray SessionFile::footerJson() { return QByteArrayLiteral("]}\n"); }

QByteArray SessionFile::toJson(const Session& session) {
  QByteArray out = headerJson(session);
  // One record per line: a long session stays readable in an editor and diffs line by line.
  for (size_t i = 0; i < session.records.size(); ++i) {
    out += i > 0 ? ",\n" : "\n";
    appendRecordJson(out, session.records[i]);
  }
  return out + footerJson();
}

std::optional<Session> SessionFile::fromJson(const QByteArray& json, const QString& source, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = source + ": " + why;
    return std::nullopt;
  };
  if (json.trimmed().isEmpty()) return fail(SessionFile::tr("the file is empty"));
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    return fail(SessionFile::tr("not a valid session file (%1: %2); it may be damaged or cut short")
                    .arg(lineColumn(json, parseError.offset), parseError.errorString()));
  }
  if (!doc.isObject())
    return fail(SessionFile::tr("not an AmpScope session (the top level is not a JSON object)"));
  const QJsonObject root = doc.object();
  const QJsonValue format = root.value(QLatin1String("format"));
  if (format.toString() != QLatin1String(kFormat)) {
    return fail(format.isUndefined()
                    ? SessionFile::tr("not an AmpScope session (no \"format\" field)")
                    : SessionFile::tr("not an AmpScope session (format \"%1\", expected \"%2\")")
                          .arg(format.isString() ? format.toString() : SessionFile::tr("not a string"),
                               QLatin1String(kFormat)));
  }
  const QJsonValue version = root.value(QLatin1String("version"));
  if (!version.isDouble() || version.toDouble() != std::floor(version.toDouble()) || version.toDouble() < 1) {
    return fail(SessionFile::tr("field \"version\": expected a positive integer"));
  }
  if (version.toDouble() > kVersion) {
    return fail(
        SessionFile::tr("written by a newer AmpScope (session format version %1; this AmpScope reads up to "
                        "version %2). Update AmpScope to open it.")
            .arg(version.toInteger())
            .arg(kVersion));
  }
  const Path kRoot;
  try {
    Session session;
    if (root.contains(QLatin1String("lesson"))) {
      session.lesson = readString(root, kRoot, "lesson");
    }
    session.config = configFromJson(required(root, kRoot, "config"), at(kRoot, "config"));
    const Path recordsPath = at(kRoot, "records");
    const QJsonArray records = readArray(required(root, kRoot, "records"), recordsPath);
    session.records.reserve(static_cast<size_t>(records.size()));
    int64_t previous = 0;
    for (int i = 0; i < records.size(); ++i) {
      const Path path = at(recordsPath, i);
      const QJsonObject ro = readObject(records[i], path);
      StepRecord record;
      record.step = readInt(ro, path, "step");
      if (record.step <= previous) {
        throw FieldError{
            at(path, "step"),
            SessionFile::tr("steps must increase (step %1 after %2)").arg(record.step).arg(previous)};
      }
      previous = record.step;
      const Path modesPath = at(path, "modes");
      const QJsonArray modes = readArray(required(ro, path, "modes"), modesPath);
      for (int m = 0; m < modes.size(); ++m)
        record.modes.push_back(modeStepFromJson(modes[m], at(modesPath, m)));
      session.records.push_back(std::move(record));
    }
    return session;
  } catch (const FieldError& e) {
    return fail(SessionFile::tr("field \"%1\": %2").arg(e.path, e.message));
  }
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
