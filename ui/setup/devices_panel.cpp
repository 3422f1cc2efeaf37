// Tested by tests/ui/setup/test_setup_panels.cpp and tests/ui/run/test_live_run.cpp.
#include "ui/setup/devices_panel.h"

#include <QColor>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>

#include "mirror/strategy/communicator_registry.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/strategy/workers.h"
#include "mirror/train/config.h"
#include "mirror/util/error.h"
#include "mirror/util/threads.h"

namespace mirror::ui {

DevicesPanel::DevicesPanel(QWidget* parent) : QWidget(parent), physical_(list_physical_devices()) {
  auto* form = new QFormLayout(this);
  physical_list_ = new QListWidget;
  for (const auto& d : physical_)
    physical_list_->addItem(QString("%1 — %2").arg(QString::fromStdString(d.name), QString::fromStdString(d.model)));
  if (const CudaReport& cuda = cuda_report(); !cuda.unavailable.empty()) {
    // Say in one line why there is no GPU to pick: no driver, a CPU-only LibTorch, ...
    auto* why = new QListWidgetItem(QString("No GPU: %1").arg(QString::fromStdString(cuda.unavailable)));
    why->setForeground(QColor("#888888"));
    why->setToolTip(why->text());
    physical_list_->addItem(why);
  }
  physical_list_->setWordWrap(true);
  physical_list_->setMaximumHeight(70);
  form->addRow("Found", physical_list_);
  devices_ = new QComboBox;
  devices_->addItem("cpu");
  if (physical_.size() > 1) devices_->addItem("cuda");
  for (const auto& d : physical_)
    if (d.type == DeviceType::kCuda) devices_->addItem(QString::fromStdString(d.name));
  devices_->setToolTip("The physical devices to train on.");
  form->addRow("Train on", devices_);
  logical_ = new QSpinBox;
  logical_->setRange(1, 64);
  logical_->setToolTip("Logical devices per physical device: each is one replica with its own copy of the model "
                       "(the tutorial's \"two logical GPUs on one GPU\").");
  form->addRow("Logical devices", logical_);
  memory_ = new QSpinBox;
  memory_->setRange(0, 1'000'000);
  memory_->setSuffix(" MiB");
  memory_->setSpecialValueText("no limit");
  memory_->setToolTip("Memory limit per logical device (enforced on GPUs).");
  form->addRow("Memory limit", memory_);
  processes_ = new QSpinBox;
  processes_->setRange(1, 16);
  processes_->setToolTip("Worker processes on this machine, each with the replicas above, joined over c10d's Gloo "
                         "as torchrun would join them. Replicas in all: processes × logical devices.");
  if (!c10d_available()) {
    processes_->setEnabled(false);
    processes_->setToolTip("This build cannot train across processes (it was configured without c10d's Gloo).");
  }
  launch_ = new QPushButton("Copy launch command…");
  launch_->setToolTip("The torchrun command line and an sbatch script that train this run's config elsewhere.");
  auto* processes_row = new QHBoxLayout;
  processes_row->addWidget(processes_);
  processes_row->addWidget(launch_);
  processes_row->addStretch();
  form->addRow("Processes", processes_row);
  replica_list_ = new QListWidget;
  replica_list_->setMaximumHeight(110);
  form->addRow("Replicas", replica_list_);
  split_ = new QLabel;
  split_->setWordWrap(true);
  form->addRow("Batch split", split_);
  communicator_ = new QLabel;
  communicator_->setWordWrap(true);
  form->addRow("All-reduce", communicator_);
  backend_list_ = new QListWidget;
  backend_list_->setObjectName("backends");
  backend_list_->setMaximumHeight(90);
  backend_list_->setWordWrap(true);
  backend_list_->setToolTip("Every all-reduce backend this build knows, and whether it can serve these replicas.");
  form->addRow("Backends", backend_list_);
  connect(devices_, &QComboBox::currentTextChanged, this, &DevicesPanel::update_replicas);
  connect(logical_, &QSpinBox::valueChanged, this, &DevicesPanel::update_replicas);
  connect(memory_, &QSpinBox::valueChanged, this, &DevicesPanel::update_replicas);
  connect(processes_, &QSpinBox::valueChanged, this, &DevicesPanel::update_replicas);
  connect(launch_, &QPushButton::clicked, this, &DevicesPanel::launch_command_requested);
  update_replicas();
}

DeviceRequest DevicesPanel::request() const {
  return {devices_->currentText().toStdString(), logical_->value(), memory_->value()};
}

void DevicesPanel::set_config(const TrainConfig& config) {
  const QString devices = QString::fromStdString(config.devices.devices);
  if (devices_->findText(devices) < 0) devices_->addItem(devices);  // resolve_devices says what is wrong with it
  devices_->setCurrentText(devices);
  logical_->setValue(config.devices.logical);
  memory_->setValue(static_cast<int>(config.devices.memory_limit_mib));
}

void DevicesPanel::config(TrainConfig& into) const { into.devices = request(); }

int DevicesPanel::processes() const { return processes_->value(); }

void DevicesPanel::set_batch_size(int64_t batch) {
  batch_ = batch;
  update_replicas();
}

void DevicesPanel::update_replicas() {
  replica_list_->clear();
  problem_.clear();
  try {
    replicas_ = resolve_devices(request(), physical_);
  } catch (const ConfigError& e) {
    replicas_.clear();
    problem_ = QString::fromStdString(e.what());
  }
  const int per_process = static_cast<int>(replicas_.size());
  const int w = processes();
  const int n = per_process * w;
  // The rule the run applies, so the list shows what training will use.
  const int threads = intra_op_threads_per_replica(std::max(1, n), usable_cores(), /*requested=*/0,
                                                   n > 0 ? (batch_ + n - 1) / n : 0);
  for (int p = 0; p < w; ++p)
    for (const auto& d : replicas_)
      replica_list_->addItem(QString("%1%2  (%3 thread%4)")
                                 .arg(w > 1 ? QString("process %1: ").arg(p) : QString())
                                 .arg(QString::fromStdString(d.name()))
                                 .arg(threads)
                                 .arg(threads > 1 ? "s" : ""));
  if (n > 0 && batch_ >= n) {
    const ShardPlan plan(batch_, n);
    QStringList sizes;
    for (int64_t s : plan.sizes()) sizes << QString::number(s);
    split_->setText(QString("%1 examples per step → %2 per replica").arg(batch_).arg(sizes.join(" + ")));
    QString reason = QString::fromStdString(choose_communicator("auto", replicas_).reason);
    if (w > 1) reason += QString("; then across the %1 processes over c10d's Gloo").arg(w);
    communicator_->setText(reason);
  } else if (n > 0) {
    problem_ = QString("The global batch (%1) is smaller than the %2 replicas; each needs an example.").arg(batch_).arg(n);
    split_->setText(QString("<span style='color:#c0392b'>%1</span>").arg(problem_));
  } else {
    split_->setText(QString("<span style='color:#c0392b'>%1</span>").arg(problem_.toHtmlEscaped()));
  }
  update_backends();
  Q_EMIT changed();
}

void DevicesPanel::show_peak_memory(const std::vector<ReplicaTiming>& timings) {
  for (const auto& t : timings) {
    if (t.memory_mib <= 0 || t.replica < 0 || t.replica >= replica_list_->count()) continue;
    auto* item = replica_list_->item(t.replica);
    QString text = item->text();
    if (const auto cut = text.indexOf(" — peak "); cut >= 0) text.truncate(cut);
    item->setText(QString("%1 — peak %2 MiB").arg(text).arg(t.memory_mib, 0, 'f', 0));
  }
}

void DevicesPanel::update_backends() {
  backend_list_->clear();
  for (const auto& b : CommunicatorRegistry::instance().backends()) {
    const std::string why = replicas_.empty() ? std::string("no replicas") : b.unavailable(replicas_);
    // Short rows that fit the tab; how each backend reduces is in its tooltip.
    auto* item = new QListWidgetItem(why.empty() ? QString("✓ %1").arg(QString::fromStdString(b.name))
                                                 : QString("✗ %1: %2").arg(QString::fromStdString(b.name), QString::fromStdString(why)));
    item->setToolTip(QString::fromStdString(b.summary));
    if (!why.empty()) item->setForeground(QColor("#888888"));
    backend_list_->addItem(item);
  }
}

}  // namespace mirror::ui
