// Tested by tests/ui/runs/test_sweeps.cpp.
#include "ui/runs/sweep_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "mirror/util/error.h"
#include "mirror/util/words.h"

namespace mirror::ui {

SweepDialog::SweepDialog(const TrainConfig& base, QWidget* parent) : QDialog(parent), base_(base) {
  setWindowTitle("Sweep");
  lr_ = new QLineEdit(QString::number(base.optimizer.learning_rate, 'g', 6));
  batch_ = new QLineEdit(QString::number(base.batch_size));
  logical_ = new QLineEdit(QString::number(base.devices.logical));
  for (auto* field : {lr_, batch_, logical_}) {
    field->setPlaceholderText("values separated by commas or spaces");
    connect(field, &QLineEdit::textChanged, this, &SweepDialog::update);
  }
  epochs_ = new QSpinBox;
  epochs_->setRange(1, 1000);
  epochs_->setValue(base.epochs);
  max_steps_ = new QSpinBox;
  max_steps_->setRange(0, 100000000);
  max_steps_->setSpecialValueText("no limit");
  max_steps_->setValue(static_cast<int>(base.max_steps));
  connect(epochs_, &QSpinBox::valueChanged, this, &SweepDialog::update);
  connect(max_steps_, &QSpinBox::valueChanged, this, &SweepDialog::update);
  auto* form = new QFormLayout;
  form->addRow("Learning rates:", lr_);
  form->addRow("Batch sizes:", batch_);
  form->addRow("Logical devices:", logical_);
  form->addRow("Epochs per run:", epochs_);
  form->addRow("Steps per run at most:", max_steps_);
  preview_ = new QLabel;
  preview_->setWordWrap(true);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons_->button(QDialogButtonBox::Ok)->setText("Run sweep");
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  const QString model = QString::fromStdString(base.preset.empty() ? base.model.name : base.preset);
  const QString devices = base.devices.devices == "cpu" ? QString("the CPU") : QString::fromStdString(base.devices.devices);
  intro_ = new QLabel(QString("Trains dataset <b>%1</b> with model <b>%2</b> on <b>%3</b>. Every combination of the "
                              "values below is its own recorded run, one after another; the runs are compared when "
                              "the last one ends.")
                          .arg(QString::fromStdString(base.dataset.name).toHtmlEscaped(), model.toHtmlEscaped(),
                               devices.toHtmlEscaped()));
  intro_->setWordWrap(true);
  layout->addWidget(intro_);
  layout->addLayout(form);
  layout->addWidget(preview_);
  layout->addWidget(buttons_);
  update();
}

void SweepDialog::update() {
  points_.clear();
  problem_.clear();
  try {
    TrainConfig base = base_;
    base.epochs = epochs_->value();
    base.max_steps = max_steps_->value();
    std::vector<SweepAxis> varying;
    const std::pair<const char*, QLineEdit*> fields[] = {{"lr", lr_}, {"batch", batch_}, {"logical", logical_}};
    for (const auto& [name, field] : fields) {
      SweepAxis axis = parse_sweep_axis(std::string(name) + "=" + field->text().toStdString(), base_);
      // A single value is a setting, not an axis: it keeps the run names short.
      if (axis.values.size() == 1) base = expand_sweep(base, {axis}).front().config;
      else varying.push_back(std::move(axis));
    }
    points_ = varying.empty() ? std::vector<SweepPoint>{{base, "single run"}} : expand_sweep(base, varying);
  } catch (const ConfigError& e) {
    problem_ = e.what();
  }
  const bool ok = problem_.isEmpty();
  QString text;
  if (!ok) {
    text = "<span style='color:#c0392b'>" + problem_.toHtmlEscaped() + "</span>";
  } else {
    QStringList labels;
    for (size_t i = 0; i < points_.size() && i < 6; ++i) labels << QString::fromStdString(points_[i].label);
    if (points_.size() > 6) labels << "…";
    text = QString("<b>%1</b>: %2").arg(QString::fromStdString(counted(static_cast<int64_t>(points_.size()), "run"))).arg(labels.join("; ").toHtmlEscaped());
  }
  preview_->setText(text);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace mirror::ui
