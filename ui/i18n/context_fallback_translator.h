// A QTranslator that also finds messages whose context lupdate recorded differently from the one Qt
// asks for at run time. Qt looks messages up by the class's full name ("ampscope::ui::LessonPanel"),
// but lupdate's C++ parser does not understand C++17 nested namespace definitions
// (`namespace ampscope::ui {`): it records the bare class name ("LessonPanel"), and tr() wrappers in
// free functions end up under the enclosing namespace ("ampscope::ui"). So when the exact context has
// no translation, the lookup is retried with the last name component, then with the enclosing scopes.
#pragma once

#include <QTranslator>

namespace ampscope::ui {

class ContextFallbackTranslator : public QTranslator {
  Q_OBJECT
 public:
  using QTranslator::QTranslator;

  QString translate(const char* context, const char* sourceText, const char* disambiguation = nullptr,
                    int n = -1) const override;
};

}  // namespace ampscope::ui
