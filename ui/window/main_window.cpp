#include "ui/window/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFrame>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWindow>

#include <algorithm>
#include <optional>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/model/presets.h"
#include "mirror/model/shape.h"
#include "mirror/runs/lesson.h"
#include "mirror/util/error.h"
#include "ui/classroom/learned_view.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/classroom/strategy_view.h"
#include "ui/live/live_page.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/runs_browser.h"
#include "ui/runs/runs_page.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/launch_dialog.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/widgets/plain_text.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/presentation.h"
#include "ui/window/preset_choice.h"
#include "ui/window/status_line.h"
#include "ui/window/sweep_progress.h"
#include "ui/window/window_settings.h"

namespace mirror::ui {

namespace {
QWidget* scrolled(QWidget* w) {
  auto* s = new QScrollArea;
  s->setWidget(w);
  s->setWidgetResizable(true);
  s->setFrameShape(QFrame::NoFrame);
  return s;
}

// The preset a first start opens: the default one where its dataset is installed, else spirals-mlp.
QString first_preset() {
  return dataset_present(config_from_preset(kDefaultPreset).dataset) ? kDefaultPreset : "spirals-mlp";
}
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
  quit_ = new QuitAndResume(this, launcher_, settings_.get());
  connect(quit_, &QuitAndResume::resume_requested, this, [this](const QString& dir) { resume_run(dir); });
  live_page_ = new LivePage(launcher_->live());
  runs_page_ = new RunsPage;
  browser_ = runs_page_->browser();
  compare_ = runs_page_->compare();
  lessons_ = new LessonController(LessonHost{this, launcher_, compare_, banner_,
                                             [this] { return current_config(); },
                                             [this] { return dataset_->dataset(); },
                                             [this](const QStringList& dirs) { compare_runs(dirs); },
                                             [this] { views_->setCurrentIndex(0); }, [this] { fold_setup(); }});
  connect(lessons_, &LessonController::problem, this, &MainWindow::show_error);
  views_ = new QTabWidget;
  views_->setObjectName("views");
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
  views_->addTab(runs_page_, "Runs");
  views_->setTabToolTip(views_->indexOf(runs_page_), "Every recorded run: rename, tag, annotate, compare (Ctrl+R)");
  // The settings folded: what they say in one line, and a button that unfolds them.
  setup_strip_ = new QWidget;
  setup_strip_->setObjectName("setup_strip");
  auto* strip_layout = new QHBoxLayout(setup_strip_);
  strip_layout->setContentsMargins(4, 2, 4, 2);
  setup_toggle_ = new QToolButton;
  setup_toggle_->setObjectName("setup_toggle");
  setup_toggle_->setText("Settings \u25B8");
  setup_toggle_->setToolTip("Show the Data, Model, Training and Devices tabs beside the pages (read-only while training)");
  setup_summary_ = plain(new QLabel);
  setup_summary_->setObjectName("setup_summary");
  strip_layout->addWidget(setup_toggle_);
  strip_layout->addWidget(setup_summary_, 1);
  setup_strip_->setVisible(false);
  connect(setup_toggle_, &QToolButton::clicked, this, [this] {
    setup_unfolded_ = !setup_unfolded_;
    fold_setup();
  });
  // Beside the pages' tabs, so that folding the settings costs the pages no height.
  views_->setCornerWidget(setup_strip_, Qt::TopRightCorner);
  auto* right = new QWidget;
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(quit_->offer());
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

  status_line_ = new StatusLine(statusBar());
  statusBar()->addPermanentWidget(new SweepProgress(launcher_));  // "Run 4 of 9" while a sweep trains
  status_ = status_line_->line();
  blocked_ = status_line_->blocked();
  connect(quit_, &QuitAndResume::status, status_, &QLabel::setText);
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
  connect(devices_, &DevicesPanel::launch_command_requested, this, [this] {
    auto* dialog = new LaunchDialog(current_config(), devices_->processes(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
  });
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
  connect(launcher_->live(), &LiveRun::run_started, status_line_, &StatusLine::show_started);
  connect(launcher_->live(), &LiveRun::frame, this, &MainWindow::on_frame);
  connect(launcher_->live(), &LiveRun::run_finished, this, &MainWindow::on_finished);

  const QString fallback = first_preset();
  const QString preset = settings_ ? settings_->preset(fallback) : fallback;
  apply_preset(presets().empty() ? fallback : preset);
  // The size it last had, else 1440x900 where the screen allows (a projector's 1280x720 does not).
  const bool restored = settings_ && restoreGeometry(settings_->layout().geometry);
  if (!restored) {
    QSize size(1440, 900);
    if (const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen())
      size = size.boundedTo(screen->availableGeometry().size() * 0.95);
    resize(size);
  }
  if (settings_) {
    const WindowLayout layout = settings_->layout();
    split->restoreState(layout.split);
    dark_->setChecked(layout.dark);
    presentation_->projector_action()->setChecked(layout.projector);
    quit_->offer_last_run();
  }
  rebuild_recent_menu();
  update_train_enabled();
}

MainWindow::~MainWindow() {
  launcher_->shut_down();
  // The Lesson dock hides as the window closes, after this window's members are gone: it must
  // not ask for fold_setup() then.
  if (lessons_->dock()) disconnect(lessons_->dock(), nullptr, lessons_, nullptr);
}

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
bool MainWindow::open_lesson(const QString& name_or_path, int64_t max_steps) { return lessons_->open(name_or_path, max_steps); }
void MainWindow::start_lesson() { lessons_->start(); }
bool MainWindow::lesson_training() const { return lessons_->training(); }
LessonPanel* MainWindow::lesson_panel() const { return lessons_->panel(); }
QDockWidget* MainWindow::lesson_dock() const { return lessons_->dock(); }
void MainWindow::set_quit_choice(std::function<QuitChoice()> choose) { quit_->set_choice(std::move(choose)); }
QWidget* MainWindow::resume_offer() const { return quit_->offer(); }
QAction* MainWindow::projector_action() const { return presentation_->projector_action(); }
QAction* MainWindow::full_screen_action() const { return presentation_->full_screen_action(); }
QAction* MainWindow::presentation_action() const { return presentation_->presentation_action(); }

void MainWindow::apply_preset(const QString& name) {
  // The model and the training from the preset; your own data and the devices stay where it fits.
  const auto d = dataset_->dataset();
  const std::optional<InputSpec> input = d ? std::optional<InputSpec>(input_spec(*d)) : std::nullopt;
  PresetChoice choice;
  try {
    choice = choose_preset(name.toStdString(), current_config(), input ? &*input : nullptr);
  } catch (const ConfigError&) {
    return;  // no such preset: nothing changes
  }
  const QString before = status_->text();
  load_config(std::move(choice.config));
  // What was kept or replaced, before what loading said (a stand-in for missing files, say).
  if (!choice.said.isEmpty()) status_->setText(status_->text() != before ? choice.said + " " + status_->text() : choice.said);
  set_pace(settings_ ? settings_->pace(name) : 0.0);
}

void MainWindow::load_config(TrainConfig config) {
  // The Data tab's folder is this machine's, not the config's: kept while the dataset stays.
  const DatasetOptions shown = dataset_->options();
  if (config.dataset.data_dir.empty() && config.dataset.name == shown.name) config.dataset.data_dir = shown.data_dir;
  // A dataset missing here gives way to its stand-in (Reuters: the synthetic Reuters-shaped set).
  const DatasetChoice choice = resolve_dataset(config.dataset);
  config.dataset = choice.options;
  if (!choice.note.empty()) {
    stand_in_ = {choice.options.name, QString::fromStdString(choice.note)};
    status_->setText(stand_in_.note);
  }
  loaded_ = std::move(config);
  preset_ = QString::fromStdString(loaded_.preset);
  dataset_->set_config(loaded_);
  model_->set_config(loaded_);
  training_->set_config(loaded_);
  devices_->set_config(loaded_);
  if (dataset_->needs_load()) dataset_->load();
  else on_dataset_changed();
  update_train_enabled();
}

void MainWindow::on_dataset_changed() {
  const auto d = dataset_->dataset();
  if (!stand_in_.note.isEmpty() && dataset_->options().name != stand_in_.name) {  // the note was about another set
    if (status_->text().contains(stand_in_.note)) status_->clear();
    stand_in_ = {};
  }
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
  fold_setup();
}

TrainConfig MainWindow::current_config() const {
  TrainConfig c = loaded_;  // what no tab shows
  dataset_->config(c);
  model_->config(c);
  training_->config(c);
  devices_->config(c);
  return c;
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::WindowStateChange && presentation_) presentation_->window_state_changed();
  QMainWindow::changeEvent(event);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!windowHandle() || windowHandle()->property("mirror_follows_screen").toBool()) return;
  windowHandle()->setProperty("mirror_follows_screen", true);
  // Dragged from a laptop's screen onto the projector: the type is 1/40 of the new screen's height.
  connect(windowHandle(), &QWindow::screenChanged, this, [this] {
    if (!projector_action()->isChecked()) return;
    apply_projector_type(true);
    fold_setup();  // the summary elided again in the new type
  });
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!quit_->may_close()) {  // asked during a run, and kept open
    event->ignore();
    return;
  }
  if (settings_) {
    tabs_->setVisible(true);  // the split as it is unfolded: the next start shows the settings
    settings_->save_layout({saveGeometry(), findChild<QSplitter*>("main_split")->saveState(), dark_->isChecked(),
                            projector_action()->isChecked()});
    settings_->save_preset(preset_);
  }
  launcher_->shut_down();  // a run in progress stops within one step; no sweep run follows
  event->accept();
}

}  // namespace mirror::ui
