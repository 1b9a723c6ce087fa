// The advice panel's evidence table: one row per (layer, tensor role, format column) of a
// PrecisionAdvice, with its verdict and the evidence behind it (the worst flushed, overflowed and
// subnormal shares and the steps they were seen at, the lowest SQNR, the steps over a threshold), as
// precision_advice.h judged them. Display text is for people; Qt::UserRole holds a number (or the plain
// text) that sorts the column in its own order (a verdict by severity, a share by value).
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "ampscope/engine/precision_advice.h"

namespace ampscope::ui {

class EvidenceTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    LayerColumn,
    RoleColumn,
    FormatColumn,
    VerdictColumn,
    StepsColumn,
    FlushedColumn,
    OverflowedColumn,
    SubnormalColumn,
    SqnrColumn,
    UnsafeStepsColumn,
    ReasonColumn,
    ColumnCount
  };
  static constexpr int SortRole = Qt::UserRole;

  explicit EvidenceTableModel(QObject* parent = nullptr);

  void setEvidence(std::vector<FormatEvidence> evidence);
  const std::vector<FormatEvidence>& evidence() const { return evidence_; }
  // The headers and the verdict words follow the language.
  void retranslate();

  // The words the table shows for a verdict ("unsafe", "too few steps"), translated.
  static QString verdictText(Verdict verdict);

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<FormatEvidence> evidence_;
};

// A share as a percentage with the report's precision (printf %g of share x 100): "12.5 %".
QString shareText(double share);

}  // namespace ampscope::ui
