#include "ui/advice/evidence_table_model.h"

#include <QColor>
#include <limits>

namespace ampscope::ui {

namespace {

// Sorts by severity: the unsafe rows first when the column is sorted descending.
int severity(Verdict verdict) {
  switch (verdict) {
    case Verdict::Unsafe: return 3;
    case Verdict::Caution: return 2;
    case Verdict::Ok: return 1;
    case Verdict::TooFewSteps: return 0;
  }
  return 0;
}

// A tint that reads on the light and the dark theme alike (translucent over the base colour).
QColor verdictTint(Verdict verdict) {
  switch (verdict) {
    case Verdict::Unsafe: return QColor(220, 40, 40, 90);
    case Verdict::Caution: return QColor(230, 160, 0, 90);
    case Verdict::Ok: return QColor(40, 170, 70, 60);
    case Verdict::TooFewSteps: return QColor();
  }
  return QColor();
}

}  // namespace

QString shareText(double share) {
  // The report's %g (six significant digits) so a cell reads as the CLI's reason does.
  return QString::number(share * 100, 'g', 6) + QStringLiteral(" %");
}

EvidenceTableModel::EvidenceTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void EvidenceTableModel::setEvidence(std::vector<FormatEvidence> evidence) {
  beginResetModel();
  evidence_ = std::move(evidence);
  endResetModel();
}

void EvidenceTableModel::retranslate() {
  emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
  if (!evidence_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QString EvidenceTableModel::verdictText(Verdict verdict) {
  switch (verdict) {
    case Verdict::Ok: return tr("ok");
    case Verdict::Caution: return tr("caution");
    case Verdict::Unsafe: return tr("unsafe");
    case Verdict::TooFewSteps: return tr("too few steps");
  }
  return QString();
}

int EvidenceTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(evidence_.size());
}

int EvidenceTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EvidenceTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const FormatEvidence& e = evidence_[static_cast<size_t>(index.row())];
  const auto shareAt = [](double share, int64_t step) {
    return share > 0 ? tr("%1 at step %2").arg(shareText(share)).arg(step) : shareText(0);
  };
  if (role == Qt::ToolTipRole) return QString::fromStdString(e.reason);
  if (role == Qt::BackgroundRole && index.column() == VerdictColumn) {
    const QColor tint = verdictTint(e.verdict);
    return tint.isValid() ? QVariant(tint) : QVariant();
  }
  if (role == Qt::TextAlignmentRole) {
    const bool numeric = index.column() >= StepsColumn && index.column() <= UnsafeStepsColumn;
    return QVariant::fromValue(Qt::Alignment(numeric ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignLeft | Qt::AlignVCenter));
  }
  if (role == SortRole) {
    switch (index.column()) {
      case LayerColumn: return QString::fromStdString(e.layer);
      case RoleColumn: return QString::fromStdString(e.role);
      case FormatColumn: return QString::fromStdString(e.column);
      case VerdictColumn: return severity(e.verdict);
      case StepsColumn: return static_cast<qlonglong>(e.steps);
      case FlushedColumn: return e.worstFlushShare;
      case OverflowedColumn: return e.worstOverflowShare;
      case SubnormalColumn: return e.worstSubnormalShare;
      // Unmeasured SQNR sorts after every measured one (the lowest, the worst, first).
      case SqnrColumn: return e.hasSqnr ? e.minSqnrDb : std::numeric_limits<double>::max();
      case UnsafeStepsColumn: return static_cast<qlonglong>(e.unsafeSteps);
      case ReasonColumn: return QString::fromStdString(e.reason);
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case LayerColumn: return QString::fromStdString(e.layer);
    case RoleColumn: return QString::fromStdString(e.role);
    case FormatColumn: return QString::fromStdString(e.column);
    case VerdictColumn: return verdictText(e.verdict);
    case StepsColumn:
      return e.steps > 0 ? tr("%1 (steps %2-%3)").arg(e.steps).arg(e.firstStep).arg(e.lastStep) : QStringLiteral("0");
    case FlushedColumn: return shareAt(e.worstFlushShare, e.worstFlushStep);
    case OverflowedColumn: return shareAt(e.worstOverflowShare, e.worstOverflowStep);
    case SubnormalColumn: return shareAt(e.worstSubnormalShare, e.worstSubnormalStep);
    case SqnrColumn:
      return e.hasSqnr ? tr("%1 dB at step %2").arg(e.minSqnrDb, 0, 'f', 1).arg(e.minSqnrStep) : QStringLiteral("-");
    case UnsafeStepsColumn:
      return e.unsafeSteps > 0 ? tr("%1 from step %2").arg(e.unsafeSteps).arg(e.firstUnsafeStep) : QStringLiteral("0");
    case ReasonColumn: return QString::fromStdString(e.reason);
    default: return {};
  }
}

QVariant EvidenceTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return QAbstractTableModel::headerData(section, orientation, role);
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case FormatColumn:
        return tr("The format the tensor would be cast to (fp16+scaler: FP16 after the loss scale), or run:<mode> "
                  "for a quantised mode as it ran.");
      case StepsColumn: return tr("Instrumented steps that gave evidence, and the span they cover.");
      case FlushedColumn: return tr("The largest share of the non-zero values that rounds to zero, at one step.");
      case OverflowedColumn: return tr("The largest share that overflows (or saturates), at one step.");
      case SubnormalColumn: return tr("The largest share that rounds to a subnormal (fewer significant bits).");
      case SqnrColumn: return tr("The lowest signal-to-quantisation-noise ratio measured, in dB.");
      case UnsafeStepsColumn: return tr("Steps over an unsafe threshold, and the first of them.");
      default: return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case LayerColumn: return tr("Layer");
    case RoleColumn: return tr("Role");
    case FormatColumn: return tr("Format");
    case VerdictColumn: return tr("Verdict");
    case StepsColumn: return tr("Steps");
    case FlushedColumn: return tr("Flushed (worst)");
    case OverflowedColumn: return tr("Overflowed (worst)");
    case SubnormalColumn: return tr("Subnormal (worst)");
    case SqnrColumn: return tr("Lowest SQNR");
    case UnsafeStepsColumn: return tr("Unsafe steps");
    case ReasonColumn: return tr("Reason");
    default: return {};
  }
}

}  // namespace ampscope::ui
