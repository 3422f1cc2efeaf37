// The runs page as a user drives it, on Qt's offscreen platform: the browser (rename, tag, notes,
// trash, following a run another process writes), the compare view on three recorded runs, its
// exports, and sweeps and the scaling study started from the window.
#include <QAction>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QLogValueAxis>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "mirror/data/registry.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/runs/sweep.h"
#include "mirror/train/trainer.h"
#include "mirror/util/words.h"
#include "ui/classroom/learned_view.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/run/training_controller.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/runs_browser.h"
#include "ui/runs/sweep_dialog.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/window/main_window.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
// Trains and records a real run: the spirals MLP on a small blobs set, 2 epochs.
QString record_run(const QString& root, const QString& name, double lr, int logical) {
  TrainConfig c = config_from_preset("spirals-mlp");
  c.dataset.name = "blobs";
  c.dataset.train_size = 512;
  c.dataset.val_size = 128;
  c.optimizer.learning_rate = lr;
  c.devices.logical = logical;
  c.batch_size = 32;
  c.epochs = 2;
  const QString dir = root + "/" + name;
  Trainer trainer(c, load_dataset(c.dataset));
  RunWriter writer(dir.toStdString(), to_json(c));
  TrainControl control;
  trainer.run(writer, control);
  return dir;
}

QString text_of(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Pixels within a small distance of `c`.
int pixels_like(const QImage& image, const QColor& c) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor p = image.pixelColor(x, y);
      if (std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) + std::abs(p.blue() - c.blue()) < 30) ++n;
    }
  return n;
}

int column(const QTableWidget* t, const QString& header) {
  for (int c = 0; c < t->columnCount(); ++c)
    if (t->horizontalHeaderItem(c)->text() == header) return c;
  return -1;
}

void append(const QString& path, const std::string& text) {
  std::ofstream(path.toStdString(), std::ios::app | std::ios::binary) << text;
}

std::string step_line(int64_t step) {
  return "{\"type\":\"step\",\"epoch\":1,\"global_step\":" + std::to_string(step) +
         ",\"samples\":10,\"step_seconds\":0.01,\"loss\":" + std::to_string(2.0 / static_cast<double>(step)) + "}\n";
}
}  // namespace

class RunsViewTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  QString root_;
  QStringList runs_;  // lr 0.01 on 1 device, 0.05 on 2, 0.1 on 4

 private Q_SLOTS:
  void initTestCase() {
    register_event_types();
    QVERIFY(tmp_.isValid());
    // The desktop trash goes under XDG_DATA_HOME: keep it in the test's folder, on the runs' file system.
    qputenv("XDG_DATA_HOME", (tmp_.path() + "/data").toUtf8());
    root_ = tmp_.path() + "/runs";
    QDir().mkpath(root_);
    runs_ << record_run(root_, "20261130-100000-a", 0.01, 1) << record_run(root_, "20261130-100100-b", 0.05, 2)
          << record_run(root_, "20261130-100200-c", 0.1, 4);
  }

  void compareViewOverlaysThreeRecordedRuns() {
    std::vector<RunRecord> runs;
    for (const auto& d : runs_) runs.push_back(read_run(d.toStdString()));
    CompareView view;
    view.resize(1200, 800);
    view.show();
    view.set_runs(runs);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // One line per run in each chart, plus its validation line; the legend names each run once.
    QChart* loss = view.loss_chart()->chart();
    QCOMPARE(loss->series().size(), 6);
    QStringList legend;
    for (auto* marker : loss->legend()->markers())
      if (marker->isVisible()) legend << marker->label();
    QCOMPARE(legend, QStringList({"20261130-100000-a", "20261130-100100-b", "20261130-100200-c"}));
    auto* first = qobject_cast<QLineSeries*>(loss->series()[0]);
    auto* second = qobject_cast<QLineSeries*>(loss->series()[2]);
    QVERIFY(first && second);
    QVERIFY(first->color() != second->color());
    QCOMPARE(first->color(), view.colour(0));
    // 512 examples in batches of 32: 16 steps an epoch, 32 in all.
    auto x_max = [&] { return qobject_cast<QValueAxis*>(loss->axes(Qt::Horizontal)[0])->max(); };
    QCOMPARE(x_max(), 32.0);
    QCOMPARE(first->at(first->count() - 1).x(), 32.0);
    view.set_x_axis(XAxis::kSamples);
    QCOMPARE(x_max(), 1024.0);
    view.set_x_axis(XAxis::kEpoch);
    QCOMPARE(x_max(), 2.0);
    first = qobject_cast<QLineSeries*>(loss->series()[0]);
    QCOMPARE(first->at(15).x(), 1.0);  // the last step of epoch 1
    double train_end = 0, wall_end = 0;
    for (const auto& r : runs) {
      train_end = std::max(train_end, r.steps.back().train_seconds);
      wall_end = std::max(wall_end, r.epochs.back().wall_seconds);
    }
    view.set_x_axis(XAxis::kTime);
    QCOMPARE(x_max(), train_end);
    view.set_x_axis(XAxis::kWall);
    QCOMPARE(x_max(), wall_end);
    QVERIFY(wall_end > train_end);  // validation counts in wall time only
    // Smoothing off shows the raw steps; the log axis is for the loss.
    view.set_x_axis(XAxis::kStep);
    view.set_smoothing(0);
    first = qobject_cast<QLineSeries*>(loss->series()[0]);
    QCOMPARE(first->at(0).y(), runs[0].steps[0].loss);
    view.set_smoothing(0.9);
    first = qobject_cast<QLineSeries*>(loss->series()[0]);
    QCOMPARE(first->at(0).y(), runs[0].steps[0].loss);  // debiased: the first point is the raw one
    QVERIFY(first->at(5).y() != runs[0].steps[5].loss);
    view.set_log_loss(true);
    QVERIFY(qobject_cast<QLogValueAxis*>(loss->axes(Qt::Vertical)[0]) != nullptr);
    QVERIFY(qobject_cast<QValueAxis*>(view.accuracy_chart()->chart()->axes(Qt::Vertical)[0]) != nullptr);
    view.set_log_loss(false);
    // A dark theme keeps each run's colour; projector lines are thicker.
    view.set_dark(true);
    view.set_line_width(4);
    first = qobject_cast<QLineSeries*>(loss->series()[0]);
    QCOMPARE(first->color(), view.colour(0));
    QCOMPARE(first->pen().widthF(), 4.0);
    view.set_dark(false);
    view.set_line_width(2);
    // The table: the settings that differ, then the results.
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), 3);
    const int lr = column(t, "optimizer.learning_rate");
    const int logical = column(t, "devices.logical");
    const int best = column(t, "best_val_accuracy");
    QVERIFY(lr > 0 && logical > 0 && best > 0);
    QCOMPARE(column(t, "seed"), -1);  // the same in every run: not shown
    QCOMPARE(t->item(1, lr)->text(), QString("0.05"));
    QCOMPARE(t->item(2, logical)->text(), QString("4"));
    QCOMPARE(t->item(0, best)->text(), QString::number(runs[0].best_val_accuracy, 'f', 4));
    // The runs differ in learning rate as well as device count: not one scaling study (medians
    // over different rates would measure the rates), so the scaling page says so and stays off.
    QVERIFY(!view.pages()->isTabEnabled(1));
    QVERIFY2(view.scaling_text()->text().startsWith(
                 "These runs differ in more than their devices (optimizer.learning_rate)"),
             qPrintable(view.scaling_text()->text()));

    // Exports: the image shows every run's colour; the SVG is a vector drawing; the reports embed the charts.
    view.set_x_axis(XAxis::kStep);
    const QString png = tmp_.filePath("compare.png");
    QVERIFY(view.export_png(png));
    const QImage image(png);
    QVERIFY(image.width() > 600 && image.height() > 400);
    for (size_t i = 0; i < 3; ++i) QVERIFY2(pixels_like(image, view.colour(i)) > 100, qPrintable(QString("run %1").arg(i)));
    const QString svg = tmp_.filePath("compare.svg");
    QVERIFY(view.export_svg(svg));
    QVERIFY(text_of(svg).contains("<svg"));
    const QString html_path = tmp_.filePath("report.html");
    QVERIFY(view.export_report(html_path));
    const QString html = text_of(html_path);
    QCOMPARE(html.count("data:image/png;base64,"), 2);  // loss and accuracy: no scaling study here
    QVERIFY(html.contains("<td>0.05</td>"));
    QVERIFY(!html.contains("<h2>Scaling</h2>"));
    const int at = html.indexOf("base64,") + 7;
    const QImage embedded = QImage::fromData(QByteArray::fromBase64(html.mid(at, html.indexOf('"', at) - at).toLatin1()));
    QCOMPARE(embedded.size(), QSize(900, 420));
    const QString md_path = tmp_.filePath("report.md");
    QVERIFY(view.export_report(md_path));
    const QString md = text_of(md_path);
    QVERIFY(md.startsWith("# Run comparison"));
    QVERIFY(md.contains("| run | optimizer.learning_rate |") || md.contains("| run | devices.logical |"));
    QCOMPARE(md.count("](data:image/png;base64,"), 2);
    QVERIFY(!view.export_report(tmp_.filePath("no/such/folder/report.html")));
  }

  // Runs that differ only in learning rate are not a scaling study: the report has no Scaling
  // section (it used to add one, with efficiencies of runs on the same devices).
  void reportOfRunsOnTheSameDevicesHasNoScalingSection() {
    const QString root = tmp_.path() + "/lr-only";
    QDir().mkpath(root);
    std::vector<RunRecord> runs = {read_run(record_run(root, "20261130-110000-lr1", 0.01, 2).toStdString()),
                                   read_run(record_run(root, "20261130-110100-lr2", 0.05, 2).toStdString())};
    CompareView view;
    view.resize(1200, 800);
    view.set_runs(runs);
    const QString path = tmp_.filePath("lr-only.html");
    QVERIFY(view.export_report(path));
    const QString html = text_of(path);
    QVERIFY(!html.contains("<h2>Scaling</h2>"));
    QCOMPARE(html.count("data:image/png;base64,"), 2);  // loss and accuracy only
    QVERIFY(html.contains("20261130-110100-lr2"));
  }

  void browserListsRenamesTagsAndAnnotates() {
    RunsBrowser b(root_);
    QTRY_VERIFY_WITH_TIMEOUT(!b.loading(), 10000);
    b.set_confirm(false);
    QTableWidget* t = b.table();
    QCOMPARE(t->rowCount(), 3);
    QCOMPARE(t->item(0, 0)->text(), QString("20261130-100200-c"));  // newest first
    QCOMPARE(t->item(0, 1)->text(), QString("finished"));
    QCOMPARE(t->item(0, 4)->text(), QString("4 × cpu:0"));
    QCOMPARE(t->item(0, 6)->text(), QString("32"));
    // Rename in place: the table's name cell edits meta.json; the directory stays.
    t->item(0, 0)->setText("fast lr");
    QCOMPARE(read_meta(runs_[2].toStdString()).name, std::string("fast lr"));
    QVERIFY(QDir(runs_[2]).exists());
    QVERIFY(b.set_tags(runs_[2], {"lr", " keep "}));
    QCOMPARE(read_meta(runs_[2].toStdString()).tags, (std::vector<std::string>{"lr", "keep"}));
    // Notes typed for the current run are saved on their own.
    b.select_runs({runs_[2]});
    QCOMPARE(t->item(t->currentRow(), 0)->data(Qt::UserRole).toString(), runs_[2]);
    QVERIFY(b.notes()->isEnabled());
    b.notes()->setFocus();
    QTest::keyClicks(b.notes(), "diverges after epoch 3");
    QTRY_COMPARE_WITH_TIMEOUT(read_meta(runs_[2].toStdString()).notes, std::string("diverges after epoch 3"), 3000);
    // Filtering by tag.
    b.filter()->setText("keep");
    int shown = 0;
    for (int r = 0; r < t->rowCount(); ++r) shown += t->isRowHidden(r) ? 0 : 1;
    QCOMPARE(shown, 1);
    b.filter()->clear();
    // The selection is what gets compared.
    QSignalSpy selected(&b, &RunsBrowser::selection_changed);
    b.select_runs({runs_[0], runs_[1]});
    QVERIFY(!selected.isEmpty());
    const auto picked = selected.last().at(0).value<std::vector<RunRecord>>();
    QCOMPARE(picked.size(), size_t{2});
    // Rename back to the directory's name clears the name.
    QVERIFY(b.rename(runs_[2], "20261130-100200-c"));
    QCOMPARE(read_meta(runs_[2].toStdString()).name, std::string());
  }

  void browserFollowsARunAnotherProcessIsWriting() {
    const QString live = root_ + "/20261130-110000-live";
    QDir().mkpath(live);
    const nlohmann::json run = {{"status", "running"}, {"host", host_name()}, {"pid", static_cast<int64_t>(::getpid())},
                                {"config", {{"dataset", {{"name", "blobs"}}}}}, {"devices", {"cpu:0/logical:0", "cpu:0/logical:1"}}};
    std::ofstream((live + "/run.json").toStdString()) << run.dump();
    append(live + "/metrics.jsonl", step_line(1) + step_line(2));
    RunsBrowser b(root_);
    QTRY_VERIFY_WITH_TIMEOUT(!b.loading(), 10000);
    CompareView view;
    connect(&b, &RunsBrowser::selection_changed, &view, &CompareView::set_runs);
    b.select_runs({live});
    QCOMPARE(view.runs().size(), size_t{1});
    QCOMPARE(view.runs()[0].steps.size(), size_t{2});
    QCOMPARE(view.runs()[0].status, std::string("running"));
    // The writer appends (the last line only half-way for now): the browser's own timer picks up
    // the whole lines.
    append(live + "/metrics.jsonl", step_line(3) + step_line(4) + step_line(5).substr(0, 12));
    QTRY_COMPARE_WITH_TIMEOUT(view.runs()[0].steps.size(), size_t{4}, 5000);
    QVERIFY(view.runs()[0].warnings.empty());
    append(live + "/metrics.jsonl", step_line(5).substr(12));
    QTRY_COMPARE_WITH_TIMEOUT(view.runs()[0].steps.size(), size_t{5}, 5000);
    // The writer's process dies without finishing: the run reads as interrupted.
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    nlohmann::json dead = run;
    dead["pid"] = child;
    std::ofstream((live + "/run.json.tmp").toStdString()) << dead.dump();
    QFile::remove(live + "/run.json");
    QFile::rename(live + "/run.json.tmp", live + "/run.json");
    QTRY_COMPARE_WITH_TIMEOUT(view.runs()[0].status, std::string("interrupted"), 5000);
    // A new run appearing under the root is listed without asking.
    const int before = b.table()->rowCount();
    QDir().mkpath(root_ + "/20261130-120000-new");
    std::ofstream((root_ + "/20261130-120000-new/run.json").toStdString())
        << "{\"status\": \"finished\", \"started_at\": \"2099-01-01T00:00:00Z\"}";
    QTRY_COMPARE_WITH_TIMEOUT(b.table()->rowCount(), before + 1, 5000);
    QCOMPARE(b.table()->item(0, 0)->text(), QString("20261130-120000-new"));  // the newest goes on top
    // ... and counted.
    QVERIFY2(b.status_line()->text().startsWith(QString::fromStdString(counted(before + 1, "run")) + " in"),
             qPrintable(b.status_line()->text()));
    // A corrupt run.json is listed as unreadable with the reason, not dropped.
    QDir().mkpath(root_ + "/20261130-130000-broken");
    std::ofstream((root_ + "/20261130-130000-broken/run.json").toStdString()) << "{\"status\": \"runn";  // cut short
    b.refresh();
    QCOMPARE(b.table()->rowCount(), before + 2);
    bool unreadable = false;
    for (int r = 0; r < b.table()->rowCount(); ++r)
      unreadable = unreadable || (b.table()->item(r, 1)->text() == "unreadable" &&
                                  b.table()->item(r, 0)->toolTip().contains("not valid JSON"));
    QVERIFY(unreadable);
  }

  void craftedFilesAreListedAsUnreadableAndTheWindowStillStarts() {
    // A runs root and a lessons folder of their own: a run.json nested 100,000 deep (the window
    // crashed at every start), one that is a directory, a good run whose evaluations.jsonl ends
    // with a line nested that deep (the Learned tab crashed), and a lesson nested that deep.
    QTemporaryDir crafted;
    const QString root = crafted.path() + "/runs", own = crafted.path() + "/lessons";
    const std::string nest = [] {
      std::string s;
      for (int i = 0; i < 100'000; ++i) s += "{\"a\":";
      return s + "1" + std::string(100'000, '}');
    }();
    const QString good = record_run(root, "20261201-100000-good", 0.01, 1);
    std::ofstream((good + "/evaluations.jsonl").toStdString(), std::ios::app) << nest << "\n";
    QDir().mkpath(root + "/20261201-110000-deep");
    std::ofstream((root + "/20261201-110000-deep/run.json").toStdString()) << R"({"status": "finished", "config": )" << nest << "}";
    QDir().mkpath(root + "/20261201-120000-directory/run.json");
    QDir().mkpath(own);
    std::ofstream((own + "/deep.json").toStdString()) << nest;
    const QByteArray runs_dir = qgetenv("MIRROR_RUNS_DIR"), lessons_dir = qgetenv("MIRROR_LESSONS_DIR");
    qputenv("MIRROR_RUNS_DIR", root.toUtf8());
    qputenv("MIRROR_LESSONS_DIR", own.toUtf8());
    {
      MainWindow w(false);
      w.show();
      RunsBrowser* b = w.runs_browser();
      QTRY_VERIFY_WITH_TIMEOUT(!b->loading(), 10000);
      QCOMPARE(b->table()->rowCount(), 3);
      QStringList reasons;
      for (int r = 0; r < b->table()->rowCount(); ++r)
        if (b->table()->item(r, 1)->text() == "unreadable") reasons << b->table()->item(r, 0)->toolTip();
      QCOMPARE(reasons.size(), 2);
      QVERIFY2(reasons.join("\n").contains("run.json is nested 100,001 levels deep; the limit is 256"), qPrintable(reasons.join("\n")));
      QVERIFY2(reasons.join("\n").contains("run.json is a directory, not a run.json"), qPrintable(reasons.join("\n")));
      // What the good run learned: its two epochs, the deep line skipped.
      b->select_runs({good});
      b->learned_button()->click();
      QVERIFY(w.learned_view()->showing_recorded());
      QVERIFY(w.learned_view()->shown());
      QCOMPARE(w.learned_view()->shown()->epoch, 2);
      // The lessons: the built-in ones, the deep one named with the reason.
      LessonsDialog lessons;
      QCOMPARE(lessons.list()->count(), 4);
      QCOMPARE(lessons.warnings().size(), size_t{1});
      QVERIFY(QString::fromStdString(lessons.warnings()[0]).contains("deep.json is nested 100,000 levels deep"));
    }
    for (const auto& [name, value] : {std::pair{"MIRROR_RUNS_DIR", runs_dir}, std::pair{"MIRROR_LESSONS_DIR", lessons_dir}})
      value.isEmpty() ? qunsetenv(name) : qputenv(name, value);
  }

  void browserOpensARunFolderFromAnywhere() {
    QTemporaryDir elsewhere;
    const QString job = record_run(elsewhere.path(), "cluster-job", 0.02, 2);
    RunsBrowser b(root_);
    QTRY_VERIFY_WITH_TIMEOUT(!b.loading(), 10000);
    const int before = b.table()->rowCount();
    QString error;
    QVERIFY2(b.open_run(job, &error), qPrintable(error));
    QCOMPARE(b.table()->rowCount(), before + 1);
    QCOMPARE(b.selected_runs().size(), size_t{1});
    QCOMPARE(QString::fromStdString(b.selected_runs()[0].dir), job);
    b.refresh();  // not under the root, and still listed
    QCOMPARE(b.table()->rowCount(), before + 1);
    QVERIFY(!b.open_run(elsewhere.path(), &error));
    QVERIFY2(error.contains("no run.json"), qPrintable(error));
  }

  void deletingMovesToTheTrashAndSparesALiveRun() {
    const QString doomed = record_run(root_, "20261130-140000-doomed", 0.01, 1);
    const QString live = root_ + "/20261130-140100-writing";
    QDir().mkpath(live);
    std::ofstream((live + "/run.json").toStdString())
        << nlohmann::json{{"status", "running"}, {"host", host_name()}, {"pid", static_cast<int64_t>(::getpid())}}.dump();
    RunsBrowser b(root_);
    QTRY_VERIFY_WITH_TIMEOUT(!b.loading(), 10000);
    const int before = b.table()->rowCount();
    QCOMPARE(b.move_to_trash({doomed, live}), 1);
    QVERIFY(!QDir(doomed).exists());
    QVERIFY(QDir(live).exists());
    QVERIFY2(b.status_line()->text().contains("still being written"), qPrintable(b.status_line()->text()));
    QCOMPARE(b.table()->rowCount(), before - 1);
    QVERIFY(QFile::exists(tmp_.path() + "/data/Trash/files/20261130-140000-doomed/run.json"));
  }

  void sweepDialogCountsRunsAndRefusesBadValues() {
    TrainConfig base = config_from_preset("spirals-mlp");
    SweepDialog d(base);
    d.learning_rates()->setText("0.01, 0.1");
    d.batch_sizes()->setText("16,32,64");
    QCOMPARE(d.points().size(), size_t{6});
    QCOMPARE(QString::fromStdString(d.points()[5].label), QString("lr=0.1 batch=64"));
    QCOMPARE(d.points()[5].config.devices.logical, base.devices.logical);
    d.logical_devices()->setText("1,2");
    QCOMPARE(d.points().size(), size_t{12});
    d.batch_sizes()->setText("16,fast");
    QVERIFY(d.points().empty());
    // Named as the field is, not by its config key.
    QCOMPARE(d.problem(), QString("Batch size: 'fast' is not a whole number"));
    // Spaces separate values as commas do.
    d.batch_sizes()->setText("16 32");
    d.learning_rates()->setText("0.01 0.1,  1");
    QCOMPARE(d.points().size(), size_t{12});
    // The dialog says what the runs will train: the dataset, the model and the devices.
    const QString intro = d.intro()->text();
    QVERIFY2(intro.contains("<b>spirals</b>") && intro.contains("<b>spirals-mlp</b>") && intro.contains("<b>the CPU</b>"),
             qPrintable(intro));
    d.batch_sizes()->setText("32");
    d.logical_devices()->setText("1");
    d.learning_rates()->setText("0.1");
    QCOMPARE(d.points().size(), size_t{1});
  }

  void resumeFromTheBrowserContinuesExactly() {
    MainWindow w(false);
    w.show();
    TrainConfig c = config_from_preset("spirals-mlp");
    c.dataset.name = "blobs";
    c.dataset.train_size = 4096;
    c.dataset.val_size = 256;
    c.batch_size = 32;
    c.epochs = 3;
    c.devices.logical = 2;
    c.strategy.deterministic = true;
    const auto data = load_dataset(c.dataset);
    // The uninterrupted run, headless.
    RunFinished whole;
    {
      Trainer trainer(c, data);
      EventSink none;
      TrainControl control;
      whole = trainer.run(none, control);
    }
    QCOMPARE(whole.status, RunStatus::kFinished);
    // The same run in the window, stopped part-way: paced, so that it cannot end before Stop
    // (unpaced, a quiet machine trains all 384 steps between two looks at the step count).
    QSignalSpy finished(&w, &MainWindow::run_finished);
    w.set_pace(100);
    w.start_run(c, data);
    const QString dir = w.run_dir();
    QTRY_VERIFY_WITH_TIMEOUT(w.metrics().steps() > 40, 30000);
    w.stop_action()->trigger();
    QVERIFY(finished.wait(30000));
    QCOMPARE(w.last_result().status, RunStatus::kStopped);
    const int64_t stopped_at = w.last_result().steps;
    QVERIFY(stopped_at < 3 * 128);
    // Resumed from the runs page.
    RunsBrowser* b = w.runs_browser();
    QTRY_VERIFY_WITH_TIMEOUT(!b->loading(), 10000);
    b->refresh();
    b->select_runs({dir});
    QVERIFY(b->resume_button()->isEnabled());
    finished.clear();
    w.set_pace(0);
    b->resume_button()->click();
    QVERIFY(finished.wait(60000));
    QCOMPARE(w.last_result().status, RunStatus::kFinished);
    QCOMPARE(w.last_result().param_l2_norm, whole.param_l2_norm);
    const RunRecord r = read_run(dir.toStdString());
    QCOMPARE(r.status, std::string("finished"));
    QCOMPARE(r.steps.size(), size_t{3 * 128});  // every step once, the ones after the checkpoint not twice
    QCOMPARE(r.steps.back().global_step, int64_t{3 * 128});
    QCOMPARE(r.run.value("resumed_from_step", int64_t{0}), stopped_at);
    // A finished run can be trained on: to epoch 4 it matches an uninterrupted 4-epoch run.
    b->refresh();
    b->select_runs({dir});
    QVERIFY(b->resume_button()->isEnabled());
    QCOMPARE(b->resume_button()->text(), QString("Continue…"));
    c.epochs = 4;
    RunFinished four;
    {
      Trainer trainer(c, data);
      EventSink none;
      TrainControl control;
      four = trainer.run(none, control);
    }
    finished.clear();
    w.resume_run(dir, 4);
    QVERIFY(finished.wait(60000));
    QCOMPARE(w.last_result().status, RunStatus::kFinished);
    QCOMPARE(w.last_result().param_l2_norm, four.param_l2_norm);
    const RunRecord longer = read_run(dir.toStdString());
    QCOMPARE(longer.steps.size(), size_t{4 * 128});
    QCOMPARE(longer.epochs.size(), size_t{4});
    QCOMPARE(longer.epochs.back().epoch, 4);
  }

  void sweepAndScalingStudyRunFromTheWindow() {
    MainWindow w(false);
    w.resize(1400, 900);
    w.show();
    w.apply_preset("spirals-mlp");
    w.dataset_panel()->set_dataset("blobs");
    w.dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w.dataset_panel()->loading() && w.dataset_panel()->dataset() &&
                                 w.dataset_panel()->dataset()->info().name == "blobs", 30000);
    w.training_panel()->set_values("adam", 0.01, 64, 1);
    TrainConfig base = w.current_config();
    base.max_steps = 12;
    QSignalSpy done(&w, &MainWindow::sweep_finished);
    w.start_sweep(expand_sweep(base, {parse_sweep_axis("lr=0.01,0.1")}), false);
    QVERIFY(w.sweeping());
    QVERIFY(done.wait(120000));
    const QStringList dirs = done.at(0).at(0).toStringList();
    QCOMPARE(dirs.size(), 2);
    for (int i = 0; i < 2; ++i) {
      const RunRecord r = read_run(dirs[i].toStdString());
      QCOMPARE(r.status, std::string("finished"));
      QCOMPARE(r.run["sweep"]["index"].get<int>(), i + 1);
      QCOMPARE(r.steps.size(), size_t{12});
    }
    QCOMPARE(read_meta(dirs[1].toStdString()).name, std::string("lr=0.1"));
    // Compared on the Runs page when done.
    QCOMPARE(w.views()->currentWidget()->objectName(), QString("runs-page"));
    QCOMPARE(w.compare_view()->runs().size(), size_t{2});
    QVERIFY(!w.sweeping());
    // One of them, on the Learned tab: what its model learned, as recorded.
    QVERIFY(!w.runs_browser()->learned_button()->isEnabled());  // two selected
    w.runs_browser()->select_runs({dirs[1]});
    QVERIFY(w.runs_browser()->learned_button()->isEnabled());
    w.runs_browser()->learned_button()->click();
    QCOMPARE(w.views()->currentWidget(), static_cast<QWidget*>(w.learned_view()));
    QVERIFY(w.learned_view()->showing_recorded());
    QVERIFY(w.learned_view()->shown());
    QCOMPARE(w.learned_view()->shown()->total(), w.dataset_panel()->dataset()->size(Split::kValidation));

    // The scaling study: 1, 2 and 4 logical devices, shown on the scaling page.
    done.clear();
    w.start_scaling_study();
    QVERIFY(done.wait(240000));
    QCOMPARE(done.at(0).at(0).toStringList().size(), 3 * kScalingTries);  // interleaved tries of each count
    QCOMPARE(w.compare_view()->pages()->currentIndex(), 1);
    QCOMPARE(w.compare_view()->scaling_table()->rowCount(), 3);
    QCOMPARE(w.compare_view()->scaling_table()->item(0, 0)->text(), QString("1"));
    QCOMPARE(w.compare_view()->scaling_table()->item(2, 0)->text(), QString("4"));
    QCOMPARE(w.compare_view()->scaling_table()->item(2, 1)->text(), QString::number(kScalingTries));
    const QString reading = w.compare_view()->scaling_text()->text();
    qInfo("scaling study: %s", qPrintable(reading));
    QVERIFY2(reading.contains("Baseline: 1 replica") && reading.contains("median of 3 tries") &&
                 reading.contains("Load average (1 minute)"),
             qPrintable(reading));
    // Throughput: a box per count (slowest, median, fastest try) against a perfect-scaling line.
    auto* throughput = w.compare_view()->findChild<QChartView*>("scaling_throughput");
    QVERIFY(throughput);
    QBoxPlotSeries* boxes = nullptr;
    for (QAbstractSeries* series : throughput->chart()->series())
      if (auto* b = qobject_cast<QBoxPlotSeries*>(series)) boxes = b;
    QVERIFY(boxes);
    QCOMPARE(boxes->count(), 3);
    const QBoxSet* four = boxes->boxSets()[2];
    QCOMPARE(QString::number(four->at(QBoxSet::Median), 'f', 0), w.compare_view()->scaling_table()->item(2, 2)->text());
    QVERIFY(four->at(QBoxSet::LowerExtreme) <= four->at(QBoxSet::Median) &&
            four->at(QBoxSet::Median) <= four->at(QBoxSet::UpperExtreme));

    // Stop during a sweep ends the sweep, not just the run.
    done.clear();
    base.max_steps = 0;
    base.epochs = 50;
    w.start_sweep(expand_sweep(base, {parse_sweep_axis("lr=0.01,0.02,0.03")}), false);
    QTRY_VERIFY_WITH_TIMEOUT(w.metrics().steps() > 3, 30000);
    w.stop_action()->trigger();
    QVERIFY(done.wait(30000));
    QCOMPARE(done.at(0).at(0).toStringList().size(), 1);
    QCOMPARE(read_run(done.at(0).at(0).toStringList()[0].toStdString()).status, std::string("stopped"));
  }
};

QTEST_MAIN(RunsViewTest)
#include "test_runs_view.moc"
