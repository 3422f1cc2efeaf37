// The Learned tab (confusion matrix, examples, decision regions) and the Data tab's scatter plot,
// driven by a real run and by a recorded one; on Qt's offscreen platform.
#include <memory>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

#include <fstream>
#include <functional>

#include <torch/types.h>

#include "mirror/data/registry.h"
#include "mirror/runs/evaluations.h"
#include "ui/classroom/confusion_matrix.h"
#include "ui/classroom/learned_view.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "ui/setup/dataset_panel.h"
#include "ui/widgets/class_look.h"
#include "ui/widgets/point_plot.h"
#include "points_run.h"
#include "../scoped_runs_folder.h"
#include "ui/setup/setup_tabs.h"
#include "../ui_test_helpers.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
TrainConfig points_config(int epochs) { return mirror::testing::points_run(epochs, /*batch=*/32, /*logical=*/2); }

// A recorded run of three classes whose last validation is known cell by cell:
//   true 0: 5 right, 1 taken for 1      true 1: 4 taken for 2, 2 right      true 2: 3 right
Evaluation known_evaluation(int epoch) {
  EvaluationBuilder b(3);
  const std::vector<int64_t> labels = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2};
  TopPredictions top;
  top.k = 2;
  for (const int32_t p : {0, 0, 1, 0, 0, 0, 2, 1, 2, 2, 1, 2, 2, 2, 2}) {
    top.classes.insert(top.classes.end(), {p, (p + 1) % 3});
    top.probabilities.insert(top.probabilities.end(), {0.75f, 0.25f});
  }
  b.add(labels.data(), static_cast<int64_t>(labels.size()), top);
  return std::move(b).finish(epoch, epoch * 10);
}

// known_evaluation's validation split as data of one's own: x_val built by `example(i, label)`,
// a few training examples beside it. `shape` is one example's (channels last).
std::shared_ptr<const Dataset> own_data(DatasetInfo info, const std::function<torch::Tensor(int64_t, int64_t)>& example) {
  const std::vector<int64_t> labels = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2};
  std::vector<torch::Tensor> xs;
  for (size_t i = 0; i < labels.size(); ++i) xs.push_back(example(static_cast<int64_t>(i), labels[i]));
  const torch::Tensor x = torch::stack(xs);
  const torch::Tensor y = torch::tensor(labels, torch::kInt64);
  info.num_classes = 3;
  return std::make_shared<const Dataset>(std::move(info), x.slice(0, 0, 3).clone(), y.slice(0, 0, 3).clone(), x, y);
}

QString recorded_run(const QTemporaryDir& root) {
  const QString dir = root.filePath("known");
  QDir().mkpath(dir);
  std::ofstream(QDir(dir).filePath("run.json").toStdString()) << R"({"format":1,"status":"finished","config":{}})";
  std::ofstream out(QDir(dir).filePath(kEvaluationsFile).toStdString());
  out << to_json(known_evaluation(1)).dump() << '\n' << to_json(known_evaluation(2)).dump() << '\n';
  return dir;
}
}  // namespace

class LearnedViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  // A real run on three blobs: one validation per epoch, a matrix that adds up to the validation
  // split, and decision regions that agree with the points they were learned from.
  void aRunOnPointsShowsItsMatrixAndItsDecisionRegions() {
    const ScopedRunsFolder runs;
    RunLauncher launcher;
    LearnedView view(launcher.live());
    view.resize(900, 700);
    view.show();
    const auto data = load_dataset(points_config(3).dataset);
    view.set_dataset(data);
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    launcher.start_run(points_config(3), data);
    QVERIFY(finished.wait(60000));
    QCOMPARE(launcher.live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(view.epoch_choice()->count(), 3);
    QVERIFY(view.epoch_choice()->currentText().contains("latest"));
    const int64_t validation = data->size(Split::kValidation);
    QCOMPARE(view.matrix()->evaluation().total(), validation);
    int64_t listed = 0;
    for (int r = 0; r < view.per_class()->rowCount(); ++r) listed += view.per_class()->item(r, 1)->text().toLongLong();
    QCOMPARE(listed, validation);
    QVERIFY(view.per_class()->item(0, 0)->text().startsWith("0"));
    // The decision regions: shown, with the validation points, each mostly inside its own class's region.
    QVERIFY(view.regions()->isVisible());
    QVERIFY(view.regions()->has_regions());
    QCOMPARE(static_cast<int64_t>(view.regions()->points().size()), validation);
    int inside = 0;
    for (const auto& p : view.regions()->points()) {
      const QColor c = view.regions()->region_color_at(p.x, p.y);
      inside += c.isValid() && c.rgb() == class_color(p.label).rgb();
    }
    QVERIFY2(inside >= 0.9 * static_cast<double>(validation), qPrintable(QString("%1 of %2").arg(inside).arg(validation)));
    // As a 1280x720 projector shows the page (1216 x 560 here): the plane beside the matrix, at
    // least half the page's height square (under the matrix it was 145 px).
    view.resize(1216, 560);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const int side = std::min(view.regions()->width(), view.regions()->height());
    QVERIFY2(side >= 280 && view.regions()->mapTo(&view, QPoint(0, 0)).x() > view.matrix()->mapTo(&view, QPoint(0, 0)).x(),
             qPrintable(QString("decision regions %1 x %2 px at %3")
                            .arg(view.regions()->width()).arg(view.regions()->height())
                            .arg(view.regions()->mapTo(&view, QPoint(0, 0)).x())));
    // The recorded run holds the same three validations.
    const auto recorded = read_evaluations(launcher.run_dir().toStdString());
    QCOMPARE(recorded.size(), size_t{3});
    QCOMPARE(recorded.back().confusion, view.matrix()->evaluation().confusion);
    // An earlier epoch can be chosen and stays chosen.
    view.epoch_choice()->setCurrentIndex(0);
    Q_EMIT view.epoch_choice()->activated(0);
    QCOMPARE(view.shown()->epoch, 1);
  }

  // A finished run opened from the Runs page while another dataset is loaded: its classes keep the
  // names its run.json recorded, and its examples and points come from its own data, read again.
  void aRecordedRunSpeaksOfItsOwnDataWhateverIsLoaded() {
    const ScopedRunsFolder runs;
    RunLauncher launcher;
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    TrainConfig c = points_config(1);
    c.dataset.classes = 4;
    launcher.start_run(c, load_dataset(c.dataset));
    QVERIFY(finished.wait(60000));
    QCOMPARE(launcher.live()->last_result().status, RunStatus::kFinished);
    const QString dir = launcher.run_dir();

    TrainingController controller;
    LiveRun idle(&controller);
    LearnedView view(&idle);
    view.resize(900, 700);
    view.show();
    DatasetOptions other;
    other.name = "xor";  // two classes: not the run's four
    view.set_dataset(load_dataset(other));
    QVERIFY(view.show_recorded(dir));
    QCOMPARE(view.per_class()->rowCount(), 4);
    QCOMPARE(view.per_class()->item(0, 0)->text(), QString("0 class 0"));
    QCOMPARE(view.per_class()->item(3, 0)->text(), QString("3 class 3"));
    QTRY_VERIFY_WITH_TIMEOUT(!view.recorded_data_loading(), 30000);
    QVERIFY(view.examples()->count() > 0);
    QVERIFY2(view.examples()->item(0)->text().contains(" class "), qPrintable(view.examples()->item(0)->text()));
    QVERIFY2(view.examples()->item(0)->text().contains("at ("), qPrintable(view.examples()->item(0)->text()));
    QCOMPARE(static_cast<int64_t>(view.regions()->points().size()), view.matrix()->evaluation().total());
  }

  // A recorded run: hovering a cell says its count and examples; clicking lists them; the most
  // confused pairs and the per-class accuracy read as the counts say.
  void aCellTellsItsCountAndListsItsExamples() {
    QTemporaryDir root;
    TrainingController controller;
    LiveRun live(&controller);
    LearnedView view(&live);
    view.resize(900, 700);
    view.show();
    live.begin_resume(recorded_run(root).toStdString());
    QCOMPARE(view.epoch_choice()->count(), 2);
    ConfusionMatrixView* m = view.matrix();
    QCOMPARE(m->evaluation().epoch, 2);
    QVERIFY(view.summary()->text().contains("10 of 15"));
    QCOMPARE(m->cell_at(m->cell_center(1, 2)), std::make_pair(int64_t{1}, int64_t{2}));
    QCOMPARE(m->cell_at(QPoint(0, 0)), std::make_pair(int64_t{-1}, int64_t{-1}));
    const QString tip = m->cell_tooltip(1, 2);
    QVERIFY2(tip.contains("True 1, predicted 2: 4 examples (66.7% of 6)"), qPrintable(tip));
    QVERIFY2(tip.contains("#6 (75%), #8 (75%), #9 (75%)"), qPrintable(tip));
    QCOMPARE(m->cell_text(1, 2), QString("4"));
    view.count_choice()->setCurrentIndex(1);
    QCOMPARE(m->cell_text(1, 2), QString("67%"));
    QCOMPARE(m->cell_text(2, 0), QString());
    // Clicking a cell lists its examples (the first three of four), with the top guesses.
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(1, 2));
    QCOMPARE(m->selected(), std::make_pair(int64_t{1}, int64_t{2}));
    QCOMPARE(view.examples()->count(), 3);
    QVERIFY2(view.examples()->item(0)->text().contains("#6, true 1\npredicted 2 75% · 0 25%"),
             qPrintable(view.examples()->item(0)->text()));
    // Clicking it again clears the choice: every recorded example, or the mistakes only.
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(1, 2));
    QCOMPARE(m->selected(), std::make_pair(int64_t{-1}, int64_t{-1}));
    const int all = view.examples()->count();
    view.mistakes_only()->setChecked(true);
    QCOMPARE(view.examples()->count(), 4);  // 0 as 1 (one), 1 as 2 (three kept of four)
    QVERIFY(all > 4);
    // The most confused pair comes first; clicking it selects its cell.
    QVERIFY2(view.most_confused()->item(0)->text().startsWith("1 taken for 2: 4 (66.7% of 1)"),
             qPrintable(view.most_confused()->item(0)->text()));
    QCOMPARE(view.most_confused()->count(), 2);
    Q_EMIT view.most_confused()->itemClicked(view.most_confused()->item(1));
    QCOMPARE(m->selected(), std::make_pair(int64_t{0}, int64_t{1}));
    QCOMPARE(view.per_class()->item(1, 2)->text(), QString("33.3%"));
    QCOMPARE(view.per_class()->item(2, 2)->text(), QString("100.0%"));
    // Points only for 2-D data: this run has none.
    QVERIFY(!view.regions()->isVisible());
  }

  // The examples behind a cell for data of one's own: 32x32 colour pictures in their colours, a
  // text in its vocabulary's words, a table row by its features.
  void examplesOfOwnDataShowAsThemselves() {
    QTemporaryDir root;
    TrainingController controller;
    LiveRun live(&controller);
    LearnedView view(&live);
    view.resize(900, 700);
    view.show();
    DatasetInfo pictures;
    pictures.name = "images";
    pictures.input_shape = {32, 32, 3};
    pictures.class_names = {"red", "green", "blue"};
    view.set_dataset(own_data(pictures, [](int64_t, int64_t label) {  // the label's colour channel lit
      torch::Tensor x = torch::zeros({32, 32, 3});
      x.select(2, label).fill_(1.0f);
      return x;
    }));
    QVERIFY(view.show_recorded(recorded_run(root)));
    ConfusionMatrixView* m = view.matrix();
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(1, 2));  // true green, taken for blue
    QCOMPARE(view.examples()->count(), 3);
    QVERIFY2(view.examples()->item(0)->text().contains("true 1 green"), qPrintable(view.examples()->item(0)->text()));
    const QImage picture = view.examples()->item(0)->icon().pixmap(48, 48).toImage();
    QVERIFY(!picture.isNull());
    QCOMPARE(picture.pixelColor(picture.width() / 2, picture.height() / 2).name(), QString("#00ff00"));

    DatasetInfo texts;
    texts.name = "texts";
    texts.kind = InputKind::kTokens;
    texts.input_shape = {4};
    texts.vocab_size = 7;
    texts.vocabulary = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"", "[UNK]", "the", "cat", "dog", "sat", "ran"});
    view.set_dataset(own_data(texts, [](int64_t, int64_t label) {  // "the cat sat" / "the dog ran" / "the [UNK]"
      const std::vector<int64_t> ids = label == 0 ? std::vector<int64_t>{2, 3, 5, 0}
                                       : label == 1 ? std::vector<int64_t>{2, 4, 6, 0}
                                                    : std::vector<int64_t>{2, 1, 0, 0};
      return torch::tensor(ids, torch::kInt64);
    }));
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(0, 0));  // the choice cleared
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(1, 2));
    QVERIFY2(view.examples()->item(0)->text().endsWith("\nthe dog ran"), qPrintable(view.examples()->item(0)->text()));
    QVERIFY(view.examples()->item(0)->icon().isNull());

    DatasetInfo table;
    table.name = "table";
    table.input_shape = {4};
    view.set_dataset(own_data(table, [](int64_t i, int64_t) { return torch::full({4}, static_cast<float>(i) + 0.5f); }));
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(0, 0));
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(1, 2));
    QVERIFY2(view.examples()->item(0)->text().endsWith("\nfeatures 6.5, 6.5, 6.5, 6.5"),
             qPrintable(view.examples()->item(0)->text()));
  }

  // A recorded run chosen on the Runs page shows on the Learned tab, and the next live run takes
  // the tab back.
  void aRecordedRunShowsUntilTheNextRunBegins() {
    QTemporaryDir root;
    TrainingController controller;
    LiveRun live(&controller);
    LearnedView view(&live);
    QVERIFY(view.show_recorded(recorded_run(root)));
    QVERIFY(view.showing_recorded());
    QCOMPARE(view.epoch_choice()->count(), 2);
    QVERIFY2(view.summary()->text().startsWith("Recorded run known."), qPrintable(view.summary()->text()));
    live.begin();
    QVERIFY(!view.showing_recorded());
    QCOMPARE(view.epoch_choice()->count(), 0);
    QVERIFY(view.shown() == nullptr);
    QVERIFY(!view.show_recorded(root.filePath("nothing")));
    QVERIFY2(view.summary()->text().contains("recorded no validations"), qPrintable(view.summary()->text()));
  }

  // The Data tab draws a point dataset as a scatter plot of its training split, and hides the plot
  // for other data.
  void theDataTabDrawsPointsAsAScatterPlot() {
    DatasetPanel panel;
    panel.show();
    QSignalSpy changed(&panel, &DatasetPanel::dataset_changed);
    panel.set_dataset("spirals");
    panel.load();
    QVERIFY(changed.wait(30000));
    QVERIFY(panel.dataset());
    QVERIFY(panel.point_plot()->isVisible());
    QCOMPARE(static_cast<int64_t>(panel.point_plot()->points().size()), panel.dataset()->size(Split::kTrain));
    panel.set_dataset("synthetic-text");
    panel.load();
    QVERIFY(changed.wait(60000));
    QVERIFY(!panel.point_plot()->isVisible());
  }

  // A dataset chosen while another loads: loading() holds until the second is in, never
  // reading false in between with no dataset (mirrorbench --train polled it and trained nothing).
  void aSecondChoiceWhileLoadingKeepsLoadingUntilItIsIn() {
    DatasetPanel panel;
    panel.set_dataset("synthetic-text");
    panel.load();
    panel.set_dataset("spirals");
    panel.load();
    QElapsedTimer t;
    t.start();
    int gaps = 0;
    while (t.elapsed() < 60000) {
      QCoreApplication::processEvents();
      if (panel.loading()) continue;
      if (!panel.dataset() || panel.dataset()->info().name != "spirals") ++gaps;
      break;
    }
    QCOMPARE(gaps, 0);
    QVERIFY(panel.dataset());
    QCOMPARE(panel.dataset()->info().name, std::string("spirals"));
  }

  // The page on a launcher of its own and the settings, as the window gives them, no window.
  void aFinishedRunsLearnedTabKeepsItsOwnClassNamesAndPoints() {
    RunLauncher launcher;
    SetupTabs setup;
    open_small_setup(setup, 1);
    if (QTest::currentTestFailed()) return;
    LearnedView learned(launcher.live());
    learned.set_dataset(setup.dataset());
    learned.resize(900, 600);
    learned.show();
    QSignalSpy done(launcher.live(), &LiveRun::run_finished);
    launcher.start_run(setup.current_config(), setup.dataset());
    QVERIFY(done.wait(60000));
    QTRY_VERIFY(learned.shown());
    const QString name = learned.per_class()->item(0, 0)->text();
    QCOMPARE(name, QString("0 class 0"));  // blobs' own class names
    QVERIFY2(learned.examples()->item(0)->text().contains("at ("), qPrintable(learned.examples()->item(0)->text()));

    // Another dataset loaded after the run: the run's tab still speaks of blobs.
    setup.open_dataset("xor", {});
    QTRY_VERIFY_WITH_TIMEOUT(!setup.dataset_panel()->loading() && setup.dataset() && setup.dataset()->info().name == "xor", 30000);
    learned.set_dataset(setup.dataset());
    QCOMPARE(learned.per_class()->item(0, 0)->text(), name);
    QVERIFY2(learned.examples()->item(0)->text().contains("at ("), qPrintable(learned.examples()->item(0)->text()));
  }
};

QTEST_MAIN(LearnedViewTest)
#include "test_learned_view.moc"
