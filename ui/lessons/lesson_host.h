// What a lesson needs from the window it runs in: the interface LessonController drives a lesson
// through. LessonWorkspace implements it over the main window and its training workspace.
#pragma once

#include <QString>

#include "ampscope/engine/run_config.h"

class QWidget;

namespace ampscope::ui {

class Lesson;

class LessonHost {
 public:
  virtual ~LessonHost() = default;
  // Stops a run in progress (a lesson starts from a clean slate).
  virtual void stopRun() = 0;
  // Loads a configuration into the run panel, ready for Run; does not start training.
  virtual void loadRunConfig(const RunConfig& config) = 0;
  // Arranges the window as the lesson wants it (its layout, or the one saved for it), before its
  // panels are raised. True when the arrangement is the one the teacher saved for the lesson. A host
  // without a layout of its own ignores it.
  virtual bool applyLayout(const Lesson& lesson) {
    (void)lesson;
    return false;
  }
  // Whether the panel is part of the current arrangement (shown, or a tab behind another); false for a
  // panel the user closed.
  virtual bool panelOpen(const QString& panelId) {
    (void)panelId;
    return true;
  }
  // Shows and raises the panel (dock) with this id. False when there is no such panel.
  virtual bool raisePanel(const QString& panelId) = 0;
  // The panel's content widget (for highlighting and plot callouts); nullptr when unknown.
  virtual QWidget* panelWidget(const QString& panelId) = 0;
  // Puts an inf into the next step's gradients (TrainingRunner::injectOverflowNextStep).
  virtual void injectOverflow() = 0;
};

}  // namespace ampscope::ui
