// A Keras model that ends in softmax, opened in the Model tab: the notice says the softmax would
// be applied twice and offers the two fixes; nothing changes until one is picked; "Train on
// probabilities" keeps the model and trains (and says which loss it chose), "Drop the softmax"
// gives the loss logits.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <memory>

#include "mirror/runs/run_reader.h"
#include "ui/run/training_controller.h"
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
}  // namespace

class SoftmaxChoiceTest : public QObject {
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
    ModelPanel* m = w->setup()->model_panel();
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
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kFinished);
    const auto record = read_run(w->launcher()->run_dir().toStdString());
    const auto& config = record.run["config"];
    // Recorded by the file's name, not as the preset the window had before.
    QCOMPARE(QString::fromStdString(config["preset"].get<std::string>()), QString());
    QCOMPARE(QString::fromStdString(config["model"]["name"].get<std::string>()), QString("my_keras_mlp"));
    QVERIFY(config["model"].value("train_on_probabilities", false));
    QVERIFY2(w->launcher()->run_dir().contains("my_keras_mlp"), qPrintable(w->launcher()->run_dir()));
    QVERIFY2(record.epochs.back().val_accuracy > 0.8, qPrintable(QString::number(record.epochs.back().val_accuracy)));

    // The other fix: the softmax goes, the loss gets logits.
    m->open_model_file(keras);
    QVERIFY(!m->softmax_notice()->isHidden());
    m->drop_softmax_button()->click();
    QVERIFY(m->softmax_notice()->isHidden());
    QCOMPARE(m->spec().layers.back().activation, Activation::kLinear);
    QVERIFY(!m->spec().train_on_probabilities);
  }
};

QTEST_MAIN(SoftmaxChoiceTest)
#include "test_softmax_choice.moc"
