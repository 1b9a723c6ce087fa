#include "ui/lessons/lesson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <cmath>
#include <limits>

namespace ampscope::ui {

namespace {

// Thrown inside the parser, caught in fromJson: names the field (as a dotted path) and the reason.
struct FieldError {
  QString field;
  QString reason;
};

QString join(const QString& path, const QString& key) { return path.isEmpty() ? key : path + u'.' + key; }

void rejectUnknownKeys(const QJsonObject& object, const QString& path, const QStringList& allowed) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (!allowed.contains(it.key())) {
      throw FieldError{join(path, it.key()),
                       QStringLiteral("unknown field (allowed: %1)").arg(allowed.join(QStringLiteral(", ")))};
    }
  }
}

QJsonObject requireObject(const QJsonValue& value, const QString& field) {
  if (!value.isObject()) throw FieldError{field, QStringLiteral("expected an object")};
  return value.toObject();
}

QString requireString(const QJsonValue& value, const QString& field) {
  if (!value.isString() || value.toString().trimmed().isEmpty()) {
    throw FieldError{field, QStringLiteral("expected a non-empty string")};
  }
  return value.toString();
}

double requireNumber(const QJsonValue& value, const QString& field) {
  if (!value.isDouble()) throw FieldError{field, QStringLiteral("expected a number")};
  return value.toDouble();
}

int64_t requireInteger(const QJsonValue& value, const QString& field, int64_t min) {
  const double number = requireNumber(value, field);
  // Beyond 2^53 a JSON number is no longer an exact integer.
  if (number != std::floor(number) || std::fabs(number) > 9007199254740992.0) {
    throw FieldError{field, QStringLiteral("expected a whole number, got %1").arg(number)};
  }
  if (number < static_cast<double>(min)) {
    throw FieldError{field, QStringLiteral("must be at least %1, got %2").arg(min).arg(number)};
  }
  return static_cast<int64_t>(number);
}

bool requireBool(const QJsonValue& value, const QString& field) {
  if (!value.isBool()) throw FieldError{field, QStringLiteral("expected true or false")};
  return value.toBool();
}

// {"en": "...", "zh_CN": "..."}; with `paragraphs` each language may also be an array of paragraphs.
LocalizedText requireLocalized(const QJsonValue& value, const QString& field, bool paragraphs) {
  const QJsonObject object = requireObject(value, field);
  rejectUnknownKeys(object, field, {QStringLiteral("en"), QStringLiteral("zh_CN")});
  auto read = [&](const QString& key) {
    const QString path = join(field, key);
    const QJsonValue v = object.value(key);
    if (v.isUndefined()) throw FieldError{path, QStringLiteral("missing (both en and zh_CN are required)")};
    if (paragraphs && v.isArray()) {
      QStringList parts;
      const QJsonArray array = v.toArray();
      for (qsizetype i = 0; i < array.size(); ++i) {
        parts << requireString(array.at(i), QStringLiteral("%1[%2]").arg(path).arg(i)).trimmed();
      }
      if (parts.isEmpty()) throw FieldError{path, QStringLiteral("expected at least one paragraph")};
      return parts.join(QStringLiteral("\n\n"));
    }
    return requireString(v, path).trimmed();
  };
  return LocalizedText{read(QStringLiteral("en")), read(QStringLiteral("zh_CN"))};
}

QStringList requireStringList(const QJsonValue& value, const QString& field) {
  if (!value.isArray()) throw FieldError{field, QStringLiteral("expected an array of strings")};
  QStringList out;
  const QJsonArray array = value.toArray();
  for (qsizetype i = 0; i < array.size(); ++i) {
    const QString item = requireString(array.at(i), QStringLiteral("%1[%2]").arg(field).arg(i));
    if (out.contains(item)) {
      throw FieldError{QStringLiteral("%1[%2]").arg(field).arg(i),
                       QStringLiteral("'%1' is listed twice").arg(item)};
    }
    out << item;
  }
  return out;
}

template <typename Enum, typename Parse>
Enum requireEnum(const QJsonValue& value, const QString& field, Parse parse, const QStringList& names) {
  const QString name = requireString(value, field);
  const std::optional<Enum> parsed = parse(name.toStdString());
  if (!parsed) {
    throw FieldError{field, QStringLiteral("unknown value '%1' (expected one of: %2)")
                                .arg(name, names.join(QStringLiteral(", ")))};
  }
  return *parsed;
}

QStringList modeNames() {
  QStringList names;
  for (PrecisionMode mode : allPrecisionModes()) names << QString::fromStdString(modeName(mode));
  return names;
}

// Applies the keys of `object` (everything but "model") on top of `config`: used for the lesson's own
// config (over the model's preset) and for a variant's overrides (over the lesson's config).
void applyConfigKeys(const QJsonObject& object, const QString& path, RunConfig& config) {
  rejectUnknownKeys(
      object, path,
      {QStringLiteral("model"), QStringLiteral("modes"), QStringLiteral("optimizer"), QStringLiteral("lr"),
       QStringLiteral("momentum"), QStringLiteral("weight-decay"), QStringLiteral("adam-eps"),
       QStringLiteral("batch"), QStringLiteral("seed"), QStringLiteral("steps"),
       QStringLiteral("loss-weight"), QStringLiteral("instrument-every"), QStringLiteral("threads"),
       QStringLiteral("scaler"), QStringLiteral("scaler-for-pure-fp16"), QStringLiteral("clip")});
  auto has = [&](const char* key) { return object.contains(QLatin1String(key)); };
  auto at = [&](const char* key) { return object.value(QLatin1String(key)); };
  auto field = [&](const char* key) { return join(path, QLatin1String(key)); };

  if (has("modes")) {
    const QStringList names = requireStringList(at("modes"), field("modes"));
    if (names.isEmpty())
      throw FieldError{field("modes"), QStringLiteral("expected at least one precision mode")};
    config.modes.clear();
    for (qsizetype i = 0; i < names.size(); ++i) {
      config.modes.push_back(requireEnum<PrecisionMode>(
          QJsonValue(names[i]), QStringLiteral("%1[%2]").arg(field("modes")).arg(i), parseMode, modeNames()));
    }
  }
  if (has("optimizer")) {
    config.optimizer = requireEnum<OptimizerKind>(at("optimizer"), field("optimizer"), parseOptimizer,
                                                  {QStringLiteral("sgd"), QStringLiteral("adamw")});
  }
  if (has("lr")) config.lr = requireNumber(at("lr"), field("lr"));
  if (has("momentum")) config.momentum = requireNumber(at("momentum"), field("momentum"));
  if (has("weight-decay")) config.weightDecay = requireNumber(at("weight-decay"), field("weight-decay"));
  if (has("adam-eps")) config.adamEps = requireNumber(at("adam-eps"), field("adam-eps"));
  if (has("batch")) config.batchSize = requireInteger(at("batch"), field("batch"), 1);
  if (has("seed")) config.seed = static_cast<uint64_t>(requireInteger(at("seed"), field("seed"), 0));
  if (has("steps")) config.steps = requireInteger(at("steps"), field("steps"), 1);
  if (has("loss-weight")) config.lossWeight = requireNumber(at("loss-weight"), field("loss-weight"));
  if (has("instrument-every")) {
    config.instrumentEvery = requireInteger(at("instrument-every"), field("instrument-every"), 1);
  }
  if (has("threads"))
    config.threadsPerMode = static_cast<int>(requireInteger(at("threads"), field("threads"), 1));
  if (has("scaler-for-pure-fp16")) {
    config.scalerForPureFp16 = requireBool(at("scaler-for-pure-fp16"), field("scaler-for-pure-fp16"));
  }
  if (has("scaler")) {
    const QString scalerPath = field("scaler");
    const QJsonObject scaler = requireObject(at("scaler"), scalerPath);
    rejectUnknownKeys(
        scaler, scalerPath,
        {QStringLiteral("init-scale"), QStringLiteral("growth-factor"), QStringLiteral("backoff-factor"),
         QStringLiteral("growth-interval"), QStringLiteral("enabled")});
    auto sfield = [&](const char* key) { return join(scalerPath, QLatin1String(key)); };
    auto sat = [&](const char* key) { return scaler.value(QLatin1String(key)); };
    if (scaler.contains(QLatin1String("init-scale")))
      config.scaler.initScale = requireNumber(sat("init-scale"), sfield("init-scale"));
    if (scaler.contains(QLatin1String("growth-factor")))
      config.scaler.growthFactor = requireNumber(sat("growth-factor"), sfield("growth-factor"));
    if (scaler.contains(QLatin1String("backoff-factor")))
      config.scaler.backoffFactor = requireNumber(sat("backoff-factor"), sfield("backoff-factor"));
    if (scaler.contains(QLatin1String("growth-interval")))
      config.scaler.growthInterval = requireInteger(sat("growth-interval"), sfield("growth-interval"), 1);
    if (scaler.contains(QLatin1String("enabled")))
      config.scaler.enabled = requireBool(sat("enabled"), sfield("enabled"));
  }
  if (has("clip")) {
    const QString clipPath = field("clip");
    const QJsonObject clip = requireObject(at("clip"), clipPath);
    rejectUnknownKeys(clip, clipPath, {QStringLiteral("order"), QStringLiteral("max-norm")});
    if (clip.contains(QLatin1String("order"))) {
      config.clipOrder = requireEnum<ClipOrder>(
          clip.value(QLatin1String("order")), join(clipPath, QStringLiteral("order")), parseClipOrder,
          {QStringLiteral("off"), QStringLiteral("after-unscale"), QStringLiteral("before-unscale")});
    }
    if (clip.contains(QLatin1String("max-norm"))) {
      config.clipMaxNorm =
          requireNumber(clip.value(QLatin1String("max-norm")), join(clipPath, QStringLiteral("max-norm")));
    }
  }
}

// Maps validate()'s CLI-spelled field names onto the lesson file's keys (they are the same names, but
// nested ones live under "scaler." or "clip." in the file).
QString lessonFieldFor(const std::string& engineField) {
  const QString f = QString::fromStdString(engineField);
  static const QStringList scalerKeys = {QStringLiteral("init-scale"), QStringLiteral("growth-factor"),
                                         QStringLiteral("backoff-factor"), QStringLiteral("growth-interval")};
  if (scalerKeys.contains(f)) return QStringLiteral("scaler.") + f;
  if (f == QLatin1String("clip-max-norm") || f == QLatin1String("max-norm"))
    return QStringLiteral("clip.max-norm");
  if (f == QLatin1String("clip") || f == QLatin1String("clip-order")) return QStringLiteral("clip.order");
  return f;
}

void requireValid(const RunConfig& config, const QString& path) {
  const std::vector<ConfigError> errors = validate(config);
  if (!errors.empty()) {
    QStringList reasons;
    for (const ConfigError& e : errors) reasons << QString::fromStdString(e.message);
    throw FieldError{join(path, lessonFieldFor(errors.front().field)),
                     QStringLiteral("invalid configuration: %1").arg(reasons.join(QStringLiteral("; ")))};
  }
}

RunConfig parseBaseConfig(const QJsonValue& value, const QString& path) {
  const QJsonObject object = requireObject(value, path);
  if (!object.contains(QLatin1String("model")))
    throw FieldError{join(path, QStringLiteral("model")), QStringLiteral("missing")};
  if (!object.contains(QLatin1String("modes")))
    throw FieldError{join(path, QStringLiteral("modes")), QStringLiteral("missing")};
  const ModelKind model = requireEnum<ModelKind>(
      object.value(QLatin1String("model")), join(path, QStringLiteral("model")), parseModel,
      {QStringLiteral("tiny-mlp"), QStringLiteral("deep-mlp"), QStringLiteral("tiny-transformer")});
  RunConfig config = presetFor(model);
  config.model = model;
  QJsonObject rest = object;
  rest.remove(QLatin1String("model"));
  applyConfigKeys(rest, path, config);
  return config;
}

Lesson::Anchor parseAnchor(const QJsonValue& value, const QString& path) {
  const QJsonObject object = requireObject(value, path);
  rejectUnknownKeys(object, path, {QStringLiteral("x"), QStringLiteral("y"), QStringLiteral("feature")});
  Lesson::Anchor anchor;
  if (object.contains(QLatin1String("feature"))) {
    if (object.contains(QLatin1String("x")) || object.contains(QLatin1String("y"))) {
      throw FieldError{path, QStringLiteral("give either a feature or x/y, not both")};
    }
    const QString feature =
        requireString(object.value(QLatin1String("feature")), join(path, QStringLiteral("feature")));
    const std::optional<double> x = Lesson::featureX(feature);
    if (!x) {
      throw FieldError{join(path, QStringLiteral("feature")),
                       QStringLiteral("unknown feature '%1' (expected one of: %2)")
                           .arg(feature, Lesson::knownFeatures().join(QStringLiteral(", ")))};
    }
    anchor.kind = Lesson::Anchor::Kind::Feature;
    anchor.feature = feature;
    anchor.x = *x;
    return anchor;
  }
  if (!object.contains(QLatin1String("x")) || !object.contains(QLatin1String("y"))) {
    throw FieldError{path, QStringLiteral("expected both x and y (plot coordinates) or a feature")};
  }
  anchor.kind = Lesson::Anchor::Kind::Point;
  anchor.x = requireNumber(object.value(QLatin1String("x")), join(path, QStringLiteral("x")));
  anchor.y = requireNumber(object.value(QLatin1String("y")), join(path, QStringLiteral("y")));
  return anchor;
}

}  // namespace

const QStringList& Lesson::knownFeatures() {
  static const QStringList features = {
      QStringLiteral("fp16-max"),           QStringLiteral("fp16-min-normal"),
      QStringLiteral("fp16-min-subnormal"), QStringLiteral("bf16-min-normal"),
      QStringLiteral("bf16-min-subnormal"), QStringLiteral("first-step")};
  return features;
}

std::optional<double> Lesson::featureX(const QString& feature) {
  if (feature == QLatin1String("fp16-max")) return 15.0;
  if (feature == QLatin1String("fp16-min-normal")) return -14.0;
  if (feature == QLatin1String("fp16-min-subnormal")) return -24.0;
  if (feature == QLatin1String("bf16-min-normal")) return -126.0;
  if (feature == QLatin1String("bf16-min-subnormal")) return -133.0;
  if (feature == QLatin1String("first-step")) return 1.0;
  return std::nullopt;
}

const QStringList& Lesson::knownControls() {
  static const QStringList controls = {QStringLiteral("inject-overflow")};
  return controls;
}

std::optional<RunConfig> Lesson::configFor(int variantIndex) const {
  if (!config) return std::nullopt;
  if (variants.isEmpty()) return config;
  if (variantIndex < 0 || variantIndex >= variants.size()) return variants.front().config;
  return variants[variantIndex].config;
}

std::optional<Lesson> Lesson::fromJson(const QByteArray& json, const QString& source, QString* error) {
  auto fail = [&](const QString& message) -> std::optional<Lesson> {
    if (error) *error = source + QStringLiteral(": ") + message;
    return std::nullopt;
  };
  QJsonParseError parseError;
  const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
  if (parseError.error != QJsonParseError::NoError) {
    return fail(
        QStringLiteral("not valid JSON at byte %1: %2").arg(parseError.offset).arg(parseError.errorString()));
  }
  if (!document.isObject()) return fail(QStringLiteral("the top level must be a JSON object"));
  const QJsonObject root = document.object();
  try {
    rejectUnknownKeys(root, QString(),
                      {QStringLiteral("id"), QStringLiteral("section"), QStringLiteral("title"),
                       QStringLiteral("narrative"), QStringLiteral("config"), QStringLiteral("variants"),
                       QStringLiteral("panels"), QStringLiteral("callouts"), QStringLiteral("controls")});
    for (const char* key : {"id", "section", "title", "narrative", "config", "panels"}) {
      if (!root.contains(QLatin1String(key))) throw FieldError{QLatin1String(key), QStringLiteral("missing")};
    }
    Lesson lesson;
    lesson.sourceFile = source;
    lesson.id = requireString(root.value(QLatin1String("id")), QStringLiteral("id"));
    for (QChar c : lesson.id) {
      if (!(c.isLower() || c.isDigit() || c == u'-') || c.unicode() > 127) {
        throw FieldError{QStringLiteral("id"),
                         QStringLiteral("use lower-case ASCII letters, digits and '-' only")};
      }
    }
    lesson.section =
        static_cast<int>(requireInteger(root.value(QLatin1String("section")), QStringLiteral("section"), 1));
    lesson.title = requireLocalized(root.value(QLatin1String("title")), QStringLiteral("title"), false);
    lesson.narrative =
        requireLocalized(root.value(QLatin1String("narrative")), QStringLiteral("narrative"), true);

    const QJsonValue configValue = root.value(QLatin1String("config"));
    if (configValue.isString()) {
      if (configValue.toString() != QLatin1String("none")) {
        throw FieldError{QStringLiteral("config"),
                         QStringLiteral("expected an object or the string \"none\"")};
      }
    } else {
      lesson.config = parseBaseConfig(configValue, QStringLiteral("config"));
      requireValid(*lesson.config, QStringLiteral("config"));
    }

    if (root.contains(QLatin1String("variants"))) {
      if (!lesson.config)
        throw FieldError{QStringLiteral("variants"),
                         QStringLiteral("a lesson without a config has no variants")};
      const QJsonValue variantsValue = root.value(QLatin1String("variants"));
      if (!variantsValue.isArray())
        throw FieldError{QStringLiteral("variants"), QStringLiteral("expected an array")};
      const QJsonArray array = variantsValue.toArray();
      for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("variants[%1]").arg(i);
        const QJsonObject object = requireObject(array.at(i), path);
        rejectUnknownKeys(object, path,
                          {QStringLiteral("id"), QStringLiteral("label"), QStringLiteral("config")});
        Variant variant;
        variant.id = requireString(object.value(QLatin1String("id")), join(path, QStringLiteral("id")));
        variant.label = requireLocalized(object.value(QLatin1String("label")),
                                         join(path, QStringLiteral("label")), false);
        variant.config = *lesson.config;
        if (object.contains(QLatin1String("config"))) {
          const QString configPath = join(path, QStringLiteral("config"));
          const QJsonObject overrides = requireObject(object.value(QLatin1String("config")), configPath);
          if (overrides.contains(QLatin1String("model"))) {
            throw FieldError{join(configPath, QStringLiteral("model")),
                             QStringLiteral("a variant cannot change the model")};
          }
          applyConfigKeys(overrides, configPath, variant.config);
          requireValid(variant.config, configPath);
        }
        for (const Variant& other : lesson.variants) {
          if (other.id == variant.id)
            throw FieldError{join(path, QStringLiteral("id")),
                             QStringLiteral("duplicate variant id '%1'").arg(variant.id)};
        }
        lesson.variants << variant;
      }
    }

    lesson.panels = requireStringList(root.value(QLatin1String("panels")), QStringLiteral("panels"));
    if (lesson.panels.isEmpty())
      throw FieldError{QStringLiteral("panels"), QStringLiteral("name at least one panel to bring forward")};

    if (root.contains(QLatin1String("callouts"))) {
      const QJsonValue calloutsValue = root.value(QLatin1String("callouts"));
      if (!calloutsValue.isArray())
        throw FieldError{QStringLiteral("callouts"), QStringLiteral("expected an array")};
      const QJsonArray array = calloutsValue.toArray();
      for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("callouts[%1]").arg(i);
        const QJsonObject object = requireObject(array.at(i), path);
        rejectUnknownKeys(object, path,
                          {QStringLiteral("panel"), QStringLiteral("text"), QStringLiteral("anchor")});
        Callout callout;
        callout.panel =
            requireString(object.value(QLatin1String("panel")), join(path, QStringLiteral("panel")));
        if (!lesson.panels.contains(callout.panel)) {
          throw FieldError{join(path, QStringLiteral("panel")),
                           QStringLiteral("'%1' is not among the lesson's panels (%2)")
                               .arg(callout.panel, lesson.panels.join(QStringLiteral(", ")))};
        }
        callout.text =
            requireLocalized(object.value(QLatin1String("text")), join(path, QStringLiteral("text")), false);
        if (object.contains(QLatin1String("anchor"))) {
          callout.anchor =
              parseAnchor(object.value(QLatin1String("anchor")), join(path, QStringLiteral("anchor")));
        }
        lesson.callouts << callout;
      }
    }

    if (root.contains(QLatin1String("controls"))) {
      lesson.controls = requireStringList(root.value(QLatin1String("controls")), QStringLiteral("controls"));
      for (qsizetype i = 0; i < lesson.controls.size(); ++i) {
        if (!knownControls().contains(lesson.controls[i])) {
          throw FieldError{QStringLiteral("controls[%1]").arg(i),
                           QStringLiteral("unknown control '%1' (expected one of: %2)")
                               .arg(lesson.controls[i], knownControls().join(QStringLiteral(", ")))};
        }
      }
      if (lesson.hasControl(QStringLiteral("inject-overflow")) && !lesson.config) {
        throw FieldError{QStringLiteral("controls"),
                         QStringLiteral("inject-overflow needs a training config")};
      }
    }
    return lesson;
  } catch (const FieldError& e) {
    return fail(QStringLiteral("field '%1': %2").arg(e.field, e.reason));
  }
}

}  // namespace ampscope::ui
