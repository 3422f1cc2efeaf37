#pragma once
// Builds a sweep from the current settings: lists of learning rates, batch sizes and logical
// device counts (every combination is one run), and how long each run trains. Shows how many
// runs that makes, or what is wrong, before anything starts.

#include <QDialog>

#include <vector>

#include "mirror/runs/sweep.h"
#include "mirror/train/config.h"

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace mirror::ui {

class SweepDialog : public QDialog {
  Q_OBJECT
 public:
  SweepDialog(const TrainConfig& base, QWidget* parent = nullptr);

  // The runs, in order; empty when the fields do not make a valid sweep (problem() says why).
  const std::vector<SweepPoint>& points() const { return points_; }
  const QString& problem() const { return problem_; }

  // What the runs train: the dataset, the model and the devices.
  QLabel* intro() const { return intro_; }
  QLineEdit* learning_rates() const { return lr_; }
  QLineEdit* batch_sizes() const { return batch_; }
  QLineEdit* logical_devices() const { return logical_; }
  QSpinBox* epochs() const { return epochs_; }
  QSpinBox* max_steps() const { return max_steps_; }

 private:
  void update();

  TrainConfig base_;
  std::vector<SweepPoint> points_;
  QString problem_;
  QLineEdit* lr_;
  QLineEdit* batch_;
  QLineEdit* logical_;
  QSpinBox* epochs_;
  QSpinBox* max_steps_;
  QLabel* intro_;
  QLabel* preview_;
  QDialogButtonBox* buttons_;
};

}  // namespace mirror::ui
