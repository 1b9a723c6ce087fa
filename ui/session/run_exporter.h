// RunExporter: a recorded run as data for spreadsheets and scripts.
// - CSV: the record codec's CSV (record_codec.h): one row per step and mode with every ModeStep scalar
//   and the rounding totals, numbers as numberText writes them (shortest round trip; nan, inf, -inf,
//   which pandas.read_csv and Python's float() read back).
// - JSON: {"format": "ampscope-run", "version": 1, "lesson", "config", "modes": {"fp32": [ModeStep, ...],
//   ...}}: the steps grouped per mode (handy for analysis), each ModeStep as the record codec writes it
//   (rounding points and sparse histograms of instrumented steps, NaN/Inf as strings), one step per line.
// Both write through QSaveFile (an existing file is replaced only by a complete one).
#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

#include "ui/session/session_file.h"

namespace ampscope::ui {

class RunExporter {
  Q_DECLARE_TR_FUNCTIONS(RunExporter)

 public:
  static QByteArray toCsv(const std::vector<StepRecord>& records);
  static QByteArray toJson(const Session& session);
  static bool exportCsv(const QString& path, const std::vector<StepRecord>& records, QString* error);
  static bool exportJson(const QString& path, const Session& session, QString* error);
};

}  // namespace ampscope::ui
