// The window trains what the command line trains. For every preset, the config the window builds
// (SetupTabs' apply_preset, then current_config) equals the one `mirrortrain train --preset NAME` trains, as
// the program itself prints it (--print-config: its own flags, defaults and code), field for field;
// where the preset's dataset is not on this machine, both take the registry's stand-in
// (resolve_dataset), which the command line trains with --dataset.
// Keras' cache is a folder of the test's own: empty, then holding a small reuters.npz.
#include <memory>
#include <QPushButton>
#include <QComboBox>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <stdexcept>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/model/presets.h"
#include "mirror/optim/schedule.h"
#include "mirror/runs/run_reader.h"
#include "mirror/train/config.h"
#include "ui/run/training_controller.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/run/run_launcher.h"
#include "ui/window/main_window.h"
#include "../../core/test_paths.h"
#include "ui/setup/model_panel.h"
#include "../ui_test_helpers.h"

using namespace mirror;
using namespace mirror::ui;
namespace fs = std::filesystem;

namespace {
// The config `mirrortrain train --preset NAME` trains, asked of the program ($MIRRORTRAIN, set by
// ctest), with the dataset resolved as the window resolves it. Throws std::runtime_error saying
// what went wrong.
TrainConfig cli_config(const std::string& preset) {
  const QString program = qEnvironmentVariable("MIRRORTRAIN");
  if (program.isEmpty()) throw std::runtime_error("MIRRORTRAIN is not set: run this test through ctest");
  QProcess cli;
  cli.start(program, {"train", "--preset", QString::fromStdString(preset), "--print-config"});
  if (!cli.waitForFinished(60000) || cli.exitStatus() != QProcess::NormalExit || cli.exitCode() != 0)
    throw std::runtime_error("mirrortrain train --preset " + preset + " --print-config failed: " +
                             cli.readAllStandardError().toStdString());
  TrainConfig c = config_from_json(nlohmann::json::parse(cli.readAllStandardOutput().toStdString()));
  c.dataset = resolve_dataset(c.dataset).options;
  return c;
}

// "dataset.num_words: window 0, command line 10000" for every value where the documents differ.
void differences(const nlohmann::json& window, const nlohmann::json& cli, const std::string& at, QStringList& out) {
  if (window.is_object() && cli.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : window.items()) keys.insert(k);
    for (const auto& [k, v] : cli.items()) keys.insert(k);
    for (const auto& k : keys)
      differences(window.value(k, nlohmann::json()), cli.value(k, nlohmann::json()), at.empty() ? k : at + "." + k, out);
  } else if (window != cli) {
    out << QString::fromStdString(at + ": window " + window.dump() + ", command line " + cli.dump());
  }
}

QString differing(const TrainConfig& window, const TrainConfig& cli) {
  QStringList out;
  differences(to_json(window), to_json(cli), "", out);
  return out.join("; ");
}

// The differences, or what kept the command line from answering.
QString differing_from_cli(const TrainConfig& window, const std::string& preset) {
  try {
    return differing(window, cli_config(preset));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}
}  // namespace

class PresetsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir home_;

  // Keras' cache (KERAS_HOME/datasets) with Reuters in it or not; no download server.
  void keras_cache(bool with_reuters) {
    const fs::path keras = fs::path(home_.path().toStdString()) / (with_reuters ? "keras-reuters" : "keras-empty");
    fs::create_directories(keras / "datasets");
    if (with_reuters) {
      const fs::path fixtures = mirror::testing::fixtures_dir() + "/keras";
      fs::copy_file(fixtures / "reuters_small.npz", keras / "datasets" / "reuters.npz", fs::copy_options::overwrite_existing);
      fs::copy_file(fixtures / "reuters_small_word_index.json", keras / "datasets" / "reuters_word_index.json",
                    fs::copy_options::overwrite_existing);
    }
    qputenv("KERAS_HOME", QByteArray::fromStdString(keras.string()));
  }

  // Every preset, each in a window of its own and all in one window one after another.
  void every_preset_trains_the_command_lines_config() {
    SetupTabs shared;
    for (const auto& p : presets()) {
      SetupTabs own;
      for (SetupTabs* t : {&own, &shared}) {
        t->apply_preset(QString::fromStdString(p.name));
        const QString diff = differing_from_cli(t->current_config(), p.name);
        QVERIFY2(diff.isEmpty(), qPrintable(QString::fromStdString(p.name) + ": " + diff));
      }
    }
  }

 private Q_SLOTS:
  void initTestCase() {
    register_event_types();
    QVERIFY(home_.isValid());
    qputenv("HOME", home_.path().toUtf8());
    qunsetenv("MIRROR_KERAS_ORIGIN");
  }

  void everyPresetTrainsTheCommandLinesConfigWithoutKerasFiles() {
    keras_cache(/*with_reuters=*/false);
    bool stand_in = false;
    for (const auto& p : presets()) stand_in = stand_in || !resolve_dataset(config_from_preset(p.name).dataset).note.empty();
    QVERIFY2(stand_in, "no preset's dataset is missing: the stand-in goes untested");
    every_preset_trains_the_command_lines_config();
  }

  void everyPresetTrainsTheCommandLinesConfigWithReuters() {
    keras_cache(/*with_reuters=*/true);
    QVERIFY(dataset_present(config_from_preset("reuters-mlp").dataset));
    every_preset_trains_the_command_lines_config();
  }

  // Keras' 10,000-word Reuters model, as recorded when the window trains it.
  void reutersMlpTrainsWithTenThousandWords() {
    keras_cache(/*with_reuters=*/true);
    MainWindow w(/*restore_settings=*/false);
    w.show();
    w.setup()->apply_preset("reuters-mlp");
    QTRY_VERIFY_WITH_TIMEOUT(!w.setup()->dataset_panel()->loading() && w.setup()->dataset_panel()->dataset() &&
                                 w.setup()->dataset_panel()->dataset()->info().name == "reuters", 60000);
    QVERIFY2(w.train_action()->isEnabled(), qPrintable(w.train_action()->toolTip()));
    QSignalSpy done(&w, &MainWindow::run_finished);
    w.launcher()->set_recording(true);
    w.train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w.launcher()->run_dir().isEmpty() && fs::exists(fs::path(w.launcher()->run_dir().toStdString()) / "run.json"), 30000);
    w.stop_action()->trigger();
    QVERIFY(done.count() > 0 || done.wait(60000));
    const nlohmann::json recorded = read_run(w.launcher()->run_dir().toStdString()).run.at("config");
    QCOMPARE(recorded.at("dataset").at("num_words").get<int64_t>(), int64_t{10000});
    const QString diff = differing_from_cli(config_from_json(recorded), "reuters-mlp");
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
  }

  // A tab changed and changed back gives the loaded config again, with what no tab shows.
  void aTabChangedAndBackKeepsWhatNoTabShows() {
    TrainConfig decaying = config_from_preset("spirals-mlp");
    decaying.schedule = parse_lr_schedule("cosine:decay_steps=2000,alpha=0.1,warmup_from=0.1");
    decaying.schedule.warmup_steps = 100;
    decaying.early_stopping = parse_early_stopping("val_loss:patience=3,restore_best=1");
    decaying.optimizer.beta2 = 0.98;  // no field on the Training tab
    decaying.optimizer.clipvalue = 0.5;
    decaying.max_steps = 500;
    decaying.eval_batch_size = 128;
    decaying.checkpoints.every_steps = 50;
    decaying.strategy.top_k = 3;
    decaying.dataset.noise = 0.3;  // no field on the Data tab
    decaying.dataset.classes = 4;
    TrainConfig plateau = config_from_preset("spirals-mlp");
    plateau.schedule.warmup_steps = 20;
    plateau.schedule.scale_reference_batch = 32;
    plateau.plateau = parse_plateau("val_accuracy:factor=0.5,patience=2,min_lr=1e-05");
    for (const TrainConfig& loaded : {decaying, plateau}) {
      SetupTabs t;
      t.load_config(loaded);
      QVERIFY2(t.training_panel()->problem().isEmpty(), qPrintable(t.training_panel()->problem()));
      QString diff = differing(t.current_config(), loaded);
      QVERIFY2(diff.isEmpty(), qPrintable("as loaded: " + diff));
      QSpinBox* batch = t.training_panel()->batch_size_box();
      batch->setValue(batch->value() * 2);
      const TrainConfig changed = t.current_config();
      QCOMPARE(changed.batch_size, loaded.batch_size * 2);
      QCOMPARE(to_json(changed.schedule), to_json(loaded.schedule));
      QCOMPARE(to_json(changed.plateau), to_json(loaded.plateau));
      QCOMPARE(to_json(changed.early_stopping), to_json(loaded.early_stopping));
      batch->setValue(static_cast<int>(loaded.batch_size));
      diff = differing(t.current_config(), loaded);
      QVERIFY2(diff.isEmpty(), qPrintable("changed and back: " + diff));
    }
  }

  void thePresetBoxFollowsTheOfferedPreset() {
    SetupTabs t;
    open_small_setup(t, 1);
    if (QTest::currentTestFailed()) return;
    t.apply_preset("fashion-cnn");
    QTRY_VERIFY_WITH_TIMEOUT(!t.dataset_panel()->loading(), 60000);
    ModelPanel* m = t.model_panel();
    QCOMPARE(m->preset_box()->currentText(), QString("fashion-cnn"));
    t.open_dataset("spirals", {});
    QTRY_VERIFY_WITH_TIMEOUT(!t.dataset_panel()->loading() && t.dataset() && t.dataset()->info().name == "spirals", 30000);
    QCOMPARE(m->offered_preset(), QString("spirals-mlp"));
    m->offer_button()->click();
    QTRY_VERIFY_WITH_TIMEOUT(t.problem().isEmpty(), 30000);
    QCOMPARE(m->preset_box()->currentText(), QString("spirals-mlp"));
    TrainConfig c = t.current_config();
    QCOMPARE(QString::fromStdString(c.preset), QString("spirals-mlp"));
  }
};

QTEST_MAIN(PresetsTest)
#include "test_presets.moc"
