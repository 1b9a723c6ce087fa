// Axis titles that fit their axis: a title longer than its axis rect's side drops its parenthesised
// explanation ("loss (cross-entropy, nats)" → "loss"), and is elided with "…" only if that is still too
// long, instead of running past the plot's edge (a Chinese y-axis title on a short plot did). The full
// title stays on the axis as a property: the language switch translates it, not what is shown.
#pragma once

#include <QString>

class QCPAxis;
class QFont;

namespace ampscope::ui::AxisLabelFit {

// The title the program set, whatever is shown now.
QString fullLabel(const QCPAxis* axis);
// Shows on `axis` the longest form of its title that fits `room` pixels.
void fit(QCPAxis* axis, int room);
// The form of `title` fit() shows in `room` pixels of `font`: the title, the title without its trailing
// "(...)" or "（...）", or that elided.
QString fitted(const QString& title, const QFont& font, int room);

}  // namespace ampscope::ui::AxisLabelFit
