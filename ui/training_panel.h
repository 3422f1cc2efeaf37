#pragma once
// Hyperparameters. Invalid values are marked at the field with the reason; valid() says whether
// training may start.

#include <QWidget>

#include "mirror/optim/optimizer_config.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace mirror::ui {

class TrainingPanel : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingPanel(QWidget* parent = nullptr);

  OptimizerConfig optimizer() const;
  int64_t batch_size() const;
  int epochs() const;
  uint64_t seed() const;
  bool deterministic() const;
  void set_values(const std::string& optimizer, double learning_rate, int64_t batch_size, int epochs);
  // Empty when every field is valid; else the first reason.
  QString problem() const { return problem_; }
  QLineEdit* learning_rate_edit() const { return lr_; }
  QSpinBox* batch_size_box() const { return batch_; }

 Q_SIGNALS:
  void changed();

 private:
  void validate();

  QComboBox* optimizer_;
  QLineEdit* lr_;
  QLineEdit* momentum_;
  QCheckBox* nesterov_;
  QSpinBox* batch_;
  QSpinBox* epochs_;
  QSpinBox* seed_;
  QCheckBox* deterministic_;
  QLabel* error_;
  QString problem_;
};

}  // namespace mirror::ui
