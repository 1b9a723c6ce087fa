// All shipped lessons, read from the Qt resource folder :/lessons (or any folder, for tests), ordered by
// chapter section. A file that does not parse is reported with its name and the offending field and
// is left out; the rest still load.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

#include "ui/lessons/lesson.h"

namespace ampscope::ui {

class LessonLibrary {
 public:
  static QString defaultFolder() { return QStringLiteral(":/lessons"); }
  // The largest lesson file read; the shipped ones are a few KiB each.
  static constexpr qint64 kMaxLessonBytes = qint64{1} * 1024 * 1024;

  // Loads every *.json in `folder`. Returns false when any file failed (see errors()) or none was found.
  // Only regular files of at most kMaxLessonBytes are read; anything else is reported by its type or size.
  bool load(const QString& folder = defaultFolder());
  // Adds one lesson from memory (source names it in messages). Returns false and records an error
  // when it does not parse, its id is already taken, or it differs from a non-empty `expectedId`.
  bool addFromJson(const QByteArray& json, const QString& source, const QString& expectedId = QString());

  const QVector<Lesson>& lessons() const { return lessons_; }
  const QStringList& errors() const { return errors_; }
  int indexOf(const QString& id) const;         // -1 when unknown
  const Lesson* find(const QString& id) const;  // nullptr when unknown
  QStringList ids() const;
  bool isEmpty() const { return lessons_.isEmpty(); }
  int size() const { return static_cast<int>(lessons_.size()); }
  const Lesson& at(int index) const { return lessons_.at(index); }

 private:
  void sortBySection();

  QVector<Lesson> lessons_;
  QStringList errors_;
};

}  // namespace ampscope::ui
