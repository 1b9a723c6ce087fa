// The UI language: English (the source strings) or Simplified Chinese (AmpScope's zh_CN catalogue plus
// Qt's own qtbase_zh_CN for standard dialogs and buttons). Follows the system locale at the first start,
// can be switched at run time from a menu, and remembers the choice in QSettings. Installing or removing
// a translator makes Qt send QEvent::LanguageChange to every widget, which retranslates in changeEvent;
// QLocale's default is switched first so lesson texts and number formatting follow the same language.
// Fixed texts of widgets without a changeEvent are switched by StaticTextRetranslator.
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTranslator>
#include <memory>

#include "ui/i18n/static_text_retranslator.h"

class QActionGroup;
class QMenu;

namespace ampscope::ui {

class LanguageManager : public QObject {
  Q_OBJECT
 public:
  explicit LanguageManager(QObject* parent = nullptr);
  ~LanguageManager() override;

  static QStringList availableLanguages();  // {"en", "zh_CN"}
  static bool isAvailable(const QString& code);
  // The saved choice when there is one, else the system locale's (any Chinese locale -> zh_CN).
  static QString preferredLanguage();
  // The app's own catalogue for `code` (a ContextFallbackTranslator), or null for English or when it
  // cannot be loaded. For messages before a LanguageManager exists (main's command-line errors).
  static std::unique_ptr<QTranslator> appCatalogue(const QString& code);

  enum class Persist { Yes, No };
  // Installs the catalogues for `code` ("en" or "zh_CN"). False, with errorString() set, when the code
  // is unknown or AmpScope's catalogue cannot be loaded; Qt's own catalogue is optional (a warning only).
  bool setLanguage(const QString& code, Persist persist = Persist::Yes);
  QString language() const { return language_; }
  QString errorString() const { return error_; }
  bool qtCatalogueLoaded() const { return qtLoaded_; }

  // Adds a "Language" submenu to `parent` with one checkable entry per language, kept in sync.
  QMenu* addMenuTo(QMenu* parent);

 signals:
  void languageChanged(const QString& code);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void retranslateMenu();
  void syncMenu();

  QString language_ = QStringLiteral("en");
  QString error_;
  bool qtLoaded_ = false;
  std::unique_ptr<QTranslator> appTranslator_;
  std::unique_ptr<QTranslator> qtTranslator_;
  // Widgets without a changeEvent of their own keep their constructor texts; this switches them.
  StaticTextRetranslator staticTexts_;
  bool staticTextsLoaded_ = false;
  QPointer<QMenu> menu_;
  QPointer<QActionGroup> group_;
};

}  // namespace ampscope::ui
