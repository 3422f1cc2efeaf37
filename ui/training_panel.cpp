#include "ui/training_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include "mirror/util/error.h"

namespace mirror::ui {

namespace {
constexpr const char* kInvalidStyle = "QLineEdit, QSpinBox { border: 2px solid #c0392b; }";
}

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  optimizer_ = new QComboBox;
  for (const auto& n : optimizer_names()) optimizer_->addItem(QString::fromStdString(n));
  optimizer_->setToolTip("How weights move along the gradient; all follow Keras' formulas and defaults.");
  form->addRow("Optimizer", optimizer_);
  lr_ = new QLineEdit("0.001");
  lr_->setToolTip("Learning rate: how far each update moves the weights. Too high diverges, too low crawls.");
  form->addRow("Learning rate", lr_);
  momentum_ = new QLineEdit("0");
  momentum_->setToolTip("SGD and RMSprop: how much of the previous update carries into the next (0 to <1).");
  form->addRow("Momentum", momentum_);
  nesterov_ = new QCheckBox("Nesterov");
  nesterov_->setToolTip("SGD: look ahead along the momentum before taking the gradient.");
  form->addRow("", nesterov_);
  batch_ = new QSpinBox;
  batch_->setRange(0, 1'000'000);
  batch_->setValue(32);
  batch_->setToolTip("Global batch: examples per step, split across all replicas.");
  form->addRow("Global batch", batch_);
  epochs_ = new QSpinBox;
  epochs_->setRange(0, 100'000);
  epochs_->setValue(1);
  epochs_->setToolTip("How many passes over the training set.");
  form->addRow("Epochs", epochs_);
  seed_ = new QSpinBox;
  seed_->setRange(0, 2'000'000'000);
  seed_->setValue(42);
  seed_->setToolTip("Seeds the initial weights and the data order: the same seed gives the same run.");
  form->addRow("Seed", seed_);
  deterministic_ = new QCheckBox("Deterministic");
  deterministic_->setToolTip("Use deterministic algorithms only, so a rerun reproduces the numbers exactly.");
  form->addRow("", deterministic_);
  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #c0392b;");
  form->addRow(error_);
  connect(optimizer_, &QComboBox::currentTextChanged, this, &TrainingPanel::validate);
  for (auto* e : {lr_, momentum_}) connect(e, &QLineEdit::textChanged, this, &TrainingPanel::validate);
  connect(nesterov_, &QCheckBox::toggled, this, &TrainingPanel::validate);
  for (auto* s : {batch_, epochs_, seed_}) connect(s, &QSpinBox::valueChanged, this, &TrainingPanel::validate);
  connect(deterministic_, &QCheckBox::toggled, this, &TrainingPanel::changed);
  validate();
}

OptimizerConfig TrainingPanel::optimizer() const {
  OptimizerConfig c;
  c.name = optimizer_->currentText().toStdString();
  c.learning_rate = lr_->text().toDouble();
  c.momentum = momentum_->text().toDouble();
  c.nesterov = nesterov_->isChecked();
  return c;
}

int64_t TrainingPanel::batch_size() const { return batch_->value(); }
int TrainingPanel::epochs() const { return epochs_->value(); }
uint64_t TrainingPanel::seed() const { return static_cast<uint64_t>(seed_->value()); }
bool TrainingPanel::deterministic() const { return deterministic_->isChecked(); }

void TrainingPanel::set_values(const std::string& optimizer, double learning_rate, int64_t batch_size, int epochs) {
  optimizer_->setCurrentText(QString::fromStdString(optimizer));
  lr_->setText(QString::number(learning_rate, 'g', 6));
  momentum_->setText("0");
  nesterov_->setChecked(false);
  batch_->setValue(static_cast<int>(batch_size));
  epochs_->setValue(epochs);
  validate();
}

void TrainingPanel::validate() {
  QString problem;
  QWidget* bad = nullptr;
  bool lr_ok = false, m_ok = false;
  const double lr = lr_->text().toDouble(&lr_ok);
  momentum_->text().toDouble(&m_ok);
  if (!lr_ok || !(lr > 0)) {
    problem = QString("Learning rate must be a number above 0 (got \"%1\").").arg(lr_->text());
    bad = lr_;
  } else if (!m_ok) {
    problem = QString("Momentum must be a number (got \"%1\").").arg(momentum_->text());
    bad = momentum_;
  } else if (batch_->value() < 1) {
    problem = "The global batch needs at least one example.";
    bad = batch_;
  } else if (epochs_->value() < 1) {
    problem = "Train for at least one epoch.";
    bad = epochs_;
  } else {
    try {
      optimizer().validate();
    } catch (const ConfigError& e) {
      problem = QString::fromStdString(e.what());
      problem[0] = problem[0].toUpper();
      bad = problem.contains("momentum") || problem.contains("nesterov") ? static_cast<QWidget*>(momentum_) : lr_;
    }
  }
  for (QWidget* w : std::initializer_list<QWidget*>{lr_, momentum_, batch_, epochs_}) w->setStyleSheet(w == bad ? kInvalidStyle : "");
  if (bad) bad->setToolTip(problem);
  momentum_->setEnabled(optimizer_->currentText() == "sgd" || optimizer_->currentText() == "rmsprop");
  nesterov_->setEnabled(optimizer_->currentText() == "sgd");
  error_->setText(problem);
  problem_ = problem;
  Q_EMIT changed();
}

}  // namespace mirror::ui
