#include "ui/i18n/context_fallback_translator.h"

#include <QByteArray>

namespace ampscope::ui {

QString ContextFallbackTranslator::translate(const char* context, const char* sourceText,
                                             const char* disambiguation, int n) const {
  QString result = QTranslator::translate(context, sourceText, disambiguation, n);
  if (!result.isNull() || !context) return result;
  const QByteArray full(context);
  int cut = full.lastIndexOf("::");
  if (cut < 0) return result;
  // "a::b::Class" -> "Class"
  result = QTranslator::translate(full.mid(cut + 2).constData(), sourceText, disambiguation, n);
  // then "a::b", "a"
  QByteArray scope = full.left(cut);
  while (result.isNull() && !scope.isEmpty()) {
    result = QTranslator::translate(scope.constData(), sourceText, disambiguation, n);
    cut = scope.lastIndexOf("::");
    scope = cut < 0 ? QByteArray() : scope.left(cut);
  }
  return result;
}

}  // namespace ampscope::ui
