// libFuzzer target: the lesson parser (ui/lessons/lesson.cpp), built against QtCore alone: it reads
// lessons with QJsonDocument and checks their configs with the engine's schema, and needs no widget.
// A lesson the parser accepted must hold what it promises: a valid config for its base and every
// variant, at least one panel, callouts on those panels, and known controls. A refused one must say
// why, starting with the source name.
#include <QByteArray>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "ampscope/engine/config_schema.h"
#include "ui/lessons/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const QByteArray json = QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
  QString error;
  const auto lesson = ampscope::ui::Lesson::fromJson(json, QStringLiteral("fuzz.json"), &error);
  if (!lesson) {
    if (!error.startsWith(QStringLiteral("fuzz.json: "))) std::abort();
    return 0;
  }
  if (lesson->id.isEmpty() || lesson->section < 1 || lesson->panels.isEmpty()) std::abort();
  if (lesson->config && !ampscope::validate(*lesson->config).empty()) std::abort();
  if (!lesson->config && (!lesson->variants.isEmpty() || lesson->hasControl(QStringLiteral("inject-overflow")))) {
    std::abort();
  }
  for (int i = 0; i < lesson->variants.size(); ++i) {
    const auto config = lesson->configFor(i);
    if (!config || !ampscope::validate(*config).empty()) std::abort();
  }
  for (const auto& callout : lesson->callouts) {
    if (!lesson->panels.contains(callout.panel)) std::abort();
  }
  for (const auto& control : lesson->controls) {
    if (!ampscope::ui::Lesson::knownControls().contains(control)) std::abort();
  }
  return 0;
}
