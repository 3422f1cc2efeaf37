// The setup tabs and the launch dialog as a user drives them in the window, on Qt's offscreen
// platform: Devices (replicas and shards, processes training together), Training (a bad value
// blocks Train with a reason, the schedule plotted), Model (the layer editor, shape errors, a
// fitting preset offered), Data (a dataset file replaced mid-run), and the launch command.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <fstream>

#include "../setup/training_settings.h"
#include "../ui_test_helpers.h"
#include "mirror/data/dataset.h"
#include "mirror/model/precision.h"
#include "mirror/model/presets.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/json_fields.h"
#include "ui/live/metric_chart.h"
#include "ui/run/run_metrics.h"
#include "ui/run/training_controller.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/launch_dialog.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/run/run_launcher.h"
#include "ui/run/live_run.h"
#include "ui/live/live_page.h"
#include "ui/window/main_window.h"

using namespace mirror;
using namespace mirror::ui;

class SetupPanelsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void logicalDevicesUpdateReplicasAndShards() {
    SetupTabs t;
    auto* devices = t.devices_panel();
    set_training(t.training_panel(), "adam", 0.001, 10, 1);
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
    w->setup()->training_panel()->learning_rate_edit()->setText("-0.5");
    QVERIFY(!w->train_action()->isEnabled());
    QVERIFY2(w->train_blocked_label()->text().contains("Learning rate must be a number above 0"),
             qPrintable(w->train_blocked_label()->text()));
    w->setup()->training_panel()->learning_rate_edit()->setText("0.01");
    QVERIFY(w->train_action()->isEnabled());
    // A batch smaller than the replica count is refused too.
    w->setup()->devices_panel()->logical_box()->setValue(4);
    w->setup()->training_panel()->batch_size_box()->setValue(3);
    QVERIFY(!w->train_action()->isEnabled());
    QVERIFY(w->train_blocked_label()->text().contains("smaller than the 4 replicas"));
  }

  void shapeErrorIsShownOnTheOffendingRow() {
    SetupTabs t;
    open_small_setup(t, 2);
    if (QTest::currentTestFailed()) return;
    auto* table = t.model_panel()->table();
    table->item(0, 1)->setText("units=oops");  // not a number
    QVERIFY(t.problem().startsWith("model: "));
    QCOMPARE(table->item(0, 2)->text(), QString("error"));
    table->item(0, 1)->setText("units=32, activation=relu");
    QVERIFY2(t.problem().isEmpty(), qPrintable(t.problem()));
  }

  // The model editor's traps: Add put the layer after the output (an error at once); a new type
  // kept the old settings; a dataset the model cannot take opened on an error with no way out.
  void modelEditorAddsBeforeTheOutputFillsDefaultsAndOffersAFittingPreset() {
    SetupTabs t;
    open_small_setup(t, 2);
    if (QTest::currentTestFailed()) return;
    ModelPanel* m = t.model_panel();
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
    QVERIFY2(t.problem().isEmpty(), qPrintable(t.problem()));
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
    QVERIFY2(t.problem().isEmpty(), qPrintable(t.problem()));
    // A convolutional model on 2-feature points: the matching preset is offered, and taken.
    for (const auto& p : presets())
      if (p.name == "fashion-cnn") m->set_spec(p.model);
    t.open_dataset("spirals", {});
    QTRY_VERIFY_WITH_TIMEOUT(!t.dataset_panel()->loading() && t.dataset() && t.dataset()->info().name == "spirals", 30000);
    QVERIFY(!t.problem().isEmpty());
    QCOMPARE(m->offered_preset(), QString("spirals-mlp"));
    QVERIFY2(t.problem().contains("offers the spirals-mlp preset"), qPrintable(t.problem()));
    m->offer_button()->click();
    QTRY_VERIFY_WITH_TIMEOUT(t.problem().isEmpty(), 30000);
    QVERIFY(m->offered_preset().isEmpty());
  }

  void scheduleIsPlottedBeforeTrainingAndItsRateChartedWhileTraining() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    auto* panel = w->setup()->training_panel();
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
    QVERIFY(!w->live_page()->chart(Metric::kLearningRate)->isVisible());
    QVERIFY(train_to_end(*w));
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kFinished);
    QTRY_VERIFY_WITH_TIMEOUT(w->live_page()->chart(Metric::kLearningRate)->isVisible(), 5000);
    const auto& rates = w->launcher()->live()->metrics().raw(Metric::kLearningRate);
    QCOMPARE(rates.size(), 64);
    QCOMPARE(rates[0].y(), 0.0);
    QCOMPARE(rates[4].y(), 0.01);
    QCOMPARE(rates.back().y(), 0.0);
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
    w->setup()->apply_preset("fashion-cnn");
    w->setup()->dataset_panel()->set_dataset("fashion-mnist", dir.path());
    w->setup()->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w->setup()->dataset_panel()->loading() && w->setup()->dataset_panel()->dataset(), 30000);
    set_training(w->setup()->training_panel(), "adam", 0.001, 16, 40);
    w->set_pace(40);  // 4 steps an epoch: about 4 s, time to replace the file mid-run
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    QVERIFY(train_past(*w, 2));
    std::ofstream(dir.filePath("train-images-idx3-ubyte").toStdString(), std::ios::binary | std::ios::trunc)
        << "these are not images";
    QVERIFY(done.wait(60000));
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->launcher()->live()->metrics().steps(), 40 * 4);
    QSignalSpy failed(w->setup()->dataset_panel(), &DatasetPanel::error);
    w->setup()->dataset_panel()->load();
    QVERIFY(failed.wait(30000));
    const QString message = failed.takeFirst().at(0).toString();
    QVERIFY2(message.contains("train-images-idx3-ubyte") && message.contains("not an IDX file"), qPrintable(message));
    QVERIFY(!w->setup()->dataset_panel()->dataset());
  }

  // Devices → Processes: 2 runs worker 1 as a mirrortrain process beside the window (worker 0),
  // the same code as --nproc; the run is recorded once, with both processes' replicas.
  void processesTrainTogether() {
    if (!c10d_available()) QSKIP("this build has no c10d/Gloo");
    if (qEnvironmentVariableIsEmpty("MIRRORTRAIN")) QSKIP("MIRRORTRAIN is not set (ctest sets it)");
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 2);
    if (QTest::currentTestFailed()) return;
    w->setup()->devices_panel()->logical_box()->setValue(1);
    w->setup()->devices_panel()->processes_box()->setValue(2);
    QCOMPARE(w->setup()->devices_panel()->replica_list()->count(), 2);
    QVERIFY(w->setup()->devices_panel()->replica_list()->item(1)->text().startsWith("process 1: cpu:0"));
    QVERIFY2(w->setup()->devices_panel()->split_label()->text().contains("32 + 32"), qPrintable(w->setup()->devices_panel()->split_label()->text()));
    QVERIFY(train_to_end(*w, 120000));
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->launcher()->live()->metrics().steps(), 2 * 32);
    QVERIFY(w->launcher()->live()->metrics().val_epochs(Metric::kAccuracy).back().y() > 0.8);
    const auto record = read_run(w->launcher()->run_dir().toStdString());
    QCOMPARE(QString::fromStdString(record.status), QString("finished"));
    const nlohmann::json* workers = json_field(record.run, "workers");
    QVERIFY(workers);
    QCOMPARE(workers->at("world_size").get<int>(), 2);
    QCOMPARE(QString::fromStdString(workers->at("launcher").get<std::string>()), QString("mirrorbench"));
    QCOMPARE(record.run.at("devices").size(), size_t{2});
    // Resumed from the window, it trains in two processes again (one would not fit its checkpoint).
    const QString dir = w->launcher()->run_dir();
    QSignalSpy resumed(w.get(), &MainWindow::run_finished);
    w->resume_run(dir, 3);
    QVERIFY(resumed.wait(120000));
    QVERIFY2(w->launcher()->live()->last_result().status == RunStatus::kFinished, w->launcher()->live()->last_result().message.c_str());
    QCOMPARE(w->launcher()->live()->last_result().steps, 3 * 32);
    QCOMPARE(QString::fromStdString(read_run(dir.toStdString()).status), QString("finished"));
  }

  void launchCommandSavesTheConfigAndGivesTorchrunAndSbatch() {
    SetupTabs t;
    t.apply_preset("spirals-mlp");
    t.devices_panel()->processes_box()->setValue(3);
    LaunchDialog d(t.current_config(), t.devices_panel()->processes(), &t);
    QVERIFY(!d.config_file().isEmpty());
    const QString text = d.text();
    QVERIFY2(text.contains("torchrun --nproc_per_node 3 --no_python"), qPrintable(text));
    QVERIFY(text.contains("#SBATCH --ntasks=3"));
    QVERIFY(text.contains("srun mirrortrain train --config '" + QFileInfo(d.config_file()).fileName() + "'"));
    // The saved file is a whole config mirrortrain reads back.
    std::ifstream in(d.config_file().toStdString());
    const TrainConfig back = config_from_json(nlohmann::json::parse(in));
    QCOMPARE(QString::fromStdString(back.preset), QString("spirals-mlp"));
    QCOMPARE(back.model.layers.size(), t.current_config().model.layers.size());
  }

  // The Precision box: what a config says is shown, what is chosen reaches the run's config (and
  // the launch command's file), and its tooltip says whether this CPU computes bfloat16.
  void precisionChoiceReachesTheRunsConfig() {
    SetupTabs t;
    t.apply_preset("seed-reuters");
    auto* box = t.training_panel()->findChild<QComboBox*>("precision");
    QVERIFY(box);
    QCOMPARE(box->currentText(), QString("float32"));
    QCOMPARE(t.current_config().strategy.precision, Precision::kFloat32);
    box->setCurrentText("mixed-bf16");
    QCOMPARE(t.current_config().strategy.precision, Precision::kMixedBf16);
    TrainConfig c = t.current_config();
    c.strategy.precision = Precision::kFloat32;
    t.training_panel()->set_config(c);
    QCOMPARE(box->currentText(), QString("float32"));
    const bool cpu_has = cpu_bf16_unsupported().empty();
    QVERIFY2(box->toolTip().contains(cpu_has ? "This CPU has them" : "refused"), qPrintable(box->toolTip()));
  }
};

QTEST_MAIN(SetupPanelsTest)
#include "test_setup_panels.moc"
