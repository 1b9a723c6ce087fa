// The RunConfig schema's help lines (engine/src/data/config_schema.cpp) where lupdate sees them, so the
// catalogue holds them under the context "ConfigSchema" (the engine has no Qt). The run panel shows
// them through QCoreApplication::translate("ConfigSchema", help); run_panel_test checks that this list
// and the table hold the same lines, so a help line changed in one place only fails there.
#include "ui/training/config_schema_strings.h"

#include <QtGlobal>

namespace ampscope::ui {

const std::vector<const char*>& configSchemaHelpSources() {
  static const std::vector<const char*> kHelp = {
      QT_TRANSLATE_NOOP("ConfigSchema", "The model to train; choosing one loads its preset first"),
      QT_TRANSLATE_NOOP("ConfigSchema", "The precision modes to compare side by side"),
      QT_TRANSLATE_NOOP("ConfigSchema", "The optimizer"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Learning rate"),
      QT_TRANSLATE_NOOP("ConfigSchema", "SGD's momentum (SGD only)"),
      QT_TRANSLATE_NOOP("ConfigSchema", "AdamW's decoupled weight decay"),
      QT_TRANSLATE_NOOP("ConfigSchema", "AdamW's eps; fp16-pure stores it in FP16 too, where 1e-8 rounds to 0 and 1e-4 trains"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Examples per step"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Initial weights and batches: the same seed gives the same run"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Training steps; the run stops by itself after this many"),
      QT_TRANSLATE_NOOP("ConfigSchema", "The loss is multiplied by this before backward, as auxiliary losses are; small weights push FP16 gradients below 2^-24, where they flush to zero"),
      QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler's initial loss scale (PyTorch's default is 65536 = 2^16)"),
      QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler's scale multiplier after growth-interval clean steps"),
      QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler's scale multiplier when the gradients hold inf or NaN"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Clean steps before GradScaler grows the scale"),
      QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler on; off, it passes the loss and the step through unchanged"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Give fp16-pure (model.half()) a GradScaler too"),
      QT_TRANSLATE_NOOP("ConfigSchema", "When clip_grad_norm_ runs: after unscale_ (correct) or before it (clips the scaled gradients, the lesson's mistake)"),
      QT_TRANSLATE_NOOP("ConfigSchema", "clip_grad_norm_'s max_norm"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Histograms and rounding counts every N steps and at step 1 (1 = every step; larger keeps runs fast)"),
      QT_TRANSLATE_NOOP("ConfigSchema", "Intra-op threads of each mode's training thread"),
  };
  return kHelp;
}

}  // namespace ampscope::ui
