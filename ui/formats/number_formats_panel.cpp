#include "ui/formats/number_formats_panel.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "ui/formats/finfo_table_widget.h"
#include "ui/common/flow_layout.h"
#include "ui/formats/format_row_widget.h"
#include "ui/formats/format_text.h"
#include "ui/formats/memory_calculator_widget.h"
#include "ui/formats/range_strip_widget.h"
#include "ui/formats/underflow_table_widget.h"

namespace ampscope::ui::formats {

namespace {

const QColor kInvalidBase(0xfd, 0xec, 0xea);
const QColor kInvalidText(0xc6, 0x28, 0x28);

QString chip(const QColor& background, const QColor& foreground, const QString& text) {
  return QStringLiteral("<span style='background:%1; color:%2'>&nbsp;%3&nbsp;</span>")
      .arg(background.name(), foreground.name(), text);
}

}  // namespace

NumberFormatsPanel::NumberFormatsPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("numberFormatsPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  layout->setSpacing(6);
  layout->addWidget(buildEntryBar());

  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("numberFormatsTabs"));
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(buildRowsPage(), tr("Bits && values"));
  m_tabs->addTab(buildRangePage(), tr("Range"));
  m_finfo = new FinfoTableWidget(this);
  m_tabs->addTab(m_finfo, tr("Limits (finfo)"));
  m_underflow = new UnderflowTableWidget(this);
  connect(m_underflow, &UnderflowTableWidget::valueActivated, this,
          [this](double value) { setValueText(shortestText(value)); });
  m_tabs->addTab(m_underflow, tr("Underflow"));
  m_memory = new MemoryCalculatorWidget(this);
  m_tabs->addTab(m_memory, tr("Memory"));
  m_tabs->setTabToolTip(0, tr("The entry value in every format, bit by bit."));
  m_tabs->setTabToolTip(1, tr("Where each format's values live on a log2 axis, and why FP16 needs loss "
                              "scaling and BF16 does not."));
  m_tabs->setTabToolTip(2, tr("torch.finfo for every format."));
  m_tabs->setTabToolTip(3, tr("The chapter's gradient-underflow table."));
  m_tabs->setTabToolTip(4, tr("Bytes and GiB of N elements per format."));
  layout->addWidget(m_tabs, 1);

  setValueText(QStringLiteral("0.1"));
}

QWidget* NumberFormatsPanel::buildEntryBar() {
  auto* bar = new QWidget(this);
  auto* layout = new QVBoxLayout(bar);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(4);

  // Entry, pattern format and message flow onto more lines when the dock is narrow.
  auto* entryRow = new QWidget(bar);
  auto* entryFlow = new FlowLayout(entryRow, 16, 4);
  auto* valueGroup = new QWidget(entryRow);
  auto* valueLayout = new QHBoxLayout(valueGroup);
  valueLayout->setContentsMargins(0, 0, 0, 0);
  auto* label = new QLabel(tr("&Value:"), valueGroup);
  QFont bigger = label->font();
  bigger.setPointSizeF(bigger.pointSizeF() * 1.15);
  bigger.setBold(true);
  label->setFont(bigger);
  m_valueEdit = new QLineEdit(valueGroup);
  m_valueEdit->setObjectName(QStringLiteral("valueEdit"));
  m_valueEdit->setPlaceholderText(tr("1e-8, 65504, -0, inf, nan, 0x3c00 …"));
  m_valueEdit->setToolTip(tr("A number (0.1, 1e-8, 65504, -0, inf, nan) or a bit pattern in hex (0x3c00) "
                             "or binary (0b0011110000000000), read in the format chosen on the right. "
                             "Every row below shows this value in its format."));
  QFont entryFont = m_valueEdit->font();
  entryFont.setPointSizeF(entryFont.pointSizeF() * 1.15);
  m_valueEdit->setFont(entryFont);
  m_valueEdit->setFixedWidth(300);
  label->setBuddy(m_valueEdit);
  // Added to the field only while the input is bad (Qt 6.4 still draws a line-edit action hidden
  // with setVisible(false)).
  m_invalidAction = new QAction(style()->standardIcon(QStyle::SP_MessageBoxWarning), QString(), m_valueEdit);
  m_invalidAction->setObjectName(QStringLiteral("invalidInputAction"));
  valueLayout->addWidget(label);
  valueLayout->addWidget(m_valueEdit);

  auto* patternGroup = new QWidget(entryRow);
  auto* patternLayout = new QHBoxLayout(patternGroup);
  patternLayout->setContentsMargins(0, 0, 0, 0);
  auto* patternLabel = new QLabel(tr("bit patterns in:"), patternGroup);
  m_patternBox = new QComboBox(patternGroup);
  m_patternBox->setObjectName(QStringLiteral("patternDTypeBox"));
  m_patternBox->setToolTip(tr("The format a typed bit pattern (0x…, 0b…) is read in."));
  for (DType dtype : allDTypes()) m_patternBox->addItem(dtypeDisplayName(dtype), static_cast<int>(dtype));
  m_patternBox->setCurrentIndex(m_patternBox->findData(static_cast<int>(DType::FP16)));
  patternLabel->setBuddy(m_patternBox);
  patternLayout->addWidget(patternLabel);
  patternLayout->addWidget(m_patternBox);

  m_message = new QLabel(entryRow);
  m_message->setObjectName(QStringLiteral("valueMessage"));
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_message->setMinimumHeight(m_valueEdit->sizeHint().height());

  entryFlow->addWidget(valueGroup);
  entryFlow->addWidget(patternGroup);
  entryFlow->addWidget(m_message);
  layout->addWidget(entryRow);

  m_plotContext = new QLabel(bar);
  m_plotContext->setObjectName(QStringLiteral("plotValueContext"));
  m_plotContext->setWordWrap(true);
  m_plotContext->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_plotContext->setStyleSheet(QStringLiteral("QLabel { background: #eef3fb; border: 1px solid #b8c8e8; "
                                              "border-radius: 3px; padding: 3px; }"));
  m_plotContext->setVisible(false);
  layout->addWidget(m_plotContext);

  // Presets: the values the chapter talks about, one click away.
  auto* presetRow = new QWidget(bar);
  auto* presets = new FlowLayout(presetRow, 4, 4);
  auto* tryLabel = new QLabel(tr("Try:"), presetRow);
  tryLabel->setMinimumHeight(QToolButton().sizeHint().height());
  presets->addWidget(tryLabel);
  struct Preset {
    QString text;
    QString tip;
  };
  const Preset list[] = {
      {QStringLiteral("1e-8"), tr("A small gradient: FP16 flushes it to zero, BF16 keeps it (the chapter).")},
      {QStringLiteral("0.1"), tr("Not representable in binary: every format rounds it.")},
      {QStringLiteral("65504"), tr("FP16's max.")},
      {QStringLiteral("65520"), tr("Halfway to the next FP16 binade: rounds to FP16 infinity.")},
      {QStringLiteral("6.5536e-4"), tr("1e-8 × 65536: the same gradient after loss scaling, safe in FP16.")},
      {QStringLiteral("1e-40"), tr("Subnormal in FP32 and BF16.")},
      {QStringLiteral("3.4e38"), tr("Near FP32's max: BF16 rounds it to infinity.")},
      {QStringLiteral("-0"), tr("Negative zero: only the sign bit is set.")},
      {QStringLiteral("inf"), tr("Infinity: exponent all ones, mantissa zero.")},
      {QStringLiteral("nan"), tr("Not a number.")},
      {QStringLiteral("0x3c00"), tr("FP16 bit pattern of 1.0.")},
  };
  for (const Preset& preset : list) {
    auto* button = new QToolButton(presetRow);
    button->setText(preset.text);
    button->setToolTip(preset.tip);
    button->setObjectName(QStringLiteral("preset_") + preset.text);
    connect(button, &QToolButton::clicked, this, [this, text = preset.text] {
      if (text.startsWith(QLatin1String("0x"))) setPatternDType(DType::FP16);
      setValueText(text);
    });
    presets->addWidget(button);
  }
  layout->addWidget(presetRow);

  // Legend: what the colours of the cells and the badges mean. One label per chip or phrase, in a flow
  // layout: a narrow dock wraps between whole chips, never inside one ("flushed to 0" stays together in
  // every language; a wrapping QLabel breaks Chinese text between any two characters).
  m_legend = new QWidget(bar);
  m_legend->setObjectName(QStringLiteral("legend"));
  auto* legendFlow = new FlowLayout(m_legend, 8, 2);
  for (int item = 0; item < kLegendItemCount; ++item) {
    auto* label = new QLabel(m_legend);
    label->setObjectName(QStringLiteral("legendItem%1").arg(item));
    label->setTextFormat(Qt::RichText);
    label->setWordWrap(false);
    legendFlow->addWidget(label);
    m_legendItems.append(label);
  }
  retranslateLegend();
  layout->addWidget(m_legend);

  connect(m_valueEdit, &QLineEdit::textChanged, this, &NumberFormatsPanel::applyText);
  connect(m_patternBox, &QComboBox::currentIndexChanged, this, &NumberFormatsPanel::applyText);
  return bar;
}

QWidget* NumberFormatsPanel::buildRowsPage() {
  auto* scroll = new QScrollArea(this);
  scroll->setObjectName(QStringLiteral("formatRowsScroll"));
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* content = new QWidget(scroll);
  auto* rows = new QVBoxLayout(content);
  rows->setContentsMargins(0, 6, 4, 6);
  rows->setSpacing(6);
  for (DType dtype : allDTypes()) {
    auto* row = new FormatRowWidget(dtype, content);
    m_rows.insert(dtype, row);
    connect(row, &FormatRowWidget::encodingChosen, this, &NumberFormatsPanel::onEncodingChosen);
    rows->addWidget(row);
  }
  rows->addStretch();
  scroll->setWidget(content);
  return scroll;
}

QWidget* NumberFormatsPanel::buildRangePage() {
  auto* page = new QWidget(this);
  auto* layout = new QVBoxLayout(page);
  m_rangeStrip = new RangeStripWidget(page);
  m_rangeStrip->setObjectName(QStringLiteral("rangeStrip"));
  layout->addWidget(m_rangeStrip);
  const FInfo fp16 = finfo(DType::FP16);
  const FInfo bf16 = finfo(DType::BF16);
  auto* text = new QLabel(
      tr("<p><b>Why FP16 needs loss scaling and BF16 does not.</b> Gradients of a typical network are tiny: "
         "most lie between 2<sup>&minus;40</sup> and 2<sup>&minus;10</sup> (green band). FP16's normal range "
         "starts at %1 (2<sup>&minus;14</sup>), its subnormals end at %2 (2<sup>&minus;24</sup>): the left "
         "part of the band becomes <b>zero</b> and those parameters get no update. BF16 has FP32's 8 exponent "
         "bits, so its range reaches %3 and the whole band fits; it only pays in precision (eps %4 versus "
         "FP16's %5).</p>"
         "<p>Loss scaling multiplies the loss, and so every gradient, by s = 2<sup>16</sup> = 65536: the "
         "band slides 16 binades to the right, into FP16's range (1e-8 &times; 65536 = 6.5536e-04), and the "
         "optimizer divides by s again in FP32.</p>")
          .arg(scientific(fp16.smallestNormal, 3), scientific(fp16.smallestSubnormal, 3),
               scientific(bf16.smallestSubnormal, 3), scientific(bf16.eps, 3), scientific(fp16.eps, 3)),
      page);
  text->setWordWrap(true);
  text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(text);
  layout->addStretch();
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setWidget(page);
  return scroll;
}

void NumberFormatsPanel::retranslateLegend() {
  const auto bitChip = [](BitField field, const QString& name) {
    return QStringLiteral("%1&nbsp;%2").arg(chip(fieldColor(field, true), Qt::white, QStringLiteral("1")),
                                            name.toHtmlEscaped());
  };
  const auto classChip = [](QRgb color, const QString& name) {
    return chip(QColor(color), Qt::white, name.toHtmlEscaped().replace(u' ', QStringLiteral("&nbsp;")));
  };
  const QString texts[kLegendItemCount] = {
      tr("Bits:").toHtmlEscaped(),
      bitChip(BitField::Sign, tr("sign")),
      bitChip(BitField::Exponent, tr("exponent")),
      bitChip(BitField::Mantissa, tr("mantissa")),
      tr("(dark = 1, pale = 0)").toHtmlEscaped(),
      tr("Click a bit to flip it.").toHtmlEscaped(),
      QStringLiteral("&nbsp;│&nbsp;"),
      classChip(kExactColor, tr("exact")),
      classChip(0xff90a4ae, tr("rounded")),
      classChip(kSubnormalColor, tr("subnormal")),
      classChip(kFlushedColor, tr("flushed to 0")),
      classChip(kOverflowColor, tr("overflow")),
  };
  for (int item = 0; item < kLegendItemCount && item < m_legendItems.size(); ++item)
    m_legendItems[item]->setText(texts[item]);
}

void NumberFormatsPanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::LanguageChange) retranslateLegend();
}

void NumberFormatsPanel::setValueText(const QString& text) {
  if (m_valueEdit->text() == text) {
    applyText();  // same text, maybe a different pattern dtype: re-read it
  } else {
    m_valueEdit->setText(text);
  }
}

QString NumberFormatsPanel::valueText() const { return m_valueEdit->text(); }

void NumberFormatsPanel::showPlotValue(double value, const QString& context) {
  m_plotContextText = shortestText(value);
  m_plotContext->setText(context);
  m_plotContext->setVisible(!context.isEmpty());
  setValueText(m_plotContextText);
}

void NumberFormatsPanel::setPatternDType(DType dtype) {
  const int index = m_patternBox->findData(static_cast<int>(dtype));
  if (index >= 0) m_patternBox->setCurrentIndex(index);
}

DType NumberFormatsPanel::patternDType() const {
  return static_cast<DType>(m_patternBox->currentData().toInt());
}

QString NumberFormatsPanel::inputMessage() const { return m_message->text(); }

void NumberFormatsPanel::applyText() {
  const QString text = m_valueEdit->text().trimmed();
  if (!m_plotContextText.isEmpty() && m_valueEdit->text() != m_plotContextText) {
    m_plotContextText.clear();
    m_plotContext->setVisible(false);
  }
  if (text.isEmpty()) {
    showInvalid(tr("Type a value, e.g. 1e-8 or 0x3c00."));
    return;
  }
  const DType patternType = patternDType();
  const ParsedValue parsed = parseValue(text.toStdString(), patternType);
  if (!parsed.ok) {
    showInvalid(QString::fromStdString(parsed.error));
    return;
  }

  m_inputValid = true;
  m_valueEdit->setProperty("invalid", false);
  m_valueEdit->setPalette(QApplication::palette(m_valueEdit));
  m_valueEdit->removeAction(m_invalidAction);

  const double value = parsed.value;
  m_currentValue = value;
  for (FormatRowWidget* row : std::as_const(m_rows)) {
    if (parsed.isBitPattern && row->dtype() == patternType) {
      row->showEncoding(value, parsed.bits);
    } else {
      row->showValue(value);
    }
  }
  m_rangeStrip->setValue(value);

  QString message;
  if (parsed.isBitPattern) {
    message = tr("%1 read as %2 = <b>%3</b>")
                  .arg(QString::fromStdString(formatBitsHex(patternType, parsed.bits)), dtypeDisplayName(patternType),
                       shortestText(value));
  } else if (std::isfinite(value) && value != 0) {
    message = tr("as a double: %1 &nbsp;·&nbsp; log<sub>2</sub>|x| = %2")
                  .arg(QString::asprintf("%.17g", value), QString::number(std::log2(std::fabs(value)), 'f', 2));
  } else {
    message = tr("= <b>%1</b>").arg(shortestText(value));
  }
  m_message->setText(message);
  emit valueChanged(value);
}

void NumberFormatsPanel::showInvalid(const QString& reason) {
  // The rows keep the last good value; only the entry and the message say what is wrong.
  m_inputValid = false;
  m_valueEdit->setProperty("invalid", true);
  QPalette palette = QApplication::palette(m_valueEdit);
  palette.setColor(QPalette::Base, kInvalidBase);
  palette.setColor(QPalette::Text, kInvalidText);
  m_valueEdit->setPalette(palette);
  m_invalidAction->setToolTip(reason);
  if (!m_valueEdit->actions().contains(m_invalidAction)) m_valueEdit->addAction(m_invalidAction, QLineEdit::TrailingPosition);
  m_message->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                         .arg(kInvalidText.name(), reason.toHtmlEscaped()));
}

void NumberFormatsPanel::onEncodingChosen(DType dtype, quint64 bits) {
  const double value = decode(dtype, bits);
  if (std::isnan(value)) {
    // A NaN has no decimal text that names its payload: write the pattern in the row's format.
    setPatternDType(dtype);
    setValueText(QString::fromStdString(formatBitsHex(dtype, bits)));
  } else {
    setValueText(shortestText(value));
  }
}

}  // namespace ampscope::ui::formats
