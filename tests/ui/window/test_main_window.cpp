// The desktop window as a user drives it, on Qt's offscreen platform.
#include <QAction>
#include <QChart>
#include <QComboBox>
#include <QFontMetricsF>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "mirror/data/dataset.h"
#include "mirror/model/presets.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/json_fields.h"
#include "ui/classroom/strategy_view.h"
#include "ui/live/metric_chart.h"
#include "ui/run/run_metrics.h"
#include "ui/run/training_controller.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/launch_dialog.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/window/help.h"
#include "ui/window/main_window.h"

using namespace mirror;
using namespace mirror::ui;

class MainWindowTest : public QObject {
  Q_OBJECT

 private:
  // A window on the small blobs set with the spirals MLP: fast enough to train in a test.
  // QTRY_* return from the function on failure, hence the out parameter.
  void open_small_window(std::unique_ptr<MainWindow>& w, int epochs) {
    w = std::make_unique<MainWindow>(/*restore_settings=*/false);
    w->resize(1200, 800);
    w->show();
    w->apply_preset("spirals-mlp");
    w->dataset_panel()->set_dataset("blobs");
    w->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w->dataset_panel()->loading() && w->dataset_panel()->dataset() &&
                                 w->dataset_panel()->dataset()->info().name == "blobs", 30000);
    w->training_panel()->set_values("adam", 0.01, 64, epochs);
  }

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void windowOpensReadyToTrain() {
    QElapsedTimer t;
    t.start();
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY_WITH_TIMEOUT(w.dataset_panel()->dataset() != nullptr, 20000);
    qInfo("window usable with its default dataset after %lld ms", static_cast<long long>(t.elapsed()));
    QVERIFY2(w.train_action()->isEnabled(), qPrintable(w.train_blocked_label()->text()));
    QVERIFY(!w.stop_action()->isEnabled());
    QVERIFY(w.model_panel()->ok());
    // Before any run, a top-5 chart only for more than 5 classes (spirals has 3: it was always 1).
    const int64_t classes = w.dataset_panel()->dataset()->info().num_classes;
    QCOMPARE(!w.chart(Metric::kTopK)->isHidden(), classes > 5);
    w.dataset_panel()->set_dataset("spirals");
    w.dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w.dataset_panel()->loading() && w.dataset_panel()->dataset()->info().name == "spirals", 20000);
    QVERIFY(w.chart(Metric::kTopK)->isHidden());
  }

  void logicalDevicesUpdateReplicasAndShards() {
    MainWindow w(false);
    auto* devices = w.devices_panel();
    w.training_panel()->set_values("adam", 0.001, 10, 1);
    devices->logical_box()->setValue(3);
    QCOMPARE(devices->replica_list()->count(), 3);
    QVERIFY(devices->replica_list()->item(2)->text().startsWith("cpu:0/logical:2"));
    QVERIFY2(devices->split_label()->text().contains("4 + 3 + 3"), qPrintable(devices->split_label()->text()));
    devices->logical_box()->setValue(1);
    QCOMPARE(devices->replica_list()->count(), 1);
    QVERIFY(devices->split_label()->text().contains("→ 10 per replica"));
  }

  void invalidHyperparameterBlocksTrainWithAReason() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    QVERIFY(w->train_action()->isEnabled());
    w->training_panel()->learning_rate_edit()->setText("-0.5");
    QVERIFY(!w->train_action()->isEnabled());
    QVERIFY2(w->train_blocked_label()->text().contains("Learning rate must be a number above 0"),
             qPrintable(w->train_blocked_label()->text()));
    w->training_panel()->learning_rate_edit()->setText("0.01");
    QVERIFY(w->train_action()->isEnabled());
    // A batch smaller than the replica count is refused too.
    w->devices_panel()->logical_box()->setValue(4);
    w->training_panel()->batch_size_box()->setValue(3);
    QVERIFY(!w->train_action()->isEnabled());
    QVERIFY(w->train_blocked_label()->text().contains("smaller than the 4 replicas"));
  }

  void shapeErrorIsShownOnTheOffendingRow() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    auto* table = w->model_panel()->table();
    table->item(0, 1)->setText("units=oops");  // not a number
    QVERIFY(!w->train_action()->isEnabled());
    QCOMPARE(table->item(0, 2)->text(), QString("error"));
    table->item(0, 1)->setText("units=32, activation=relu");
    QVERIFY2(w->train_action()->isEnabled(), qPrintable(w->train_blocked_label()->text()));
  }

  // The model editor's traps: Add put the layer after the output (an error at once); a new type
  // kept the old settings; a dataset the model cannot take opened on an error with no way out.
  void modelEditorAddsBeforeTheOutputFillsDefaultsAndOffersAFittingPreset() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    ModelPanel* m = w->model_panel();
    QTableWidget* table = m->table();
    auto* add = [&]() -> QPushButton* {
      for (auto* b : m->findChildren<QPushButton*>())
        if (b->text() == "Add") return b;
      return nullptr;
    }();
    QVERIFY(add);
    const int layers = table->rowCount();
    const QString output = table->item(layers - 1, 1)->text();
    table->setCurrentCell(-1, -1);
    add->click();
    QCOMPARE(table->rowCount(), layers + 1);
    QCOMPARE(table->item(layers, 1)->text(), output);  // the output layer stays last
    QVERIFY2(w->train_action()->isEnabled(), qPrintable(w->train_blocked_label()->text()));
    table->setCurrentCell(0, 1);
    add->click();
    QCOMPARE(table->rowCount(), layers + 2);
    QCOMPARE(table->currentRow(), 0);  // before the selected row
    // A new type starts from its defaults, the summary follows, the hint says what the settings are.
    auto* type = qobject_cast<QComboBox*>(table->cellWidget(0, 0));
    type->setCurrentText("Dropout");
    QCOMPARE(table->item(0, 1)->text(), QString("rate=0.5"));
    QVERIFY2(m->ok(), qPrintable(m->problem()));
    QVERIFY2(m->findChild<QPlainTextEdit*>()->toPlainText().contains("dropout (Dropout)"),
             qPrintable(m->findChild<QPlainTextEdit*>()->toPlainText()));
    QVERIFY2(m->hint()->text().contains("rate: the fraction"), qPrintable(m->hint()->text()));
    type->setCurrentText("Dense");
    QCOMPARE(table->item(0, 1)->text(), QString("units=64, activation=relu"));
    QVERIFY(w->train_action()->isEnabled());
    // A convolutional model on 2-feature points: the matching preset is offered, and taken.
    for (const auto& p : presets())
      if (p.name == "fashion-cnn") m->set_spec(p.model);
    w->dataset_panel()->set_dataset("spirals");
    w->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w->dataset_panel()->loading() && w->dataset_panel()->dataset() &&
                                 w->dataset_panel()->dataset()->info().name == "spirals", 30000);
    QVERIFY(!w->train_action()->isEnabled());
    QCOMPARE(m->offered_preset(), QString("spirals-mlp"));
    QVERIFY2(w->train_blocked_label()->text().contains("offers the spirals-mlp preset"),
             qPrintable(w->train_blocked_label()->text()));
    m->offer_button()->click();
    QTRY_VERIFY_WITH_TIMEOUT(w->train_action()->isEnabled(), 30000);
    QVERIFY(m->offered_preset().isEmpty());
  }

  void trainProducesChartPointsAndFinishes() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 3);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QVERIFY(w->running());
    QVERIFY(w->stop_action()->isEnabled());
    QVERIFY(done.wait(60000));
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->metrics().epochs(), 3);
    QCOMPARE(w->metrics().steps(), 3 * 32);  // 2,000 examples at batch 64
    QTRY_VERIFY(w->chart(Metric::kLoss)->plotted_points() > 0);
    QVERIFY(w->metrics().val_epochs(Metric::kAccuracy).back().y() > 0.9);
    QVERIFY(w->train_action()->isEnabled());
    // The run was recorded like a mirrortrain run.
    QVERIFY(!w->run_dir().isEmpty());
    const auto record = read_run(w->run_dir().toStdString());
    QCOMPARE(QString::fromStdString(record.status), QString("finished"));
    QCOMPARE(record.epochs.size(), size_t{3});
  }

  // The charts do no work while another page is in front (the Strategy tab in class), and show
  // the whole run when their page comes back.
  void chartsBehindAnotherPageCatchUpWhenShown() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    w->views()->setCurrentWidget(w->strategy_view());  // starting a run shows the Live page
    QVERIFY(done.wait(60000));
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->chart(Metric::kLoss)->plotted_points(), 0);
    w->views()->setCurrentIndex(0);
    QTRY_VERIFY(w->chart(Metric::kLoss)->plotted_points() > 0);
    QCOMPARE(w->chart(Metric::kLoss)->plotted_points(), 2 * 32);  // every step (64 fit the chart's width)
  }

  // Devices → Processes: 2 runs worker 1 as a mirrortrain process beside the window (worker 0),
  // the same code as --nproc; the run is recorded once, with both processes' replicas.
  void processesTrainTogether() {
    if (!c10d_available()) QSKIP("this build has no c10d/Gloo");
    if (qEnvironmentVariableIsEmpty("MIRRORTRAIN")) QSKIP("MIRRORTRAIN is not set (ctest sets it)");
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    w->devices_panel()->logical_box()->setValue(1);
    w->devices_panel()->processes_box()->setValue(2);
    QCOMPARE(w->devices_panel()->replica_list()->count(), 2);
    QVERIFY(w->devices_panel()->replica_list()->item(1)->text().startsWith("process 1: cpu:0"));
    QVERIFY2(w->devices_panel()->split_label()->text().contains("32 + 32"), qPrintable(w->devices_panel()->split_label()->text()));
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QVERIFY(done.wait(120000));
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->metrics().steps(), 2 * 32);
    QVERIFY(w->metrics().val_epochs(Metric::kAccuracy).back().y() > 0.8);
    const auto record = read_run(w->run_dir().toStdString());
    QCOMPARE(QString::fromStdString(record.status), QString("finished"));
    const nlohmann::json* workers = json_field(record.run, "workers");
    QVERIFY(workers);
    QCOMPARE(workers->at("world_size").get<int>(), 2);
    QCOMPARE(QString::fromStdString(workers->at("launcher").get<std::string>()), QString("mirrorbench"));
    QCOMPARE(record.run.at("devices").size(), size_t{2});
    // Resumed from the window, it trains in two processes again (one would not fit its checkpoint).
    const QString dir = w->run_dir();
    QSignalSpy resumed(w.get(), &MainWindow::run_finished);
    w->resume_run(dir, 3);
    QVERIFY(resumed.wait(120000));
    QVERIFY2(w->last_result().status == RunStatus::kFinished, w->last_result().message.c_str());
    QCOMPARE(w->last_result().steps, 3 * 32);
    QCOMPARE(QString::fromStdString(read_run(dir.toStdString()).status), QString("finished"));
  }

  void launchCommandSavesTheConfigAndGivesTorchrunAndSbatch() {
    MainWindow w(false);
    w.apply_preset("spirals-mlp");
    w.devices_panel()->processes_box()->setValue(3);
    LaunchDialog d(w.current_config(), w.devices_panel()->processes(), &w);
    QVERIFY(!d.config_file().isEmpty());
    const QString text = d.text();
    QVERIFY2(text.contains("torchrun --nproc_per_node 3 --no_python"), qPrintable(text));
    QVERIFY(text.contains("#SBATCH --ntasks=3"));
    QVERIFY(text.contains("srun mirrortrain train --config '" + QFileInfo(d.config_file()).fileName() + "'"));
    // The saved file is a whole config mirrortrain reads back.
    std::ifstream in(d.config_file().toStdString());
    const TrainConfig back = config_from_json(nlohmann::json::parse(in));
    QCOMPARE(QString::fromStdString(back.preset), QString("spirals-mlp"));
    QCOMPARE(back.model.layers.size(), w.current_config().model.layers.size());
  }

  // Projector mode in a real room: the window lays out on a 1280x720 projector, every chart's text
  // grows with the font (also when the dark theme was on first, which used to keep it small), and
  // Train/Pause/Stop stay visible on both themes.
  void projectorModeFitsA720pScreenAndScalesChartText() {
    MainWindow w(false);
    w.apply_preset("spirals-mlp");
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const double normal = w.chart(Metric::kLoss)->chart()->titleFont().pointSizeF();
    const double normal_axis = w.chart(Metric::kLoss)->chart()->axes().front()->labelsFont().pointSizeF();
    w.dark_action()->setChecked(true);
    w.projector_action()->setChecked(true);
    const QSize need = w.minimumSizeHint();
    QVERIFY2(need.width() <= 1280 && need.height() <= 720,
             qPrintable(QString("projector mode needs %1 x %2").arg(need.width()).arg(need.height())));
    auto* chart = w.chart(Metric::kLoss)->chart();
    QVERIFY2(chart->titleFont().pointSizeF() >= 1.5 * normal,
             qPrintable(QString("title %1 pt, normal %2 pt").arg(chart->titleFont().pointSizeF()).arg(normal)));
    for (auto* axis : chart->axes()) QVERIFY(axis->labelsFont().pointSizeF() >= 1.5 * normal_axis);
    QCOMPARE(chart->legend()->alignment(), Qt::AlignBottom);
    QVERIFY(!w.chart(Metric::kAccuracy)->chart()->legend()->isVisible());  // one legend for the stack
    // The icons differ clearly from the toolbar's background in both themes.
    for (bool dark : {true, false}) {
      w.dark_action()->setChecked(dark);
      const QColor background = w.palette().color(QPalette::Window);
      for (QAction* a : {w.train_action(), w.pause_action(), w.stop_action()}) {
        const QImage icon = a->icon().pixmap(24, 24).toImage();
        double contrast = 0;
        int painted = 0;
        for (int y = 0; y < icon.height(); ++y)
          for (int x = 0; x < icon.width(); ++x) {
            const QColor c = icon.pixelColor(x, y);
            if (c.alpha() < 128) continue;
            ++painted;
            contrast += std::abs(c.lightnessF() - background.lightnessF()) + c.hslSaturationF() / 2;
          }
        QVERIFY2(painted > 50, qPrintable(a->text()));
        QVERIFY2(contrast / painted > 0.25, qPrintable(QString("%1 on %2: %3").arg(a->text(), dark ? "dark" : "light").arg(contrast / painted)));
      }
    }
    // Training: the window still fits (the scaling page's charts, given a minimum height, made the
    // Runs page and so the window 752 pixels high, pushing the status bar off the screen).
    QTRY_VERIFY_WITH_TIMEOUT(w.dataset_panel()->dataset() != nullptr && w.train_action()->isEnabled(), 30000);
    w.set_pace(50);
    w.train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w.metrics().steps() > 2, 30000);
    // With a message above them the charts are at their shortest: their labels stay whole ("..."
    // was all a projector showed), with no more ticks on the y axis than its height holds.
    w.error_banner()->setText("Note: a message of two lines, as a run that was resumed past a damaged checkpoint "
                              "shows, which takes room from the charts below it on a 720-pixel screen.");
    w.error_banner()->setVisible(true);
    QTest::qWait(300);
    for (Metric m : {Metric::kLoss, Metric::kAccuracy}) {
      MetricChart* view = w.chart(m);
      for (QAbstractAxis* axis : view->chart()->axes()) QVERIFY(!axis->truncateLabels());
      auto* y = qobject_cast<QValueAxis*>(view->y_axis());
      QVERIFY(y);
      const double label = QFontMetricsF(y->labelsFont()).height(), plot = view->chart()->plotArea().height();
      const int ticks = y->tickType() == QValueAxis::TicksDynamic ? qRound((y->max() - y->min()) / y->tickInterval()) + 1
                                                                  : y->tickCount();
      QVERIFY2(ticks >= 2 && (ticks - 1) * label <= plot,
               qPrintable(QString("%1 ticks of %2 px labels on a plot %3 px high").arg(ticks).arg(label).arg(plot)));
    }
    w.error_banner()->setVisible(false);
    QVERIFY2(w.minimumSizeHint().height() <= 720 && w.height() <= 720,
             qPrintable(QString("training in projector mode needs %1, the window is %2 high")
                            .arg(w.minimumSizeHint().height())
                            .arg(w.height())));
    w.set_quit_choice([] { return MainWindow::QuitChoice::kStopAndQuit; });
    w.stop_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w.running(), 30000);
    w.projector_action()->setChecked(false);
    QCOMPARE(w.chart(Metric::kLoss)->chart()->titleFont().pointSizeF(), normal);
    const QSize normal_need = w.minimumSizeHint();
    QVERIFY2(normal_need.width() <= 1280 && normal_need.height() <= 720,
             qPrintable(QString("normal mode needs %1 x %2").arg(normal_need.width()).arg(normal_need.height())));
  }

  // Help: one getting-started page on the four tabs, training and comparing; a keyboard page listing
  // every shortcut the window has; F11 is a real full screen, projector mode has its own key.
  void helpPagesAndFullScreen() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QString start = HelpDialog(HelpDialog::Page::kGettingStarted, &w).html();
    for (const char* tab : {"<b>Data</b>", "<b>Model</b>", "<b>Training</b>", "<b>Devices</b>", "<b>Train</b>", "<b>Runs</b>"})
      QVERIFY2(start.contains(tab), tab);
    const QString keyboard = HelpDialog(HelpDialog::Page::kKeyboard, &w).html();
    int with_keys = 0;
    for (const QAction* a : w.findChildren<QAction*>()) {
      if (a->shortcut().isEmpty()) continue;
      ++with_keys;
      const QString keys = a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped();
      QVERIFY2(keyboard.contains("<b>" + keys + "</b>"), qPrintable(keys + " " + a->text()));
    }
    QVERIFY(with_keys >= 8);
    const auto shortcuts = keyboard_shortcuts(&w);
    auto what = [&](const QString& keys) {
      for (const auto& s : shortcuts)
        if (s.keys == keys) return s.what;
      return QString();
    };
    QCOMPARE(what("F11"), QString("Full screen"));
    QCOMPARE(what("Ctrl+Shift+P"), QString("Projector mode (large fonts, thick lines)"));
    QCOMPARE(what(QKeySequence("Ctrl+Return").toString(QKeySequence::NativeText)), QString("Train"));
    // F11 makes the window full screen and gives back its state; projector mode is untouched.
    QVERIFY(!w.isFullScreen());
    w.full_screen_action()->trigger();
    QTRY_VERIFY(w.isFullScreen());
    QVERIFY(!w.projector_action()->isChecked());
    w.full_screen_action()->trigger();
    QTRY_VERIFY(!w.isFullScreen());
    // Leaving full screen by other means unchecks the action.
    w.full_screen_action()->trigger();
    QTRY_VERIFY(w.isFullScreen());
    w.showNormal();
    QTRY_VERIFY(!w.full_screen_action()->isChecked());
  }

  void stopHaltsWithinAStep() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 500);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->metrics().steps() > 5, 30000);
    w->stop_action()->trigger();
    QVERIFY(done.wait(10000));
    QCOMPARE(w->last_result().status, RunStatus::kStopped);
    QVERIFY(w->last_result().steps < 500 * 32);
  }

  // The dataset's files are read once, when it is loaded: replacing one while a run trains on it
  // leaves the run alone, and the next load says what is wrong with the new file.
  void aDatasetFileReplacedMidRunFailsTheNextLoadNotTheRun() {
    QTemporaryDir dir;
    const auto idx = [&](const char* name, std::vector<uint32_t> dims) {
      std::string bytes = {0, 0, 0x08, static_cast<char>(dims.size())};
      size_t n = 1;
      for (uint32_t d : dims) {
        n *= d;
        for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>((d >> shift) & 0xff));
      }
      for (size_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>(dims.size() == 1 ? i % 10 : (i * 7) % 256));
      std::ofstream(dir.filePath(name).toStdString(), std::ios::binary) << bytes;
    };
    idx("train-images-idx3-ubyte", {64, 28, 28});
    idx("train-labels-idx1-ubyte", {64});
    idx("t10k-images-idx3-ubyte", {16, 28, 28});
    idx("t10k-labels-idx1-ubyte", {16});
    auto w = std::make_unique<MainWindow>(/*restore_settings=*/false);
    w->show();
    w->apply_preset("fashion-cnn");
    w->dataset_panel()->set_dataset("fashion-mnist", dir.path());
    w->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w->dataset_panel()->loading() && w->dataset_panel()->dataset(), 30000);
    w->training_panel()->set_values("adam", 0.001, 16, 40);
    w->set_pace(40);  // 4 steps an epoch: about 4 s, time to replace the file mid-run
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->metrics().steps() > 2, 30000);
    std::ofstream(dir.filePath("train-images-idx3-ubyte").toStdString(), std::ios::binary | std::ios::trunc)
        << "these are not images";
    QVERIFY(done.wait(60000));
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->metrics().steps(), 40 * 4);
    QSignalSpy failed(w->dataset_panel(), &DatasetPanel::error);
    w->dataset_panel()->load();
    QVERIFY(failed.wait(30000));
    const QString message = failed.takeFirst().at(0).toString();
    QVERIFY2(message.contains("train-images-idx3-ubyte") && message.contains("not an IDX file"), qPrintable(message));
    QVERIFY(!w->dataset_panel()->dataset());
  }

  // Resuming a run whose newest checkpoint was cut short: the window says which one it passed
  // over, and the run continues from the one before.
  void resumingPastADamagedCheckpointSaysSo() {
    QTemporaryDir dir;
    RunPlan plan;
    plan.config = config_from_preset("spirals-mlp");
    plan.config.dataset.name = "blobs";
    plan.config.dataset.train_size = 400;
    plan.config.batch_size = 50;
    plan.config.epochs = 3;
    plan.config.max_steps = 12;
    plan.config.checkpoints.every_steps = 5;
    plan.dir = dir.filePath("run").toStdString();
    {
      RecordedRun first(plan);
      EventSink quiet;
      TrainControl control;
      QCOMPARE(first.run(quiet, control).steps, 12);
    }
    const std::string newest = plan.dir + "/checkpoints/ckpt-12.pt";
    std::filesystem::resize_file(newest, 200);
    auto w = std::make_unique<MainWindow>(/*restore_settings=*/false);
    w->show();
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->resume_run(QString::fromStdString(plan.dir), 3);
    QVERIFY(done.wait(60000));
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->last_result().steps, 3 * 8);
    QVERIFY(w->error_banner()->isVisible());
    const QString text = w->error_banner()->text();
    QVERIFY2(text.contains("passed over a damaged checkpoint") && text.contains("ckpt-12.pt") &&
                 text.contains("resuming from " + QString::fromStdString(plan.dir) + "/checkpoints/ckpt-10.pt"),
             qPrintable(text));
  }

  void trainerErrorShowsInTheWindow() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 3);
    if (QTest::currentTestFailed()) return;
    // A linear model with a huge step diverges: the run fails with a NaN loss.
    ModelSpec linear = model_from_json(nlohmann::json::parse(
        R"({"layers": [{"type": "Dense", "units": 64}, {"type": "Dense", "units": 64}, {"type": "Dense", "units": "classes"}]})"));
    w->model_panel()->set_spec(linear);
    w->training_panel()->set_values("sgd", 100, 64, 3);
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QVERIFY(done.wait(60000));
    QCOMPARE(w->last_result().status, RunStatus::kFailed);
    QVERIFY(w->error_banner()->isVisible());
    QVERIFY2(w->error_banner()->text().contains("loss became"), qPrintable(w->error_banner()->text()));
    QVERIFY(w->train_action()->isEnabled());  // the window stays usable
  }

  void closingDuringTrainingStopsTheRun() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 500);
    if (QTest::currentTestFailed()) return;
    w->set_quit_choice([] { return MainWindow::QuitChoice::kStopAndQuit; });
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->metrics().steps() > 3, 30000);
    QElapsedTimer t;
    t.start();
    w->close();
    w.reset();  // joins the trainer thread
    QVERIFY2(t.elapsed() < 5000, "closing must not hang");
  }

  // Quitting mid-run asks (keep training / stop and quit / quit when it ends); the next window
  // offers to resume a run that was stopped or cut short; a run can be named before it starts.
  void quittingMidRunAsksAndTheNextWindowOffersToResume() {
    QTemporaryDir config;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, config.path());
    QSettings().clear();
    auto open = [](std::unique_ptr<MainWindow>& w) {
      w = std::make_unique<MainWindow>(/*restore_settings=*/true);
      w->apply_preset("spirals-mlp");
      w->show();
      w->dataset_panel()->set_dataset("blobs");
      w->dataset_panel()->load();
      QTRY_VERIFY_WITH_TIMEOUT(!w->dataset_panel()->loading() && w->dataset_panel()->dataset() &&
                                   w->dataset_panel()->dataset()->info().name == "blobs", 30000);
    };
    std::unique_ptr<MainWindow> w;
    open(w);
    if (QTest::currentTestFailed()) return;
    QVERIFY(!w->resume_offer()->isVisible());
    w->training_panel()->set_values("adam", 0.01, 64, 500);
    w->training_panel()->run_name_edit()->setText("named before it started");
    int asked = 0;
    MainWindow::QuitChoice answer = MainWindow::QuitChoice::kKeepTraining;
    w->set_quit_choice([&] {
      ++asked;
      return answer;
    });
    w->train_action()->trigger();
    QVERIFY(w->training_panel()->run_name_edit()->text().isEmpty());  // the next run does not inherit it
    QTRY_VERIFY_WITH_TIMEOUT(w->metrics().steps() > 3, 30000);
    const QString dir = w->run_dir();
    // Keep training: nothing closes, nothing stops.
    QVERIFY(!w->close());
    QCOMPARE(asked, 1);
    QVERIFY(w->isVisible() && w->running());
    // Stop and quit: the run is recorded stopped, under its name.
    answer = MainWindow::QuitChoice::kStopAndQuit;
    QVERIFY(w->close());
    w.reset();
    RunRecord r = read_run(dir.toStdString());
    QCOMPARE(r.status, std::string("stopped"));
    QCOMPARE(r.meta.name, std::string("named before it started"));
    // The next window offers it; Resume continues it on the Live page.
    open(w);
    if (QTest::currentTestFailed()) return;
    QVERIFY(w->resume_offer()->isVisible());
    const QString offer = w->resume_offer()->findChild<QLabel*>()->text();
    QVERIFY2(offer.contains("named before it started") && offer.contains("was stopped after step") &&
                 offer.contains("of 500)"),
             qPrintable(offer));
    w->resume_offer()->findChild<QPushButton*>("resume_last")->click();
    QVERIFY(!w->resume_offer()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(w->running() && w->metrics().steps() > 3, 30000);
    QCOMPARE(w->run_dir(), dir);
    // Quit when it finishes: the window stays until the run ends by itself; then nothing is offered.
    w->stop_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w->running(), 30000);
    w->training_panel()->set_values("adam", 0.01, 64, 2);
    w->set_pace(20);  // a few seconds: time to ask twice
    w->set_quit_choice([] { return MainWindow::QuitChoice::kQuitWhenDone; });
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->running(), 30000);
    QVERIFY(!w->close());
    // Closing again before it ends asks again (it used to stop the run without a word).
    int again = 0;
    w->set_quit_choice([&] {
      ++again;
      return MainWindow::QuitChoice::kKeepTraining;
    });
    QVERIFY(!w->close());
    QCOMPARE(again, 1);
    QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), 60000);
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    w.reset();
    open(w);
    if (QTest::currentTestFailed()) return;
    QVERIFY(!w->resume_offer()->isVisible());
    // A run that ends while the question is open: "Quit when it finishes" closes at once (it used
    // to wait for an end that had already come).
    w->training_panel()->set_values("adam", 0.01, 64, 500);
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->running() && w->metrics().steps() > 2, 30000);
    MainWindow* window = w.get();
    w->set_quit_choice([window] {
      window->stop_action()->trigger();
      for (int k = 0; k < 300 && window->running(); ++k) QTest::qWait(20);
      return MainWindow::QuitChoice::kQuitWhenDone;
    });
    QVERIFY(w->close());
    w.reset();
    QSettings().clear();
  }

  void pauseHoldsTheRunUntilResumed() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 500);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->metrics().steps() > 3, 30000);
    w->pause_action()->setChecked(true);
    // The step in flight lands, then the trainer holds between steps.
    QTRY_VERIFY_WITH_TIMEOUT(w->controller()->holding(), 10000);
    // Steps the trainer sent before it began to hold are queued by now: deliver them first.
    QCoreApplication::processEvents();
    const qint64 held = w->metrics().steps();
    QTest::qWait(500);  // an observation window, not a wait for something: a held run takes no step
    QCOMPARE(w->metrics().steps(), held);
    QVERIFY(w->controller()->holding());
    w->pause_action()->setChecked(false);
    QTRY_VERIFY_WITH_TIMEOUT(w->metrics().steps() > held, 10000);
    w->stop_action()->trigger();
    QVERIFY(done.wait(10000));
  }

  void chartsExportAsPngSvgAndCsv() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 1);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QVERIFY(done.wait(60000));
    QTemporaryDir dir;
    auto* chart = w->chart(Metric::kLoss);
    QTRY_VERIFY(chart->plotted_points() > 0);
    QVERIFY(chart->export_png(dir.filePath("loss.png")));
    QVERIFY(chart->export_svg(dir.filePath("loss.svg")));
    QVERIFY(QImage(dir.filePath("loss.png")).width() > 100);
    QFile svg(dir.filePath("loss.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    const QString csv = w->metrics().to_csv();
    QCOMPARE(csv.count('\n'), 1 + 32);  // header + one row per step
    QVERIFY(csv.startsWith("step,loss,accuracy"));
  }

  void scheduleIsPlottedBeforeTrainingAndItsRateChartedWhileTraining() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    auto* panel = w->training_panel();
    // A bad schedule blocks Train with the bad part named at the field.
    panel->schedule_box()->setCurrentText("cosine");
    panel->schedule_edit()->setText("decay_steps=lots");
    QVERIFY(!w->train_action()->isEnabled());
    QVERIFY2(w->train_blocked_label()->text().contains("decay_steps=lots is not a number"),
             qPrintable(w->train_blocked_label()->text()));
    // A valid one is drawn over the planned steps: 2,000 examples / 64 = 32 steps x 2 epochs.
    panel->schedule_edit()->setText("decay_steps=40,alpha=0");
    panel->warmup_box()->setValue(4);
    QVERIFY2(w->train_action()->isEnabled(), qPrintable(w->train_blocked_label()->text()));
    const auto points = panel->rate_series()->points();
    QVERIFY(points.size() >= 64);
    QCOMPARE(points.front().y(), 0.0);  // the warmup starts at 0
    QCOMPARE(points[4].y(), 0.01);      // and reaches the rate at step 4
    QCOMPARE(points.back().y(), 0.0);   // the cosine (alpha 0) has ended
    QCOMPARE(points.back().x(), 64.0);
    // Training: the live learning-rate chart turns itself on and shows the rates used.
    QVERIFY(!w->chart(Metric::kLearningRate)->isVisible());
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->train_action()->trigger();
    QVERIFY(done.wait(60000));
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    QTRY_VERIFY_WITH_TIMEOUT(w->chart(Metric::kLearningRate)->isVisible(), 5000);
    const auto& rates = w->metrics().raw(Metric::kLearningRate);
    QCOMPARE(rates.size(), 64);
    QCOMPARE(rates[0].y(), 0.0);
    QCOMPARE(rates[4].y(), 0.01);
    QCOMPARE(rates.back().y(), 0.0);
  }

  void thePaceReachesTheRunAndTheCommandLineCanSetAnyValue() {
    MainWindow w(false);
    auto* pace = w.findChild<QComboBox*>("pace");
    QVERIFY(pace);
    QCOMPARE(pace->currentText(), QString("full speed"));
    pace->setCurrentIndex(pace->findData(10.0));
    Q_EMIT pace->activated(pace->currentIndex());
    QCOMPARE(w.controller()->pace(), 10.0);
    w.set_pace(7);  // as mirrorbench --pace 7
    QCOMPARE(pace->currentText(), QString("7 steps/s"));
    QCOMPARE(w.pace(), 7.0);
    w.set_pace(0);
    QCOMPARE(pace->currentText(), QString("full speed"));
  }

  void axesTickOnNiceWholeSteps() {
    QCOMPARE(nice_step(3032, 5, true), 1000.0);
    QCOMPARE(nice_step(758, 5, true), 200.0);
    QCOMPARE(nice_step(1, 5, true), 1.0);
    QCOMPARE(nice_step(0.8, 5, false), 0.2);
    MetricChart chart(Metric::kLoss, "Loss");
    auto x_axis = [&] { return qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0)); };
    // A new chart, before any run: "0 1", not "0 0 1 1 1" (the window used to open that way).
    QCOMPARE(x_axis()->tickInterval(), 1.0);
    QCOMPARE(x_axis()->tickType(), QValueAxis::TicksDynamic);
    chart.refresh(RunMetrics());  // empty: "0 1", not "0 0 1 1 1"
    QCOMPARE(x_axis()->max(), 1.0);
    QCOMPARE(x_axis()->tickInterval(), 1.0);
    QCOMPARE(x_axis()->labelFormat(), QString("%.0f"));
    RunMetrics m;
    for (int step = 1; step <= 758; ++step) {
      StepMetrics s;
      s.global_step = step;
      s.loss = 1.0 / step;
      m.add_step(s);
    }
    chart.refresh(m);
    QCOMPARE(x_axis()->max(), 800.0);
    QCOMPARE(x_axis()->tickInterval(), 200.0);
  }

  void smoothingIsDebiasedAndDecimationKeepsExtremes() {
    DebiasedEma ema(0.9);
    QCOMPARE(ema.add(5.0), 5.0);  // no pull towards zero at the start
    QVector<QPointF> points;
    for (int i = 0; i < 100000; ++i) points.push_back({double(i), i == 5000 ? 100.0 : 1.0});
    const auto d = decimate(points, 500);
    QVERIFY(d.size() <= 1000);
    QVERIFY(std::any_of(d.begin(), d.end(), [](const QPointF& p) { return p.y() == 100.0; }));
  }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
