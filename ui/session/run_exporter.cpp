#include "ui/session/run_exporter.h"

#include <QSaveFile>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>

namespace ampscope::ui {
namespace {

// Shortest text that reads back as the same double; nan/inf/-inf spelled as Python and pandas read them.
QByteArray number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[40];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  // %.17g always round-trips; try shorter forms first so 0.001 does not print as 0.0010000000000000000208.
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[40];
    std::snprintf(shorter, sizeof(shorter), "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return buffer;
}

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
  QByteArray csv =
      "step,mode,loss,loss_scale,skipped,found_inf,grad_norm_before_clip,grad_norm_after_clip,"
      "clip_norm_seen,lr,step_time_ms,current_bytes,peak_bytes,diverged,instrumented,rounding_elements,"
      "flushed_to_zero,subnormal,overflowed,nan\n";
  for (const auto& record : records) {
    for (const auto& s : record.modes) {
      const QByteArray row[] = {QByteArray::number(qint64(s.step)),
                                QByteArray::fromStdString(modeName(s.mode)),
                                number(s.loss),
                                number(s.lossScale),
                                s.skipped ? "1" : "0",
                                s.foundInf ? "1" : "0",
                                number(s.gradNormBeforeClip),
                                number(s.gradNormAfterClip),
                                number(s.clipNormSeen),
                                number(s.lr),
                                number(s.stepTimeMs),
                                QByteArray::number(qint64(s.currentBytes)),
                                QByteArray::number(qint64(s.peakBytes)),
                                s.diverged ? "1" : "0",
                                s.instrumented ? "1" : "0",
                                QByteArray::number(qint64(s.rounding.elements)),
                                QByteArray::number(qint64(s.rounding.flushedToZero)),
                                QByteArray::number(qint64(s.rounding.subnormal)),
                                QByteArray::number(qint64(s.rounding.overflowed)),
                                QByteArray::number(qint64(s.rounding.nan))};
      for (size_t i = 0; i < std::size(row); ++i) {
        if (i > 0) csv += ',';
        csv += row[i];
      }
      csv += '\n';
    }
  }
  return csv;
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
  QByteArray out = "{\"format\":\"ampscope-run\",\"version\":1,\"lesson\":";
  SessionFile::appendString(out, session.lesson);
  out += ",\"config\":";
  SessionFile::appendConfigJson(out, session.config);
  out += ",\"modes\":{";
  for (size_t m = 0; m < order.size(); ++m) {
    if (m > 0) out += ',';
    out += "\n\"" + QByteArray::fromStdString(modeName(order[m])) + "\":[";
    const auto& steps = perMode[order[m]];
    for (size_t i = 0; i < steps.size(); ++i) {
      out += i > 0 ? ",\n" : "\n";
      SessionFile::appendModeStepJson(out, *steps[i]);
    }
    out += ']';
  }
  out += "}}\n";
  return out;
}

bool RunExporter::exportCsv(const QString& path, const std::vector<StepRecord>& records, QString* error) {
  return writeAtomically(path, toCsv(records), error);
}

bool RunExporter::exportJson(const QString& path, const Session& session, QString* error) {
  return writeAtomically(path, toJson(session), error);
}

}  // namespace ampscope::ui
