#include "ui/session/session_file.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>
#include <QSaveFile>
#include <cmath>
#include <limits>

#include "ampscope/engine/version.h"

namespace ampscope::ui {

const char* const SessionFile::kFormat = "ampscope-session";
const char* const SessionFile::kSuffix = "ampscope";

namespace {

// A field that does not read: where (a path like "records[3].modes[0].loss") and why.
struct FieldError {
  QString path;
  QString message;
};

// JSON has no NaN/Inf: they travel as the strings "nan", "inf", "-inf".
QJsonValue encodeDouble(double value) {
  if (std::isnan(value)) return QStringLiteral("nan");
  if (std::isinf(value)) return value > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return value;
}

QJsonObject countsToJson(const RoundingCounts& c) {
  return QJsonObject{{"elements", qint64(c.elements)},
                     {"flushed-to-zero", qint64(c.flushedToZero)},
                     {"subnormal", qint64(c.subnormal)},
                     {"overflowed", qint64(c.overflowed)},
                     {"nan", qint64(c.nan)}};
}

QJsonObject histogramToJson(const ExponentHistogram& h) {
  QJsonArray bins;
  for (int e = ExponentHistogram::kMinExponent; e <= ExponentHistogram::kMaxExponent; ++e) {
    if (h.countAt(e) != 0) bins.append(QJsonArray{e, qint64(h.countAt(e))});
  }
  return QJsonObject{{"bins", bins},
                     {"zero", qint64(h.zero)},
                     {"pos-inf", qint64(h.posInf)},
                     {"neg-inf", qint64(h.negInf)},
                     {"nan", qint64(h.nan)},
                     {"target-subnormal", qint64(h.targetSubnormal)},
                     {"target-underflow", qint64(h.targetUnderflow)}};
}

bool anyCounts(const RoundingCounts& c) {
  return c.elements != 0 || c.flushedToZero != 0 || c.subnormal != 0 || c.overflowed != 0 || c.nan != 0;
}

// Reading: every accessor names the full path of the field it could not read.
QString at(const QString& path, const QString& key) { return path.isEmpty() ? key : path + "." + key; }
QString at(const QString& path, int index) { return path + "[" + QString::number(index) + "]"; }

QJsonValue required(const QJsonObject& o, const QString& path, const char* key) {
  const auto it = o.constFind(QLatin1String(key));
  if (it == o.constEnd()) throw FieldError{at(path, key), SessionFile::tr("missing")};
  return *it;
}

double readDouble(const QJsonValue& v, const QString& path) {
  if (v.isDouble()) return v.toDouble();
  if (v.isString()) {
    const QString s = v.toString();
    if (s == QLatin1String("nan")) return std::numeric_limits<double>::quiet_NaN();
    if (s == QLatin1String("inf")) return std::numeric_limits<double>::infinity();
    if (s == QLatin1String("-inf")) return -std::numeric_limits<double>::infinity();
  }
  throw FieldError{path, SessionFile::tr("expected a number or \"nan\", \"inf\", \"-inf\"")};
}

double readDouble(const QJsonObject& o, const QString& path, const char* key) {
  return readDouble(required(o, path, key), at(path, key));
}

int64_t readInt(const QJsonValue& v, const QString& path) {
  // Integers are written as JSON integers; a fraction or a value beyond 2^63 is a damaged file.
  if (!v.isDouble()) throw FieldError{path, SessionFile::tr("expected an integer")};
  const double d = v.toDouble();
  if (!std::isfinite(d) || d != std::floor(d) || std::abs(d) > 9.2e18) {
    throw FieldError{path, SessionFile::tr("expected an integer")};
  }
  return v.toInteger(static_cast<qint64>(d));
}

int64_t readInt(const QJsonObject& o, const QString& path, const char* key) {
  return readInt(required(o, path, key), at(path, key));
}

int64_t readCount(const QJsonObject& o, const QString& path, const char* key) {
  const int64_t value = readInt(o, path, key);
  if (value < 0) throw FieldError{at(path, key), SessionFile::tr("must not be negative")};
  return value;
}

bool readBool(const QJsonObject& o, const QString& path, const char* key) {
  const QJsonValue v = required(o, path, key);
  if (!v.isBool()) throw FieldError{at(path, key), SessionFile::tr("expected true or false")};
  return v.toBool();
}

QString readString(const QJsonObject& o, const QString& path, const char* key) {
  const QJsonValue v = required(o, path, key);
  if (!v.isString()) throw FieldError{at(path, key), SessionFile::tr("expected a string")};
  return v.toString();
}

QJsonObject readObject(const QJsonValue& v, const QString& path) {
  if (!v.isObject()) throw FieldError{path, SessionFile::tr("expected an object")};
  return v.toObject();
}

QJsonArray readArray(const QJsonValue& v, const QString& path) {
  if (!v.isArray()) throw FieldError{path, SessionFile::tr("expected an array")};
  return v.toArray();
}

PrecisionMode readMode(const QJsonObject& o, const QString& path, const char* key) {
  const QString name = readString(o, path, key);
  const auto mode = parseMode(name.toStdString());
  if (!mode) throw FieldError{at(path, key), SessionFile::tr("unknown precision mode '%1'").arg(name)};
  return *mode;
}

RoundingCounts countsFromJson(const QJsonValue& v, const QString& path) {
  const QJsonObject o = readObject(v, path);
  RoundingCounts c;
  c.elements = readCount(o, path, "elements");
  c.flushedToZero = readCount(o, path, "flushed-to-zero");
  c.subnormal = readCount(o, path, "subnormal");
  c.overflowed = readCount(o, path, "overflowed");
  c.nan = readCount(o, path, "nan");
  return c;
}

ExponentHistogram histogramFromJson(const QJsonValue& v, const QString& path) {
  const QJsonObject o = readObject(v, path);
  ExponentHistogram h;
  const QJsonArray bins = readArray(required(o, path, "bins"), at(path, "bins"));
  for (int i = 0; i < bins.size(); ++i) {
    const QString binPath = at(at(path, "bins"), i);
    const QJsonArray pair = readArray(bins[i], binPath);
    if (pair.size() != 2) throw FieldError{binPath, SessionFile::tr("expected [exponent, count]")};
    const int64_t exponent = readInt(pair[0], binPath + "[0]");
    if (exponent < ExponentHistogram::kMinExponent || exponent > ExponentHistogram::kMaxExponent) {
      throw FieldError{binPath + "[0]", SessionFile::tr("exponent %1 is outside [%2, %3]")
                                            .arg(exponent)
                                            .arg(ExponentHistogram::kMinExponent)
                                            .arg(ExponentHistogram::kMaxExponent)};
    }
    const int64_t count = readInt(pair[1], binPath + "[1]");
    if (count < 0) throw FieldError{binPath + "[1]", SessionFile::tr("must not be negative")};
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

RunConfig configFromJson(const QJsonValue& v, const QString& path) {
  const QJsonObject o = readObject(v, path);
  RunConfig c;
  const QString model = readString(o, path, "model");
  const auto kind = parseModel(model.toStdString());
  if (!kind) throw FieldError{at(path, "model"), SessionFile::tr("unknown model '%1'").arg(model)};
  c.model = *kind;
  c.modes.clear();
  const QJsonArray modes = readArray(required(o, path, "modes"), at(path, "modes"));
  for (int i = 0; i < modes.size(); ++i) {
    const QString name = modes[i].toString();
    const auto mode = parseMode(name.toStdString());
    if (!mode) throw FieldError{at(at(path, "modes"), i), SessionFile::tr("unknown precision mode '%1'").arg(name)};
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
  const QString scalerPath = at(path, "scaler");
  const QJsonObject scaler = readObject(required(o, path, "scaler"), scalerPath);
  c.scaler.initScale = readDouble(scaler, scalerPath, "init-scale");
  c.scaler.growthFactor = readDouble(scaler, scalerPath, "growth-factor");
  c.scaler.backoffFactor = readDouble(scaler, scalerPath, "backoff-factor");
  c.scaler.growthInterval = readInt(scaler, scalerPath, "growth-interval");
  c.scaler.enabled = readBool(scaler, scalerPath, "enabled");
  c.scalerForPureFp16 = readBool(o, path, "scaler-for-pure-fp16");
  const QString clipPath = at(path, "clip");
  const QJsonObject clip = readObject(required(o, path, "clip"), clipPath);
  const QString order = readString(clip, clipPath, "order");
  const auto clipOrder = parseClipOrder(order.toStdString());
  if (!clipOrder) throw FieldError{at(clipPath, "order"), SessionFile::tr("unknown clipping order '%1'").arg(order)};
  c.clipOrder = *clipOrder;
  c.clipMaxNorm = readDouble(clip, clipPath, "max-norm");
  c.instrumentEvery = readInt(o, path, "instrument-every");
  const int64_t threads = readInt(o, path, "threads");
  if (threads < 1 || threads > 1024) throw FieldError{at(path, "threads"), SessionFile::tr("must be in [1, 1024]")};
  c.threadsPerMode = static_cast<int>(threads);
  const auto errors = validate(c);
  if (!errors.empty()) {
    throw FieldError{at(path, QString::fromStdString(errors.front().field)),
                     QString::fromStdString(errors.front().message)};
  }
  return c;
}

ModeStep modeStepFromJson(const QJsonValue& v, const QString& path) {
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
    const QString listPath = at(path, "rounding-points");
    const QJsonArray points = readArray(o["rounding-points"], listPath);
    for (int i = 0; i < points.size(); ++i) {
      const QString p = at(listPath, i);
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
    const QString listPath = at(path, "tensors");
    const QJsonArray tensors = readArray(o["tensors"], listPath);
    for (int i = 0; i < tensors.size(); ++i) {
      const QString p = at(listPath, i);
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

QJsonObject SessionFile::configToJson(const RunConfig& c) {
  QJsonArray modes;
  for (PrecisionMode mode : c.modes) modes.append(QString::fromStdString(modeName(mode)));
  return QJsonObject{
      {"model", QString::fromStdString(modelName(c.model))},
      {"modes", modes},
      {"optimizer", QString::fromStdString(optimizerName(c.optimizer))},
      {"lr", encodeDouble(c.lr)},
      {"momentum", encodeDouble(c.momentum)},
      {"weight-decay", encodeDouble(c.weightDecay)},
      {"adam-eps", encodeDouble(c.adamEps)},
      {"batch", qint64(c.batchSize)},
      // A seed above 2^63 does not fit a JSON integer reader; the UI's seeds are far below.
      {"seed", qint64(c.seed)},
      {"steps", qint64(c.steps)},
      {"loss-weight", encodeDouble(c.lossWeight)},
      {"scaler", QJsonObject{{"init-scale", encodeDouble(c.scaler.initScale)},
                             {"growth-factor", encodeDouble(c.scaler.growthFactor)},
                             {"backoff-factor", encodeDouble(c.scaler.backoffFactor)},
                             {"growth-interval", qint64(c.scaler.growthInterval)},
                             {"enabled", c.scaler.enabled}}},
      {"scaler-for-pure-fp16", c.scalerForPureFp16},
      {"clip", QJsonObject{{"order", QString::fromStdString(clipOrderName(c.clipOrder))},
                           {"max-norm", encodeDouble(c.clipMaxNorm)}}},
      {"instrument-every", qint64(c.instrumentEvery)},
      {"threads", c.threadsPerMode},
  };
}

QJsonObject SessionFile::modeStepToJson(const ModeStep& s) {
  QJsonObject o{
      {"mode", QString::fromStdString(modeName(s.mode))},
      {"step", qint64(s.step)},
      {"loss", encodeDouble(s.loss)},
      {"loss-scale", encodeDouble(s.lossScale)},
      {"skipped", s.skipped},
      {"found-inf", s.foundInf},
      {"grad-norm-before-clip", encodeDouble(s.gradNormBeforeClip)},
      {"grad-norm-after-clip", encodeDouble(s.gradNormAfterClip)},
      {"clip-norm-seen", encodeDouble(s.clipNormSeen)},
      {"lr", encodeDouble(s.lr)},
      {"step-time-ms", encodeDouble(s.stepTimeMs)},
      {"current-bytes", qint64(s.currentBytes)},
      {"peak-bytes", qint64(s.peakBytes)},
      {"diverged", s.diverged},
      {"instrumented", s.instrumented},
  };
  if (s.instrumented || anyCounts(s.rounding)) o["rounding"] = countsToJson(s.rounding);
  if (!s.roundingPoints.empty()) {
    QJsonArray points;
    for (const auto& p : s.roundingPoints) {
      points.append(QJsonObject{{"name", QString::fromStdString(p.name)},
                                {"layer", QString::fromStdString(p.layer)},
                                {"backward", p.backward},
                                {"counts", countsToJson(p.counts)}});
    }
    o["rounding-points"] = points;
  }
  if (!s.tensors.empty()) {
    QJsonArray tensors;
    for (const auto& t : s.tensors) {
      tensors.append(QJsonObject{{"name", QString::fromStdString(t.name)},
                                 {"is-parameter", t.isParameter},
                                 {"numel", qint64(t.numel)},
                                 {"scaled", histogramToJson(t.scaled)},
                                 {"unscaled", histogramToJson(t.unscaled)}});
    }
    o["tensors"] = tensors;
  }
  return o;
}

QByteArray SessionFile::toJson(const Session& session) {
  QJsonArray records;
  for (const auto& record : session.records) {
    QJsonArray modes;
    for (const auto& step : record.modes) modes.append(modeStepToJson(step));
    records.append(QJsonObject{{"step", qint64(record.step)}, {"modes", modes}});
  }
  const QJsonObject root{
      {"format", QLatin1String(kFormat)},
      {"version", kVersion},
      {"app", QStringLiteral("AmpScope %1").arg(QString::fromStdString(ampscopeVersion()))},
      {"lesson", session.lesson},
      {"config", configToJson(session.config)},
      {"records", records},
  };
  // Compact: a long run has tens of thousands of records. Each record still starts on its own line
  // would be nicer for diffs, but QJsonDocument offers only compact or fully indented.
  return QJsonDocument(root).toJson(QJsonDocument::Compact);
}

std::optional<Session> SessionFile::fromJson(const QByteArray& json, const QString& source,
                                             QString* error) {
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
  if (!doc.isObject()) return fail(SessionFile::tr("not an AmpScope session (the top level is not a JSON object)"));
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
    return fail(SessionFile::tr("written by a newer AmpScope (session format version %1; this AmpScope reads up to "
                   "version %2). Update AmpScope to open it.")
                    .arg(version.toInteger())
                    .arg(kVersion));
  }
  try {
    Session session;
    if (root.contains(QLatin1String("lesson"))) {
      session.lesson = readString(root, QString(), "lesson");
    }
    session.config = configFromJson(required(root, QString(), "config"), QStringLiteral("config"));
    const QJsonArray records = readArray(required(root, QString(), "records"), QStringLiteral("records"));
    session.records.reserve(static_cast<size_t>(records.size()));
    int64_t previous = 0;
    for (int i = 0; i < records.size(); ++i) {
      const QString path = at(QStringLiteral("records"), i);
      const QJsonObject ro = readObject(records[i], path);
      StepRecord record;
      record.step = readInt(ro, path, "step");
      if (record.step <= previous) {
        throw FieldError{at(path, "step"), SessionFile::tr("steps must increase (step %1 after %2)")
                                               .arg(record.step)
                                               .arg(previous)};
      }
      previous = record.step;
      const QJsonArray modes = readArray(required(ro, path, "modes"), at(path, "modes"));
      for (int m = 0; m < modes.size(); ++m) {
        record.modes.push_back(modeStepFromJson(modes[m], at(at(path, "modes"), m)));
      }
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
