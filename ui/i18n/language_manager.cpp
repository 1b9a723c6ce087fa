#include "ui/i18n/language_manager.h"

#include <QAction>
#include <QActionGroup>
#include <QCoreApplication>
#include <QEvent>
#include <QLibraryInfo>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QtDebug>

#include "ui/i18n/context_fallback_translator.h"

namespace ampscope::ui {

namespace {
const QString kLanguageKey = QStringLiteral("ui/language");
const QString kEnglish = QStringLiteral("en");
const QString kChinese = QStringLiteral("zh_CN");
// Built from resources/translations/ampscope_zh_CN.ts by qt_add_translations (resource prefix /i18n).
const QString kAppCatalogue = QStringLiteral(":/i18n/ampscope_zh_CN.qm");
}  // namespace

LanguageManager::LanguageManager(QObject* parent) : QObject(parent) {}

LanguageManager::~LanguageManager() {
  if (appTranslator_) QCoreApplication::removeTranslator(appTranslator_.get());
  if (qtTranslator_) QCoreApplication::removeTranslator(qtTranslator_.get());
}

QStringList LanguageManager::availableLanguages() { return {kEnglish, kChinese}; }

bool LanguageManager::isAvailable(const QString& code) { return availableLanguages().contains(code); }

QString LanguageManager::preferredLanguage() {
  const QString saved = QSettings().value(kLanguageKey).toString();
  if (isAvailable(saved)) return saved;
  return QLocale::system().language() == QLocale::Chinese ? kChinese : kEnglish;
}

std::unique_ptr<QTranslator> LanguageManager::appCatalogue(const QString& code) {
  if (code != kChinese) return nullptr;
  auto app = std::make_unique<ContextFallbackTranslator>();
  if (!app->load(kAppCatalogue)) return nullptr;
  return app;
}

bool LanguageManager::setLanguage(const QString& code, Persist persist) {
  error_.clear();
  if (!isAvailable(code)) {
    error_ = tr("Unknown language '%1' (available: %2)")
                 .arg(code, availableLanguages().join(QStringLiteral(", ")));
    return false;
  }
  std::unique_ptr<QTranslator> app;
  std::unique_ptr<QTranslator> qt;
  bool qtLoaded = false;
  if (code == kChinese) {
    app = appCatalogue(code);
    if (!app) {
      error_ = tr("The Chinese translation (%1) could not be loaded.").arg(kAppCatalogue);
      return false;
    }
    qt = std::make_unique<QTranslator>();
    qtLoaded = qt->load(QLocale(kChinese), QStringLiteral("qtbase"), QStringLiteral("_"),
                        QLibraryInfo::path(QLibraryInfo::TranslationsPath));
    if (!qtLoaded) {
      qWarning(
          "Qt's own zh_CN catalogue (qtbase_zh_CN.qm) was not found in %s; standard dialogs stay English",
          qPrintable(QLibraryInfo::path(QLibraryInfo::TranslationsPath)));
      qt.reset();
    }
  }
  // The locale first: widgets that pick lesson texts by QLocale() during LanguageChange must see it.
  QLocale::setDefault(QLocale(code == kChinese ? QStringLiteral("zh_CN") : QStringLiteral("en_US")));
  if (appTranslator_) QCoreApplication::removeTranslator(appTranslator_.get());
  if (qtTranslator_) QCoreApplication::removeTranslator(qtTranslator_.get());
  appTranslator_ = std::move(app);
  qtTranslator_ = std::move(qt);
  qtLoaded_ = qtLoaded;
  // Each install/remove makes QApplication post LanguageChange to every top-level widget (compressed
  // into one per widget), which then passes it to its children.
  if (qtTranslator_) QCoreApplication::installTranslator(qtTranslator_.get());
  if (appTranslator_) QCoreApplication::installTranslator(appTranslator_.get());
  const bool changed = language_ != code;
  const QString previous = language_;
  language_ = code;
  if (changed) {
    if (!staticTextsLoaded_) staticTextsLoaded_ = staticTexts_.load();
    staticTexts_.retranslateApplication(previous, code);
  }
  if (persist == Persist::Yes) QSettings().setValue(kLanguageKey, code);
  syncMenu();
  if (changed) emit languageChanged(code);
  return true;
}

QMenu* LanguageManager::addMenuTo(QMenu* parent) {
  if (menu_) return menu_;
  menu_ = parent->addMenu(QString());
  menu_->setObjectName(QStringLiteral("languageMenu"));
  menu_->installEventFilter(this);
  group_ = new QActionGroup(menu_);
  group_->setExclusive(true);
  for (const QString& code : availableLanguages()) {
    // Each language is named in its own script, untranslated, so that someone who cannot read the
    // current UI language still finds theirs.
    QAction* action =
        menu_->addAction(code == kChinese ? QStringLiteral("简体中文") : QStringLiteral("English"));
    action->setCheckable(true);
    action->setData(code);
    group_->addAction(action);
    connect(action, &QAction::triggered, this, [this, code] {
      if (!setLanguage(code)) qWarning("%s", qPrintable(error_));
    });
  }
  retranslateMenu();
  syncMenu();
  return menu_;
}

bool LanguageManager::eventFilter(QObject* watched, QEvent* event) {
  // The type first: the menu sends events while ~QWidget runs, when it is no longer a QMenu, and
  // comparing with menu_ casts it to one (UBSan: "downcast of address ... not ... of type 'QMenu'").
  if (event->type() == QEvent::LanguageChange && watched == menu_) retranslateMenu();
  return QObject::eventFilter(watched, event);
}

void LanguageManager::retranslateMenu() {
  if (menu_) menu_->setTitle(tr("&Language"));
}

void LanguageManager::syncMenu() {
  if (!group_) return;
  for (QAction* action : group_->actions()) action->setChecked(action->data().toString() == language_);
}

}  // namespace ampscope::ui
