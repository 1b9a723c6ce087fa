// One guided lesson, parsed from a JSON file under resources/lessons/. A lesson follows one section of
// the mixed-precision chapter: a bilingual title and narrative, the training configuration it loads
// (or none, for the lessons that only use the number-format panels), the panels it brings forward,
// "what to look for" callouts that point at a panel (optionally at a spot in its plot) and extra
// controls such as the inject-overflow button.
//
// File format (every key is checked; an unknown key is an error so a typo cannot silently do nothing):
//   { "id": "underflow", "section": 5,
//     "title":     {"en": "...", "zh_CN": "..."},
//     "narrative": {"en": ["paragraph", ...], "zh_CN": ["段落", ...]},
//     "config": "none" | { "model": "deep-mlp", "modes": ["fp32", ...], "optimizer": "sgd", "lr": 0.01,
//                          "momentum": 0, "weight-decay": 0, "adam-eps": 1e-8, "batch": 32, "seed": 0,
//                          "steps": 400, "loss-weight": 1e-5, "instrument-every": 5, "threads": 1,
//                          "scaler": {"init-scale": 65536, "growth-factor": 2, "backoff-factor": 0.5,
//                                     "growth-interval": 20, "enabled": true},
//                          "scaler-for-pure-fp16": false, "clip": {"order": "after-unscale", "max-norm": 1}
//                          },
//     "variants": [ {"id": "wrong", "label": {...}, "config": { ...keys overriding "config"... }} ],
//     "panels": ["loss", "histogram"],
//     "question": {"en": "Which modes will still train after 400 steps?", "zh_CN": "..."},
//     "callouts": [ {"panel": "histogram", "text": {...}, "anchor": {"x": -24, "y": 0} | {"feature":
//     "fp16-min-subnormal"}, "variants": ["wrong"], "claim": {...}} ], "controls": ["inject-overflow"],
//     "layout": {"visible": ["run", "histogram", "underflow", "loss"], "large": ["histogram"]} }
// "layout" is the arrangement the lesson wants: the panels shown (the lesson's own dock always is; every
// other panel is hidden while the lesson is open) and the ones given the larger share of the window.
// Without it the lesson shows its "panels" (and "run" when it trains). The first of "panels" sharing a
// tab group is the tab in front. A callout's "variants" (ids from "variants") limit where its anchor is
// drawn: a point such as "the loss stays at 2.30 here" holds for one configuration's run only.
// A callout's "claim" is the fact it states, checked against the run (engine/lesson_claim.h, grammar in
// docs/lesson-claims.md); it applies to its own "variants", else to the callout's, else to every run, and
// every mode it names must be trained in each of those. "question" (optional) is asked before Run; the
// claims answer it.
// A config starts from presetFor(model) and the keys given override it; the result must pass validate().
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

#include "ampscope/engine/lesson_claim.h"
#include "ampscope/engine/run_config.h"
#include "ui/lessons/localized_text.h"

namespace ampscope::ui {

class Lesson {
 public:
  // Where a callout points inside its panel's plot.
  struct Anchor {
    enum class Kind { None, Point, Feature };
    Kind kind = Kind::None;
    double x = 0;     // plot coordinates (Point), or the feature's x (Feature)
    double y = 0;     // plot coordinates (Point); Feature anchors sit at the middle of the y range
    QString feature;  // e.g. "fp16-min-subnormal"
  };
  struct Callout {
    QString panel;
    LocalizedText text;
    Anchor anchor;
    // The variants whose run the anchor describes (their ids); empty: every run of the lesson. The
    // "what to look for" list shows every callout; the plot draws an anchored one only for these.
    QStringList variants;
    // The fact the item states, checked against the run (nullopt: the item states no fact about the run).
    std::optional<ClaimSpec> claim;
    QStringList claimVariants;  // where the claim applies: its own "variants", else the callout's; empty: all
    bool drawnFor(const QString& variantId) const { return variants.isEmpty() || variants.contains(variantId); }
    bool claimAppliesTo(const QString& variantId) const {
      return claim && (claimVariants.isEmpty() || claimVariants.contains(variantId));
    }
  };
  // An alternative configuration of the same lesson (e.g. the wrong and the right clipping order).
  struct Variant {
    QString id;
    LocalizedText label;
    RunConfig config;
  };
  // The arrangement the lesson asks for (see the file format above).
  struct Layout {
    QStringList visible;
    QStringList large;
  };

  // Parses `json`; on failure returns nullopt and sets *error to "<source>: <field>: <reason>".
  static std::optional<Lesson> fromJson(const QByteArray& json, const QString& source, QString* error);

  // Named plot features a callout may point at. Format limits are x positions on the binary-exponent axis
  // of the gradient histogram (IEEE-754: FP16 max 65504 < 2^16 has exponent 15, its smallest normal is
  // 2^-14 and smallest subnormal 2^-24; BF16 shares FP32's 2^-126 and reaches 2^-133 subnormally);
  // "first-step" is step 1 on a step-axis plot.
  static const QStringList& knownFeatures();
  static std::optional<double> featureX(const QString& feature);
  // Extra controls a lesson may ask for.
  static const QStringList& knownControls();
  // The panel ids a layout may name: the number-format tabs, the training docks and the lessons' own plots.
  static const QStringList& knownPanels();

  QString id;
  int section = 0;     // the chapter section it follows (1..10; 11 goes beyond the chapter: FP8)
  QString sourceFile;  // where it was read from, for messages
  LocalizedText title;
  LocalizedText narrative;          // paragraphs separated by blank lines ("\n\n")
  std::optional<LocalizedText> question;  // asked before Run, answered by the claims
  std::optional<RunConfig> config;  // nullopt: the lesson trains nothing ("config": "none")
  QVector<Variant> variants;        // empty, or alternatives; the first one is applied when the lesson opens
  QStringList panels;
  QVector<Callout> callouts;
  QStringList controls;
  Layout layout;

  bool hasControl(const QString& control) const { return controls.contains(control); }
  // The configuration to load for variant `index` (the base config when there are no variants).
  std::optional<RunConfig> configFor(int variantIndex) const;
  // The id of variant `index` ("" when the lesson has none), as claims and callouts name it.
  QString variantId(int variantIndex) const;
};

}  // namespace ampscope::ui
