#include "ui/window/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFrame>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

#include "mirror/model/presets.h"
#include "mirror/runs/run_reader.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"
#include "ui/classroom/learned_view.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/classroom/strategy_view.h"
#include "ui/live/live_page.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/runs_browser.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/launch_dialog.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/widgets/plain_text.h"
#include "ui/window/window_settings.h"

namespace mirror::ui {

namespace {
// A one-line label that gives way when the window is narrow: the text is elided, and whole in
// its tooltip (the status line at projector sizes). Drawn as plain text: it quotes folders and messages.
class ElidedLabel : public QLabel {
 public:
  using QLabel::QLabel;
  QSize minimumSizeHint() const override { return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()}; }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, contentsRect().width());
    const QString tip = shown == text() ? QString() : literal(text());
    if (toolTip() != tip) setToolTip(tip);
    p.setPen(palette().color(foregroundRole()));
    p.drawText(contentsRect(), static_cast<int>(alignment() | Qt::AlignVCenter), shown);
  }
};

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
    : QMainWindow(parent), settings_(restore_settings ? std::make_unique<WindowSettings>() : nullptr) {
  setWindowTitle("Mirror Workbench");
  launcher_ = new RunLauncher(this);
  dataset_ = new DatasetPanel;
  model_ = new ModelPanel;
  training_ = new TrainingPanel;
  devices_ = new DevicesPanel;
  tabs_ = new QTabWidget;
  tabs_->addTab(scrolled(dataset_), "Data");
  tabs_->addTab(scrolled(model_), "Model");
  tabs_->addTab(scrolled(training_), "Training");
  tabs_->addTab(scrolled(devices_), "Devices");
  tabs_->setMinimumWidth(380);

  banner_ = new QLabel;
  banner_->setWordWrap(true);
  banner_->setVisible(false);
  banner_->setStyleSheet("QLabel { background: #fdecea; color: #611a15; border: 1px solid #c0392b; padding: 6px; }");
  banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* offer_frame = new QFrame;
  offer_frame->setFrameShape(QFrame::StyledPanel);
  resume_offer_ = offer_frame;
  resume_offer_->setObjectName("resume_offer");
  resume_offer_->setVisible(false);
  resume_text_ = new QLabel;
  resume_text_->setWordWrap(true);
  auto* resume_last = new QPushButton("Resume");
  resume_last->setObjectName("resume_last");
  auto* dismiss_last = new QPushButton("Not now");
  dismiss_last->setObjectName("dismiss_last");
  auto* offer_layout = new QHBoxLayout(resume_offer_);
  offer_layout->addWidget(resume_text_, 1);
  offer_layout->addWidget(resume_last);
  offer_layout->addWidget(dismiss_last);
  connect(resume_last, &QPushButton::clicked, this, [this] {
    resume_offer_->setVisible(false);
    if (settings_) resume_run(settings_->last_run());
  });
  connect(dismiss_last, &QPushButton::clicked, this, [this] {
    resume_offer_->setVisible(false);
    if (settings_) settings_->save_last_run({});  // the Runs page still lists it
  });
  live_page_ = new LivePage(launcher_->live());
  browser_ = new RunsBrowser;
  compare_ = new CompareView;
  auto* runs_split = new QSplitter(Qt::Vertical);
  runs_split->addWidget(browser_);
  runs_split->addWidget(compare_);
  runs_split->setStretchFactor(0, 2);
  runs_split->setStretchFactor(1, 3);
  views_ = new QTabWidget;
  views_->setObjectName("views");
  runs_page_ = runs_split;
  runs_page_->setObjectName("runs-page");
  learned_ = new LearnedView(launcher_->live());
  learned_->setObjectName("learned-page");
  strategy_ = new StrategyView(launcher_->live(), launcher_->controller());
  strategy_->setObjectName("strategy-page");
  views_->addTab(live_page_, "Live");
  views_->addTab(strategy_, "Strategy");
  views_->setTabToolTip(views_->indexOf(strategy_), "One mirrored step drawn from the run: split, compute, all-reduce, "
                                                    "update, sync check; step by step with Space");
  views_->addTab(learned_, "Learned");
  views_->setTabToolTip(views_->indexOf(learned_), "What the model has learned: confusion matrix, examples, decision regions (Ctrl+E)");
  views_->addTab(runs_split, "Runs");
  views_->setTabToolTip(views_->indexOf(runs_split), "Every recorded run: rename, tag, annotate, compare (Ctrl+R)");
  auto* right = new QWidget;
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(resume_offer_);
  right_layout->addWidget(banner_);
  right_layout->addWidget(views_, 1);
  auto* split = new QSplitter;
  split->setObjectName("main_split");
  split->addWidget(tabs_);
  split->addWidget(right);
  split->setStretchFactor(1, 1);
  // The settings tabs scroll (so a 720-pixel projector fits); start them wide enough not to.
  split->setSizes({560, 1000});
  setCentralWidget(split);

  blocked_ = new ElidedLabel;
  QPalette red = blocked_->palette();
  red.setColor(QPalette::WindowText, QColor("#c0392b"));
  blocked_->setPalette(red);
  status_ = new ElidedLabel("Ready.");
  epoch_progress_ = new QProgressBar;
  epoch_progress_->setFormat("epoch %p%");
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(blocked_);
  statusBar()->addPermanentWidget(epoch_progress_);
  build_actions();
  fit_status_bar();

  connect(dataset_, &DatasetPanel::dataset_changed, this, &MainWindow::on_dataset_changed);
  connect(dataset_, &DatasetPanel::loading_changed, this, &MainWindow::update_train_enabled);
  connect(model_, &ModelPanel::model_changed, this, &MainWindow::update_train_enabled);
  connect(model_, &ModelPanel::preset_chosen, this, &MainWindow::apply_preset);
  connect(training_, &TrainingPanel::changed, this, [this] {
    devices_->set_batch_size(training_->batch_size());
    update_train_enabled();
  });
  connect(devices_, &DevicesPanel::changed, this, &MainWindow::update_train_enabled);
  connect(devices_, &DevicesPanel::launch_command_requested, this, [this] {
    auto* dialog = new LaunchDialog(current_config(), devices_->processes(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
  });
  connect(browser_, &RunsBrowser::selection_changed, compare_, &CompareView::set_runs);
  connect(browser_, &RunsBrowser::resume_requested, this, &MainWindow::resume_run);
  // Step by step holds the run between steps: the toolbar's Pause shows it and does it.
  connect(strategy_, &StrategyView::pause_wanted, this, [this](bool on) { pause_->setChecked(on); });
  connect(browser_, &RunsBrowser::learned_requested, this, [this](const QString& dir) {
    learned_->show_recorded(dir);
    views_->setCurrentWidget(learned_);
  });
  connect(launcher_, &RunLauncher::run_begun, this, &MainWindow::on_run_begun);
  connect(launcher_, &RunLauncher::refused, this, [this](const QString& why) {
    update_train_enabled();
    show_error(why, "Not started:");
  });
  connect(launcher_, &RunLauncher::sweep_finished, this, &MainWindow::on_sweep_finished);
  connect(launcher_->controller(), &TrainingController::warned, this,
          [this](const QString& message) { show_error(message, "Note:"); });
  connect(launcher_->live(), &LiveRun::run_started, this, &MainWindow::on_started);
  connect(launcher_->live(), &LiveRun::frame, this, &MainWindow::on_frame);
  connect(launcher_->live(), &LiveRun::run_finished, this, &MainWindow::on_finished);

  const QString fallback = fashion_mnist_installed() ? "fashion-cnn" : "spirals-mlp";
  const QString preset = settings_ ? settings_->preset(fallback) : fallback;
  apply_preset(presets().empty() ? fallback : preset);
  // The size it last had, else 1440x900 where the screen allows (a projector's 1280x720 does not).
  const bool restored = settings_ && restoreGeometry(settings_->layout().geometry);
  if (!restored) {
    QSize size(1440, 900);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
      size = size.boundedTo(screen->availableGeometry().size() * 0.95);
    resize(size);
  }
  if (settings_) {
    const WindowLayout layout = settings_->layout();
    split->restoreState(layout.split);
    dark_->setChecked(layout.dark);
    projector_->setChecked(layout.projector);
    offer_last_run();
  }
  rebuild_recent_menu();
  update_train_enabled();
}

MainWindow::~MainWindow() { launcher_->shut_down(); }

void MainWindow::set_pace(double steps_per_second) {
  const double pace = std::max(0.0, steps_per_second);
  int index = pace_->findData(pace);
  if (index < 0) {  // a pace from the command line that the list does not have
    pace_->addItem(QString("%1 steps/s").arg(pace), pace);
    index = pace_->count() - 1;
  }
  pace_->setCurrentIndex(index);
  launcher_->controller()->set_pace(pace);
  if (settings_ && !preset_.isEmpty()) settings_->save_pace(preset_, pace);
}

double MainWindow::pace() const { return launcher_->controller()->pace(); }

MetricChart* MainWindow::chart(Metric m) const { return live_page_->chart(m); }
const RunMetrics& MainWindow::metrics() const { return launcher_->live()->metrics(); }
bool MainWindow::running() const { return launcher_->running(); }
const RunFinished& MainWindow::last_result() const { return launcher_->live()->last_result(); }
TrainingController* MainWindow::controller() const { return launcher_->controller(); }
bool MainWindow::sweeping() const { return launcher_->sweeping(); }
void MainWindow::set_recording(bool on) { launcher_->set_recording(on); }
const QString& MainWindow::run_dir() const { return launcher_->run_dir(); }

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
  set_pace(settings_ ? settings_->pace(name) : 0.0);
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
  learned_->set_dataset(d);
  strategy_->set_dataset(d);
  training_->set_train_size(d ? d->size(Split::kTrain) : 0);
  if (d) {
    model_->set_input(input_spec(*d), true);
    remember_dataset();
    // A dataset the model cannot take: offer the preset made for it rather than only the error.
    const std::string name = dataset_->options().name;
    QString offer;
    if (!model_->analysis().ok())
      for (const auto& p : presets())
        if (p.dataset == name && offer.isEmpty()) offer = QString::fromStdString(p.name);
    model_->offer_preset(offer, QString::fromStdString(name));
    if (!launcher_->running()) live_page_->expect_classes(d->info().num_classes, current_config().strategy.top_k);
  } else {
    model_->set_input({}, false);
  }
  update_train_enabled();
}

void MainWindow::update_train_enabled() {
  QString why;
  const bool running = launcher_->running();
  if (running) why = "";
  else if (dataset_->loading()) why = "loading the dataset…";
  else if (!dataset_->dataset()) why = "no dataset loaded";
  else if (!training_->problem().isEmpty()) why = training_->problem();
  else if (!devices_->problem().isEmpty()) why = devices_->problem();
  else if (!model_->ok()) {
    why = "model: " + model_->problem();
    if (!model_->offered_preset().isEmpty())
      why += QString(" (the Model tab offers the %1 preset, made for this dataset)").arg(model_->offered_preset());
  }
  train_->setEnabled(!running && why.isEmpty());
  sweep_action_->setEnabled(!running && why.isEmpty());
  scaling_action_->setEnabled(!running && why.isEmpty());
  pause_->setEnabled(running);
  stop_->setEnabled(running);
  // Settings are read-only during a run, but every tab can still be looked at.
  for (int i = 0; i < tabs_->count(); ++i) tabs_->widget(i)->setEnabled(!running);
  blocked_->setText(why.isEmpty() || running ? "" : "Cannot train: " + why);
  train_->setToolTip(why.isEmpty() ? "Start training (Ctrl+Enter)" : literal("Cannot train: " + why));
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
  // Checked by the panel (Train stays disabled while they do not parse).
  try {
    c.schedule = training_->schedule();
    c.plateau = training_->plateau();
    c.early_stopping = training_->early_stopping();
  } catch (const ConfigError&) {
  }
  return c;
}

void MainWindow::start_training() {
  if (running() || !train_->isEnabled()) return;
  start_run(current_config(), dataset_->dataset());
}

void MainWindow::start_run(TrainConfig c, std::shared_ptr<const Dataset> dataset) {
  const QString name = training_->run_name_edit()->text();
  training_->run_name_edit()->clear();  // a name is for one run: the next one does not inherit it
  launcher_->start_run(std::move(c), std::move(dataset), devices_->processes(), name);
}

void MainWindow::resume_run(const QString& dir, int epochs) {
  views_->setCurrentIndex(0);
  launcher_->resume_run(dir, epochs);
}

void MainWindow::start_sweep(std::vector<SweepPoint> points, bool scaling) {
  views_->setCurrentIndex(0);
  launcher_->start_sweep(std::move(points), scaling, current_config(), dataset_->dataset());
}

void MainWindow::start_scaling_study() {
  if (running() || !train_->isEnabled()) return;
  TrainConfig base = current_config();
  base.epochs = 1;
  try {
    start_sweep(expand_sweep(base, {scaling_axis({1, 2, 4})}, kScalingTries), true);
  } catch (const ConfigError& e) {
    show_error(e.what(), "Cannot run the scaling study:");
  }
}

void MainWindow::compare_runs(const QStringList& dirs) {
  if (browser_->loading()) {  // the runs folder is still being read
    connect(browser_, &RunsBrowser::loaded, this, [this, dirs] { compare_runs(dirs); }, Qt::SingleShotConnection);
    views_->setCurrentWidget(runs_page_);
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
  views_->setCurrentWidget(runs_page_);
  // A lesson's runs fill the page (the list folded up, its handle left to drag down); any other
  // comparison shows the list again.
  if (auto* split = qobject_cast<QSplitter*>(runs_page_)) {
    const int h = std::max(split->height(), 400);
    if (comparison_only_) split->setSizes({0, h});
    else if (split->sizes().value(0) == 0) split->setSizes({h / 3, h - h / 3});
  }
  comparison_only_ = false;
}

void MainWindow::on_run_begun(const QString& what) {
  banner_->setVisible(false);
  resume_offer_->setVisible(false);
  // Until it ends by itself, this is the run to offer when the window opens next.
  if (settings_ && !run_dir().isEmpty()) settings_->save_last_run(run_dir());
  pause_->setChecked(false);
  update_train_enabled();
  status_->setText(what);
  if (lesson_training_) lesson_panel_->set_run_state(lesson_position_++, "training…");
}

void MainWindow::on_started(const RunStarted& e) {
  status_->setText(QString("Training on %1…").arg(QString::fromStdString(counted(static_cast<int64_t>(e.devices.size()), "replica"))));
}

void MainWindow::on_frame() {
  const LiveRun& live = *launcher_->live();
  const StepMetrics& step = live.last_step();
  if (step.global_step == 0) return;
  const int epochs = live.started().epochs > 0 ? live.started().epochs : training_->epochs();  // a resumed run has its own
  if (live.running())
    status_->setText(QString("Epoch %1/%2 · step %3/%4 · %5 samples/s · ETA %6%7")
                         .arg(step.epoch).arg(epochs).arg(step.step).arg(step.steps_per_epoch)
                         .arg(live.recent_samples_per_sec(), 0, 'f', 0).arg(clock(live.eta_seconds(epochs)))
                         .arg(pause_->isChecked() ? " · paused" : ""));
  epoch_progress_->setValue(static_cast<int>(100 * step.step / std::max<int64_t>(1, step.steps_per_epoch)));
  devices_->show_peak_memory(step.replicas);
  learning_rate_chart_->setChecked(live_page_->learning_rate_shown());  // it may have turned itself on
}

void MainWindow::on_finished(const RunFinished& e) {
  pause_->setChecked(false);
  if (settings_ && e.status != RunStatus::kStopped) settings_->save_last_run({});
  if (quit_when_done_ && !launcher_->sweeping()) close_by_itself();
  switch (e.status) {
    case RunStatus::kFinished:
      status_->setText(QString("Finished: %1 steps in %2, %3 samples/s.%4")
                           .arg(e.steps)
                           .arg(clock(e.seconds))
                           .arg(e.train_samples_per_sec, 0, 'f', 0)
                           .arg(run_dir().isEmpty() ? QString() : " Recorded in " + run_dir()));
      break;
    case RunStatus::kStopped:
      status_->setText(QString("Stopped after %1 steps.").arg(e.steps));
      break;
    case RunStatus::kFailed:
      status_->setText("The run failed.");
      if (lesson_training_ && lesson_position_ > 0 && lesson_failure_meant(lesson_position_ - 1, e.message))
        show_error(QString::fromStdString(e.message), "The run failed, as the lesson means it to:");
      else
        show_error(QString::fromStdString(e.message));
      break;
  }
  update_train_enabled();
  browser_->refresh();
  if (lesson_training_ && lesson_position_ > 0)
    lesson_run_ended(lesson_position_ - 1, e.status == RunStatus::kFinished  ? "finished"
                                           : e.status == RunStatus::kFailed ? "failed"
                                                                            : "stopped",
                     e.message);
  Q_EMIT run_finished(e);
}

void MainWindow::on_sweep_finished(const QStringList& dirs, bool cancelled, int total) {
  update_train_enabled();
  if (lesson_training_) {
    lesson_training_ = false;
    show_lesson_runs(dirs, cancelled ? "Stopped before every run had trained." : "Trained just now.");
    for (size_t i = lesson_position_; i < lesson_panel_->lesson().runs.size(); ++i)
      lesson_panel_->set_run_state(i, "not run (stopped)");
  } else {
    compare_runs(dirs);
  }
  status_->setText(cancelled ? QString("Sweep stopped after %1 of %2.").arg(dirs.size()).arg(QString::fromStdString(counted(total, "run")))
                             : QString("Sweep done: %1, compared on the Runs page.").arg(QString::fromStdString(counted(dirs.size(), "run"))));
  Q_EMIT sweep_finished(dirs);
  if (quit_when_done_) close_by_itself();
}

void MainWindow::show_error(const QString& message, const QString& headline) {
  banner_->setText("<b>" + headline.toHtmlEscaped() + "</b> " + message.toHtmlEscaped());
  banner_->setVisible(true);
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::WindowStateChange && full_screen_) {
    const QSignalBlocker quiet(full_screen_);
    full_screen_->setChecked(isFullScreen());
  }
  QMainWindow::changeEvent(event);
}

void MainWindow::close_by_itself() {
  // From the event loop, once everyone has seen the run end; asked for already, so not asked again.
  QTimer::singleShot(0, this, [this] {
    closing_by_itself_ = true;
    if (!close()) closing_by_itself_ = false;
  });
}

MainWindow::QuitChoice MainWindow::ask_quit() {
  if (choose_quit_) return choose_quit_();
  QMessageBox box(QMessageBox::Question, "Quit during training",
                  launcher_->sweeping() ? "A sweep is training. Quit now?" : "A run is training. Quit now?",
                  QMessageBox::NoButton, this);
  box.setInformativeText("Stopping keeps the run: the next time the window opens it offers to resume it, "
                         "and the Runs page can resume it any time.");
  auto* stop = box.addButton("Stop and quit", QMessageBox::DestructiveRole);
  auto* later = box.addButton("Quit when it finishes", QMessageBox::AcceptRole);
  auto* keep = box.addButton("Keep training", QMessageBox::RejectRole);
  box.setDefaultButton(keep);
  box.setEscapeButton(keep);
  box.exec();
  if (box.clickedButton() == stop) return QuitChoice::kStopAndQuit;
  if (box.clickedButton() == later) return QuitChoice::kQuitWhenDone;
  return QuitChoice::kKeepTraining;
}

void MainWindow::offer_last_run() {
  resume_offer_->setVisible(false);
  const QString dir = settings_ ? settings_->last_run() : QString();
  if (dir.isEmpty()) return;
  RunRecord r;
  try {
    r = read_run(dir.toStdString());
  } catch (const std::exception&) {  // deleted or moved since: nothing to offer
    settings_->save_last_run({});
    return;
  }
  if (r.status != "stopped" && r.status != "interrupted") {
    settings_->save_last_run({});
    return;
  }
  const nlohmann::json* config = json_field(r.run, "config");
  const int64_t epochs = config ? json_int(*config, "epochs", 0) : 0;
  const QString where = r.steps.empty() ? QString("before its first step")
                                        : QString("after step %1 (epoch %2 of %3)")
                                              .arg(r.steps.back().global_step)
                                              .arg(r.steps.back().epoch)
                                              .arg(epochs);
  resume_text_->setText(QString("Last time, run <b>%1</b> %2 %3. Resume it where it left off?")
                            .arg(QString::fromStdString(r.display_name()).toHtmlEscaped(),
                                 r.status == "stopped" ? "was stopped" : "was cut short (the window closed or was killed)",
                                 where));
  resume_offer_->setVisible(true);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (running() && !closing_by_itself_) {
    const QuitChoice choice = ask_quit();  // the run may end while the question is open
    if (choice == QuitChoice::kKeepTraining) {
      event->ignore();
      return;
    }
    if (choice == QuitChoice::kQuitWhenDone && running()) {
      quit_when_done_ = true;
      status_->setText("The window closes when training ends.");
      event->ignore();
      return;
    }
  }
  if (settings_) {
    settings_->save_layout({saveGeometry(), findChild<QSplitter*>("main_split")->saveState(), dark_->isChecked(),
                            projector_->isChecked()});
    settings_->save_preset(preset_);
  }
  launcher_->shut_down();  // a run in progress stops within one step; no sweep run follows
  event->accept();
}

}  // namespace mirror::ui
