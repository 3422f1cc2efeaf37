// What looked wrong to a teacher trying the window (issue 36): a Keras model ending in softmax
// told and fixed, File → Export model… on the selected run with a run picker, the Preset box
// following an offered preset, a finished run's Learned tab keeping its own data, the failure
// banner going with its lesson, "Run 1 of 2" while a lesson's runs train, the scaling paragraph in
// plain words with the figures behind "Details".
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>

#include <fstream>
#include <memory>

#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "ui/classroom/learned_view.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "ui/runs/export_model_dialog.h"
#include "ui/runs/reading_details.h"
#include "ui/runs/runs_browser.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/model_panel.h"
#include "../ui_test_helpers.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
// A Keras 2 model.to_json() of an MLP for 2-D points whose output layer is Dense(3, softmax).
constexpr const char* kKerasSoftmaxMlp = R"({"class_name": "Sequential", "keras_version": "2.11.0",
  "config": {"name": "sequential", "layers": [
    {"class_name": "Dense", "config": {"name": "hidden", "units": 32, "activation": "relu"}},
    {"class_name": "Dense", "config": {"name": "output", "units": 3, "activation": "softmax"}}]}})";

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
}  // namespace

class TeacherFixesTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void aKerasModelEndingInSoftmaxIsToldAndTheTeacherPicksTheFix() {
    QTemporaryDir tmp;
    const QString keras = tmp.filePath("my_keras_mlp.json");
    std::ofstream(keras.toStdString()) << kKerasSoftmaxMlp;
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 1);
    if (QTest::currentTestFailed()) return;
    ModelPanel* m = w->model_panel();
    QVERIFY(m->softmax_notice()->isHidden());  // the preset outputs logits

    const QStringList notes = m->open_model_file(keras);
    QVERIFY2(notes.join(" ").contains("softmax is applied twice"), qPrintable(notes.join(" | ")));
    QVERIFY(!m->softmax_notice()->isHidden());
    const QString told = m->softmax_notice()->findChild<QLabel*>()->text();
    QVERIFY2(told.contains("ends in softmax") && told.contains("train on probabilities"), qPrintable(told));
    // Nothing changes until the teacher picks a fix.
    QCOMPARE(m->spec().layers.back().activation, Activation::kSoftmax);
    QVERIFY(!m->spec().train_on_probabilities);

    m->train_on_probabilities_button()->click();
    QVERIFY(m->softmax_notice()->isHidden());
    QVERIFY(m->spec().train_on_probabilities);
    // With the notice gone, the panel still says which loss it chose (issue 48, item 10).
    QVERIFY2(m->status()->text().contains("log of its softmax's probabilities"), qPrintable(m->status()->text()));
    QCOMPARE(m->spec().layers.back().activation, Activation::kSoftmax);  // the model stays as written
    QVERIFY2(m->ok(), qPrintable(m->problem()));

    QVERIFY(train_to_end(*w));
    QCOMPARE(w->last_result().status, RunStatus::kFinished);
    const auto record = read_run(w->run_dir().toStdString());
    const auto& config = record.run["config"];
    // Recorded by the file's name, not as the preset the window had before.
    QCOMPARE(QString::fromStdString(config["preset"].get<std::string>()), QString());
    QCOMPARE(QString::fromStdString(config["model"]["name"].get<std::string>()), QString("my_keras_mlp"));
    QVERIFY(config["model"].value("train_on_probabilities", false));
    QVERIFY2(w->run_dir().contains("my_keras_mlp"), qPrintable(w->run_dir()));
    QVERIFY2(record.epochs.back().val_accuracy > 0.8, qPrintable(QString::number(record.epochs.back().val_accuracy)));

    // The other fix: the softmax goes, the loss gets logits.
    m->open_model_file(keras);
    QVERIFY(!m->softmax_notice()->isHidden());
    m->drop_softmax_button()->click();
    QVERIFY(m->softmax_notice()->isHidden());
    QCOMPARE(m->spec().layers.back().activation, Activation::kLinear);
    QVERIFY(!m->spec().train_on_probabilities);
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

  void thePresetBoxFollowsTheOfferedPreset() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 1);
    if (QTest::currentTestFailed()) return;
    w->apply_preset("fashion-cnn");
    QTRY_VERIFY_WITH_TIMEOUT(!w->dataset_panel()->loading(), 60000);
    ModelPanel* m = w->model_panel();
    QCOMPARE(m->preset_box()->currentText(), QString("fashion-cnn"));
    w->dataset_panel()->set_dataset("spirals");
    w->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w->dataset_panel()->loading() && w->dataset_panel()->dataset() &&
                                 w->dataset_panel()->dataset()->info().name == "spirals", 30000);
    QCOMPARE(m->offered_preset(), QString("spirals-mlp"));
    m->offer_button()->click();
    QTRY_VERIFY_WITH_TIMEOUT(w->train_action()->isEnabled(), 30000);
    QCOMPARE(m->preset_box()->currentText(), QString("spirals-mlp"));
    TrainConfig c = w->current_config();
    QCOMPARE(QString::fromStdString(c.preset), QString("spirals-mlp"));
  }

  void aFinishedRunsLearnedTabKeepsItsOwnClassNamesAndPoints() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 1);
    if (QTest::currentTestFailed()) return;
    QVERIFY(train_to_end(*w));
    LearnedView* learned = w->learned_view();
    QVERIFY(learned->shown());
    const QString name = learned->per_class()->item(0, 0)->text();
    QCOMPARE(name, QString("0 class 0"));  // blobs' own class names
    QVERIFY2(learned->examples()->item(0)->text().contains("at ("), qPrintable(learned->examples()->item(0)->text()));

    // Another dataset loaded after the run: the run's tab still speaks of blobs.
    w->dataset_panel()->set_dataset("xor");
    w->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w->dataset_panel()->loading() && w->dataset_panel()->dataset() &&
                                 w->dataset_panel()->dataset()->info().name == "xor", 30000);
    QCOMPARE(learned->per_class()->item(0, 0)->text(), name);
    QVERIFY2(learned->examples()->item(0)->text().contains("at ("), qPrintable(learned->examples()->item(0)->text()));
  }

  void theFailureBannerGoesWithItsLessonAndTheLessonSaysWhichRunTrains() {
    MainWindow w(/*restore_settings=*/false);
    w.resize(1200, 800);
    w.show();
    QStringList progress;
    auto* label = w.findChild<QLabel*>("sweep_progress");
    QVERIFY(label);
    connect(w.launcher(), &RunLauncher::run_begun, this, [&] { progress << (label->isHidden() ? QString() : label->text()); });
    QSignalSpy swept(&w, &MainWindow::sweep_finished);
    QVERIFY(w.open_lesson("broken-sync", /*max_steps=*/40));
    if (!w.lesson_training()) w.start_lesson();  // recorded by an earlier run of this test: train again
    QVERIFY(w.lesson_training());
    QVERIFY(swept.wait(120000));
    QCOMPARE(progress.size(), 2);
    QCOMPARE(progress[0], QString("Run 1 of 2: in sync"));
    QVERIFY2(progress[1].startsWith("Run 2 of 2: replica 1 nudged"), qPrintable(progress[1]));
    QVERIFY(label->isHidden());  // the lesson's runs are done

    QVERIFY2(!w.error_banner()->isHidden(), "the broken-sync run should have failed, as the lesson means");
    QVERIFY(w.error_banner()->text().contains("as the lesson means it to"));
    w.lesson_dock()->close();
    QVERIFY(w.error_banner()->isHidden());
  }

  void theScalingParagraphIsInPlainWordsWithTheFiguresBehindDetails() {
    ReadingWithDetails reading;
    reading.set_text("With 1 replica the model trained on 100 examples a second.", "Baseline: 1 replica with 2 threads.");
    reading.show();
    QVERIFY(!reading.toggle()->isHidden());
    QVERIFY(reading.details()->isHidden());
    reading.toggle()->click();
    QVERIFY(!reading.details()->isHidden());
    QCOMPARE(reading.details()->text(), QString("Baseline: 1 replica with 2 threads."));
    reading.set_text("Select two or more runs.");
    QVERIFY(reading.toggle()->isHidden());
    QVERIFY(reading.details()->isHidden());
  }
};

QTEST_MAIN(TeacherFixesTest)
#include "test_teacher_fixes.moc"
