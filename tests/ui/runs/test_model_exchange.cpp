// Models in and out of the window: a Keras model file opened into the model editor and trained,
// and File → Export model…'s dialog writing a recorded run's model.
#include <QTimer>
#include <QTableWidget>
#include <QFileInfo>
#include <QDir>
#include <QApplication>
#include <QRadioButton>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <memory>

#include "mirror/runs/run_reader.h"
#include "ui/run/training_controller.h"
#include "ui/runs/export_model_dialog.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/training_panel.h"
#include "../setup/training_settings.h"
#include "ui/setup/setup_tabs.h"
#include "ui/run/run_launcher.h"
#include "ui/run/live_run.h"
#include "ui/window/main_window.h"
#include "../ui_test_helpers.h"
#include "ui/runs/runs_browser.h"
#include "mirror/runs/run_writer.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
// Calls `look` on the modal dialog `trigger` opens, once it is up, then closes whatever is modal.
// Returns false when no modal dialog came up.
bool with_modal(const std::function<void()>& trigger, const std::function<void(QWidget*)>& look) {
  bool seen = false;
  QTimer poll;
  poll.setInterval(20);
  int tries = 0;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    QWidget* modal = QApplication::activeModalWidget();
    if (!modal) {
      if (++tries > 500) poll.stop();
      return;
    }
    poll.stop();
    seen = true;
    look(modal);
    if (auto* d = qobject_cast<QDialog*>(modal)) d->reject();
    else modal->close();
  });
  poll.start();
  trigger();
  poll.stop();
  return seen;
}

QAction* action_named(QWidget& w, const QString& text) {
  for (QAction* a : w.findChildren<QAction*>())
    if (a->text() == text) return a;
  return nullptr;
}

// A Keras 2 model.to_json() of a small MLP for 2-D points (3 classes), with its InputLayer.
constexpr const char* kKerasMlp = R"({"class_name": "Sequential", "keras_version": "2.11.0", "backend": "tensorflow",
  "config": {"name": "keras_mlp", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 2], "dtype": "float32", "name": "dense_input"}},
    {"class_name": "Dense", "config": {"name": "hidden", "units": 32, "activation": "relu", "use_bias": true,
      "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": null}},
      "bias_initializer": {"class_name": "Zeros", "config": {}}}},
    {"class_name": "Dropout", "config": {"name": "dropout", "rate": 0.1}},
    {"class_name": "Dense", "config": {"name": "output", "units": 3, "activation": "softmax"}}]}})";
}  // namespace

class ModelExchangeTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void aKerasModelOpensTrainsAndExports() {
    QTemporaryDir tmp;
    const QString keras = tmp.filePath("keras_mlp.json");
    std::ofstream(keras.toStdString()) << kKerasMlp;

    MainWindow w(/*restore_settings=*/false);
    w.resize(1200, 800);
    w.show();
    w.setup()->apply_preset("spirals-mlp");
    w.setup()->dataset_panel()->set_dataset("blobs");
    w.setup()->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w.setup()->dataset_panel()->loading() && w.setup()->dataset_panel()->dataset(), 30000);
    set_training(w.setup()->training_panel(), "adam", 0.01, 64, 1);

    const QStringList notes = w.setup()->model_panel()->open_model_file(keras);
    QCOMPARE(w.setup()->model_panel()->spec().layers.size(), size_t{3});
    QCOMPARE(w.setup()->model_panel()->spec().layers[0].name, std::string("hidden"));
    QCOMPARE(w.setup()->model_panel()->preset_box()->currentText(), QString("custom"));
    QVERIFY2(w.setup()->model_panel()->ok(), qPrintable(w.setup()->model_panel()->problem()));
    QVERIFY(notes.join(" ").contains("(None, 2)"));

    // A broken file leaves the model as it was and says why.
    std::ofstream(tmp.filePath("lstm.json").toStdString())
        << R"({"class_name": "Sequential", "config": {"layers": [{"class_name": "LSTM", "config": {"name": "lstm"}}]}})";
    try {
      w.setup()->model_panel()->open_model_file(tmp.filePath("lstm.json"));
      QFAIL("expected a ConfigError");
    } catch (const std::exception& e) {
      QVERIFY2(QString(e.what()).contains("'lstm' (LSTM)"), e.what());
    }
    QCOMPARE(w.setup()->model_panel()->spec().layers.size(), size_t{3});

    QVERIFY(train_to_end(w));
    QCOMPARE(w.launcher()->live()->last_result().status, RunStatus::kFinished);
    const auto record = read_run(w.launcher()->run_dir().toStdString());
    QCOMPARE(QString::fromStdString(record.run["config"]["model"]["layers"][0]["name"].get<std::string>()), QString("hidden"));

    ExportModelDialog dialog(w.launcher()->run_dir());
    QCOMPARE(dialog.folder()->text(), QDir(w.launcher()->run_dir()).filePath("export"));
    dialog.onnx()->setChecked(true);
    dialog.folder()->setText(tmp.filePath("exported"));
    QVERIFY2(dialog.export_now(), qPrintable(dialog.error()));
    QCOMPARE(dialog.written().size(), 3);
    QVERIFY(QFileInfo(tmp.filePath("exported/model.onnx")).size() > 1000);
    QVERIFY(QFileInfo::exists(tmp.filePath("exported/sample_output.npy")));
  }

  void exportingSomethingThatIsNotARunSaysSo() {
    QTemporaryDir tmp;
    ExportModelDialog dialog(tmp.path());
    QVERIFY(!dialog.best()->isEnabled());  // no best.pt here
    QVERIFY(!dialog.export_now());
    QVERIFY2(dialog.error().contains("run.json"), qPrintable(dialog.error()));
    QVERIFY(dialog.written().isEmpty());
  }

  void exportTakesTheRunSelectedOnTheRunsPageAndLetsItChange() {
    const QString root = QString::fromStdString(default_runs_root());
    for (const char* name : {"20261130-100000-a", "20261130-100100-b", "20261130-100200-c"})
      QDir(root + "/" + name).removeRecursively();  // from an earlier run of this test
    const QStringList runs = record_three_runs(root);
    write_meta(runs[2].toStdString(), RunMeta{"lr 0.1 on 4 devices", {}, {}});  // a run the person named
    MainWindow w(/*restore_settings=*/false);
    w.resize(1200, 800);
    w.show();
    RunsBrowser* browser = w.runs_browser();
    QTRY_VERIFY_WITH_TIMEOUT(!browser->loading() && browser->run_dirs().contains(runs[2]), 30000);
    // Two runs selected to compare; the second one clicked last.
    browser->select_runs({runs[0], runs[1]});
    int row_b = -1;
    for (int r = 0; r < browser->table()->rowCount(); ++r)
      if (browser->table()->item(r, 0) && browser->table()->item(r, 0)->data(Qt::UserRole).toString() == runs[1]) row_b = r;
    QVERIFY(row_b >= 0);
    browser->table()->setCurrentCell(row_b, 0, QItemSelectionModel::NoUpdate);
    QCOMPARE(browser->focused_run(), runs[1]);

    QAction* export_action = action_named(w, "Export model…");
    QVERIFY(export_action);
    QString first, picked, folder, named, unnamed;
    bool was_export = false, best_follows = false;
    QVERIFY(with_modal([&] { export_action->trigger(); }, [&](QWidget* modal) {
      auto* d = qobject_cast<ExportModelDialog*>(modal);
      was_export = d != nullptr;
      if (!d) return;
      first = d->run_dir();
      d->run_box()->setCurrentIndex(d->run_box()->findData(runs[2]));
      picked = d->run_dir();
      named = d->run_box()->currentText();
      unnamed = d->run_box()->itemText(d->run_box()->findData(runs[0]));
      folder = d->folder()->text();
      best_follows = d->best()->isEnabled() == QFileInfo::exists(QDir(runs[2]).filePath("checkpoints/best.pt"));
    }));
    QVERIFY2(was_export, "File → Export model… did not open the export dialog (it asked for a folder)");
    QCOMPARE(first, runs[1]);
    QCOMPARE(picked, runs[2]);
    QCOMPARE(named, QString("lr 0.1 on 4 devices"));  // as the runs list names it, not its folder
    QCOMPARE(unnamed, QDir(runs[0]).dirName());
    QCOMPARE(folder, QDir(runs[2]).filePath("export"));
    QVERIFY(best_follows);
  }
};

QTEST_MAIN(ModelExchangeTest)
#include "test_model_exchange.moc"
