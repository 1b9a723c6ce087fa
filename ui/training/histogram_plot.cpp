#include "ui/training/histogram_plot.h"

#include <QCheckBox>
#include <QFontMetricsF>
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/number_text.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/elided_legend_item.h"
#include "ui/training/format_window.h"
#include "ui/training/mode_palette.h"
#include "ui/training/power_of_two_ticker.h"
#include "ui/training/series_style.h"

namespace ampscope::ui {

namespace {

// Bar e spans x in [e - 1/2, e + 1/2] and holds |g| in [2^e, 2^(e+1)): a magnitude v sits at log2(v) - 1/2.
double edgeOf(double log2Value) { return log2Value - 0.5; }

// The zones drawn are the run's formats (format_window.h: zoneFormats, from mode_formats.h), FP16 and
// BF16 before any run. FP16 (IEEE binary16): smallest subnormal 2^-24, smallest normal 2^-14, max
// 65504 (finfo); round to nearest even sends |x| <= 2^-25 to 0 and |x| >= 65520 to inf.
constexpr double kFar = 400.0;  // beyond any exponent: open-ended zones
// Heights as fractions of the axis rect: the BF16 strip's middle, the FP16 labels' top.
constexpr double kStripMid = 0.032;
constexpr double kLabelTop = 0.09;

QCPItemRect* zoneRect(QCustomPlot* plot, double x0, double x1, double yTop, double yBottom, const QColor& fill) {
  auto* rect = new QCPItemRect(plot);
  rect->setLayer(QStringLiteral("background"));
  for (QCPItemPosition* p : {rect->topLeft, rect->bottomRight}) {
    p->setTypeX(QCPItemPosition::ptPlotCoords);
    p->setTypeY(QCPItemPosition::ptAxisRectRatio);
  }
  rect->topLeft->setCoords(x0, yTop);
  rect->bottomRight->setCoords(x1, yBottom);
  rect->setPen(Qt::NoPen);
  rect->setBrush(fill);
  rect->setSelectable(false);
  return rect;
}

QCPItemText* zoneLabel(QCustomPlot* plot, double x, double yRatio, Qt::Alignment align, const QString& text,
                       const QColor& color, const QFont& font) {
  auto* label = new QCPItemText(plot);
  label->setLayer(QStringLiteral("background"));
  label->position->setTypeX(QCPItemPosition::ptPlotCoords);
  label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  label->position->setCoords(x, yRatio);
  label->setPositionAlignment(align);
  label->setText(text);
  label->setColor(color);
  label->setFont(font);
  label->setSelectable(false);
  return label;
}

// The side note in a frameless scroll area: as tall as its text up to four lines, down to two lines
// where the panel has no room, with a scroll bar for the rest, so the note never takes the plot's minimum area away (nor is
// it cut off without a sign that there is more).
class NoteScroller : public QScrollArea {
 public:
  NoteScroller(QLabel* note, QWidget* parent) : QScrollArea(parent), note_(note) {
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setWidget(note);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
  }
  // At most kLines lines even where the panel has room: the plot takes what is left.
  QSize sizeHint() const override {
    const int width = std::max(100, viewport()->width());
    const int lines = kLines * note_->fontMetrics().lineSpacing() + 6;
    return QSize(QScrollArea::sizeHint().width(), std::min(lines, note_->heightForWidth(width) + 2));
  }
  static constexpr int kLines = 4;
  // One line, scrolled, where a lesson's column on a 720-pixel screen has no more.
  QSize minimumSizeHint() const override {
    return QSize(60, std::min(sizeHint().height(), note_->fontMetrics().lineSpacing() + 6));
  }

 private:
  QLabel* note_;
};

// Whether the layer choice ("" all parameters, kAllActivations, or one tensor's name) takes tensor t.
bool takes(const TensorStats& t, const QString& layer) {
  return layer.isEmpty() ? t.isParameter
         : layer == QLatin1String(HistogramPlot::kAllActivations) ? !t.isParameter
                                                                  : QString::fromStdString(t.name) == layer;
}

ExponentHistogram sumOf(const std::vector<TensorStats>& tensors, const QString& layer, bool scaled) {
  ExponentHistogram h;
  for (const TensorStats& t : tensors)
    if (takes(t, layer)) h.add(scaled ? t.scaled : t.unscaled);
  return h;
}

}  // namespace

HistogramPlot::HistogramPlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  scaledCombo_ = new QComboBox(this);
  scaledCombo_->addItem(tr("Scaled (as the GradScaler saw them)"));
  scaledCombo_->addItem(tr("Unscaled (true gradients)"));
  scaledCombo_->setToolTip(tr("Loss scaling multiplies every gradient by the scale: the histogram slides "
                              "log₂(scale) bars to the right, out of FP16's flush-to-zero zone."));
  layerCombo_ = new QComboBox(this);
  layerCombo_->setMinimumContentsLength(18);
  layerCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  layerCombo_->setToolTip(tr("Which gradients: all parameters summed, all tapped activation gradients, "
                             "or one tensor."));
  logCounts_ = new QCheckBox(tr("Log counts"), this);
  logCounts_->setChecked(true);
  modesMenu_ = new QMenu(this);
  modesButton_ = new QToolButton(this);
  modesButton_->setText(tr("Modes"));
  modesButton_->setMenu(modesMenu_);
  modesButton_->setPopupMode(QToolButton::InstantPopup);
  controls()->insertWidget(1, scaledCombo_);
  controls()->insertWidget(2, layerCombo_);
  controls()->insertWidget(3, logCounts_);
  controls()->insertWidget(4, modesButton_);

  note_ = new QLabel(this);
  note_->setWordWrap(true);
  note_->setTextFormat(Qt::RichText);
  note_->setContentsMargins(6, 0, 6, 2);
  note_->setToolTip(tr("Values with no exponent bin: exact zeros, infinities and NaNs. \"Would flush\" "
                       "counts finite values that round to 0 in the format it names: the mode's own (E5M2 or "
                       "E4M3 for the FP8 modes, at scale 1), FP16 for FP32 modes, to show what would happen."));
  static_cast<QVBoxLayout*>(layout())->addWidget(new NoteScroller(note_, this));

  connect(scaledCombo_, &QComboBox::currentIndexChanged, this, [this] { redrawBars(); });
  connect(layerCombo_, &QComboBox::currentIndexChanged, this, [this] { redrawBars(); });
  connect(logCounts_, &QCheckBox::toggled, this, &HistogramPlot::setLogCounts);

  group_ = new QCPBarsGroup(plot());
  group_->setSpacingType(QCPBarsGroup::stAbsolute);
  group_->setSpacing(0);
  plot()->xAxis->setLabel(tr("binary exponent e = ⌊log₂|g|⌋   (bar e counts |g| in [2ᵉ, 2ᵉ⁺¹))"));
  plot()->yAxis->setLabel(tr("values per bin (count)"));
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(5);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot()->xAxis->setTicker(ticker);
  plot()->xAxis->setRange(-40, 20);
  placeLegendAbove(6);
  addFormatZones();
  setZoneFormats(zoneFormats({}));
  // The zero column is not part of any format zone: a neutral background over the flush shading.
  zeroBackground_ = zoneRect(plot(), -kFar, zeroKey_ + 1.5, 0.0, 1.0, QColor(248, 248, 248));
  zeroSeparator_ = new QCPItemStraightLine(plot());
  zeroSeparator_->setPen(QPen(QColor(90, 90, 90), 1));
  zeroLabel_ = new QCPItemText(plot());
  zeroLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  zeroLabel_->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
  zeroLabel_->setText(tr("exact\nzeros"));
  zeroLabel_->setColor(QColor(60, 60, 60));
  zeroLabel_->setBrush(QColor(255, 255, 255, 220));
  // Narrower than its label, the zero column says just "0".
  addZoneLabel(zeroLabel_, -kFar, zeroKey_ + 1.5, {zeroLabel_->text(), QStringLiteral("0")}, true);
  connect(plot(), &QCustomPlot::beforeReplot, this, &HistogramPlot::fitZoneLabels);
  // A click on a bin (PlotPanel::valueAt) opens its value in the formats panel (MainWindow wires it).
  connect(this, &PlotPanel::valueActivated, this, [this](double value, const QString&) { emit binActivated(value); });
  markLine_ = new QCPItemStraightLine(plot());
  markLine_->setLayer(QStringLiteral("axes"));
  markLine_->setPen(QPen(QColor(40, 40, 160), 2, Qt::DotLine));
  markLine_->setSelectable(false);
  markLine_->setVisible(false);
  markLabel_ = new QCPItemText(plot());
  markLabel_->setLayer(QStringLiteral("axes"));
  markLabel_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  markLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  markLabel_->setColor(QColor(40, 40, 160));
  markLabel_->setBrush(QColor(255, 255, 255, 210));
  markLabel_->setSelectable(false);
  markLabel_->setVisible(false);
  setLogCounts(true);
  refillLayerCombo();
}

void HistogramPlot::addFormatZones() {
  QCustomPlot* p = plot();
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  const QColor flush(255, 214, 214), subnormal(255, 240, 196), normal(222, 241, 222);
  // The main format: full-height shading below the strip. Coordinates are set by setZoneFormats.
  const double top = 0.075, bottom = 1.0;
  const QColor mainFills[] = {flush, subnormal, normal, flush};
  for (int i = 0; i < 4; ++i) mainRects_[i] = zoneRect(p, 0, 0, top, bottom, mainFills[i]);
  const QColor lineColors[] = {QColor(200, 0, 0), QColor(160, 130, 0), QColor(200, 0, 0)};
  for (int i = 0; i < 3; ++i) {
    auto* line = new QCPItemStraightLine(p);
    line->setLayer(QStringLiteral("background"));
    line->setPen(QPen(lineColors[i], 1, Qt::DashLine));
    line->setSelectable(false);
    mainLines_[i] = line;
  }
  const QColor red(170, 0, 0), amber(130, 100, 0), green(0, 110, 0);
  const QColor mainColors[] = {red, amber, green, red};
  const Qt::Alignment mainAlign[] = {Qt::AlignRight, Qt::AlignHCenter, Qt::AlignHCenter, Qt::AlignLeft};
  // The labels are drawn over the bars (layer "axes"), on a light backing: a bar that reaches up into
  // them (a short plot, or a view that does not follow the data) does not hide them.
  const auto overBars = [](QCPItemText* label) {
    label->setObjectName(QStringLiteral("zoneLabel"));
    label->setLayer(QStringLiteral("axes"));
    label->setBrush(QColor(255, 255, 255, 190));
    return label;
  };
  for (int i = 0; i < 4; ++i)
    addZoneLabel(overBars(zoneLabel(p, 0, kLabelTop, mainAlign[i] | Qt::AlignTop, QString(), mainColors[i], small)),
                 0, 0, {}, true);

  // The second format: a strip along the top, same colours.
  const double stripTop = 0.0, stripBottom = 0.065;
  for (int i = 0; i < 4; ++i) stripRects_[i] = zoneRect(p, 0, 0, stripTop, stripBottom, mainFills[i]);
  // One label per zone (normal, subnormal, flush), placed in the middle of the zone's visible part by
  // fitZoneLabels.
  for (const QColor& c : {green, amber, red})
    addZoneLabel(overBars(zoneLabel(p, 0, kStripMid, Qt::AlignHCenter | Qt::AlignVCenter, QString(), c, small)), 0,
                 0, {}, false);
}

namespace {

// A label's shorter texts drop its last lines: the first line names the zone.
QStringList linesOf(const QString& text) {
  QStringList out;
  const QStringList lines = text.split(QLatin1Char('\n'));
  for (qsizetype n = lines.size(); n >= 1; --n) out << QStringList(lines.mid(0, n)).join(QLatin1Char('\n'));
  return out;
}

// A format's largest value as the labels write it: 65504, 448, 6; 3.4·10³⁸ for BF16's.
QString maxText(double max) {
  if (max < 1e6) return QString::fromStdString(numberText(max));
  const int e = static_cast<int>(std::floor(std::log10(max)));
  static const QString kSuper = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
  QString exponent;
  for (const QChar c : QString::number(e)) exponent += kSuper.at(c.digitValue());
  return QStringLiteral("%1·10%2").arg(max / std::pow(10.0, e), 0, 'f', 1).arg(exponent);
}

}  // namespace

void HistogramPlot::setZoneFormats(const std::vector<ZoneFormat>& formats) {
  const FormatZones main = formatZones(formats.at(0).dtype, formats.at(0).saturates);
  const FormatZones strip = formatZones(formats.at(1).dtype, formats.at(1).saturates);
  if (zonesSet_ && main.dtype == mainZones_.dtype && main.saturates == mainZones_.saturates &&
      strip.dtype == stripZones_.dtype)
    return;
  zonesSet_ = true;
  mainZones_ = main;
  stripZones_ = strip;
  // All x coordinates are bar edges (edgeOf).
  const double mFlush = edgeOf(main.flushLog2), mNormal = edgeOf(main.normalLog2), mOver = edgeOf(main.overflowLog2);
  const double mainEdges[] = {-kFar, mFlush, mNormal, mOver, kFar};
  for (int i = 0; i < 4; ++i) {
    mainRects_[i]->topLeft->setCoords(mainEdges[i], mainRects_[i]->topLeft->value());
    mainRects_[i]->bottomRight->setCoords(mainEdges[i + 1], mainRects_[i]->bottomRight->value());
  }
  for (int i = 0; i < 3; ++i) {
    mainLines_[i]->point1->setCoords(mainEdges[i + 1], 0);
    mainLines_[i]->point2->setCoords(mainEdges[i + 1], 1);
  }
  const QString name = main.name;
  const QString flushAt = PowerOfTwoTicker::label(static_cast<int>(main.flushLog2));
  const QString overflowAt = maxText(main.overflowFrom);
  const QString texts[] = {
      tr("%1 → 0\n|g| < %2\n(%2 ties to 0)").arg(name, flushAt),
      tr("%1\nsubnormal\n%2 … %3")
          .arg(name, PowerOfTwoTicker::label(static_cast<int>(main.subnormalLog2)),
               PowerOfTwoTicker::label(static_cast<int>(main.normalLog2))),
      tr("%1 normal\n%2 … %3").arg(name, PowerOfTwoTicker::label(static_cast<int>(main.normalLog2)), maxText(main.max)),
      main.saturates ? tr("%1 → ±%2\n|g| ≥ %3\n(saturates)").arg(name, maxText(main.max), overflowAt)
                     : tr("%1 → inf\n|g| ≥ %2\n(max %3)").arg(name, overflowAt, maxText(main.max))};
  const double anchors[] = {mFlush - 0.2, 0.5 * (mFlush + mNormal), 0.5 * (mNormal + mOver), mOver + 0.2};
  for (int i = 0; i < 4; ++i) {
    ZoneLabel& z = zoneLabels_[static_cast<size_t>(i)];
    z.x0 = mainEdges[i];
    z.x1 = mainEdges[i + 1];
    z.texts = linesOf(texts[i]);
    z.item->setText(texts[i]);
    z.item->position->setCoords(anchors[i], z.item->position->value());
  }

  const double sFlush = edgeOf(strip.flushLog2), sNormal = edgeOf(strip.normalLog2), sOver = edgeOf(strip.overflowLog2);
  const double stripEdges[] = {-kFar, sFlush, sNormal, sOver, kFar};
  for (int i = 0; i < 4; ++i) {
    stripRects_[i]->topLeft->setCoords(stripEdges[i], stripRects_[i]->topLeft->value());
    stripRects_[i]->bottomRight->setCoords(stripEdges[i + 1], stripRects_[i]->bottomRight->value());
  }
  const QString stripTexts[] = {
      tr("%1 normal %2 … %3").arg(strip.name, PowerOfTwoTicker::label(static_cast<int>(strip.normalLog2)),
                                  maxText(strip.max)),
      tr("%1 subnormal").arg(strip.name), tr("%1 → 0").arg(strip.name)};
  const std::pair<double, double> stripSpans[] = {{sNormal, sOver}, {sFlush, sNormal}, {-kFar, sFlush}};
  for (int i = 0; i < 3; ++i) {
    ZoneLabel& z = zoneLabels_[static_cast<size_t>(4 + i)];
    z.x0 = stripSpans[i].first;
    z.x1 = stripSpans[i].second;
    z.texts = QStringList{stripTexts[i]};
    z.item->setText(stripTexts[i]);
    z.item->position->setCoords(0.5 * (z.x0 + z.x1), z.item->position->value());
  }
}

void HistogramPlot::addZoneLabel(QCPItemText* item, double x0, double x1, QStringList texts, bool checkHeight) {
  zoneLabels_.push_back(ZoneLabel{item, x0, x1, std::move(texts), checkHeight});
}

void HistogramPlot::fitZoneLabels() {
  QCPAxis* x = plot()->xAxis;
  const QRect area = plot()->axisRect()->rect();
  if (area.width() <= 1) return;
  // The exact-zeros column is not part of any zone: zones start right of it.
  const double zonesFrom = std::max(x->range().lower, zeroKey_ + 1.5);
  const double margin = 4;
  // The FP16 labels hang below the BF16 strip's labels (one line centred in the strip, taller than the
  // strip itself on a short plot).
  double stripLabelBottom = 0;
  for (const ZoneLabel& z : zoneLabels_)
    if (!z.checkHeight) stripLabelBottom = std::max(stripLabelBottom, kStripMid * area.height() + QFontMetricsF(z.item->font()).height() / 2 + 4);
  const double hangRatio = std::max(kLabelTop, stripLabelBottom / area.height());
  double labelsBottom = stripLabelBottom / area.height();
  // The formats panel's mark: its label on the side of the line with more room.
  if (marked_) {
    const double e = markLine_->point1->key();
    const bool left = x->coordToPixel(e) > area.center().x();
    // At the bottom, or under the zone labels where block windows take the bottom rows.
    const bool below = blockWindows_.empty();
    markLabel_->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | (below ? Qt::AlignBottom : Qt::AlignTop));
    markLabel_->position->setCoords(left ? e - 0.6 : e + 0.6, below ? 0.97 : std::min(0.8, labelsBottom_ + 0.02));
  }
  // A quantised tensor's view covers the format zones: their labels go with them.
  const bool quantShown = quantCover_ && quantCover_->visible();
  for (ZoneLabel& z : zoneLabels_) {
    if (z.checkHeight) z.item->position->setCoords(z.item->position->key(), hangRatio);
    const bool isZero = z.item == zeroLabel_;
    if (quantShown && !isZero) {
      z.item->setVisible(false);
      continue;
    }
    const double lo = isZero ? x->range().lower : std::max(z.x0, zonesFrom);
    const double hi = std::min(isZero ? zeroKey_ + 1.5 : z.x1, x->range().upper);
    const double room = x->coordToPixel(hi) - x->coordToPixel(lo) - 2 * margin;
    const QFontMetricsF fm(z.item->font());
    QString chosen;
    QSizeF chosenSize;  // with the padding
    for (const QString& text : z.texts) {
      const QSizeF size = fm.size(0, text) + QSizeF(z.item->padding().left() + z.item->padding().right(),
                                                     z.item->padding().top() + z.item->padding().bottom());
      if (size.width() <= room && (!z.checkHeight || size.height() <= 0.3 * area.height())) {
        chosen = text;
        chosenSize = size;
        break;
      }
    }
    z.item->setVisible(!chosen.isEmpty() && hi > lo);
    if (chosen.isEmpty()) continue;
    z.item->setText(chosen);
    // Centred labels sit in the middle of what is visible of their zone; edge labels keep their edge.
    if (z.item->positionAlignment() & Qt::AlignHCenter) z.item->position->setCoords(0.5 * (lo + hi), z.item->position->value());
    if (z.checkHeight && z.item->visible() && z.item != zeroLabel_)
      labelsBottom = std::max(labelsBottom, hangRatio + (chosenSize.height() + margin) / area.height());
  }
  if (quantCover_ && quantCover_->visible()) {
    // A quantised tensor's window titles hang from the top instead (the FP16 labels are covered).
    labelsBottom = 0;
    for (QCPAbstractItem* item : quantItems_) {
      auto* title = qobject_cast<QCPItemText*>(item);
      if (!title || !(title->positionAlignment() & Qt::AlignTop)) continue;
      const QSizeF size = QFontMetricsF(title->font()).size(0, title->text());
      labelsBottom = std::max(labelsBottom, title->position->value() + (size.height() + margin) / area.height());
    }
  }
  labelsBottom_ = labelsBottom;
  if (followLatest()) fitCountAxis();
}

void HistogramPlot::fitCountAxis() {
  QCPAxis* y = plot()->yAxis;
  const double free = 1.0 - std::min(labelsBottom_, 0.6);
  if (logCounts_->isChecked()) {
    // Whole decades, at least one (0.5 to 1.2 would label two ticks "1E+00"), so that the axis does not
    // move with every step's count; log coordinates are linear in the pixels. The top is a whole decade
    // too: a range of under two decades gets ticks between them (3E+00, 5E+00, 8E+00).
    const double lower = 0.5;
    const double top = std::pow(10.0, std::max(1.0, std::ceil(std::log10(fittedMaxCount_))));
    y->setRange(lower, std::pow(10.0, std::ceil(std::log10(lower * std::pow(top / lower, 1.0 / free)))));
  } else {
    y->setRange(0, std::max(fittedMaxCount_ * 1.1, fittedMaxCount_ / free));
  }
}

void HistogramPlot::setScaled(bool scaled) { scaledCombo_->setCurrentIndex(scaled ? 0 : 1); }

bool HistogramPlot::scaled() const { return scaledCombo_->currentIndex() == 0; }

void HistogramPlot::setLogCounts(bool log) {
  if (logCounts_->isChecked() != log) logCounts_->setChecked(log);
  setLogValueAxis(log);
  // On a log axis a bar cannot start at 0: start it at 1/2 so a single value is still a visible bar.
  for (auto& [mode, b] : bars_) b->setBaseValue(log ? 0.5 : 0.0);
  if (followLatest()) fitToData();
  replotQueued();
}

void HistogramPlot::setLayer(const QString& layer) {
  const int index = layerCombo_->findData(layer);
  if (index >= 0) layerCombo_->setCurrentIndex(index);
}

QString HistogramPlot::layer() const { return layerCombo_->currentData().toString(); }

namespace {
// A series as a menu action's data.
int actionData(SeriesKey key) { return key.run * 16 + static_cast<int>(key.mode); }
}  // namespace

void HistogramPlot::setSeriesShown(SeriesKey key, bool shown) {
  hidden_[key] = !shown;
  for (QAction* a : modesMenu_->actions())
    if (a->data().toInt() == actionData(key) && a->isChecked() != shown) a->setChecked(shown);
  redrawBars();
}

bool HistogramPlot::seriesShown(SeriesKey key) const {
  auto it = hidden_.find(key);
  return it == hidden_.end() || !it->second;
}

ExponentHistogram HistogramPlot::shownHistogram(SeriesKey key) const {
  const ModeSeries* s = store()->series(key);
  if (!s) return {};
  if (!quantTensor().isEmpty()) {
    const QuantTensorStats* q = shownQuant(key);
    return q && q->histogram ? *q->histogram : ExponentHistogram{};
  }
  ExponentHistogram h = sumOf(s->latestTensors, layer(), scaled());
  // A followed record past the reader's budget (follow_budget.h): its folded parameter gradients are in
  // the all-parameters sum too.
  if (layer().isEmpty() && s->latestFolded.parameterSum) {
    h.add(scaled() ? s->latestFolded.parameterSum->scaled : s->latestFolded.parameterSum->unscaled);
  }
  return h;
}

QString HistogramPlot::quantTensor() const {
  const QString l = layer();
  return l.startsWith(QLatin1String(kQuantPrefix)) ? l.mid(static_cast<qsizetype>(qstrlen(kQuantPrefix))) : QString();
}

const QuantTensorStats* HistogramPlot::shownQuant(SeriesKey key) const {
  const QString name = quantTensor();
  const ModeSeries* s = store()->series(key);
  if (name.isEmpty() || !s) return nullptr;
  const QuantSeries* q = s->quantSeries(name.toStdString());
  if (!q || q->latestMeasuredStep == 0 || !q->latestMeasured.histogram) return nullptr;
  return &q->latestMeasured;
}

int64_t HistogramPlot::shownStep(SeriesKey key) const {
  const ModeSeries* s = store()->series(key);
  if (!s) return 0;
  if (quantTensor().isEmpty()) return s->latestTensorsStep;
  const QuantSeries* q = s->quantSeries(quantTensor().toStdString());
  return q ? q->latestMeasuredStep : 0;
}

bool HistogramPlot::shownWindow(SeriesKey key, double* lowLog2, double* highLog2) const {
  const auto it = windows_.find(key);
  if (it == windows_.end()) return false;
  if (lowLog2) *lowLog2 = it->second.first;
  if (highLog2) *highLog2 = it->second.second;
  return true;
}

QCPBars* HistogramPlot::bars(SeriesKey key) const {
  auto it = bars_.find(key);
  return it == bars_.end() ? nullptr : it->second;
}

QString HistogramPlot::sideNote() const { return note_->text(); }

void HistogramPlot::refillLayerCombo() {
  QStringList names, quantNames;
  bool anyActivation = false;
  for (SeriesKey key : store()->seriesKeys()) {
    for (const TensorStats& t : store()->series(key)->latestTensors) {
      const QString name = QString::fromStdString(t.name);
      if (!names.contains(name)) names << name;
      anyActivation = anyActivation || !t.isParameter;
    }
    for (const QuantSeries& q : store()->series(key)->quantized) {
      const QString name = QString::fromLatin1(kQuantPrefix) + QString::fromStdString(q.name);
      if (!quantNames.contains(name)) quantNames << name;
    }
  }
  names += quantNames;
  if (names == layerNames_ && layerCombo_->count() > 0) return;
  layerNames_ = names;
  const QString current = layer();
  const QSignalBlocker block(layerCombo_);
  layerCombo_->clear();
  layerCombo_->addItem(tr("All layers (parameter gradients)"), QString());
  if (anyActivation) layerCombo_->addItem(tr("All activation gradients"), QString::fromLatin1(kAllActivations));
  for (const QString& n : names) {
    if (n.startsWith(QLatin1String(kQuantPrefix))) continue;
    layerCombo_->addItem(n, n);
  }
  if (!quantNames.isEmpty()) layerCombo_->insertSeparator(layerCombo_->count());
  for (const QString& n : quantNames) {
    // The format is the same in every mode that quantises the tensor, except NVFP4's E2M1 forward.
    QString formats;
    for (SeriesKey key : store()->seriesKeys())
      if (const QuantSeries* q = store()->series(key)->quantSeries(n.mid(qstrlen(kQuantPrefix)).toStdString()))
        if (!formats.contains(formatName(q->format)))
          formats += (formats.isEmpty() ? QString() : QStringLiteral("/")) + formatName(q->format);
    layerCombo_->addItem(tr("%1 (quantised, %2)").arg(n.mid(qstrlen(kQuantPrefix)), formats), n);
  }
  const int index = layerCombo_->findData(current);
  layerCombo_->setCurrentIndex(index >= 0 ? index : 0);
}

void HistogramPlot::rebuildFromStore() {
  for (auto& [mode, b] : bars_) {
    if (group_->contains(b)) group_->remove(b);
    plot()->removePlottable(b);
  }
  bars_.clear();
  drawnStep_.clear();
  modesMenu_->clear();
  for (SeriesKey key : store()->seriesKeys()) {
    QAction* a = modesMenu_->addAction(ModePalette::swatch(key.mode), SeriesStyle::label(*store(), key));
    a->setCheckable(true);
    a->setChecked(seriesShown(key));
    a->setData(actionData(key));
    connect(a, &QAction::toggled, this, [this, key](bool on) { setSeriesShown(key, on); });
  }
  redrawBars();
}

void HistogramPlot::appendFromStore() {
  bool changed = false;
  const std::vector<SeriesKey> keys = store()->seriesKeys();
  for (SeriesKey key : keys) {
    auto it = drawnStep_.find(key);
    if (it == drawnStep_.end() || it->second != shownStep(key)) changed = true;
  }
  if (static_cast<int>(keys.size()) != modesMenu_->actions().size()) {
    rebuildFromStore();
    return;
  }
  if (changed)
    redrawBars();
  else
    skipReplot();
}

void HistogramPlot::redrawBars() {
  refillLayerCombo();
  {
    std::vector<PrecisionMode> modes;
    for (SeriesKey key : store()->seriesKeys()) modes.push_back(key.mode);
    setZoneFormats(zoneFormats(modes));
  }
  const bool log = logCounts_->isChecked();
  std::vector<SeriesKey> shown;
  for (SeriesKey key : store()->seriesKeys()) {
    const ModeSeries* s = store()->series(key);
    const bool hasData = quantTensor().isEmpty() ? !s->latestTensors.empty() : shownQuant(key) != nullptr;
    if (seriesShown(key) && hasData) shown.push_back(key);
  }
  // Drop bars of modes no longer shown, create missing ones in store order (so the group order is stable).
  for (auto it = bars_.begin(); it != bars_.end();) {
    if (std::find(shown.begin(), shown.end(), it->first) == shown.end()) {
      if (group_->contains(it->second)) group_->remove(it->second);
      plot()->removePlottable(it->second);
      it = bars_.erase(it);
    } else {
      ++it;
    }
  }
  const double width = 0.9 / static_cast<double>(std::max<size_t>(1, shown.size()));
  int lowest = static_cast<int>(mainZones_.flushLog2) - 2;
  for (SeriesKey key : shown) {
    const ExponentHistogram h = shownHistogram(key);
    if (!h.counts.empty()) lowest = std::min(lowest, h.counts.lowest());  // the lowest non-empty exponent
    // A quantised tensor's flush edge stays right of the zeros column too.
    if (const QuantTensorStats* q = shownQuant(key))
      lowest = std::min(lowest, static_cast<int>(std::floor(formatWindow(*q).flushLog2)) - 1);
  }
  zeroKey_ = lowest - 3;
  zeroBackground_->bottomRight->setCoords(zeroKey_ + 1.5, 1.0);
  zeroSeparator_->point1->setCoords(zeroKey_ + 1.5, 0);
  zeroSeparator_->point2->setCoords(zeroKey_ + 1.5, 1);
  zeroLabel_->position->setCoords(zeroKey_, kLabelTop);
  QStringList notes;
  for (SeriesKey key : shown) {
    QCPBars*& b = bars_[key];
    const QString name = SeriesStyle::label(*store(), key);
    if (!b) {
      b = new QCPBars(plot()->xAxis, plot()->yAxis);
      b->setName(name);
      b->setProperty(ElidedLegendItem::kShortNameProperty, SeriesStyle::shortLabel(*store(), key));
      const QColor c = ModePalette::color(key.mode);
      // A followed run's bars are hatched in its mode's colour, edged in its dash pattern.
      setScaledPen(b, QPen(c.darker(130), 1.0, SeriesStyle::penStyle(key.run)));
      b->setBrush(key.run == kEngineRun ? QBrush(c) : QBrush(c, Qt::Dense3Pattern));
    }
    // Re-add in order so the group lays bars out left to right as modes are listed.
    if (group_->contains(b)) group_->remove(b);
    group_->append(b);
    b->setWidth(width);
    b->setBaseValue(log ? 0.5 : 0.0);
    const ExponentHistogram h = shownHistogram(key);
    QVector<double> keys, values;
    if (h.zero > 0) {
      keys << zeroKey_;
      values << static_cast<double>(h.zero);
    }
    for (int e = h.counts.lowest(); e <= h.counts.highest(); ++e) {  // the occupied range only
      const int64_t n = h.countAt(e);
      if (n == 0) continue;
      keys << e;
      values << static_cast<double>(n);
    }
    b->setData(keys, values, true);
    drawnStep_[key] = shownStep(key);
    const int64_t total = h.total();
    const QString color = ModePalette::color(key.mode).name();
    if (!quantTensor().isEmpty()) {
      notes << quantNote(key, name);
      continue;
    }
    // "Would flush" in the mode's own format (mode_formats.h): the engine's overlay counts FP16 or BF16,
    // the quantised modes' formats come from the histogram's per-format counts.
    const ModeFormats formats = modeFormats(key.mode);
    int64_t wouldFlush = h.targetUnderflow;
    DType flushFormat = formats.quantised ? DType::FP16 : formats.measuredAgainst;
    if (const std::optional<RangeFormat> range = rangeFormatOf(formats.measuredAgainst);
        formats.quantised && range && h.formatsMeasured) {
      wouldFlush = h.formats[static_cast<size_t>(*range)].flushed;
      flushFormat = formats.measuredAgainst;
    }
    notes << tr("<span style='color:%1'>■</span> <b>%2</b> (step %3): %4 values · zero %5 · +inf %6 · −inf %7 · "
                "NaN %8 · would flush in %11: %9 (%10%)")
                 .arg(color, name.toHtmlEscaped())
                 .arg(store()->series(key)->latestTensorsStep)
                 .arg(total)
                 .arg(h.zero)
                 .arg(h.posInf)
                 .arg(h.negInf)
                 .arg(h.nan)
                 .arg(wouldFlush)
                 .arg(total > 0 ? 100.0 * static_cast<double>(wouldFlush) / static_cast<double>(total) : 0.0, 0, 'f', 1)
                 .arg(zoneFormatName(flushFormat));
  }
  drawQuantWindows(shown);
  scaledCombo_->setEnabled(quantTensor().isEmpty());
  note_->setText(notes.isEmpty() ? tr("No instrumented step yet (see \"Instrument every\" in the run panel).")
                                 : notes.join(QStringLiteral("<br>")));
  // The scroll area (the note sits in its viewport) takes the note's new height.
  for (QWidget* w = note_->parentWidget(); w && w != this; w = w->parentWidget())
    if (qobject_cast<QScrollArea*>(w)) w->updateGeometry();
  if (followLatest()) fitToData();
  replotQueued();
}

void HistogramPlot::fitToData() {
  int lo = 1000, hi = -1000;
  double maxCount = 1;
  lo = static_cast<int>(zeroKey_);
  for (auto& [mode, b] : bars_) {
    if (b->data()->isEmpty()) continue;
    lo = std::min(lo, static_cast<int>(b->data()->constBegin()->key));
    hi = std::max(hi, static_cast<int>((b->data()->constEnd() - 1)->key));
    for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it) maxCount = std::max(maxCount, it->value);
  }
  // Always keep the main format's landmarks (flush edge to max) in view: they are the lesson.
  lo = std::min(lo, static_cast<int>(mainZones_.flushLog2) - 4);
  hi = std::max(hi, static_cast<int>(std::ceil(mainZones_.overflowLog2)) + 8);  // room for the overflow label
  for (const auto& [key, window] : blockWindows_) {  // a block mode's gradient windows, whole
    lo = std::min(lo, static_cast<int>(std::floor(window.first)) - 2);
    hi = std::max(hi, static_cast<int>(std::ceil(window.second)) + 2);
  }
  for (const auto& [key, window] : windows_) {  // a quantised tensor's windows, whole
    lo = std::min(lo, static_cast<int>(std::floor(window.first)) - 2);
    hi = std::max(hi, static_cast<int>(std::ceil(window.second)) + 2);
  }
  plot()->xAxis->setRange(lo - 3, hi + 1.5);  // the zero bar's label is wider than a bar
  fittedMaxCount_ = maxCount;
  fitCountAxis();
}

QString HistogramPlot::readoutAt(double key, double) const {
  const int e = static_cast<int>(std::lround(key));
  if (e < ExponentHistogram::kMinExponent || e > ExponentHistogram::kMaxExponent) return {};
  QStringList lines;
  if (e == static_cast<int>(zeroKey_))
    lines << tr("exact zeros (g == 0)");
  else if (e < zeroKey_ + 1.5)
    return {};
  else
    lines << tr("bin %1: |g| in [%2, %3)")
                 .arg(e)
                 .arg(PowerOfTwoTicker::label(e), PowerOfTwoTicker::label(e + 1));
  for (auto& [key, b] : bars_) {
    auto it = b->data()->findBegin(e, false);
    const double n = (it != b->data()->constEnd() && static_cast<int>(it->key) == e) ? it->value : 0.0;
    lines << QStringLiteral("%1: %2").arg(b->name()).arg(static_cast<qint64>(n));
  }
  lines << tr("Click a bar (or ←/→ and Enter): its bin's value in the number formats panel");
  return lines.join(QLatin1Char('\n'));
}

namespace {

QString shareText(int64_t count, int64_t of) {
  return QStringLiteral("%1 (%2%)").arg(count).arg(of > 0 ? 100.0 * static_cast<double>(count) / static_cast<double>(of) : 0.0, 0, 'f', 2);
}

}  // namespace

void HistogramPlot::drawQuantWindows(const std::vector<SeriesKey>& shown) {
  for (QCPAbstractItem* item : quantItems_) plot()->removeItem(item);
  quantItems_.clear();
  windows_.clear();
  const bool quant = !quantTensor().isEmpty();
  if (!quantCover_) {
    // Over the FP16/BF16 zones (they do not apply to a quantised tensor), under the grid lines.
    quantCover_ = zoneRect(plot(), -kFar, kFar, 0.0, 1.0, QColor(252, 252, 252));
    quantCover_->setLayer(QStringLiteral("grid"));
  }
  quantCover_->setVisible(quant);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  blockWindows_.clear();
  if (!quant) {
    drawBlockWindows(shown, small);
    return;
  }
  const double from = zeroKey_ + 1.5;
  int row = 0;
  for (SeriesKey key : shown) {
    const QuantTensorStats* q = shownQuant(key);
    if (!q) continue;
    const FormatWindow w = formatWindow(*q);
    windows_[key] = {w.flushLog2, w.highLog2};
    const QColor c = ModePalette::color(key.mode);
    const double flushEdge = edgeOf(w.flushLog2), saturateEdge = edgeOf(w.highLog2);
    const double top = 0.0, bottom = 1.0;
    const auto rect = [&](double x0, double x1, const QColor& fill) {
      QCPItemRect* r = zoneRect(plot(), x0, x1, top, bottom, fill);
      r->setLayer(QStringLiteral("grid"));
      quantItems_.push_back(r);
      return r;
    };
    if (flushEdge > from) rect(from, flushEdge, QColor(255, 110, 110, 45));
    QColor inside = c;
    inside.setAlpha(38);
    QCPItemRect* window = rect(flushEdge, saturateEdge, inside);
    window->setPen(QPen(c, 1.5));
    rect(saturateEdge, kFar, QColor(255, 110, 110, 45));
    const double y = 0.01 + 0.075 * row;
    const QString title =
        w.blocks ? tr("%1: %2 block windows, block scales %3 … %4")
                       .arg(SeriesStyle::label(*store(), key), formatName(q->format),
                            PowerOfTwoTicker::label(-q->blockScaleExpMax), PowerOfTwoTicker::label(-q->blockScaleExpMin))
                 : tr("%1: %2 window at scale %3").arg(SeriesStyle::label(*store(), key), formatName(q->format),
                                                      PowerOfTwoTicker::scaleLabel(q->scale));
    QCPItemText* label = zoneLabel(plot(), 0.5 * (flushEdge + saturateEdge), y, Qt::AlignHCenter | Qt::AlignTop,
                                   title, c.darker(150), small);
    label->setLayer(QStringLiteral("main"));
    label->setBrush(QColor(255, 255, 255, 210));
    quantItems_.push_back(label);
    const double bottomY = 0.99 - 0.075 * row;
    QCPItemText* flushed = zoneLabel(plot(), flushEdge - 0.15, bottomY, Qt::AlignRight | Qt::AlignBottom,
                                     tr("→ 0"), QColor(170, 0, 0), small);
    QCPItemText* saturated = zoneLabel(plot(), saturateEdge + 0.15, bottomY, Qt::AlignLeft | Qt::AlignBottom,
                                       tr("→ ±%1").arg(largestFinite(q->format)), QColor(170, 0, 0), small);
    for (QCPItemText* t : {flushed, saturated}) {
      t->setLayer(QStringLiteral("main"));
      quantItems_.push_back(t);
    }
    ++row;
  }
}

void HistogramPlot::drawBlockWindows(const std::vector<SeriesKey>& shown, const QFont& font) {
  // A block mode's gradients meet its element format through their blocks' scales: the union of the
  // blocks' windows at the latest instrumented step (formatWindow of each quantised gradient), as a band
  // along the bottom with its range.
  int row = 0;
  for (SeriesKey key : shown) {
    const ModeFormats formats = modeFormats(key.mode);
    const ModeSeries* s = store()->series(key);
    if (formats.blockSize == 0 || !s) continue;
    bool any = false;
    double low = 0, high = 0;
    for (const QuantSeries& q : s->quantized) {
      if (!q.backward || q.latestMeasuredStep == 0) continue;
      const FormatWindow w = formatWindow(q.latestMeasured);
      low = any ? std::min(low, w.lowLog2) : w.lowLog2;
      high = any ? std::max(high, w.highLog2) : w.highLog2;
      any = true;
    }
    if (!any) continue;
    blockWindows_[key] = {low, high};
    const QColor c = ModePalette::color(key.mode);
    const double bottom = 1.0 - 0.045 * row, top = bottom - 0.025;
    QColor fill = c;
    fill.setAlpha(90);
    QCPItemRect* band = zoneRect(plot(), edgeOf(low), edgeOf(high), top, bottom, fill);
    band->setLayer(QStringLiteral("axes"));
    band->setPen(QPen(c.darker(130), 1));
    quantItems_.push_back(band);
    // The label at the plot's left edge, above its band: the band may be wider than the view.
    QCPItemText* label = zoneLabel(
        plot(), 0, top - 0.005, Qt::AlignLeft | Qt::AlignBottom,
        tr("%1: %2 gradient blocks %3 … %4, %5 per %6 scale")
            .arg(SeriesStyle::label(*store(), key), zoneFormatName(formats.gradient),
                 PowerOfTwoTicker::label(static_cast<int>(std::floor(low))),
                 PowerOfTwoTicker::label(static_cast<int>(std::ceil(high))))
            .arg(formats.blockSize)
            .arg(zoneFormatName(formats.blockScale)),
        c.darker(160), font);
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0.01, top - 0.005);
    label->setLayer(QStringLiteral("axes"));
    label->setBrush(QColor(255, 255, 255, 190));
    quantItems_.push_back(label);
    ++row;
  }
}

QString HistogramPlot::quantNote(SeriesKey key, const QString& name) const {
  const QuantTensorStats* q = shownQuant(key);
  if (!q) return {};
  const QString color = ModePalette::color(key.mode).name();
  const QString scale = q->scaling == ScalingKind::MxBlock || q->scaling == ScalingKind::Nvfp4Block
                            ? tr("block scales %1 … %2")
                                  .arg(PowerOfTwoTicker::label(-q->blockScaleExpMax),
                                       PowerOfTwoTicker::label(-q->blockScaleExpMin))
                            : tr("scale %1").arg(QString::fromStdString(numberText(q->scale)));
  return tr("<span style='color:%1'>■</span> <b>%2</b> (step %3): %4 values · %5 · amax %6 · "
            "<b>saturated %7</b> · <b>flushed to 0 %8</b>")
      .arg(color, name.toHtmlEscaped())
      .arg(shownStep(key))
      .arg(q->numel)
      .arg(scale, QString::fromStdString(numberText(q->amax)), shareText(q->saturated, q->numel),
           shareText(q->flushed, q->numel));
}

void HistogramPlot::activateBin(int exponent) { activateAt(exponent, 0); }

std::optional<PlotPanel::PlotValue> HistogramPlot::valueAt(double key, double) const {
  const int e = static_cast<int>(std::lround(key));
  const bool zeros = e == static_cast<int>(zeroKey_);
  if (!zeros && (e < ExponentHistogram::kMinExponent || e > ExponentHistogram::kMaxExponent || e < zeroKey_ + 1.5))
    return std::nullopt;
  const QString quant = quantTensor();
  QStringList perSeries;
  for (const auto& [seriesKey, b] : bars_) {
    if (!b->visible()) continue;
    const ExponentHistogram h = shownHistogram(seriesKey);
    const int64_t count = zeros ? h.zero : h.countAt(e);
    QString part = tr("%1 at step %2: %3 of %4 values")
                       .arg(b->name())
                       .arg(shownStep(seriesKey))
                       .arg(count)
                       .arg(h.total());
    // The tensors that hold such values at that step (the gradient view keeps one histogram per tensor).
    const ModeSeries* s = store()->series(seriesKey);
    if (quant.isEmpty() && s && count > 0) {
      std::vector<std::pair<int64_t, QString>> holders;
      for (const TensorStats& t : s->latestTensors) {
        if (!takes(t, layer())) continue;
        const ExponentHistogram& th = scaled() ? t.scaled : t.unscaled;
        const int64_t n = zeros ? th.zero : th.countAt(e);
        if (n > 0) holders.emplace_back(n, QString::fromStdString(t.name));
      }
      std::sort(holders.begin(), holders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      QStringList names;
      for (size_t i = 0; i < holders.size() && i < 4; ++i)
        names << QStringLiteral("%1 (%2)").arg(holders[i].second).arg(holders[i].first);
      if (holders.size() > 4) names << tr("%n more", nullptr, static_cast<int>(holders.size() - 4));
      part += tr(", in %1").arg(names.join(QStringLiteral(", ")));
    }
    perSeries << part;
  }
  PlotValue shown;
  const QString what = quant.isEmpty() ? tr("Gradient histogram") : tr("Histogram of %1").arg(quant);
  if (zeros) {
    shown.value = 0;
    shown.context = tr("%1, exact zeros").arg(what);
  } else {
    shown.value = std::ldexp(1.0, e);  // the bin's lower edge, exact
    shown.context = tr("%1, bin %2: %3 ≤ |x| < %4. Shown is the bin's lower edge: the engine counts the "
                       "values of each bin exactly but does not keep them.")
                        .arg(what)
                        .arg(e)
                        .arg(PowerOfTwoTicker::label(e), PowerOfTwoTicker::label(e + 1));
  }
  if (!perSeries.isEmpty()) shown.context += QLatin1Char(' ') + perSeries.join(QStringLiteral("; ")) + QLatin1Char('.');
  return shown;
}

void HistogramPlot::markValue(double value) {
  markedValue_ = value;
  int e = 0;
  marked_ = std::isfinite(value) && value != 0;
  if (marked_) {
    e = static_cast<int>(std::floor(std::log2(std::fabs(value))));
    // log2 rounds near a power of two: the bin is the one whose [2^e, 2^(e+1)) holds |value|.
    if (std::ldexp(1.0, e) > std::fabs(value)) --e;
    if (std::ldexp(1.0, e + 1) <= std::fabs(value)) ++e;
    marked_ = e >= ExponentHistogram::kMinExponent && e <= ExponentHistogram::kMaxExponent;
  }
  markLine_->setVisible(marked_);
  markLabel_->setVisible(marked_);
  if (marked_) {
    markLine_->point1->setCoords(e, 0);
    markLine_->point2->setCoords(e, 1);
    markLabel_->position->setCoords(e + 0.6, 0.97);
    markLabel_->setText(tr("formats panel: %1 (bin %2)").arg(QString::fromStdString(numberText(value))).arg(e));
  }
  replotQueued();
}

bool HistogramPlot::markedBin(int* exponent) const {
  if (!marked_) return false;
  if (exponent) *exponent = static_cast<int>(std::lround(markLine_->point1->key()));
  return true;
}

QString HistogramPlot::emptyNote() const { return tr("Run to see the gradient exponents."); }

}  // namespace ampscope::ui
