// The window's toolbar and menus, and what their entries do.
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTextStream>
#include <QToolBar>

#include "mirror/runs/sweep.h"
#include "mirror/util/version.h"
#include "ui/classroom/learned_view.h"
#include "ui/classroom/strategy_view.h"
#include "ui/live/live_page.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/export_model_dialog.h"
#include "ui/runs/runs_browser.h"
#include "ui/runs/runs_page.h"
#include "ui/runs/sweep_dialog.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/setup/model_panel.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/export.h"
#include "ui/widgets/plain_text.h"
#include "ui/widgets/theme.h"
#include "ui/window/help.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"
#include "ui/window/presentation.h"
#include "ui/window/status_line.h"
#include "ui/window/window_settings.h"

namespace mirror::ui {

void MainWindow::build_actions() {
  auto* tb = addToolBar("Run");
  tb->setObjectName("run_toolbar");
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  train_ = tb->addAction(media_icon(MediaIcon::kPlay), "Train", this, &MainWindow::start_training);
  train_->setShortcut(QKeySequence("Ctrl+Return"));
  train_->setToolTip("Start training with these settings (Ctrl+Enter)");
  pause_ = tb->addAction(media_icon(MediaIcon::kPause), "Pause");
  pause_->setCheckable(true);
  pause_->setShortcut(QKeySequence("Ctrl+P"));
  pause_->setToolTip("Hold training between steps (Ctrl+P)");
  connect(pause_, &QAction::toggled, this, [this](bool on) {
    launcher_->set_paused(on);
    status_->setText(on ? "Paused." : "Resumed.");
    // Held, the button says what pressing it again does.
    pause_->setText(on ? "Resume" : "Pause");
    pause_->setIcon(media_icon(on ? MediaIcon::kPlay : MediaIcon::kPause));
    pause_->setToolTip(on ? "Go on training from the step it holds at (Ctrl+P)" : "Hold training between steps (Ctrl+P)");
  });
  stop_ = tb->addAction(media_icon(MediaIcon::kStop), "Stop", this, [this] { launcher_->stop(); });
  stop_->setShortcut(QKeySequence("Ctrl+."));
  stop_->setToolTip("Stop after the current step (Ctrl+.)");
  tb->addSeparator();
  pace_ = new QComboBox;
  pace_->setObjectName("pace");
  pace_->setToolTip("Demo pace: how fast steps may go, so a class can watch a small model learn (the numbers do "
                    "not change). Remembered per preset.");
  pace_->addItem("full speed", 0.0);
  for (double p : {50.0, 10.0, 2.0}) pace_->addItem(QString("%1 steps/s").arg(p), p);
  connect(pace_, &QComboBox::activated, this, [this](int i) { set_pace(pace_->itemData(i).toDouble()); });
  tb->addWidget(new QLabel(" Pace "));
  tb->addWidget(pace_);
  tb->addSeparator();
  log_scale_ = tb->addAction("log loss");
  log_scale_->setCheckable(true);
  log_scale_->setToolTip("Logarithmic loss axis");
  connect(log_scale_, &QAction::toggled, live_page_, &LivePage::set_log_loss);
  auto* file = menuBar()->addMenu("&File");
  file->addAction("Open dataset folder…", this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, "Dataset folder");
    if (d.isEmpty()) return;
    setup_->open_dataset(setup_->dataset_panel()->options().name.c_str(), d);
  });
  recent_ = file->addMenu("Recent datasets");
  file->addAction("Open Keras model…", this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open a Keras model (a .keras file, or model.to_json() output)",
                                                      {}, "Keras model (*.keras *.json)");
    if (!path.isEmpty()) open_keras_model(path);
  })->setToolTip("A Sequential model saved with Keras' model.to_json(): its layers open in the model editor");
  file->addAction("Export model…", this, [this] { export_model(); })
      ->setToolTip("The trained model of the selected run (or of the last run) for PyTorch (state dict and "
                   "model.py) or ONNX");
  file->addSeparator();
  file->addAction("Export charts (PNG and SVG)…", this, &MainWindow::export_charts);
  file->addAction("Export this view (PNG or SVG)…", QKeySequence("Ctrl+Shift+E"), this, [this] {
    const QString page = views_->tabText(views_->currentIndex()).remove('&').toLower();
    const QString path = QFileDialog::getSaveFileName(this, "Export the " + page + " view", page + ".svg",
                                                      "SVG drawing (*.svg);;PNG image (*.png)");
    if (!path.isEmpty() && !export_view(path)) QMessageBox::warning(this, "Export failed", literal("Cannot write " + path));
  })->setToolTip("The page shown (Live, Strategy, Learned or Runs) as it looks, for slides: SVG (vector) or PNG");
  file->addAction("Export metrics as CSV…", this, &MainWindow::export_csv);
  file->addSeparator();
  file->addAction("Quit", QKeySequence::Quit, this, &QWidget::close);
  auto* run = menuBar()->addMenu("&Run");
  run->addActions({train_, pause_, stop_});
  run->addSeparator();
  sweep_action_ = run->addAction("Sweep…", this, &MainWindow::open_sweep_dialog);
  sweep_action_->setToolTip("Train every combination of learning rates, batch sizes and device counts, then compare");
  scaling_action_ = run->addAction(QString("Scaling study (1, 2, 4 logical devices, %1 tries each)").arg(kScalingTries),
                                   this, &MainWindow::start_scaling_study);
  scaling_action_->setToolTip("The same config for one epoch on 1, 2 and 4 logical devices, interleaved: the median "
                              "throughput and its spread, efficiency, where the time goes");
  tb->addSeparator();
  tb->addAction(scaling_action_);
  auto* runs = menuBar()->addMenu("R&uns");
  runs->addAction("Show runs", QKeySequence("Ctrl+R"), this, [this] {
    views_->setCurrentWidget(runs_page_);
    const int h = runs_page_->height();
    if (runs_page_->sizes().value(0) == 0) runs_page_->setSizes({h / 3, h - h / 3});
  });
  runs->addAction("Show what the model learned", QKeySequence("Ctrl+E"), this, [this] { views_->setCurrentWidget(learned_); });
  runs->addAction("Show live training", QKeySequence("Ctrl+L"), this, [this] { views_->setCurrentIndex(0); });
  runs->addAction("Open run folder…", this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, "Open a run folder (holding run.json)", browser_->root());
    if (dir.isEmpty()) return;
    QString error;
    if (browser_->open_run(dir, &error)) views_->setCurrentWidget(runs_page_);
    else QMessageBox::warning(this, "Not a run", literal(error));
  });
  runs->addAction("Export comparison…", this, &MainWindow::export_comparison);
  auto* view = menuBar()->addMenu("&View");
  dark_ = view->addAction("Dark theme");
  dark_->setCheckable(true);
  connect(dark_, &QAction::toggled, this, &MainWindow::set_dark);
  // Projector mode, Presentation (F5) and Full screen (F11).
  presentation_ = new Presentation(this, view, views_);
  connect(presentation_->presentation_action(), &QAction::toggled, this, &MainWindow::fold_setup);
  connect(presentation_->projector_action(), &QAction::toggled, this, &MainWindow::set_projector);
  connect(presentation_, &Presentation::status, status_, &QLabel::setText);
  view->addAction(log_scale_);
  learning_rate_chart_ = view->addAction("Learning-rate chart");
  learning_rate_chart_->setCheckable(true);
  learning_rate_chart_->setToolTip("Shows the rate each step used; turns on by itself when a run's rate changes.");
  connect(learning_rate_chart_, &QAction::triggered, live_page_, &LivePage::show_learning_rate);
  // Space steps the Strategy tab whatever has focus on it: a shortcut of the page, so that the
  // Mode box or a button there, which take Space themselves as key presses, never see it (the
  // Mode box opened instead). Elsewhere Space stays the focused widget's (a check box, a button).
  auto* step = new QAction("Next step (Strategy tab, step by step)", strategy_);
  step->setObjectName("strategy_step");
  step->setShortcut(QKeySequence(Qt::Key_Space));
  step->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  strategy_->addAction(step);
  connect(step, &QAction::triggered, strategy_, &StrategyView::next_step);
  // A page chosen (a click on its tab, Page Down in a presentation) takes the focus with it, so
  // that Space reaches it at once; the focus stays in the settings where a person is editing.
  connect(views_, &QTabWidget::currentChanged, this, [this] {
    QWidget* focus = QApplication::focusWidget();
    if (views_->currentWidget() == strategy_ && !(focus && (strategy_->isAncestorOf(focus) || setup_->isAncestorOf(focus))))
      strategy_->setFocus(Qt::OtherFocusReason);
  });
  auto* help = menuBar()->addMenu("&Help");
  help->addAction("Getting started", QKeySequence::HelpContents, this,
                  [this] { HelpDialog(HelpDialog::Page::kGettingStarted, this, this).exec(); });
  help->addAction("Keyboard", this, [this] { HelpDialog(HelpDialog::Page::kKeyboard, this, this).exec(); });
  help->addAction("Lessons…", QKeySequence("Ctrl+Shift+L"), lessons_, &LessonController::open_dialog)
      ->setToolTip("Ready-made lessons: a short text and the runs that show it, trained and compared");
  help->addSeparator();
  help->addAction("About", this, [this] {
    QMessageBox::about(this, "Mirror Workbench",
                       QString("<b>Mirror Workbench %1</b><p>Mirrored synchronous data-parallel training "
                               "(TensorFlow MirroredStrategy semantics) on LibTorch: replicate the model, shard "
                               "each global batch, all-reduce the gradients, apply the same update on every "
                               "replica.</p>")
                           .arg(mirror::kVersion));
  });
}

void MainWindow::open_sweep_dialog() {
  if (launcher_->running() || !train_->isEnabled()) return;
  SweepDialog dialog(current_config(), this);
  if (dialog.exec() == QDialog::Accepted && !dialog.points().empty()) start_sweep(dialog.points(), false);
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
  if (!ok) QMessageBox::warning(this, "Export failed", literal("Cannot write " + path));
  else status_->setText("Comparison written to " + path);
}

void MainWindow::set_dark(bool dark) {
  apply_theme(*qApp, dark);
  live_page_->set_dark(dark);
  compare_->set_dark(dark);
  status_line_->fit();
}

void MainWindow::set_projector(bool on) {
  apply_projector_type(on);
  // Projector mode folds the settings; leaving it shows them again unless a run or lesson holds
  // them folded. The summary is elided in the new type.
  setup_unfolded_ = false;
  fold_setup();
}

void MainWindow::apply_projector_type(bool on) {
  apply_font_scale(*qApp, on ? projector_font_scale(*qApp, screen() ? screen()->geometry().height() : 0) : 1.0);
  live_page_->set_line_width(on ? 4.0 : 2.0);
  live_page_->set_projector(on);
  compare_->set_line_width(on ? 4.0 : 2.0);
  // Every chart's text follows the new font (themes and rebuilt axes take it from here on too).
  for (QChartView* v : findChildren<QChartView*>()) apply_chart_fonts(v->chart());
  status_line_->fit();
}

bool MainWindow::export_view(const QString& path) {
  QWidget* page = views_->currentWidget();
  if (path.endsWith(".png", Qt::CaseInsensitive)) return export_png(page, path);
  return export_svg(page, path, "Mirror Workbench: " + views_->tabText(views_->currentIndex()));
}

void MainWindow::export_charts() {
  const QString dir = QFileDialog::getExistingDirectory(this, "Export charts to");
  if (dir.isEmpty()) return;
  for (const QString& name : live_page_->export_charts(dir))
    QMessageBox::warning(this, "Export failed", literal(QString("Cannot write %1.png/.svg in %2").arg(name, dir)));
}

void MainWindow::export_csv() {
  const QString path = QFileDialog::getSaveFileName(this, "Export metrics", "metrics.csv", "CSV (*.csv)");
  if (path.isEmpty()) return;
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
    QMessageBox::warning(this, "Export failed", literal("Cannot write " + path));
    return;
  }
  QTextStream(&f) << launcher_->live()->metrics().to_csv();
}

void MainWindow::remember_dataset() {
  if (!settings_) return;
  const auto o = setup_->dataset_panel()->options();
  settings_->remember_dataset(QString::fromStdString(o.name), QString::fromStdString(o.data_dir));
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_->clear();
  const QStringList recent = settings_ ? settings_->recent_datasets() : QStringList();
  for (const QString& entry : recent) {
    const auto parts = entry.split('|');
    recent_->addAction(QString(entry).replace('|', " — "), this, [this, parts] {
      setup_->open_dataset(parts[0], parts.size() > 1 ? parts[1] : QString());
    });
  }
  recent_->setEnabled(!recent.isEmpty());
}

void MainWindow::open_keras_model(const QString& path) {
  QStringList notes;
  try {
    notes = setup_->open_model_file(path);
  } catch (const std::exception& e) {
    QMessageBox::warning(this, "Cannot open the Keras model", literal(QString::fromStdString(e.what())));
    return;
  }
  statusBar()->showMessage(QString("Opened %1 (%2 layers)").arg(QFileInfo(path).fileName()).arg(setup_->model_panel()->spec().layers.size()),
                           15000);
  if (notes.isEmpty()) return;
  QString list;
  for (const auto& n : notes) list += "<li>" + n.toHtmlEscaped() + "</li>";
  QMessageBox::information(this, "Keras model opened",
                           "Opened the layers of " + QFileInfo(path).fileName().toHtmlEscaped() + ".<ul>" + list + "</ul>");
}

void MainWindow::export_model() {
  // The run selected on the Runs page (the one clicked last, when several are compared), else the
  // one trained last; the dialog's Run box offers every other run.
  QString dir = browser_->focused_run();
  if (dir.isEmpty()) dir = launcher_->run_dir();
  const QStringList dirs = browser_->run_dirs();
  if (dir.isEmpty() && dirs.isEmpty())
    dir = QFileDialog::getExistingDirectory(this, "Export the model of which run? (a folder holding run.json)", browser_->root());
  if (dir.isEmpty() && dirs.isEmpty()) return;
  ExportModelDialog dialog(dirs, dir, this);
  if (dialog.exec() != QDialog::Accepted || dialog.written().isEmpty()) return;
  QStringList names;
  for (const auto& f : dialog.written()) names << QFileInfo(f).fileName();
  statusBar()->showMessage(QString("Exported %1 to %2").arg(names.join(", "), QFileInfo(dialog.written().front()).absolutePath()),
                           15000);
}

}  // namespace mirror::ui
