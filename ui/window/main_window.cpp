#include "ui/window/main_window.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QScreen>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWindow>

#include <algorithm>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/model/presets.h"
#include "mirror/runs/lesson.h"
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
#include "ui/setup/setup_tabs.h"
#include "ui/widgets/plain_text.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/presentation.h"
#include "ui/window/status_line.h"
#include "ui/window/sweep_progress.h"
#include "ui/window/window_settings.h"

namespace mirror::ui {

namespace {
// The preset a first start opens: the default one where its dataset is installed, else spirals-mlp.
QString first_preset() {
  return dataset_present(config_from_preset(kDefaultPreset).dataset) ? kDefaultPreset : "spirals-mlp";
}
}  // namespace

MainWindow::MainWindow(bool restore_settings, QWidget* parent)
    : QMainWindow(parent), settings_(restore_settings ? std::make_unique<WindowSettings>() : nullptr) {
  setWindowTitle("Mirror Workbench");
  launcher_ = new RunLauncher(this);
  setup_ = new SetupTabs;

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
                                             [this] { return setup_->dataset(); },
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
  split->addWidget(setup_);
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

  connect(setup_, &SetupTabs::changed, this, &MainWindow::update_train_enabled);
  connect(setup_, &SetupTabs::dataset_changed, this, &MainWindow::on_dataset_changed);
  connect(setup_, &SetupTabs::preset_applied, this,
          [this](const QString& name) { set_pace(settings_ ? settings_->pace(name) : 0.0); });
  connect(setup_, &SetupTabs::status, status_, &QLabel::setText);
  connect(setup_, &SetupTabs::status_withdrawn, this, [this](const QString& line) {
    if (status_->text().contains(line)) status_->clear();
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
  if (!setup_->apply_preset(preset)) setup_->apply_preset(fallback);
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
  if (settings_ && !setup_->preset().isEmpty()) settings_->save_pace(setup_->preset(), pace);
}

double MainWindow::pace() const { return launcher_->controller()->pace(); }

void MainWindow::set_quit_choice(std::function<QuitChoice()> choose) { quit_->set_choice(std::move(choose)); }
QWidget* MainWindow::resume_offer() const { return quit_->offer(); }
QAction* MainWindow::projector_action() const { return presentation_->projector_action(); }
QAction* MainWindow::full_screen_action() const { return presentation_->full_screen_action(); }
QAction* MainWindow::presentation_action() const { return presentation_->presentation_action(); }

void MainWindow::on_dataset_changed() {
  const auto d = setup_->dataset();
  learned_->set_dataset(d);
  strategy_->set_dataset(d);
  if (!d) return;
  remember_dataset();
  if (!launcher_->running()) live_page_->expect_classes(d->info().num_classes, current_config().strategy.top_k);
}

void MainWindow::update_train_enabled() {
  QString why;
  const bool running = launcher_->running();
  if (running) why = "";
  else why = setup_->problem();
  train_->setEnabled(!running && why.isEmpty());
  sweep_action_->setEnabled(!running && why.isEmpty());
  scaling_action_->setEnabled(!running && why.isEmpty());
  pause_->setEnabled(running);
  stop_->setEnabled(running);
  // Settings are read-only during a run, but every tab can still be looked at.
  setup_->set_editable(!running);
  blocked_->setText(why.isEmpty() || running ? "" : "Cannot train: " + why);
  train_->setToolTip(why.isEmpty() ? "Start training (Ctrl+Enter)" : literal("Cannot train: " + why));
  fold_setup();
}

TrainConfig MainWindow::current_config() const { return setup_->current_config(); }

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
    setup_->setVisible(true);  // the split as it is unfolded: the next start shows the settings
    settings_->save_layout({saveGeometry(), findChild<QSplitter*>("main_split")->saveState(), dark_->isChecked(),
                            projector_action()->isChecked()});
    settings_->save_preset(setup_->preset());
  }
  launcher_->shut_down();  // a run in progress stops within one step; no sweep run follows
  event->accept();
}

}  // namespace mirror::ui
