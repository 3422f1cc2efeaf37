#pragma once
// Physical devices found, how many logical devices to carve out of each, and the replica list
// and batch split that result.

#include <QWidget>

#include "mirror/strategy/device.h"
#include "mirror/strategy/step_result.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace mirror {
struct TrainConfig;
}  // namespace mirror

namespace mirror::ui {

class DevicesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DevicesPanel(QWidget* parent = nullptr);

  // Shows the config's device request: the devices to train on, logical devices per device and
  // the memory limit. Devices this machine lacks are still shown (and problem() says so).
  void set_config(const TrainConfig& config);
  // Writes that request into `into.devices`, leaving the rest of `into` as it is.
  void config(TrainConfig& into) const;
  DeviceRequest request() const;
  // Worker processes on this machine, each with request()'s replicas (c10d over Gloo); 1: this
  // process only.
  int processes() const;
  QSpinBox* processes_box() const { return processes_; }
  QPushButton* launch_command_button() const { return launch_; }
  // The global batch whose split the panel shows.
  void set_batch_size(int64_t batch);
  int replicas() const { return static_cast<int>(replicas_.size()) * processes(); }
  // Empty when the request can run here; else the reason.
  QString problem() const { return problem_; }
  QSpinBox* logical_box() const { return logical_; }
  QListWidget* replica_list() const { return replica_list_; }
  QLabel* split_label() const { return split_; }
  // One row per registered all-reduce backend: available for these replicas, or why not.
  QListWidget* backend_list() const { return backend_list_; }
  // GPU replicas: adds each replica's peak memory (its card's peak / replicas on the card) to
  // its row. Rows for CPU replicas stay as they are.
  void show_peak_memory(const std::vector<ReplicaTiming>& timings);

 Q_SIGNALS:
  void changed();
  // "Copy launch command…": the window shows the commands that start this run elsewhere.
  void launch_command_requested();

 private:
  void update_replicas();
  void update_backends();

  std::vector<PhysicalDevice> physical_;
  std::vector<LogicalDevice> replicas_;
  QComboBox* devices_;
  QSpinBox* logical_;
  QSpinBox* memory_;
  QSpinBox* processes_;
  QPushButton* launch_;
  QListWidget* physical_list_;
  QListWidget* replica_list_;
  QLabel* split_;
  QLabel* communicator_;
  QListWidget* backend_list_;
  int64_t batch_ = 32;
  QString problem_;
};

}  // namespace mirror::ui
