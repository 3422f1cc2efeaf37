#pragma once
// "Copy launch command…": saves the window's current config as JSON under the runs folder and
// shows the torchrun line and the sbatch script that train it elsewhere, ready to copy.

#include <QDialog>

#include "mirror/train/config.h"

class QPlainTextEdit;

namespace mirror::ui {

class LaunchDialog : public QDialog {
  Q_OBJECT
 public:
  // Writes the config file at once; a failure to write shows in the text instead of commands.
  LaunchDialog(const TrainConfig& config, int processes, QWidget* parent = nullptr);
  QString text() const;
  const QString& config_file() const { return config_file_; }  // empty when it could not be written

 private:
  QPlainTextEdit* text_;
  QString config_file_;
};

}  // namespace mirror::ui
