#include "ui/formats/format_row_widget.h"

#include <QGridLayout>
#include <QLabel>
#include <QStringList>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "ui/formats/bit_cells_widget.h"
#include "ui/formats/format_text.h"

namespace ampscope::ui::formats {

namespace {

constexpr int kHeaderWidth = 168;  // name column: the same width in every row so the bits line up
constexpr int kValueWidth = 270;   // stored value / error column

QLabel* makeValueLabel(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

// The row's card uses a style sheet, and a style sheet overrides palettes of the widgets below it:
// colours inside a row are set with style sheets too.
const QString kCaptionStyle = QStringLiteral("color: #78909c;");

QLabel* makeCaption(const QString& text, QWidget* parent) {
  auto* label = new QLabel(text, parent);
  label->setStyleSheet(kCaptionStyle);
  return label;
}

QString sup(const QString& text) { return QStringLiteral("<sup>%1</sup>").arg(text); }

QString signedInt(int value) {
  // A real minus sign reads better in a formula than a hyphen.
  return value < 0 ? QStringLiteral("&minus;%1").arg(-value) : QString::number(value);
}

}  // namespace

FormatRowWidget::FormatRowWidget(DType dtype, QWidget* parent) : QFrame(parent), m_dtype(dtype) {
  const FormatSpec& spec = formatSpec(dtype);
  setObjectName(QStringLiteral("formatRow"));
  setFrameShape(QFrame::StyledPanel);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);

  m_grid = new QGridLayout(this);
  m_grid->setContentsMargins(12, 6, 8, 6);
  m_grid->setHorizontalSpacing(14);
  m_grid->setVerticalSpacing(2);
  // The grid's width comes from the panel (the rows sit in a scroll area without a horizontal bar);
  // below kWideLayoutMinWidth the row switches to its stacked layout instead of clipping.
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

  // Column 0: name, layout, badge.
  m_headerLayout = new QBoxLayout(QBoxLayout::TopToBottom);
  QBoxLayout* header = m_headerLayout;
  header->setSpacing(2);
  auto* name = new QLabel(dtypeDisplayName(dtype), this);
  QFont nameFont = name->font();
  nameFont.setBold(true);
  nameFont.setPointSizeF(nameFont.pointSizeF() * 1.2);
  name->setFont(nameFont);
  name->setToolTip(dtypeDescription(dtype));
  auto* layoutLabel = makeCaption(spec.hasSign ? tr("1+%1+%2 bits · bias %3")
                                                     .arg(spec.exponentBits)
                                                     .arg(spec.mantissaBits)
                                                     .arg(spec.bias)
                                               : tr("%1 exponent bits, no sign · bias %2")
                                                     .arg(spec.exponentBits)
                                                     .arg(spec.bias),
                                  this);
  layoutLabel->setToolTip(tr("%1 sign bit, %2 exponent bits, %3 stored mantissa bits. The exponent is "
                             "stored with a bias of %4 = 2<sup>%2&minus;1</sup>&minus;1, so field e means "
                             "2<sup>e&minus;%4</sup>. %5 byte(s) per element in memory.")
                              .arg(spec.hasSign ? 1 : 0)
                              .arg(spec.exponentBits)
                              .arg(spec.mantissaBits)
                              .arg(spec.bias)
                              .arg(spec.storageBits / 8.0));
  m_badge = new QLabel(this);
  m_badge->setObjectName(QStringLiteral("highlightBadge"));
  m_badge->setAlignment(Qt::AlignCenter);
  header->addWidget(name);
  header->addWidget(layoutLabel);
  header->addWidget(m_badge, 0, Qt::AlignLeft);
  header->addStretch();
  m_headerBox = new QWidget(this);
  m_headerBox->setLayout(header);
  header->setContentsMargins(0, 0, 0, 0);

  // Column 1: bits and the formula.
  m_bitCells = new BitCellsWidget(dtype, this);
  connect(m_bitCells, &BitCellsWidget::bitClicked, this,
          [this](int bit) { emit encodingChosen(m_dtype, flipBit(m_dtype, m_result.bits, bit)); });
  m_formula = new QLabel(this);
  m_formula->setObjectName(QStringLiteral("formula"));
  m_formula->setTextFormat(Qt::RichText);
  m_formula->setWordWrap(true);
  m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_formula->setToolTip(tr("How the bits make the value.<br>Normal: (&minus;1)<sup>s</sup> &times; "
                           "2<sup>e&minus;bias</sup> &times; 1.m<br>Subnormal (e = 0): (&minus;1)<sup>s"
                           "</sup> &times; 2<sup>1&minus;bias</sup> &times; 0.m<br>e all ones: "
                           "infinity (m = 0) or NaN (m &ne; 0)."));

  m_notes = new QLabel(this);
  m_notes->setObjectName(QStringLiteral("notes"));
  m_notes->setTextFormat(Qt::RichText);
  m_notes->setWordWrap(true);
  m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_notes->setStyleSheet(kCaptionStyle);
  m_notes->hide();

  // Column 2: stored value, error, encoding.
  auto* values = new QGridLayout;
  values->setHorizontalSpacing(8);
  values->setVerticalSpacing(1);
  m_stored = makeValueLabel(this);
  m_stored->setObjectName(QStringLiteral("storedValue"));
  QFont storedFont = m_stored->font();
  storedFont.setBold(true);
  m_stored->setFont(storedFont);
  m_stored->setToolTip(tr("The value this format actually stores: the input rounded to the nearest "
                          "representable value (ties to even)."));
  m_absError = makeValueLabel(this);
  m_absError->setToolTip(tr("Absolute rounding error |stored &minus; input|."));
  m_relError = makeValueLabel(this);
  m_relError->setToolTip(tr("Relative rounding error |stored &minus; input| / |input|. Compare it with "
                            "this format's eps / 2 = %1.")
                             .arg(scientific(finfo(dtype).eps / 2, 3)));
  m_hex = makeValueLabel(this);
  m_hex->setToolTip(tr("The encoding as a hexadecimal bit pattern. Type it into the value field to "
                       "read it back."));
  m_class = makeValueLabel(this);
  m_class->setToolTip(tr("The class of the stored value: zero, subnormal, normal, infinity or NaN."));
  values->addWidget(makeCaption(tr("stored"), this), 0, 0);
  values->addWidget(m_stored, 0, 1, 1, 3);
  values->addWidget(makeCaption(tr("error"), this), 1, 0);
  values->addWidget(m_absError, 1, 1);
  values->addWidget(m_relError, 1, 2, 1, 2);
  values->addWidget(makeCaption(tr("bits"), this), 2, 0);
  values->addWidget(m_hex, 2, 1, 1, 3);
  values->addWidget(makeCaption(tr("class"), this), 3, 0);
  values->addWidget(m_class, 3, 1, 1, 3);
  values->setColumnStretch(3, 1);
  m_valueBox = new QWidget(this);
  m_valueBox->setLayout(values);
  values->setContentsMargins(0, 0, 0, 0);
  m_valueBox->setFixedWidth(kValueWidth);

  // Column 3: stepping.
  m_stepsBox = new QWidget(this);
  m_stepsLayout = new QBoxLayout(QBoxLayout::TopToBottom, m_stepsBox);
  m_stepsLayout->setContentsMargins(0, 0, 0, 0);
  QBoxLayout* steps = m_stepsLayout;
  steps->setSpacing(2);
  m_previous = new QToolButton(this);
  m_previous->setObjectName(QStringLiteral("previousButton"));
  m_previous->setArrowType(Qt::LeftArrow);
  m_previous->setText(tr("prev"));
  m_previous->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_previous->setToolTip(tr("Previous representable %1 value (toward &minus;infinity); it becomes the "
                            "entry value.")
                             .arg(dtypeDisplayName(dtype)));
  m_next = new QToolButton(this);
  m_next->setObjectName(QStringLiteral("nextButton"));
  m_next->setArrowType(Qt::RightArrow);
  m_next->setText(tr("next"));
  m_next->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_next->setToolTip(tr("Next representable %1 value (toward +infinity); it becomes the entry value.")
                         .arg(dtypeDisplayName(dtype)));
  connect(m_previous, &QToolButton::clicked, this,
          [this] { emit encodingChosen(m_dtype, nextDown(m_dtype, m_result.bits)); });
  connect(m_next, &QToolButton::clicked, this,
          [this] { emit encodingChosen(m_dtype, nextUp(m_dtype, m_result.bits)); });
  m_next->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  m_previous->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  steps->addStretch();
  steps->addWidget(m_next);
  steps->addWidget(m_previous);
  steps->addStretch();

  applyLayout(false);
  showValue(0.0);
}

void FormatRowWidget::applyLayout(bool compact) {
  m_compact = compact;
  const QList<QWidget*> parts{m_headerBox, m_bitCells, m_formula, m_notes, m_valueBox, m_stepsBox};
  for (QWidget* w : parts) {
    m_grid->removeWidget(w);
  }
  for (int c = 0; c < 4; ++c) m_grid->setColumnStretch(c, 0);
  if (compact) {
    // Stacked: name, layout and badge on one line; then bits, formula, and values beside the steps.
    m_headerLayout->setDirection(QBoxLayout::LeftToRight);
    m_headerLayout->setSpacing(10);
    m_headerBox->setMinimumWidth(0);
    m_headerBox->setMaximumWidth(QWIDGETSIZE_MAX);
    m_stepsLayout->setDirection(QBoxLayout::TopToBottom);
    m_grid->addWidget(m_headerBox, 0, 0, 1, 2);
    m_grid->addWidget(m_bitCells, 1, 0, 1, 2);
    m_grid->addWidget(m_formula, 2, 0, 1, 2);
    m_grid->addWidget(m_valueBox, 3, 0, Qt::AlignLeft);
    m_grid->addWidget(m_stepsBox, 3, 1, Qt::AlignRight | Qt::AlignVCenter);
    m_grid->addWidget(m_notes, 4, 0, 1, 2);
    m_grid->setColumnStretch(0, 1);
  } else {
    // Side by side: name | bits over formula | values | step buttons.
    m_headerLayout->setDirection(QBoxLayout::TopToBottom);
    m_headerLayout->setSpacing(2);
    m_headerBox->setFixedWidth(kHeaderWidth);
    m_stepsLayout->setDirection(QBoxLayout::TopToBottom);
    m_grid->addWidget(m_headerBox, 0, 0, 2, 1);
    m_grid->addWidget(m_bitCells, 0, 1);
    m_grid->addWidget(m_formula, 1, 1);
    m_grid->addWidget(m_valueBox, 0, 2, 2, 1, Qt::AlignVCenter);
    m_grid->addWidget(m_stepsBox, 0, 3, 2, 1);
    m_grid->addWidget(m_notes, 2, 1, 1, 3);
    m_grid->setColumnStretch(1, 1);
  }
}

void FormatRowWidget::resizeEvent(QResizeEvent* event) {
  QFrame::resizeEvent(event);
  const bool compact = width() < kWideLayoutMinWidth;
  if (compact != m_compact) applyLayout(compact);
}

void FormatRowWidget::showValue(double input) {
  m_result = roundValue(m_dtype, input);
  refresh();
}

void FormatRowWidget::showEncoding(double input, uint64_t bits) {
  m_result = roundValue(m_dtype, input);
  bits &= bitMask(m_dtype);
  if (bits != m_result.bits) {
    // Only a NaN payload can differ: the value round-trips, the payload is what the user typed.
    m_result.bits = bits;
    m_result.stored = decode(m_dtype, bits);
    m_result.cls = classify(m_dtype, bits);
  }
  refresh();
}

QString FormatRowWidget::badgeText() const { return m_badge->text(); }
QString FormatRowWidget::storedText() const { return m_stored->text(); }
QString FormatRowWidget::formulaText() const { return m_formula->text(); }
QString FormatRowWidget::notesText() const { return m_notes->text(); }

void FormatRowWidget::refresh() {
  const RoundingResult& r = m_result;
  m_bitCells->setBits(r.bits);

  QString badge;
  QRgb color = 0xff90a4ae;  // grey: rounded, nothing special
  QString tip;
  if (r.noEncoding) {
    m_highlight = Highlight::NaN;
    badge = tr("no encoding");
    color = kNaNColor;
    tip = m_dtype == DType::E8M0
              ? tr("E8M0 has no sign and no zero: zero and negative values have no encoding (NaN here).")
              : tr("%1 has no NaN: a NaN has no encoding (zero here; in an MX block the scale carries NaN).")
                    .arg(dtypeDisplayName(m_dtype));
  } else if (r.saturated) {
    m_highlight = Highlight::Overflow;
    badge = tr("saturated → max");
    color = kOverflowColor;
    tip = tr("Beyond %1's max: it has no infinity or NaN, so the value is clamped to ±%2.")
              .arg(dtypeDisplayName(m_dtype), shortestText(finfo(m_dtype).max));
  } else if (r.cls == ValueClass::NaN && !std::isnan(r.input)) {
    m_highlight = Highlight::Overflow;
    badge = tr("overflow → NaN");
    color = kOverflowColor;
    tip = tr("Too large for %1, which has no infinity: the value became NaN.").arg(dtypeDisplayName(m_dtype));
  } else if (r.cls == ValueClass::NaN) {
    m_highlight = Highlight::NaN;
    badge = tr("NaN");
    color = kNaNColor;
    tip = tr("Not a number: exponent all ones and a non-zero mantissa.");
  } else if (r.overflowed) {
    m_highlight = Highlight::Overflow;
    badge = tr("overflow → inf");
    color = kOverflowColor;
    tip = tr("Larger than the format's max (%1 after rounding): stored as infinity.")
              .arg(scientific(finfo(m_dtype).max, 6));
  } else if (r.flushedToZero) {
    m_highlight = Highlight::Flushed;
    badge = tr("flushed to 0");
    color = kFlushedColor;
    tip = tr("Smaller than half the smallest subnormal (%1): the value is lost, stored as zero. This is "
             "gradient underflow.")
              .arg(scientific(finfo(m_dtype).smallestSubnormal, 6));
  } else if (r.cls == ValueClass::Subnormal) {
    m_highlight = Highlight::Subnormal;
    badge = tr("subnormal");
    color = kSubnormalColor;
    tip = tr("Below the smallest normal value (%1): stored with fewer significant bits, so the relative "
             "error grows.")
              .arg(scientific(finfo(m_dtype).smallestNormal, 6));
  } else if (r.absError == 0) {
    m_highlight = Highlight::Exact;
    badge = tr("exact");
    color = kExactColor;
    tip = tr("Representable exactly: no rounding error.");
  } else {
    m_highlight = Highlight::None;
    badge = tr("rounded");
    tip = tr("Rounded to the nearest representable value.");
  }
  m_badge->setText(badge);
  m_badge->setToolTip(tip);
  // Re-polishing a style sheet is costly (every child is re-styled): only when the colour changes.
  const QString badgeSheet = QStringLiteral("QLabel { background: %1; color: white; border-radius: 8px; "
                                            "padding: 1px 8px; font-weight: bold; }")
                                 .arg(QColor(color).name());
  if (m_badge->styleSheet() != badgeSheet) m_badge->setStyleSheet(badgeSheet);
  // The card's left edge carries the same colour, so a flushed row stands out while scrolling.
  const QString cardSheet = QStringLiteral("QFrame#formatRow { border: 1px solid palette(mid); border-left: 5px "
                                           "solid %1; border-radius: 5px; background: palette(base); }")
                                .arg(QColor(color).name());
  if (styleSheet() != cardSheet) setStyleSheet(cardSheet);

  m_stored->setText(shortestText(r.stored));
  const bool alarming = m_highlight == Highlight::Flushed || m_highlight == Highlight::Overflow;
  const QString storedSheet = alarming ? QStringLiteral("color: %1;").arg(QColor(color).name()) : QString();
  if (m_stored->styleSheet() != storedSheet) m_stored->setStyleSheet(storedSheet);
  m_absError->setText(tr("%1 abs").arg(scientific(r.absError, 2)));
  m_relError->setText(tr("%1 rel").arg(scientific(r.relError, 2)));
  m_hex->setText(QString::fromStdString(formatBitsHex(m_dtype, r.bits)));
  m_class->setText(valueClassText(r.cls));
  m_formula->setText(formulaHtml());

  QStringList notes;
  const bool fp8 = m_dtype == DType::FP8E4M3FN || m_dtype == DType::FP8E5M2;
  if (fp8) {
    const RoundingResult s = roundValueSaturating(m_dtype, r.input);
    if (s.bits != r.bits) {
      notes << tr("saturating (satfinite): %1 (%2)")
                   .arg(shortestText(s.stored), QString::fromStdString(formatBitsHex(m_dtype, s.bits)));
    }
  }
  const PyTorchConversion torch = pytorchConversion(m_dtype, r.input);
  if (torch.differs) {
    // The reason is the engine's English line (the CLI prints the same); the caption is translated.
    notes << tr("PyTorch stores %1: %2")
                 .arg(shortestText(torch.stored), QString::fromStdString(torch.reason).toHtmlEscaped());
  }
  m_notes->setText(notes.join(QStringLiteral("<br>")));
  m_notes->setVisible(!notes.isEmpty());
}

QString FormatRowWidget::formulaHtml() const {
  const FormatSpec& spec = formatSpec(m_dtype);
  const Decomposed d = decompose(m_dtype, m_result.bits);
  const QString sign = QStringLiteral("(&minus;1)") + sup(QString::number(d.sign ? 1 : 0));
  const QString grey = QStringLiteral("<span style='color:#78909c'>%1</span>");
  switch (d.cls) {
    case ValueClass::Zero:
      return grey.arg(tr("e = 0, m = 0:")) + QStringLiteral(" %1 &times; 0 = %2").arg(sign, d.sign ? "&minus;0" : "+0");
    case ValueClass::Infinite:
      return grey.arg(tr("e all ones, m = 0:")) + QStringLiteral(" %1").arg(d.sign ? "&minus;&infin;" : "+&infin;");
    case ValueClass::NaN:
      if (!spec.hasSign) return grey.arg(tr("1111 1111 is %1's only NaN pattern (no zero, no infinity)").arg(dtypeDisplayName(m_dtype)));
      if (!spec.hasInfinity) return grey.arg(tr("S.1111.111 is %1's only NaN pattern (it has no infinity)").arg(dtypeDisplayName(m_dtype)));
      return grey.arg(tr("e all ones, m = %1 &ne; 0: NaN").arg(d.mantissaField));
    case ValueClass::Subnormal: {
      const double fraction = std::ldexp(static_cast<double>(d.mantissaField), -spec.mantissaBits);
      return grey.arg(tr("subnormal (&minus;1)<sup>s</sup>&times;2<sup>1&minus;bias</sup>&times;0.m =")) +
             QStringLiteral(" %1 &times; 2<sup>1&minus;%2</sup> &times; %3  <span style='color:#78909c'>"
                            "(0.m = %4/2<sup>%5</sup>)</span>")
                 .arg(sign)
                 .arg(spec.bias)
                 .arg(shortestText(fraction))
                 .arg(d.mantissaField)
                 .arg(spec.mantissaBits);
    }
    case ValueClass::Normal: {
      if (!spec.hasSign) {  // E8M0: a power of two and nothing else
        return grey.arg(tr("2<sup>e&minus;bias</sup> =")) + QStringLiteral(" 2<sup>%1&minus;%2</sup> = 2<sup>%3</sup>")
                                                               .arg(d.exponentField)
                                                               .arg(spec.bias)
                                                               .arg(signedInt(d.unbiasedExponent));
      }
      const double significand = 1.0 + std::ldexp(static_cast<double>(d.mantissaField), -spec.mantissaBits);
      return grey.arg(tr("(&minus;1)<sup>s</sup>&times;2<sup>e&minus;bias</sup>&times;1.m =")) +
             QStringLiteral(" %1 &times; 2<sup>%2&minus;%3</sup> &times; %4  <span style='color:#78909c'>"
                            "(= 2<sup>%5</sup> &times; %4)</span>")
                 .arg(sign)
                 .arg(d.exponentField)
                 .arg(spec.bias)
                 .arg(shortestText(significand))
                 .arg(signedInt(d.unbiasedExponent));
    }
  }
  return {};
}

}  // namespace ampscope::ui::formats
