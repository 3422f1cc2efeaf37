#pragma once
// The window's run lifecycle: starting a run (recorded through RecordedRun, as the CLI records
// it), resuming one, sequencing a sweep's runs, pause and stop. It owns the TrainingController
// and the LiveRun model the views subscribe to; the window only reacts to its signals.
// GUI thread only.

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

#include "mirror/runs/sweep.h"
#include "mirror/train/config.h"

namespace mirror::ui {

class LiveRun;
class TrainingController;

class RunLauncher : public QObject {
  Q_OBJECT
 public:
  explicit RunLauncher(QObject* parent = nullptr);
  // Stops a run in progress and waits for its thread.
  ~RunLauncher() override;

  // A new run of `config` on `dataset`, recorded under the runs folder unless recording is off.
  // With `processes` > 1 this window is worker 0 and starts the others as `mirrortrain train
  // --config` processes on this machine, joined over c10d (the same code as --nproc). `name`, if
  // any, is the run's name on the Runs page (meta.json).
  void start_run(TrainConfig config, std::shared_ptr<const Dataset> dataset, int processes = 1,
                 const QString& name = {});
  // Where the window finds mirrortrain for worker processes: $MIRRORTRAIN, else next to itself.
  static QString mirrortrain_path();
  // Continues a recorded run from its newest checkpoint; with `epochs` > 0 trains a finished run
  // on until that epoch.
  void resume_run(const QString& dir, int epochs = 0);
  // Trains each point as its own recorded run, one after another (`dataset` serves the points
  // whose dataset options are `base`'s), then says sweep_finished. stop() ends the whole sweep.
  // `lesson` names the lesson whose runs these are (recorded in each run.json).
  void start_sweep(std::vector<SweepPoint> points, bool scaling, const TrainConfig& base,
                   std::shared_ptr<const Dataset> dataset, const std::string& lesson = {});
  // Stops the current run after its step, and a sweep with it. Thread-safe flags underneath.
  void stop();
  void set_paused(bool paused);
  // Stops everything and waits (closing the window): no further sweep run starts.
  void shut_down();

  bool running() const;
  bool sweeping() const { return sweep_ != nullptr; }
  // The sweep's run now training, 1-based, of sweep_size(), and its label; 0, 0 and empty when no
  // sweep is training.
  int sweep_position() const;
  int sweep_size() const;
  QString sweep_label() const;
  void set_recording(bool on) { recording_ = on; }
  // The config of the run now training or last trained (a sweep's or lesson's point, a resumed
  // run's recorded one); null before the first run.
  const TrainConfig* run_config() const { return run_config_ ? &*run_config_ : nullptr; }
  // The folder of the current or last recorded run; empty if none.
  const QString& run_dir() const { return run_dir_; }
  LiveRun* live() const { return live_; }
  TrainingController* controller() const { return controller_; }

 Q_SIGNALS:
  // A run is starting; `what` says which ("Starting…", "Resuming DIR…", "Sweep run 2 of 4: lr=0.1").
  void run_begun(const QString& what);
  // The previous run's thread was still shutting down, so nothing started.
  void refused(const QString& why);
  // Every run of a sweep has ended, or stop() ended the sweep; `dirs` are its recorded runs.
  void sweep_finished(const QStringList& dirs, bool cancelled, int total);

 private:
  void start_planned(RunPlan plan, std::function<std::shared_ptr<const Dataset>()> dataset, const QString& what,
                     int processes = 1);
  void next_sweep_run();
  // The controller would not start a run: nothing runs, and a sweep in progress ends.
  void refuse();

  TrainingController* controller_;
  LiveRun* live_;
  bool recording_ = true;
  QString run_dir_;
  std::optional<TrainConfig> run_config_;
  std::shared_ptr<Sweep> sweep_;  // the sweep in progress; null: none
  bool sweep_cancelled_ = false;
};

}  // namespace mirror::ui
