#include "ui/lessons/lesson_library.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <algorithm>

namespace ampscope::ui {

bool LessonLibrary::load(const QString& folder) {
  lessons_.clear();
  errors_.clear();
  const QDir dir(folder);
  const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
  if (files.isEmpty()) {
    errors_ << QStringLiteral("%1: no lesson files (*.json) found").arg(folder);
    return false;
  }
  bool ok = true;
  for (const QString& name : files) {
    const QString path = dir.filePath(name);
    // A "*.json" that is a pipe or a device (through a link) would block or never end; checked first.
    const QFileInfo info(path);
    if (!info.isFile()) {
      errors_ << QStringLiteral("%1: not a regular file").arg(path);
      ok = false;
      continue;
    }
    if (info.size() > kMaxLessonBytes) {
      errors_ << QStringLiteral("%1: %2 bytes; a lesson file may hold at most %3 bytes")
                     .arg(path)
                     .arg(info.size())
                     .arg(kMaxLessonBytes);
      ok = false;
      continue;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
      errors_ << QStringLiteral("%1: cannot be read: %2").arg(path, file.errorString());
      ok = false;
      continue;
    }
    // The file name is how --lesson and the docs refer to a lesson; keep it equal to the id.
    if (!addFromJson(file.read(kMaxLessonBytes), path, QFileInfo(name).completeBaseName())) ok = false;
  }
  sortBySection();
  return ok;
}

bool LessonLibrary::addFromJson(const QByteArray& json, const QString& source, const QString& expectedId) {
  QString error;
  std::optional<Lesson> lesson = Lesson::fromJson(json, source, &error);
  if (!lesson) {
    errors_ << error;
    return false;
  }
  if (!expectedId.isEmpty() && lesson->id != expectedId) {
    errors_ << QStringLiteral("%1: field 'id': '%2' differs from the file name '%3'")
                   .arg(source, lesson->id, expectedId);
    return false;
  }
  if (const Lesson* existing = find(lesson->id)) {
    errors_ << QStringLiteral("%1: field 'id': '%2' is already used by %3")
                   .arg(source, lesson->id, existing->sourceFile);
    return false;
  }
  lessons_ << *lesson;
  sortBySection();
  return true;
}

void LessonLibrary::sortBySection() {
  std::stable_sort(lessons_.begin(), lessons_.end(),
                   [](const Lesson& a, const Lesson& b) { return a.section < b.section; });
}

int LessonLibrary::indexOf(const QString& id) const {
  for (int i = 0; i < size(); ++i) {
    if (lessons_[i].id == id) return i;
  }
  return -1;
}

const Lesson* LessonLibrary::find(const QString& id) const {
  const int index = indexOf(id);
  return index < 0 ? nullptr : &lessons_[index];
}

QStringList LessonLibrary::ids() const {
  QStringList out;
  for (const Lesson& lesson : lessons_) out << lesson.id;
  return out;
}

}  // namespace ampscope::ui
