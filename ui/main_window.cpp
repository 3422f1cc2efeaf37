#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTextStream>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

#include "mirror/model/presets.h"
#include "mirror/runs/run_reader.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "ui/compare_view.h"
#include "ui/dataset_panel.h"
#include "ui/devices_panel.h"
#include "ui/metric_chart.h"
#include "ui/model_panel.h"
#include "ui/replica_view.h"
#include "ui/runs_browser.h"
#include "ui/sweep_dialog.h"
#include "ui/theme.h"
#include "ui/training_controller.h"
#include "ui/training_panel.h"

namespace mirror::ui {

namespace {
QWidget* scrolled(QWidget* w) {
  auto* s = new QScrollArea;
  s->setWidget(w);
  s->setWidgetResizable(true);
  s->setFrameShape(QFrame::NoFrame);
  return s;
}

QString clock(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 3600 ? QString("%1:%2:%3").arg(s / 3600).arg(s / 60 % 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'))
                   : QString("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0'));
}

bool fashion_mnist_installed() { return QFile::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"); }
}  // namespace

MainWindow::MainWindow(bool restore_settings, QWidget* parent)
    : QMainWindow(parent), restore_settings_(restore_settings) {
  setWindowTitle("Mirror Workbench");
  controller_ = new TrainingController(this);
  dataset_ = new DatasetPanel;
  model_ = new ModelPanel;
  training_ = new TrainingPanel;
  devices_ = new DevicesPanel;
  tabs_ = new QTabWidget;
  tabs_->addTab(scrolled(dataset_), "Data");
  tabs_->addTab(model_, "Model");
  tabs_->addTab(scrolled(training_), "Training");
  tabs_->addTab(scrolled(devices_), "Devices");
  tabs_->setMinimumWidth(380);

  banner_ = new QLabel;
  banner_->setWordWrap(true);
  banner_->setVisible(false);
  banner_->setStyleSheet("QLabel { background: #fdecea; color: #611a15; border: 1px solid #c0392b; padding: 6px; }");
  banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  charts_[0] = new MetricChart(Metric::kLoss, "Loss");
  charts_[1] = new MetricChart(Metric::kAccuracy, "Accuracy");
  charts_[2] = new MetricChart(Metric::kTopK, "Top-5 accuracy");
  replicas_ = new ReplicaView;
  auto* chart_split = new QSplitter(Qt::Vertical);
  for (auto* c : charts_) chart_split->addWidget(c);
  chart_split->addWidget(replicas_);
  for (int i = 0; i < 3; ++i) chart_split->setStretchFactor(i, 3);
  chart_split->setStretchFactor(3, 1);
  browser_ = new RunsBrowser;
  compare_ = new CompareView;
  connect(browser_, &RunsBrowser::selection_changed, compare_, &CompareView::set_runs);
  connect(browser_, &RunsBrowser::resume_requested, this, &MainWindow::resume_run);
  auto* runs_split = new QSplitter(Qt::Vertical);
  runs_split->addWidget(browser_);
  runs_split->addWidget(compare_);
  runs_split->setStretchFactor(0, 2);
  runs_split->setStretchFactor(1, 3);
  views_ = new QTabWidget;
  views_->setObjectName("views");
  views_->addTab(chart_split, "Live");
  views_->addTab(runs_split, "Runs");
  views_->setTabToolTip(1, "Every recorded run: rename, tag, annotate, compare (Ctrl+R)");
  auto* right = new QWidget;
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(banner_);
  right_layout->addWidget(views_, 1);
  auto* split = new QSplitter;
  split->setObjectName("main_split");
  split->addWidget(tabs_);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  setCentralWidget(split);

  blocked_ = new QLabel;
  blocked_->setStyleSheet("color: #c0392b;");
  status_ = new QLabel("Ready.");
  epoch_progress_ = new QProgressBar;
  epoch_progress_->setMaximumWidth(220);
  epoch_progress_->setFormat("epoch %p%");
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(blocked_);
  statusBar()->addPermanentWidget(epoch_progress_);
  build_actions();

  connect(dataset_, &DatasetPanel::dataset_changed, this, &MainWindow::on_dataset_changed);
  connect(dataset_, &DatasetPanel::loading_changed, this, &MainWindow::update_train_enabled);
  connect(model_, &ModelPanel::model_changed, this, &MainWindow::update_train_enabled);
  connect(model_, &ModelPanel::preset_chosen, this, &MainWindow::apply_preset);
  connect(training_, &TrainingPanel::changed, this, [this] {
    devices_->set_batch_size(training_->batch_size());
    update_train_enabled();
  });
  connect(devices_, &DevicesPanel::changed, this, &MainWindow::update_train_enabled);
  connect(controller_, &TrainingController::started, this, &MainWindow::on_started);
  connect(controller_, &TrainingController::steps, this, [this](const std::vector<StepMetrics>& batch) {
    for (const auto& s : batch) on_step(s);
  });
  connect(controller_, &TrainingController::epoch, this, &MainWindow::on_epoch);
  connect(controller_, &TrainingController::finished, this, &MainWindow::on_finished);
  // Charts redraw at most ~30 times a second, however fast events arrive.
  redraw_timer_.setInterval(33);
  connect(&redraw_timer_, &QTimer::timeout, this, &MainWindow::redraw);
  redraw_timer_.start();

  QSettings settings;
  const QString fallback = fashion_mnist_installed() ? "fashion-cnn" : "spirals-mlp";
  const QString preset = restore_settings_ ? settings.value("preset", fallback).toString() : fallback;
  apply_preset(presets().empty() ? fallback : preset);
  if (restore_settings_) {
    restoreGeometry(settings.value("geometry").toByteArray());
    split->restoreState(settings.value("split").toByteArray());
    dark_->setChecked(settings.value("dark", false).toBool());
    projector_->setChecked(settings.value("projector", false).toBool());
  }
  rebuild_recent_menu();
  update_train_enabled();
}

MainWindow::~MainWindow() { controller_->stop_and_wait(); }

void MainWindow::build_actions() {
  auto* tb = addToolBar("Run");
  tb->setObjectName("run_toolbar");
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  train_ = tb->addAction(style()->standardIcon(QStyle::SP_MediaPlay), "Train", this, &MainWindow::start_training);
  train_->setShortcut(QKeySequence("Ctrl+Return"));
  train_->setToolTip("Start training with these settings (Ctrl+Enter)");
  pause_ = tb->addAction(style()->standardIcon(QStyle::SP_MediaPause), "Pause");
  pause_->setCheckable(true);
  pause_->setShortcut(QKeySequence("Ctrl+P"));
  pause_->setToolTip("Hold training between steps (Ctrl+P)");
  connect(pause_, &QAction::toggled, this, [this](bool on) {
    controller_->set_paused(on);
    status_->setText(on ? "Paused." : "Resumed.");
  });
  stop_ = tb->addAction(style()->standardIcon(QStyle::SP_MediaStop), "Stop", this, [this] {
    sweep_.cancelled = sweeping();
    controller_->stop();
  });
  stop_->setShortcut(QKeySequence("Ctrl+."));
  stop_->setToolTip("Stop after the current step (Ctrl+.)");
  tb->addSeparator();
  log_scale_ = tb->addAction("log loss");
  log_scale_->setCheckable(true);
  log_scale_->setToolTip("Logarithmic loss axis");
  connect(log_scale_, &QAction::toggled, this, [this](bool on) {
    charts_[0]->set_log_scale(on);
    dirty_ = true;
  });
  auto* file = menuBar()->addMenu("&File");
  file->addAction("Open dataset folder…", this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, "Dataset folder");
    if (d.isEmpty()) return;
    dataset_->set_dataset(dataset_->options().name.c_str(), d);
    dataset_->load();
  });
  recent_ = file->addMenu("Recent datasets");
  file->addSeparator();
  file->addAction("Export charts (PNG and SVG)…", this, &MainWindow::export_charts);
  file->addAction("Export metrics as CSV…", this, &MainWindow::export_csv);
  file->addSeparator();
  file->addAction("Quit", QKeySequence::Quit, this, &QWidget::close);
  auto* run = menuBar()->addMenu("&Run");
  run->addActions({train_, pause_, stop_});
  run->addSeparator();
  sweep_action_ = run->addAction("Sweep…", this, &MainWindow::open_sweep_dialog);
  sweep_action_->setToolTip("Train every combination of learning rates, batch sizes and device counts, then compare");
  scaling_action_ = run->addAction("Scaling study (1, 2, 4 logical devices)", this, &MainWindow::start_scaling_study);
  scaling_action_->setToolTip("The same config on 1, 2 and 4 logical devices: throughput, efficiency, where the time goes");
  tb->addSeparator();
  tb->addAction(scaling_action_);
  auto* runs = menuBar()->addMenu("R&uns");
  runs->addAction("Show runs", QKeySequence("Ctrl+R"), this, [this] { views_->setCurrentIndex(1); });
  runs->addAction("Show live training", QKeySequence("Ctrl+L"), this, [this] { views_->setCurrentIndex(0); });
  runs->addAction("Open run folder…", this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, "Open a run folder (holding run.json)", browser_->root());
    if (dir.isEmpty()) return;
    QString error;
    if (browser_->open_run(dir, &error)) views_->setCurrentIndex(1);
    else QMessageBox::warning(this, "Not a run", error);
  });
  runs->addAction("Export comparison…", this, &MainWindow::export_comparison);
  auto* view = menuBar()->addMenu("&View");
  dark_ = view->addAction("Dark theme");
  dark_->setCheckable(true);
  connect(dark_, &QAction::toggled, this, &MainWindow::set_dark);
  projector_ = view->addAction("Projector mode (large fonts, thick lines)");
  projector_->setCheckable(true);
  projector_->setShortcut(QKeySequence("F11"));
  connect(projector_, &QAction::toggled, this, &MainWindow::set_projector);
  view->addAction(log_scale_);
  auto* help = menuBar()->addMenu("&Help");
  help->addAction("About", this, [this] {
    QMessageBox::about(this, "Mirror Workbench",
                       "Mirrored synchronous data-parallel training (TensorFlow MirroredStrategy semantics) on "
                       "LibTorch: replicate the model, shard each global batch, all-reduce the gradients, apply "
                       "the same update on every replica.");
  });
}

MetricChart* MainWindow::chart(Metric m) const { return charts_[static_cast<int>(m)]; }

void MainWindow::apply_preset(const QString& name) {
  const Preset* p = nullptr;
  for (const auto& candidate : presets())
    if (QString::fromStdString(candidate.name) == name) p = &candidate;
  if (!p) return;
  preset_ = name;
  model_->set_spec(p->model);
  model_->show_preset(name);
  training_->set_values(p->optimizer, p->learning_rate, p->batch_size, p->epochs);
  devices_->set_logical(p->logical_devices);
  const auto current = dataset_->options();
  const QString wanted = QString::fromStdString(p->dataset);
  // Reuters presets fall back to the synthetic Reuters-shaped set when Keras' file is not here.
  QString dataset = wanted;
  if (wanted == "reuters" && !QFile::exists(QDir::homePath() + "/.keras/datasets/reuters.npz") &&
      !QFile::exists(qEnvironmentVariable("KERAS_HOME") + "/datasets/reuters.npz"))
    dataset = "synthetic-text";
  if (QString::fromStdString(current.name) != dataset || !dataset_->dataset()) {
    dataset_->set_dataset(dataset);
    dataset_->load();
  } else {
    on_dataset_changed();
  }
  update_train_enabled();
}

void MainWindow::on_dataset_changed() {
  const auto d = dataset_->dataset();
  if (d) {
    model_->set_input(input_spec(*d), true);
    remember_dataset();
  } else {
    model_->set_input({}, false);
  }
  update_train_enabled();
}

void MainWindow::update_train_enabled() {
  QString why;
  if (running_) why = "";
  else if (dataset_->loading()) why = "loading the dataset…";
  else if (!dataset_->dataset()) why = "no dataset loaded";
  else if (!training_->problem().isEmpty()) why = training_->problem();
  else if (!devices_->problem().isEmpty()) why = devices_->problem();
  else if (!model_->ok()) why = "model: " + model_->problem();
  train_->setEnabled(!running_ && why.isEmpty());
  sweep_action_->setEnabled(!running_ && why.isEmpty());
  scaling_action_->setEnabled(!running_ && why.isEmpty());
  pause_->setEnabled(running_);
  stop_->setEnabled(running_);
  // Settings are read-only during a run, but every tab can still be looked at.
  for (int i = 0; i < tabs_->count(); ++i) tabs_->widget(i)->setEnabled(!running_);
  blocked_->setText(why.isEmpty() || running_ ? "" : "Cannot train: " + why);
  train_->setToolTip(why.isEmpty() ? "Start training (Ctrl+Enter)" : "Cannot train: " + why);
}

TrainConfig MainWindow::current_config() const {
  TrainConfig c;
  c.preset = preset_.toStdString();
  c.model = model_->spec();
  c.dataset = dataset_->options();
  c.optimizer = training_->optimizer();
  c.batch_size = training_->batch_size();
  c.epochs = training_->epochs();
  c.devices = devices_->request();
  c.seed = training_->seed();
  c.strategy.deterministic = training_->deterministic();
  return c;
}

void MainWindow::start_training() {
  if (running_ || !train_->isEnabled()) return;
  start_run(current_config(), dataset_->dataset());
}

void MainWindow::start_run(TrainConfig c, std::shared_ptr<const Dataset> dataset) {
  start_recorded(std::move(c), std::move(dataset), nlohmann::json::object(), {}, {});
}

void MainWindow::begin_run() {
  metrics_.clear();
  last_step_ = {};
  started_ = {};
  step_seconds_ema_ = 0;
  banner_->setVisible(false);
  running_ = true;
  pause_->setChecked(false);
  update_train_enabled();
  status_->setText("Starting…");
  dirty_ = true;
  run_dir_.clear();
}

void MainWindow::refuse_start() {
  // The previous run's thread is still running: nothing started, so nothing is running.
  running_ = false;
  sweep_.cancelled = sweeping();
  update_train_enabled();
  show_error("The previous run is still shutting down; try again in a moment.", "Not started:");
}

void MainWindow::resume_run(const QString& dir, int epochs) {
  if (running_) return;
  begin_run();
  run_dir_ = dir;
  views_->setCurrentIndex(0);
  status_->setText("Resuming " + dir + "…");
  if (!controller_->resume(dir.toStdString(), epochs)) refuse_start();
}

void MainWindow::start_recorded(TrainConfig c, std::shared_ptr<const Dataset> dataset, const nlohmann::json& extra,
                                const std::string& display_name, const std::string& tag) {
  if (running_) return;
  begin_run();
  if (recording_) {
    const std::string label = tag.empty() ? (c.preset.empty() ? c.model.name : c.preset) : tag;
    run_dir_ = QString::fromStdString(new_run_dir(default_runs_root(), label));
    if (!display_name.empty() || !tag.empty()) {
      try {
        std::filesystem::create_directories(run_dir_.toStdString());
        write_meta(run_dir_.toStdString(), RunMeta{display_name, tag.empty() ? std::vector<std::string>{}
                                                                           : std::vector<std::string>{tag}, {}});
      } catch (const std::exception& e) {
        show_error(QString("%1: %2").arg(run_dir_, e.what()), "Cannot name the run:");
      }
    }
  }
  if (!controller_->start(std::move(c), std::move(dataset), run_dir_.toStdString(), extra)) refuse_start();
}

void MainWindow::start_sweep(std::vector<SweepPoint> points, bool scaling) {
  if (running_ || points.empty()) return;
  sweep_ = Sweep{new_sweep_id(), std::move(points), 0, scaling, false, {}};
  views_->setCurrentIndex(0);
  next_sweep_run();
}

void MainWindow::next_sweep_run() {
  if (sweep_.cancelled || sweep_.next >= sweep_.points.size()) {
    const QStringList dirs = sweep_.dirs;
    const bool cancelled = sweep_.cancelled;
    const size_t total = sweep_.points.size();
    sweep_ = Sweep{};
    update_train_enabled();
    compare_runs(dirs);
    status_->setText(cancelled ? QString("Sweep stopped after %1 of %2 run(s).").arg(dirs.size()).arg(total)
                               : QString("Sweep done: %1 run(s), compared on the Runs page.").arg(dirs.size()));
    Q_EMIT sweep_finished(dirs);
    return;
  }
  const size_t i = sweep_.next++;
  SweepPoint& p = sweep_.points[i];
  const nlohmann::json extra = {{"sweep", {{"id", sweep_.id}, {"index", i + 1}, {"of", sweep_.points.size()},
                                           {"label", p.label}, {"scaling", sweep_.scaling}}}};
  start_recorded(p.config, dataset_->dataset(), extra, p.label, sweep_.id);
  if (!run_dir_.isEmpty()) sweep_.dirs << run_dir_;
  status_->setText(QString("Sweep run %1 of %2: %3").arg(i + 1).arg(sweep_.points.size()).arg(QString::fromStdString(p.label)));
}

void MainWindow::start_scaling_study() {
  if (running_ || !train_->isEnabled()) return;
  TrainConfig base = current_config();
  base.epochs = 1;
  try {
    start_sweep(expand_sweep(base, {scaling_axis({1, 2, 4})}), true);
  } catch (const ConfigError& e) {
    show_error(e.what(), "Cannot run the scaling study:");
  }
}

void MainWindow::open_sweep_dialog() {
  if (running_ || !train_->isEnabled()) return;
  SweepDialog dialog(current_config(), this);
  if (dialog.exec() == QDialog::Accepted && !dialog.points().empty()) start_sweep(dialog.points(), false);
}

void MainWindow::compare_runs(const QStringList& dirs) {
  if (browser_->loading()) {  // the runs folder is still being read
    connect(browser_, &RunsBrowser::loaded, this, [this, dirs] { compare_runs(dirs); }, Qt::SingleShotConnection);
    views_->setCurrentIndex(1);
    return;
  }
  browser_->refresh();
  const QStringList listed = browser_->run_dirs();
  for (const QString& d : dirs)
    if (!listed.contains(QDir(d).absolutePath()) && !listed.contains(d)) browser_->open_run(d);
  browser_->select_runs(dirs);
  // A scaling study's runs open on the scaling page.
  const auto& runs = compare_->runs();
  const bool study = runs.size() >= 2 && std::all_of(runs.begin(), runs.end(), [](const RunRecord& r) {
    const nlohmann::json* sweep = json_field(r.run, "sweep");
    return sweep && json_bool(*sweep, "scaling");
  });
  compare_->show_scaling(study);
  views_->setCurrentIndex(1);
}

void MainWindow::export_comparison() {
  if (compare_->runs().empty()) {
    QMessageBox::information(this, "Export comparison", "Select the runs to compare on the Runs page first.");
    return;
  }
  QString filter;
  const QString path = QFileDialog::getSaveFileName(
      this, "Export comparison", "comparison.html",
      "Report, HTML (*.html);;Report, Markdown (*.md);;Image, PNG (*.png);;Image, SVG (*.svg)", &filter);
  if (path.isEmpty()) return;
  bool ok = false;
  if (path.endsWith(".png", Qt::CaseInsensitive)) ok = compare_->export_png(path);
  else if (path.endsWith(".svg", Qt::CaseInsensitive)) ok = compare_->export_svg(path);
  else ok = compare_->export_report(path);
  if (!ok) QMessageBox::warning(this, "Export failed", "Cannot write " + path);
  else status_->setText("Comparison written to " + path);
}

void MainWindow::on_started(const RunStarted& e) {
  started_ = e;
  replicas_->on_started(e);
  status_->setText(QString("Training on %1 replica(s)…").arg(e.devices.size()));
}

void MainWindow::on_step(const StepMetrics& e) {
  metrics_.add_step(e);
  last_step_ = e;
  step_seconds_ema_ = step_seconds_ema_ == 0 ? e.step_seconds : 0.95 * step_seconds_ema_ + 0.05 * e.step_seconds;
  dirty_ = true;
}

void MainWindow::on_epoch(const EpochMetrics& e) {
  metrics_.add_epoch(e);
  dirty_ = true;
}

void MainWindow::on_finished(const RunFinished& e) {
  last_result_ = e;
  running_ = false;
  pause_->setChecked(false);
  replicas_->on_finished(e);
  redraw();
  switch (e.status) {
    case RunStatus::kFinished:
      status_->setText(QString("Finished: %1 steps in %2, %3 samples/s.%4")
                           .arg(e.steps)
                           .arg(clock(e.seconds))
                           .arg(e.train_samples_per_sec, 0, 'f', 0)
                           .arg(run_dir_.isEmpty() ? QString() : " Recorded in " + run_dir_));
      break;
    case RunStatus::kStopped:
      status_->setText(QString("Stopped after %1 steps.").arg(e.steps));
      break;
    case RunStatus::kFailed:
      status_->setText("The run failed.");
      show_error(QString::fromStdString(e.message));
      break;
  }
  update_train_enabled();
  browser_->refresh();
  Q_EMIT run_finished(e);
  if (sweeping()) {
    // The next run starts from the event loop, after everyone has seen this one end.
    QTimer::singleShot(0, this, &MainWindow::next_sweep_run);
  }
}

void MainWindow::show_error(const QString& message, const QString& headline) {
  banner_->setText("<b>" + headline.toHtmlEscaped() + "</b> " + message.toHtmlEscaped());
  banner_->setVisible(true);
}

void MainWindow::redraw() {
  if (!dirty_) return;
  // While a run is going, drawing competes with the replicas for the same cores: spend at most
  // kDrawBudget of the wall time on it (at most ~30 frames a second, fewer when frames are
  // expensive). Between runs, draw at once.
  constexpr double kDrawBudget = 0.01;
  if (running_ && since_draw_.isValid() && since_draw_.elapsed() < draw_cost_ms_ / kDrawBudget) return;
  QElapsedTimer cost;
  cost.start();
  dirty_ = false;
  for (auto* c : charts_) c->refresh(metrics_);
  if (last_step_.global_step == 0) {
    since_draw_.restart();
    return;
  }
  replicas_->on_step(last_step_);
  const int epochs = started_.epochs > 0 ? started_.epochs : training_->epochs();  // a resumed run has its own
  const int64_t total = last_step_.steps_per_epoch * epochs;
  const double eta = step_seconds_ema_ * static_cast<double>(std::max<int64_t>(0, total - last_step_.global_step));
  if (running_)
    status_->setText(QString("Epoch %1/%2 · step %3/%4 · %5 samples/s · ETA %6%7")
                         .arg(last_step_.epoch).arg(epochs).arg(last_step_.step).arg(last_step_.steps_per_epoch)
                         .arg(last_step_.samples_per_sec, 0, 'f', 0).arg(clock(eta)).arg(pause_->isChecked() ? " · paused" : ""));
  epoch_progress_->setValue(static_cast<int>(100 * last_step_.step / std::max<int64_t>(1, last_step_.steps_per_epoch)));
  // The cost includes painting, which happens when the event loop next runs; approximate it by
  // forcing the repaint here.
  for (auto* c : charts_) c->viewport()->repaint();
  const double ms = static_cast<double>(cost.nsecsElapsed()) / 1e6;
  draw_cost_ms_ = draw_cost_ms_ == 0 ? ms : 0.8 * draw_cost_ms_ + 0.2 * ms;
  since_draw_.restart();
}

void MainWindow::set_dark(bool dark) {
  apply_theme(*qApp, dark);
  for (auto* c : charts_) c->set_dark(dark);
  compare_->set_dark(dark);
  dirty_ = true;
}

void MainWindow::set_projector(bool on) {
  apply_font_scale(*qApp, on ? 1.6 : 1.0);
  for (auto* c : charts_) c->set_line_width(on ? 4.0 : 2.0);
  compare_->set_line_width(on ? 4.0 : 2.0);
  dirty_ = true;
}

void MainWindow::export_charts() {
  const QString dir = QFileDialog::getExistingDirectory(this, "Export charts to");
  if (dir.isEmpty()) return;
  const char* names[] = {"loss", "accuracy", "top_k_accuracy"};
  for (int i = 0; i < 3; ++i)
    if (!charts_[i]->export_png(QDir(dir).filePath(QString("%1.png").arg(names[i]))) ||
        !charts_[i]->export_svg(QDir(dir).filePath(QString("%1.svg").arg(names[i]))))
      QMessageBox::warning(this, "Export failed", QString("Cannot write %1.png/.svg in %2").arg(names[i], dir));
}

void MainWindow::export_csv() {
  const QString path = QFileDialog::getSaveFileName(this, "Export metrics", "metrics.csv", "CSV (*.csv)");
  if (path.isEmpty()) return;
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
    QMessageBox::warning(this, "Export failed", "Cannot write " + path);
    return;
  }
  QTextStream(&f) << metrics_.to_csv();
}

void MainWindow::remember_dataset() {
  if (!restore_settings_) return;
  const auto o = dataset_->options();
  const QString entry = QString::fromStdString(o.name) + (o.data_dir.empty() ? "" : "|" + QString::fromStdString(o.data_dir));
  QSettings settings;
  QStringList recent = settings.value("recent_datasets").toStringList();
  recent.removeAll(entry);
  recent.prepend(entry);
  while (recent.size() > 8) recent.removeLast();
  settings.setValue("recent_datasets", recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_->clear();
  const QStringList recent = restore_settings_ ? QSettings().value("recent_datasets").toStringList() : QStringList();
  for (const QString& entry : recent) {
    const auto parts = entry.split('|');
    recent_->addAction(QString(entry).replace('|', " — "), this, [this, parts] {
      dataset_->set_dataset(parts[0], parts.size() > 1 ? parts[1] : QString());
      dataset_->load();
    });
  }
  recent_->setEnabled(!recent.isEmpty());
}

void MainWindow::save_settings() {
  if (!restore_settings_) return;
  QSettings settings;
  settings.setValue("geometry", saveGeometry());
  settings.setValue("split", findChild<QSplitter*>("main_split")->saveState());
  settings.setValue("dark", dark_->isChecked());
  settings.setValue("projector", projector_->isChecked());
  settings.setValue("preset", preset_);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  sweep_.cancelled = true;  // no next run after this one stops
  save_settings();
  controller_->stop_and_wait();  // a run in progress stops within one step
  event->accept();
}

}  // namespace mirror::ui
