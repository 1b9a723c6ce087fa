// The real main window with the lessons installed (LessonWorkspace), shown at a given size: the fixture
// of the lesson tests that need the whole window. The training workspace is shut down before the window
// goes, so no run outlives it.
#pragma once

#include <gtest/gtest.h>

#include <QSize>
#include <memory>

#include "ui/lessons/lesson_workspace.h"
#include "ui/main_window.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui::test {

class LessonWindowFixture : public ::testing::Test {
 protected:
  explicit LessonWindowFixture(QSize size) : size_(size) {}
  void SetUp() override {
    window = std::make_unique<MainWindow>();
    window->setLayoutPersistence(false);
    workspace = window->trainingWorkspace();
    lessons = new LessonWorkspace(*window);
    window->resize(size_);
    window->show();
  }
  void TearDown() override {
    workspace->shutdown();
    window.reset();
  }

  std::unique_ptr<MainWindow> window;
  TrainingWorkspace* workspace = nullptr;
  LessonWorkspace* lessons = nullptr;

 private:
  QSize size_;
};

}  // namespace ampscope::ui::test
