// The settings tabs alone, with no window and no run (issue 47: pages built and tested alone):
// why Train cannot start follows every tab; a preset keeps your data where its model takes it and
// says so; a stand-in is named and withdrawn; an unknown preset changes nothing; what no tab shows
// survives; a run's name is for one run; locked during a run, every tab can still be looked at; a
// .keras file's weights start the run while the model stays the file's.
// The window's side of it (Train and the status bar following these) is test_main_window's.
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <fstream>

#include "mirror/model/keras_file.h"
#include "mirror/model/presets.h"
#include "mirror/train/config.h"
#include "own_data_files.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/setup/training_panel.h"
#include "../ui_test_helpers.h"

using namespace mirror;
using namespace mirror::ui;
using namespace mirror::ui::testing;

class SetupTabsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir home_;

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(home_.isValid());
    // No Reuters here and no download: the Reuters presets take their stand-in.
    qputenv("KERAS_HOME", (home_.path() + "/keras").toUtf8());
    qputenv("MIRROR_KERAS_ORIGIN", QString("file://%1/nowhere/").arg(home_.path()).toUtf8());
  }

  void whyTrainCannotStartFollowsEveryTab() {
    SetupTabs t;
    QSignalSpy changed(&t, &SetupTabs::changed);
    t.apply_preset("spirals-mlp");
    t.open_dataset("blobs", {});
    QCOMPARE(t.problem(), QString("loading the dataset…"));
    QTRY_VERIFY_WITH_TIMEOUT(!t.dataset_panel()->loading(), 30000);
    QVERIFY2(t.problem().isEmpty(), qPrintable(t.problem()));
    QVERIFY(changed.count() > 0);
    // The Training tab: a learning rate that is no rate.
    changed.clear();
    t.training_panel()->learning_rate_edit()->setText("-0.5");
    QVERIFY(changed.count() > 0);
    QVERIFY2(t.problem().contains("Learning rate must be a number above 0"), qPrintable(t.problem()));
    t.training_panel()->learning_rate_edit()->setText("0.01");
    QVERIFY2(t.problem().isEmpty(), qPrintable(t.problem()));
    // The Devices tab, through the Training tab's batch: fewer examples than replicas.
    t.devices_panel()->logical_box()->setValue(4);
    t.training_panel()->batch_size_box()->setValue(3);
    QVERIFY2(t.problem().contains("smaller than the 4 replicas"), qPrintable(t.problem()));
    t.training_panel()->batch_size_box()->setValue(64);
    QVERIFY2(t.problem().isEmpty(), qPrintable(t.problem()));
    // The Model tab: a row the data cannot take, and the preset made for the data offered.
    for (const auto& p : presets())
      if (p.name == "fashion-cnn") t.model_panel()->set_spec(p.model);
    t.open_dataset("spirals", {});
    QTRY_VERIFY_WITH_TIMEOUT(!t.dataset_panel()->loading() && t.dataset() && t.dataset()->info().name == "spirals", 30000);
    QVERIFY2(t.problem().startsWith("model: ") && t.problem().contains("offers the spirals-mlp preset"),
             qPrintable(t.problem()));
  }

  // 20 images a class at 32x32 on 4 devices stay when fashion-cnn is chosen; seed-reuters' text
  // model cannot take them, so its own data comes. status() says which.
  void aPresetKeepsYourDataWhereItsModelFitsAndSaysSo() {
    QTemporaryDir dir;
    make_shape_folder(dir.path() + "/shapes", 20);
    SetupTabs t;
    t.apply_preset("spirals-mlp");
    wait_loaded(*t.dataset_panel());
    DatasetPanel* data = t.dataset_panel();
    data->own_data_fields().image_height()->setValue(32);
    data->own_data_fields().image_width()->setValue(32);
    drop_on(*data, dir.path() + "/shapes");
    wait_loaded(*data);
    QVERIFY2(t.dataset(), "the images did not load");
    t.devices_panel()->logical_box()->setValue(4);
    QSignalSpy said(&t, &SetupTabs::status);
    QSignalSpy applied(&t, &SetupTabs::preset_applied);
    QVERIFY(t.apply_preset("fashion-cnn"));
    QCOMPARE(applied.count(), 1);
    QCOMPARE(applied.at(0).at(0).toString(), QString("fashion-cnn"));
    const TrainConfig kept = t.current_config();
    QCOMPARE(kept.model.layers.size(), config_from_preset("fashion-cnn").model.layers.size());
    QCOMPARE(kept.dataset.name, std::string("images"));
    QCOMPARE(kept.dataset.image_height, int64_t{32});
    QCOMPARE(kept.devices.logical, 4);
    QCOMPARE(t.preset(), QString("fashion-cnn"));
    QCOMPARE(said.count(), 1);
    QVERIFY2(said.at(0).at(0).toString().startsWith("Preset fashion-cnn set the model and the training; your images"),
             qPrintable(said.at(0).at(0).toString()));
    wait_loaded(*data);
    said.clear();
    QVERIFY(t.apply_preset("seed-reuters"));
    QVERIFY2(t.current_config().dataset.name != "images", t.current_config().dataset.name.c_str());
    QCOMPARE(said.count(), 1);  // what was replaced, then (no Reuters here) what stands in for it
    const QString line = said.at(0).at(0).toString();
    QVERIFY2(line.startsWith("Preset seed-reuters: its model cannot take your images") && line.contains("stands in for it"),
             qPrintable(line));
    wait_loaded(*data);
  }

  // Named once when it loads, withdrawn once when another set loads, and not before.
  void aStandInIsNamedThenWithdrawnWhenAnotherSetLoads() {
    SetupTabs t;
    QSignalSpy said(&t, &SetupTabs::status);
    QSignalSpy withdrawn(&t, &SetupTabs::status_withdrawn);
    t.apply_preset("reuters-mlp");
    QCOMPARE(said.count(), 1);
    const QString note = said.at(0).at(0).toString();
    QVERIFY2(note.contains("is not on this machine") && note.contains("stands in for it"), qPrintable(note));
    wait_loaded(*t.dataset_panel());
    QVERIFY(t.dataset());
    QCOMPARE(withdrawn.count(), 0);  // the stand-in itself loaded: the note still holds
    t.apply_preset("spirals-mlp");
    wait_loaded(*t.dataset_panel());
    QCOMPARE(withdrawn.count(), 1);
    QCOMPARE(withdrawn.at(0).at(0).toString(), note);
  }

  void anUnknownPresetChangesNothing() {
    SetupTabs t;
    QVERIFY(t.apply_preset("spirals-mlp"));
    const nlohmann::json before = to_json(t.current_config());
    QSignalSpy applied(&t, &SetupTabs::preset_applied);
    QSignalSpy said(&t, &SetupTabs::status);
    QVERIFY(!t.apply_preset("no-such-preset"));
    QCOMPARE(to_json(t.current_config()), before);
    QCOMPARE(applied.count(), 0);
    QCOMPARE(said.count(), 0);
    QCOMPARE(t.preset(), QString("spirals-mlp"));
  }

  void aRunsNameIsForOneRun() {
    SetupTabs t;
    t.training_panel()->run_name_edit()->setText("first try");
    QCOMPARE(t.take_run_name(), QString("first try"));
    QCOMPARE(t.take_run_name(), QString());
  }

  void lockedDuringARunEveryTabCanStillBeLookedAt() {
    SetupTabs t;
    t.show();
    t.set_editable(false);
    QCOMPARE(t.count(), 4);
    for (int i = 0; i < t.count(); ++i) {
      QVERIFY(!t.widget(i)->isEnabled());
      QVERIFY(t.tabBar()->isTabEnabled(i));
      t.setCurrentIndex(i);
      QCOMPARE(t.currentIndex(), i);
    }
    QVERIFY(!t.training_panel()->isEnabled());
    t.set_editable(true);
    for (int i = 0; i < t.count(); ++i) QVERIFY(t.widget(i)->isEnabled());
  }

  // A .keras file opened: the run starts from its weights, and the Model tab says so; an edit
  // drops them (they no longer fit) and says that; a run's loaded config keeps its file.
  void aKerasFilesWeightsStartTheRunUntilTheModelIsEdited() {
    QTemporaryDir dir;
    SetupTabs t;
    open_small_setup(t, 1);
    const ModelAnalysis& a = t.model_panel()->analysis();
    std::vector<NamedWeights> weights;  // any values: what is checked is where the run takes them from
    for (size_t i = 0; i < a.layers.size(); ++i) {
      const LayerSpec& l = a.layers[i].resolved;
      if (l.kind != LayerKind::kDense) continue;
      const int64_t in = (i == 0 ? a.input_shape : a.layers[i - 1].output_shape).back();
      weights.push_back({a.layers[i].name + ".weight", {l.units, in}, std::vector<float>(static_cast<size_t>(l.units * in), 0.5f)});
      if (l.use_bias) weights.push_back({a.layers[i].name + ".bias", {l.units}, std::vector<float>(static_cast<size_t>(l.units))});
    }
    const QString path = dir.path() + "/<b>trained&.keras";  // a name that is data, not markup
    {
      std::ofstream f(path.toStdString(), std::ios::binary);
      f << keras_model_file(a, input_spec(*t.dataset()), weights, "trained", "2026-12-07@10:00:00");
    }
    const QStringList notes = t.open_model_file(path);
    QVERIFY2(notes.join("\n").contains("starts from the file's trained weights"), qPrintable(notes.join("\n")));
    QCOMPARE(QString::fromStdString(t.current_config().initial_weights), path);
    const QString status = t.model_panel()->status()->text();
    QVERIFY2(status.contains("starts from the trained weights in &lt;b&gt;trained&amp;.keras"), qPrintable(status));

    ModelSpec edited = t.model_panel()->spec();
    edited.layers.front().units += 1;
    t.model_panel()->set_spec(edited);
    QVERIFY(t.current_config().initial_weights.empty());
    QVERIFY2(t.model_panel()->status()->text().contains("Edited since"), qPrintable(t.model_panel()->status()->text()));

    TrainConfig loaded = t.current_config();
    loaded.initial_weights = path.toStdString();
    t.load_config(loaded);
    QCOMPARE(QString::fromStdString(t.current_config().initial_weights), path);
  }
};

QTEST_MAIN(SetupTabsTest)
#include "test_setup_tabs.moc"
