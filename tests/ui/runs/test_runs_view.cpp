// The runs page's browser as a user drives it, on Qt's offscreen platform: rename, tag, notes,
// trash, following a run another process writes, crafted files listed as unreadable, a run
// folder opened from anywhere, and a run resumed from the browser. The compare view's tests are
// in test_compare_view.cpp, sweeps' and the scaling study's in test_sweeps.cpp.
#include <QAction>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "../ui_test_helpers.h"
#include "mirror/data/registry.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/train/trainer.h"
#include "mirror/util/words.h"
#include "ui/classroom/learned_view.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/run/run_metrics.h"
#include "ui/run/training_controller.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/runs_browser.h"
#include "ui/run/run_launcher.h"
#include "ui/run/live_run.h"
#include "ui/window/main_window.h"
#include "points_run.h"
#include "../scoped_runs_folder.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
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
    runs_ = record_three_runs(root_);
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
    // Runs chosen for you that the filter hides bring every run back (it stayed on after a study).
    b.select_runs({runs_[0]});
    QVERIFY(b.filter()->text().isEmpty());
    for (int r = 0; r < t->rowCount(); ++r) QVERIFY(!t->isRowHidden(r));
    b.filter()->setText("keep");
    b.select_runs({runs_[2]});  // one the filter shows: it stays
    QCOMPARE(b.filter()->text(), QString("keep"));
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
    {
      const ScopedRunsFolder folders(root, /*own_lessons=*/true, own);
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
      QCOMPARE(lessons.list()->count(), 5);  // the five built-in ones; deep.json refused
      QCOMPARE(lessons.warnings().size(), size_t{1});
      QVERIFY(QString::fromStdString(lessons.warnings()[0]).contains("deep.json is nested 100,000 levels deep"));
    }
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

  void resumeFromTheBrowserContinuesExactly() {
    MainWindow w(false);
    w.show();
    TrainConfig c = mirror::testing::points_run(/*epochs=*/3, /*batch=*/32, /*logical=*/2, /*train_size=*/4096,
                                                /*val_size=*/256);
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
    const QString dir = w.launcher()->run_dir();
    QTRY_VERIFY_WITH_TIMEOUT(w.launcher()->live()->metrics().steps() > 40, 30000);
    w.stop_action()->trigger();
    QVERIFY(finished.wait(30000));
    QCOMPARE(w.launcher()->live()->last_result().status, RunStatus::kStopped);
    const int64_t stopped_at = w.launcher()->live()->last_result().steps;
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
    QCOMPARE(w.launcher()->live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(w.launcher()->live()->last_result().param_l2_norm, whole.param_l2_norm);
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
    QCOMPARE(w.launcher()->live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(w.launcher()->live()->last_result().param_l2_norm, four.param_l2_norm);
    const RunRecord longer = read_run(dir.toStdString());
    QCOMPARE(longer.steps.size(), size_t{4 * 128});
    QCOMPARE(longer.epochs.size(), size_t{4});
    QCOMPARE(longer.epochs.back().epoch, 4);
  }
};

QTEST_MAIN(RunsViewTest)
#include "test_runs_view.moc"
