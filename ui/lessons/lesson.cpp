#include "ui/lessons/lesson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/lesson_claim.h"
#include "ampscope/engine/lesson_id.h"

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

// A config object (the lesson's own, or a variant's overrides) read by the schema's reader on top of
// `config`. The object is handed over as its compact JSON text: the engine's reader knows no Qt.
void applyConfigKeys(const QJsonObject& object, const QString& path, RunConfig& config) {
  const QByteArray text = QJsonDocument(object).toJson(QJsonDocument::Compact);
  JsonParseError parseError;
  const auto json = parseJson(std::string_view(text.constData(), static_cast<size_t>(text.size())), &parseError);
  if (!json) throw FieldError{path, QString::fromStdString(parseError.message)};
  const std::vector<ConfigError> errors = readConfigJson(*json, config, /*requireAll=*/false, path.toStdString() + ".");
  if (!errors.empty()) {
    throw FieldError{QString::fromStdString(errors.front().field), QString::fromStdString(errors.front().message)};
  }
}

// A callout's claim, read by the engine's claim parser (it knows no Qt: the object goes over as JSON text).
ClaimSpec parseClaim(const QJsonValue& value, const QString& path) {
  if (!value.isObject()) throw FieldError{path, QStringLiteral("expected an object")};
  const QByteArray text = QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
  JsonParseError parseError;
  const auto json = parseJson(std::string_view(text.constData(), static_cast<size_t>(text.size())), &parseError);
  if (!json) throw FieldError{path, QString::fromStdString(parseError.message)};
  ClaimParseError error;
  const std::string root = path.toStdString();
  std::optional<ClaimSpec> claim = parseLessonClaim(*json, root, &error);
  if (!claim) throw FieldError{QString::fromStdString(error.field), QString::fromStdString(error.message)};
  return *claim;
}

// Every mode a claim names must be trained in each run it applies to.
void requireClaimModes(const Lesson& lesson, const Lesson::Callout& callout, const QString& path) {
  const std::vector<PrecisionMode> named = claimModes(*callout.claim);
  auto check = [&](const RunConfig& config, const QString& where) {
    for (PrecisionMode mode : named) {
      if (std::find(config.modes.begin(), config.modes.end(), mode) != config.modes.end()) continue;
      QStringList trained;
      for (PrecisionMode m : config.modes) trained << QString::fromStdString(modeName(m));
      throw FieldError{path, QStringLiteral("it names mode '%1', which %2 does not train (%3)")
                                 .arg(QString::fromStdString(modeName(mode)), where, trained.join(QStringLiteral(", ")))};
    }
  };
  if (lesson.variants.isEmpty()) {
    check(*lesson.config, QStringLiteral("the lesson"));
    return;
  }
  for (const Lesson::Variant& variant : lesson.variants) {
    if (callout.claimVariants.isEmpty() || callout.claimVariants.contains(variant.id))
      check(variant.config, QStringLiteral("variant '%1'").arg(variant.id));
  }
}

// The checks across fields; every field's own bounds were checked as it was read.
void requireValid(const RunConfig& config, const QString& path) {
  const std::vector<ConfigError> errors = validate(config);
  if (!errors.empty()) {
    QStringList reasons;
    for (const ConfigError& e : errors) reasons << QString::fromStdString(e.message);
    throw FieldError{join(path, QString::fromStdString(errors.front().field)),
                     QStringLiteral("invalid configuration: %1").arg(reasons.join(QStringLiteral("; ")))};
  }
}

// The model's preset first, then the keys given refine it.
RunConfig parseBaseConfig(const QJsonValue& value, const QString& path) {
  const QJsonObject object = requireObject(value, path);
  for (const char* key : {"model", "modes"}) {
    if (!object.contains(QLatin1String(key))) throw FieldError{join(path, QLatin1String(key)), QStringLiteral("missing")};
  }
  RunConfig chosen;
  applyConfigKeys(object, path, chosen);
  RunConfig config = presetFor(chosen.model);
  applyConfigKeys(object, path, config);
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

// "layout", or the default one: the lesson's panels, and the run panel when it trains.
Lesson::Layout parseLayout(const QJsonObject& root, const Lesson& lesson) {
  Lesson::Layout layout;
  if (!root.contains(QLatin1String("layout"))) {
    layout.visible = lesson.panels;
    if (lesson.config && !layout.visible.contains(QStringLiteral("run"))) layout.visible << QStringLiteral("run");
    return layout;
  }
  const QString path = QStringLiteral("layout");
  const QJsonObject object = requireObject(root.value(path), path);
  rejectUnknownKeys(object, path, {QStringLiteral("visible"), QStringLiteral("large")});
  if (!object.contains(QLatin1String("visible"))) throw FieldError{join(path, QStringLiteral("visible")), QStringLiteral("missing")};
  const QString visiblePath = join(path, QStringLiteral("visible"));
  layout.visible = requireStringList(object.value(QLatin1String("visible")), visiblePath);
  for (qsizetype i = 0; i < layout.visible.size(); ++i) {
    if (!Lesson::knownPanels().contains(layout.visible[i])) {
      throw FieldError{QStringLiteral("%1[%2]").arg(visiblePath).arg(i),
                       QStringLiteral("unknown panel '%1' (expected one of: %2)")
                           .arg(layout.visible[i], Lesson::knownPanels().join(QStringLiteral(", ")))};
    }
  }
  // A panel the lesson brings forward or points a callout at must be on screen.
  for (const QString& panel : lesson.panels) {
    if (!layout.visible.contains(panel)) {
      throw FieldError{visiblePath, QStringLiteral("'%1' is among the lesson's panels but not visible").arg(panel)};
    }
  }
  if (object.contains(QLatin1String("large"))) {
    const QString largePath = join(path, QStringLiteral("large"));
    layout.large = requireStringList(object.value(QLatin1String("large")), largePath);
    for (qsizetype i = 0; i < layout.large.size(); ++i) {
      if (!layout.visible.contains(layout.large[i])) {
        throw FieldError{QStringLiteral("%1[%2]").arg(largePath).arg(i),
                         QStringLiteral("'%1' is not among the visible panels").arg(layout.large[i])};
      }
    }
  }
  return layout;
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

const QStringList& Lesson::knownPanels() {
  static const QStringList panels = {
      QStringLiteral("formats"),   QStringLiteral("formats-range"), QStringLiteral("formats-finfo"),
      QStringLiteral("formats-underflow"), QStringLiteral("formats-memory"), QStringLiteral("run"),
      QStringLiteral("loss"),      QStringLiteral("scale"),         QStringLiteral("histogram"),
      QStringLiteral("heatmap"),   QStringLiteral("underflow"),     QStringLiteral("op-dtype"),
      QStringLiteral("memory"),    QStringLiteral("grad-norm"),     QStringLiteral("step-time"),
      QStringLiteral("fp8-scale")};
  return panels;
}

std::optional<RunConfig> Lesson::configFor(int variantIndex) const {
  if (!config) return std::nullopt;
  if (variants.isEmpty()) return config;
  if (variantIndex < 0 || variantIndex >= variants.size()) return variants.front().config;
  return variants[variantIndex].config;
}

QString Lesson::variantId(int variantIndex) const {
  if (variantIndex < 0 || variantIndex >= variants.size()) return variants.isEmpty() ? QString() : variants.front().id;
  return variants[variantIndex].id;
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
                       QStringLiteral("panels"), QStringLiteral("callouts"), QStringLiteral("controls"),
                       QStringLiteral("layout"), QStringLiteral("question")});
    for (const char* key : {"id", "section", "title", "narrative", "config", "panels"}) {
      if (!root.contains(QLatin1String(key))) throw FieldError{QLatin1String(key), QStringLiteral("missing")};
    }
    Lesson lesson;
    lesson.sourceFile = source;
    lesson.id = requireString(root.value(QLatin1String("id")), QStringLiteral("id"));
    if (auto problem = lessonIdProblem(lesson.id.toStdString())) {
      throw FieldError{QStringLiteral("id"), QString::fromStdString(*problem)};
    }
    lesson.section =
        static_cast<int>(requireInteger(root.value(QLatin1String("section")), QStringLiteral("section"), 1));
    lesson.title = requireLocalized(root.value(QLatin1String("title")), QStringLiteral("title"), false);
    lesson.narrative =
        requireLocalized(root.value(QLatin1String("narrative")), QStringLiteral("narrative"), true);
    if (root.contains(QLatin1String("question"))) {
      lesson.question =
          requireLocalized(root.value(QLatin1String("question")), QStringLiteral("question"), false);
    }

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
                          {QStringLiteral("panel"), QStringLiteral("text"), QStringLiteral("anchor"),
                           QStringLiteral("variants"), QStringLiteral("claim")});
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
        if (object.contains(QLatin1String("variants"))) {
          const QString variantsPath = join(path, QStringLiteral("variants"));
          callout.variants = requireStringList(object.value(QLatin1String("variants")), variantsPath);
          QStringList known;
          for (const Variant& v : lesson.variants) known << v.id;
          if (callout.variants.isEmpty())
            throw FieldError{variantsPath, QStringLiteral("name at least one variant, or leave the key out")};
          for (const QString& id : callout.variants) {
            if (!known.contains(id)) {
              throw FieldError{variantsPath, known.isEmpty()
                                                 ? QStringLiteral("the lesson has no variants")
                                                 : QStringLiteral("'%1' is not one of the lesson's variants (%2)")
                                                       .arg(id, known.join(QStringLiteral(", ")))};
            }
          }
        }
        if (object.contains(QLatin1String("claim"))) {
          const QString claimPath = join(path, QStringLiteral("claim"));
          if (!lesson.config)
            throw FieldError{claimPath, QStringLiteral("a lesson without a config has no run to check a claim on")};
          callout.claim = parseClaim(object.value(QLatin1String("claim")), claimPath);
          QStringList known;
          for (const Variant& v : lesson.variants) known << v.id;
          for (const std::string& id : callout.claim->variants) {
            const QString variantId = QString::fromStdString(id);
            if (!known.contains(variantId)) {
              throw FieldError{join(claimPath, QStringLiteral("variants")),
                               known.isEmpty() ? QStringLiteral("the lesson has no variants")
                                               : QStringLiteral("'%1' is not one of the lesson's variants (%2)")
                                                     .arg(variantId, known.join(QStringLiteral(", ")))};
            }
            callout.claimVariants << variantId;
          }
          if (callout.claimVariants.isEmpty()) callout.claimVariants = callout.variants;
          requireClaimModes(lesson, callout, claimPath);
        }
        lesson.callouts << callout;
      }
    }

    if (lesson.question &&
        std::none_of(lesson.callouts.begin(), lesson.callouts.end(), [](const Callout& c) { return c.claim.has_value(); }))
      throw FieldError{QStringLiteral("question"), QStringLiteral("no callout has a claim to answer it")};

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
    lesson.layout = parseLayout(root, lesson);
    return lesson;
  } catch (const FieldError& e) {
    return fail(QStringLiteral("field '%1': %2").arg(e.field, e.reason));
  }
}

}  // namespace ampscope::ui
