#include "ui/about_dialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QScrollArea>
#include <QTextDocument>
#include <QVBoxLayout>
#include <QtGlobal>

#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/version.h"

namespace ampscope::ui {

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("aboutDialog"));
  setWindowTitle(tr("About AmpScope"));
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  auto* icon = new QLabel(this);
  icon->setPixmap(QIcon(QStringLiteral(":/icons/ampscope.svg")).pixmap(96, 96));
  icon->setAlignment(Qt::AlignTop);
  top->addWidget(icon);

  m_text = new QLabel(this);
  m_text->setObjectName(QStringLiteral("aboutText"));
  m_text->setTextFormat(Qt::RichText);
  m_text->setWordWrap(true);
  m_text->setOpenExternalLinks(true);
  m_text->setTextInteractionFlags(Qt::TextBrowserInteraction);
  m_text->setMinimumWidth(420);
  const QString libtorch = QString::fromStdString(libtorchVersion());
  // The build info repeats "LibTorch <version>, " before the backend; the row already names both.
  QString backend = QString::fromStdString(libtorchBuildInfo());
  const QString prefix = QStringLiteral("LibTorch %1, ").arg(libtorch);
  if (backend.startsWith(prefix)) backend = backend.mid(prefix.size());
  m_text->setText(
      tr("<h2>AmpScope %1</h2>"
         "<p>Watch mixed-precision training happen: number formats, autocast, loss scaling and "
         "GradScaler, bit by bit.</p>"
         "<table cellspacing='4'>"
         "<tr><td><b>AmpScope</b></td><td>%1</td></tr>"
         "<tr><td><b>Qt</b></td><td>%2 (built with %3)</td></tr>"
         "<tr><td><b>LibTorch</b></td><td>%4 (%5)</td></tr>"
         "</table>"
         "<p>Licence: <b>%6</b>. AmpScope is free software: you can redistribute it and/or modify it under "
         "the terms of the <a href='https://www.gnu.org/licenses/gpl-3.0.html'>GNU General Public "
         "License</a>, version 3 or (at your option) any later version. It comes with no warranty.</p>"
         "<p>Plots are drawn with <b>QCustomPlot</b> by Emanuel Eichhammer (GPL). Training runs on "
         "<b>LibTorch</b> (BSD-style licence); the interface uses <b>Qt</b> (LGPL-3.0).</p>")
          .arg(QString::fromStdString(ampscopeVersion()), QString::fromLatin1(qVersion()),
               QStringLiteral(QT_VERSION_STR), libtorch, backend,
               QString::fromStdString(licenseName())));
  top->addWidget(m_text, 1);
  layout->addLayout(top);

  m_kernels = new QLabel(this);
  m_kernels->setObjectName(QStringLiteral("kernelChecks"));
  m_kernels->setTextFormat(Qt::RichText);
  m_kernels->setWordWrap(true);
  m_kernels->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_kernels->setText(kernelTable());
  m_kernels->setContentsMargins(0, 0, 6, 0);
  // Eight rows do not fit under the licence at 1280x720: the table scrolls instead of pushing the
  // Close button off the screen.
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("kernelChecksScroll"));
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(m_kernels);
  scroll->setMinimumHeight(150);
  layout->addWidget(scroll, 1);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

QString AboutDialog::plainText() const {
  QTextDocument document;
  document.setHtml(m_text->text() + m_kernels->text());
  return document.toPlainText();
}

QString AboutDialog::kernelTable() {
  QString rows;
  for (const KernelCheck& c : nativeKernelChecks()) {
    QString verdict;
    QString detail;
    if (!c.available) {
      verdict = tr("not in this LibTorch");
    } else if (!c.correct) {
      verdict = tr("<b style='color:#c00000'>wrong: not used</b>");
      detail = tr("error up to %1× what FP32 accumulation and one rounding allow").arg(c.worstBoundRatio, 0, 'g', 3);
    } else if (c.comparedWithEmulation) {
      verdict = tr("correct");
      detail = tr("%1 % of %2 outputs off the exact rounding, by at most %3 ulp")
                   .arg(c.differingShare * 100.0, 0, 'g', 3)
                   .arg(c.outputs)
                   .arg(c.maxUlps, 0, 'f', 0);
      detail += tr("; against the emulation: %1 % differ, by at most %2 ulp")
                    .arg(c.emulationDifferingShare * 100.0, 0, 'g', 3)
                    .arg(c.emulationMaxUlps, 0, 'f', 0);
    } else if (c.worstBoundRatio > 0) {
      // FP32 sums: ulps mean little where a sum cancels; the error against its bound says it all.
      verdict = tr("correct");
      detail = tr("error at most %1 of what FP32 accumulation and one rounding allow").arg(c.worstBoundRatio, 0, 'g', 2);
    } else {
      verdict = tr("correct");
      detail = tr("%1 results as documented").arg(c.outputs);
    }
    const QString used = c.usedBy.empty() ? tr("not used by AmpScope's models")
                                          : tr("used by %1").arg(QString::fromStdString(c.usedBy));
    rows += QStringLiteral("<tr><td><code>%1</code></td><td>%2</td><td>%3</td><td>%4</td></tr>")
                .arg(QString::fromStdString(c.kernel).toHtmlEscaped(), verdict, detail.toHtmlEscaped(), used);
  }
  const std::string source = nativeKernelChecksSource();
  const QString when = source.empty()
                           ? tr("Checked in this session.")
                           : tr("Checked at the first start on this machine and kept in %1; "
                                "<code>ampscope-cli kernels --recheck</code> checks again.")
                                 .arg(QString::fromStdString(source).toHtmlEscaped());
  return tr("<p><b>Native kernels on this CPU</b>, each checked against an exact reference before a mode "
            "may use it:</p>") +
         QStringLiteral("<table cellspacing='3'>%1</table><p>%2</p>").arg(rows, when);
}

QString AboutDialog::versionSummary() {
  return tr("AmpScope %1\nQt %2 (built with %3)\nLibTorch %4\nLicence %5")
      .arg(QString::fromStdString(ampscopeVersion()), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR),
           QString::fromStdString(libtorchVersion()), QString::fromStdString(licenseName()));
}

}  // namespace ampscope::ui
