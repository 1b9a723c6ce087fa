#include "ui/session/run_exporter.h"

#include <QSaveFile>
#include <map>
#include <string>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/record_codec.h"

namespace ampscope::ui {
namespace {

bool writeAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    if (error) *error = RunExporter::tr("Cannot write %1: %2").arg(path, file.errorString());
    file.cancelWriting();
    return false;
  }
  return true;
}

}  // namespace

QByteArray RunExporter::toCsv(const std::vector<StepRecord>& records) {
  return QByteArray::fromStdString(recordsToCsv(records));
}

QByteArray RunExporter::toJson(const Session& session) {
  // Steps grouped per mode, modes in the order they first appear.
  std::vector<PrecisionMode> order;
  std::map<PrecisionMode, std::vector<const ModeStep*>> perMode;
  for (const auto& record : session.records) {
    for (const auto& s : record.modes) {
      auto& steps = perMode[s.mode];
      if (steps.empty()) order.push_back(s.mode);
      steps.push_back(&s);
    }
  }
  std::string out;
  JsonWriter json(out);
  json.beginObject();
  json.field("format", "ampscope-run");
  json.field("version", 1);
  json.field("lesson", session.lesson.toStdString());
  json.key("config");
  writeConfigJson(json, session.config);
  json.key("modes").beginObject();
  for (PrecisionMode mode : order) {
    // One step per line: the array is written as text and inserted whole.
    std::string steps = "[";
    for (const ModeStep* step : perMode[mode]) {
      steps += steps.size() > 1 ? ",\n" : "\n";
      JsonWriter stepJson(steps);
      writeModeStepJson(stepJson, *step);
    }
    steps += ']';
    json.key(modeName(mode)).raw(steps);
  }
  json.endObject();
  json.endObject();
  out += '\n';
  return QByteArray::fromStdString(out);
}

bool RunExporter::exportCsv(const QString& path, const std::vector<StepRecord>& records, QString* error) {
  return writeAtomically(path, toCsv(records), error);
}

bool RunExporter::exportJson(const QString& path, const Session& session, QString* error) {
  return writeAtomically(path, toJson(session), error);
}

}  // namespace ampscope::ui
