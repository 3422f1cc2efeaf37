#pragma once
// Hyperparameters. Invalid values are marked at the field with the reason; problem() says whether
// training may start.

#include <QWidget>

#include "mirror/optim/optimizer_config.h"
#include "mirror/optim/schedule.h"

class QChartView;
class QCheckBox;
class QLineSeries;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace mirror {
struct TrainConfig;
}  // namespace mirror

namespace mirror::ui {

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(QWidget* parent = nullptr);

  // Shows the settings this tab owns: the optimizer, global batch, epochs, seed, deterministic,
  // the rate schedule with its warmup and batch scaling, the plateau rule and early stopping.
  void set_config(const TrainConfig& config);
  // Writes those settings into `into`, leaving its other fields as they are. The optimizer's
  // settings the tab has no field for (betas, epsilon, per-weight clipping...) are the ones
  // set_config showed while the optimizer stays the same; another optimizer starts from its Keras
  // defaults, as `mirrortrain train --optimizer` does. A schedule, plateau rule or early stopping
  // that does not parse (problem() says which) leaves `into`'s. Never throws.
  void config(TrainConfig& into) const;
  // Training examples of the chosen dataset: the rate plot spans epochs x steps per epoch.
  void set_train_size(int64_t examples);
  // The plotted rate curve (for tests): (step, rate) points.
  QLineSeries* rate_series() const { return rate_series_; }
  QComboBox* schedule_box() const { return schedule_; }
  QLineEdit* schedule_edit() const { return schedule_params_; }
  QSpinBox* warmup_box() const { return warmup_; }
  int64_t batch_size() const;
  int epochs() const;
  // Empty when every field is valid; else the first reason.
  QString problem() const { return problem_; }
  QLineEdit* learning_rate_edit() const { return lr_; }
  // The next run's name (optional; the Runs page shows it instead of the folder's name).
  QLineEdit* run_name_edit() const { return run_name_; }
  QSpinBox* batch_size_box() const { return batch_; }

 Q_SIGNALS:
  void changed();

 private:
  OptimizerConfig optimizer() const;
  // As entered; throw ConfigError when they do not parse (validate() says so first).
  LrSchedule schedule() const;
  PlateauOptions plateau() const;
  EarlyStoppingOptions early_stopping() const;
  void validate();
  void plot_schedule();

  QLineEdit* run_name_;
  QComboBox* optimizer_;
  QLineEdit* lr_;
  QLineEdit* momentum_;
  QCheckBox* nesterov_;
  QSpinBox* batch_;
  QSpinBox* epochs_;
  QSpinBox* seed_;
  QCheckBox* deterministic_;
  QComboBox* precision_;
  QComboBox* schedule_;
  QLineEdit* schedule_params_;
  QSpinBox* warmup_;
  QSpinBox* scale_batch_;
  QChartView* rate_plot_;
  QLineSeries* rate_series_;
  QLineEdit* plateau_;
  QLineEdit* early_stopping_;
  QLineEdit* clipnorm_;
  OptimizerConfig shown_optimizer_;  // the last set_config's: the settings without a field
  int64_t train_size_ = 0;
  QLabel* error_;
  QString problem_;
};

}  // namespace mirror::ui
