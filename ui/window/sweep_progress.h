#pragma once
// "Run 4 of 9: 2 replicas" in the status bar while a sweep, a scaling study or a lesson trains its
// runs one after another; hidden otherwise. The status line beside it speaks of the run's steps.

#include <QLabel>

namespace mirror::ui {

class RunLauncher;

class SweepProgress : public QLabel {
  Q_OBJECT
 public:
  // Follows `launcher` (which outlives this). GUI thread only.
  explicit SweepProgress(RunLauncher* launcher, QWidget* parent = nullptr);
};

}  // namespace mirror::ui
