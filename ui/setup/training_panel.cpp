// Tested by tests/ui/setup/test_setup_panels.cpp.
#include "ui/setup/training_panel.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QSpinBox>
#include <QValueAxis>
#include <fmt/format.h>

#include <functional>

#include "mirror/model/precision.h"
#include "mirror/train/config.h"
#include "mirror/util/error.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {
constexpr const char* kInvalidStyle = "QLineEdit, QSpinBox { border: 2px solid #c0392b; }";

// What each schedule takes, shown in its empty settings field.
QString schedule_hint(const QString& kind) {
  if (kind == "piecewise") return "boundaries=1000/2000,values=0.01/0.001/0.0001";
  if (kind == "exponential" || kind == "inverse-time") return "decay_steps=1000,decay_rate=0.5[,staircase=1]";
  if (kind == "polynomial") return "decay_steps=1000,end_learning_rate=0.0001,power=1[,cycle=1]";
  if (kind == "cosine") return "decay_steps=1000,alpha=0";
  if (kind == "cosine-restarts") return "first_decay_steps=500,t_mul=2,m_mul=1,alpha=0";
  return "no settings: the rate stays as entered";
}

// A number as the shortest text that reads back as the same double ("0.001", not "0.0010000").
QString exact(double value) { return QString::fromStdString(fmt::format("{}", value)); }
}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout(this);
  run_name_ = new QLineEdit;
  run_name_->setObjectName("run_name");
  run_name_->setPlaceholderText("optional, e.g. \"lr 0.1, 4 devices\"");
  run_name_->setToolTip("The next run's name on the Runs page (rename it there any time).");
  form->addRow("Run name", run_name_);
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
  precision_ = new QComboBox;
  precision_->setObjectName("precision");
  for (auto p : {Precision::kFloat32, Precision::kMixedBf16})
    precision_->addItem(QString::fromStdString(precision_name(p)));
  const std::string no_bf16 = cpu_bf16_unsupported();
  precision_->setToolTip(QString::fromStdString(
      "mixed-bf16 is Keras' mixed_bfloat16: the layers compute in bfloat16 from float32 weights, the loss and "
      "the update stay float32; faster where the CPU has AVX512_BF16/AMX or the GPU is Ampere or newer. " +
      (no_bf16.empty() ? std::string("This CPU has them.") : "On this CPU's replicas it is refused: " + no_bf16 + ".")));
  form->addRow("Precision", precision_);
  schedule_ = new QComboBox;
  for (const auto& k : lr_schedule_kinds()) schedule_->addItem(QString::fromStdString(k));
  schedule_->setToolTip("How the learning rate moves over the run (Keras' schedules and formulas).");
  form->addRow("Rate schedule", schedule_);
  schedule_params_ = new QLineEdit;
  schedule_params_->setToolTip("The schedule's settings as key=value pairs, separated by commas.");
  form->addRow("Schedule settings", schedule_params_);
  warmup_ = new QSpinBox;
  warmup_->setRange(0, 10'000'000);
  warmup_->setSuffix(" steps");
  warmup_->setSpecialValueText("no warmup");
  warmup_->setToolTip("A linear ramp from 0 to the schedule's first rate over the first steps (Goyal et al., 2017).");
  form->addRow("Warmup", warmup_);
  scale_batch_ = new QSpinBox;
  scale_batch_->setRange(0, 1'000'000);
  scale_batch_->setSpecialValueText("off");
  scale_batch_->setPrefix("reference batch ");
  scale_batch_->setToolTip("Linear scaling rule: the rate is multiplied by global batch / this reference batch.");
  form->addRow("Scale rate with batch", scale_batch_);
  rate_series_ = new QLineSeries(this);
  rate_series_->setName("learning rate");
  auto* chart = new QChart;
  chart->addSeries(rate_series_);
  chart->legend()->hide();
  chart->setMargins(QMargins(2, 2, 2, 2));
  chart->createDefaultAxes();
  rate_plot_ = new QChartView(chart);
  rate_plot_->setMinimumHeight(120);
  rate_plot_->setMaximumHeight(170);
  rate_plot_->setRenderHint(QPainter::Antialiasing);
  rate_plot_->setToolTip("The rate over the planned steps (epochs x steps per epoch), before training.");
  form->addRow("Planned rate", rate_plot_);
  plateau_ = new QLineEdit;
  plateau_->setPlaceholderText("off; e.g. val_loss:factor=0.5,patience=2");
  plateau_->setToolTip("ReduceLROnPlateau: cut the rate when a metric stops improving (constant schedules only).");
  form->addRow("Reduce on plateau", plateau_);
  early_stopping_ = new QLineEdit;
  early_stopping_->setPlaceholderText("off; e.g. val_loss:patience=3,restore_best=1");
  early_stopping_->setToolTip("Stop when a metric stops improving; restore_best=1 puts back the best epoch's weights.");
  form->addRow("Early stopping", early_stopping_);
  clipnorm_ = new QLineEdit("0");
  clipnorm_->setToolTip("Clip all gradients to this joint norm after the all-reduce (Keras' global_clipnorm); 0: off.");
  form->addRow("Clip gradient norm", clipnorm_);
  error_ = plain(new QLabel);  // messages quote what was typed
  error_->setWordWrap(true);
  error_->setStyleSheet("color: #c0392b;");
  form->addRow(error_);
  connect(optimizer_, &QComboBox::currentTextChanged, this, &TrainingPanel::validate);
  for (auto* e : {lr_, momentum_}) connect(e, &QLineEdit::textChanged, this, &TrainingPanel::validate);
  connect(nesterov_, &QCheckBox::toggled, this, &TrainingPanel::validate);
  for (auto* s : {batch_, epochs_, seed_}) connect(s, &QSpinBox::valueChanged, this, &TrainingPanel::validate);
  connect(deterministic_, &QCheckBox::toggled, this, &TrainingPanel::changed);
  connect(precision_, &QComboBox::currentTextChanged, this, &TrainingPanel::changed);
  connect(schedule_, &QComboBox::currentTextChanged, this, [this](const QString& kind) {
    schedule_params_->setPlaceholderText(schedule_hint(kind));
    schedule_params_->setEnabled(kind != "constant");
    validate();
  });
  for (auto* e : {schedule_params_, plateau_, early_stopping_, clipnorm_})
    connect(e, &QLineEdit::textChanged, this, &TrainingPanel::validate);
  for (auto* s : {warmup_, scale_batch_}) connect(s, &QSpinBox::valueChanged, this, &TrainingPanel::validate);
  schedule_params_->setPlaceholderText(schedule_hint("constant"));
  schedule_params_->setEnabled(false);
  validate();
}

void TrainingPanel::set_config(const TrainConfig& config) {
  const OptimizerConfig& o = config.optimizer;
  shown_optimizer_ = o;
  optimizer_->setCurrentText(QString::fromStdString(o.name));
  lr_->setText(exact(o.learning_rate > 0 ? o.learning_rate : o.effective_learning_rate()));
  momentum_->setText(exact(o.momentum));
  nesterov_->setChecked(o.nesterov);
  clipnorm_->setText(exact(o.global_clipnorm));
  batch_->setValue(static_cast<int>(config.batch_size));
  epochs_->setValue(config.epochs);
  seed_->setValue(static_cast<int>(config.seed));
  deterministic_->setChecked(config.strategy.deterministic);
  precision_->setCurrentText(QString::fromStdString(precision_name(config.strategy.precision)));
  schedule_->setCurrentText(QString::fromStdString(config.schedule.kind));
  schedule_params_->setText(QString::fromStdString(lr_schedule_settings(config.schedule)));
  warmup_->setValue(static_cast<int>(config.schedule.warmup_steps));
  scale_batch_->setValue(static_cast<int>(config.schedule.scale_reference_batch));
  plateau_->setText(QString::fromStdString(plateau_spec(config.plateau)));
  early_stopping_->setText(QString::fromStdString(early_stopping_spec(config.early_stopping)));
  validate();
}

void TrainingPanel::config(TrainConfig& into) const {
  into.optimizer = optimizer();
  into.batch_size = batch_->value();
  into.epochs = epochs_->value();
  into.seed = static_cast<uint64_t>(seed_->value());
  into.strategy.deterministic = deterministic_->isChecked();
  into.strategy.precision = parse_precision(precision_->currentText().toStdString());
  try {
    into.schedule = schedule();
  } catch (const ConfigError&) {
  }
  try {
    into.plateau = plateau();
  } catch (const ConfigError&) {
  }
  try {
    into.early_stopping = early_stopping();
  } catch (const ConfigError&) {
  }
}

OptimizerConfig TrainingPanel::optimizer() const {
  const std::string name = optimizer_->currentText().toStdString();
  OptimizerConfig c = name == shown_optimizer_.name ? shown_optimizer_ : OptimizerConfig{};
  c.name = name;
  c.learning_rate = lr_->text().toDouble();
  c.momentum = momentum_->text().toDouble();
  c.nesterov = nesterov_->isChecked();
  c.global_clipnorm = clipnorm_->text().toDouble();
  return c;
}

LrSchedule TrainingPanel::schedule() const {
  const QString kind = schedule_->currentText();
  const QString params = schedule_params_->text().trimmed();
  LrSchedule s = parse_lr_schedule((params.isEmpty() || kind == "constant" ? kind : kind + ":" + params).toStdString());
  s.warmup_steps = warmup_->value();
  s.scale_reference_batch = scale_batch_->value();
  s.validate();
  return s;
}

PlateauOptions TrainingPanel::plateau() const {
  const QString spec = plateau_->text().trimmed();
  return spec.isEmpty() ? PlateauOptions{} : parse_plateau(spec.toStdString());
}

EarlyStoppingOptions TrainingPanel::early_stopping() const {
  const QString spec = early_stopping_->text().trimmed();
  return spec.isEmpty() ? EarlyStoppingOptions{} : parse_early_stopping(spec.toStdString());
}

void TrainingPanel::set_train_size(int64_t examples) {
  train_size_ = examples;
  plot_schedule();
}

void TrainingPanel::plot_schedule() {
  QList<QPointF> points;
  try {
    const LrSchedule s = schedule();
    const int64_t batch = std::max<int64_t>(1, batch_->value());
    const int64_t per_epoch = train_size_ > 0 ? (train_size_ + batch - 1) / batch : 100;
    const int64_t steps = std::max<int64_t>(1, per_epoch * std::max(1, epochs_->value()));
    const double base = optimizer().effective_learning_rate();
    const int64_t stride = std::max<int64_t>(1, steps / 400);
    for (int64_t step = 0; step < steps; step += stride)
      points.append({static_cast<double>(step), s.rate(base, step, static_cast<int>(step / per_epoch) + 1, batch)});
    points.append({static_cast<double>(steps), s.rate(base, steps - 1, static_cast<int>((steps - 1) / per_epoch) + 1, batch)});
  } catch (const std::exception&) {
    // An invalid schedule draws nothing; validate() says why.
  }
  rate_series_->replace(points);
  double hi = 0;
  for (const auto& p : points) hi = std::max(hi, p.y());
  const auto axes = rate_plot_->chart()->axes();
  for (auto* a : axes) {
    auto* v = qobject_cast<QValueAxis*>(a);
    if (!v) continue;
    if (a->orientation() == Qt::Horizontal) {
      set_nice_range(v, points.isEmpty() ? 0.0 : points.back().x(), /*whole=*/true, /*round_up=*/false);
    } else {
      v->setRange(0, hi > 0 ? hi * 1.1 : 1);
      v->setLabelFormat("%.2g");
    }
  }
}

int64_t TrainingPanel::batch_size() const { return batch_->value(); }
int TrainingPanel::epochs() const { return epochs_->value(); }

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
    bool clip_ok = false;
    clipnorm_->text().toDouble(&clip_ok);
    try {
      if (!clip_ok) throw ConfigError(fmt::format("the clip norm must be a number (got \"{}\")", clipnorm_->text().toStdString()));
      optimizer().validate();
    } catch (const ConfigError& e) {
      problem = QString::fromStdString(e.what());
      bad = problem.contains("momentum") || problem.contains("nesterov") ? static_cast<QWidget*>(momentum_)
            : problem.contains("clip")                                     ? static_cast<QWidget*>(clipnorm_)
                                                                           : lr_;
    }
    // Each of the callback fields, then whether they go together.
    const std::pair<QLineEdit*, std::function<void()>> checks[] = {
        {schedule_params_, [this] { schedule(); }},
        {plateau_, [this] { plateau(); }},
        {early_stopping_, [this] { early_stopping(); }},
        {plateau_, [this] { check_plateau_fits(plateau(), schedule()); }}};
    for (const auto& [field, check] : checks) {
      if (bad) break;
      try {
        check();
      } catch (const ConfigError& e) {
        problem = QString::fromStdString(e.what());
        bad = field;
      }
    }
    if (!problem.isEmpty()) problem[0] = problem[0].toUpper();
  }
  for (QWidget* w : std::initializer_list<QWidget*>{lr_, momentum_, batch_, epochs_, schedule_params_, plateau_,
                                                    early_stopping_, clipnorm_})
    w->setStyleSheet(w == bad ? kInvalidStyle : "");
  if (bad) bad->setToolTip(literal(problem));
  momentum_->setEnabled(optimizer_->currentText() == "sgd" || optimizer_->currentText() == "rmsprop");
  nesterov_->setEnabled(optimizer_->currentText() == "sgd");
  error_->setText(problem);
  problem_ = problem;
  plot_schedule();
  Q_EMIT changed();
}

}  // namespace mirror::ui
