// Names the window did not write (a run's name and status message in run.json, a run folder's
// name, a Keras layer's name, a lesson file's name) show as their characters, never as markup:
// in chart legends and what is exported from them, the runs list's tooltips, the Keras error
// box, the lessons dialog, the reports, and the Learned tab of a run on your own data (class
// names from a CSV's labels). And a launch script never carries a name as code.
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>

#include "../ui_test_helpers.h"
#include "mirror/data/registry.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/train/trainer.h"
#include "ui/classroom/confusion_matrix.h"
#include "ui/classroom/learned_view.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/run/live_run.h"
#include "ui/run/training_controller.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/runs_browser.h"
#include "ui/setup/launch_dialog.h"
#include "ui/widgets/plain_text.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"
#include "points_run.h"
#include "../scoped_runs_folder.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
const QString kHeading = "<h1>BIG</h1><img src=x onerror=alert(1)>";
const QString kEntities = "a & b &lt;c&gt;";
const QString kLink = "[x](javascript:alert(1)) a|b `c`";

// What Qt shows for `text` in a place that decides by looking (Qt::AutoText): a tooltip, a
// QMessageBox, a QLabel left on AutoText.
QString shown_auto(const QString& text) {
  if (!Qt::mightBeRichText(text)) return text;
  QTextDocument doc;
  doc.setHtml(text);
  return doc.toPlainText();
}

QString shown(const QLabel* label) {
  if (label->textFormat() == Qt::PlainText) return label->text();
  if (label->textFormat() == Qt::AutoText) return shown_auto(label->text());
  QTextDocument doc;
  doc.setHtml(label->text());
  return doc.toPlainText();
}

// Every text a chart's scene shows (legend labels, titles, axis labels), as shown.
QStringList scene_texts(QChartView* view) {
  QStringList out;
  for (QGraphicsItem* item : view->chart()->scene()->items())
    if (auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item); text && text->isVisible()) out << text->toPlainText();
  return out;
}

QString text_of(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// A short recorded run in `root`/`folder`, named `name` in meta.json.
QString record_named_run(const QString& root, const QString& folder, const QString& name, double lr) {
  TrainConfig c = mirror::testing::points_run(/*epochs=*/2, /*batch=*/32, /*logical=*/2, /*train_size=*/256, /*val_size=*/64);
  c.optimizer.learning_rate = lr;
  const QString dir = record_config(root + "/" + folder, c);
  write_meta(dir.toStdString(), RunMeta{name.toStdString(), {}, {}});
  return dir;
}

// Calls `act`, which opens a modal QMessageBox; returns what the box showed, and closes it.
QString message_box_text(const std::function<void()>& act) {
  QString seen = "(no message box)";
  QTimer poll;
  poll.setInterval(20);
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
      seen = box->textFormat() == Qt::PlainText ? box->text()
             : box->textFormat() == Qt::RichText ? [&] { QTextDocument d; d.setHtml(box->text()); return d.toPlainText(); }()
                                                 : shown_auto(box->text());
      box->done(0);
    }
  });
  poll.start();
  act();
  return seen;
}
}  // namespace

class UntrustedNamesTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  QString root_;
  QStringList dirs_;

 private Q_SLOTS:
  void initTestCase() {
    register_event_types();
    QVERIFY(tmp_.isValid());
    root_ = tmp_.path() + "/runs";
    QDir().mkpath(root_);
    dirs_ << record_named_run(root_, "20261201-100000-<h1>folder", kHeading, 0.01)
          << record_named_run(root_, "20261201-100100-b", kEntities, 0.05)
          << record_named_run(root_, "20261201-100200-c", kLink, 0.1);
  }

  void legendsAndTheirExportsShowRunNamesAsWritten() {
    std::vector<RunRecord> runs;
    for (const QString& d : dirs_) runs.push_back(read_run(d.toStdString()));
    CompareView view;
    view.resize(2600, 900);  // legends wide enough for whole names
    view.show();
    view.set_runs(runs);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto charts = view.findChildren<QChartView*>();
    QVERIFY(!charts.isEmpty());
    int checked = 0;
    for (QChartView* chart : charts) {
      const auto series = chart->chart()->series();
      if (std::none_of(series.begin(), series.end(), [](auto* s) { return s->name().contains("BIG"); })) continue;
      ++checked;
      const QStringList texts = scene_texts(chart);
      for (const QString& name : {kHeading, kEntities, kLink})
        QVERIFY2(texts.contains(name), qPrintable(name + " not among " + texts.join(" | ")));
    }
    QCOMPARE(checked, 2);  // loss and accuracy
    const QString svg = tmp_.filePath("compare.svg");
    QVERIFY(view.export_svg(svg));
    const QString drawing = text_of(svg);
    QVERIFY2(drawing.contains("&lt;h1&gt;BIG&lt;/h1&gt;&lt;img src=x onerror=alert(1)&gt;"), qPrintable(drawing.left(4000)));
    QVERIFY(!drawing.contains("<h1>") && !drawing.contains("<img src=x"));

    const QString html_path = tmp_.filePath("report.html");
    QVERIFY(view.export_report(html_path));
    const QString html = text_of(html_path);
    QVERIFY(html.contains("&lt;h1&gt;BIG&lt;/h1&gt;&lt;img src=x onerror=alert(1)&gt;"));
    QVERIFY(html.contains("a &amp; b &amp;lt;c&amp;gt;"));
    QVERIFY(!html.contains("<h1>BIG") && !html.contains("<img src=x"));
    const QString md_path = tmp_.filePath("report.md");
    QVERIFY(view.export_report(md_path));
    const QString md = text_of(md_path);
    QVERIFY2(md.contains("| &lt;h1&gt;BIG&lt;/h1&gt;&lt;img src=x onerror=alert\\(1\\)&gt; |"), qPrintable(md.left(2000)));
    QVERIFY(md.contains("| a &amp; b &amp;lt;c&amp;gt; |"));
    QVERIFY(md.contains("| \\[x\\]\\(javascript:alert\\(1\\)\\) a\\|b \\`c\\` |"));
    QVERIFY(!md.contains("<h1>") && !md.contains("<img") && !md.contains("[x](javascript"));
  }

  void theRunsListShowsFoldersAndMessagesAsWritten() {
    RunsBrowser browser(root_);
    browser.show();
    QTRY_VERIFY_WITH_TIMEOUT(!browser.loading() && browser.table()->rowCount() == 3, 30000);
    QTableWidget* table = browser.table();
    int row = -1;
    for (int r = 0; r < table->rowCount(); ++r)
      if (table->item(r, 0)->text() == kHeading) row = r;
    QVERIFY(row >= 0);
    QVERIFY2(shown_auto(table->item(row, 0)->toolTip()).contains("/20261201-100000-<h1>folder"),
             qPrintable(table->item(row, 0)->toolTip()));
    browser.select_runs({dirs_[0]});
    auto* status = browser.findChild<QLabel*>("runs_status");
    QVERIFY2(shown(status).contains("/20261201-100000-<h1>folder"), qPrintable(status->text()));
  }

  void theKerasErrorBoxShowsTheLayerNameAsWritten() {
    const QString keras = tmp_.filePath("keras.json");
    std::ofstream(keras.toStdString())
        << R"({"class_name": "Sequential", "config": {"layers": [{"class_name": "LSTM", "config": {"name": "<h1>big</h1>"}}]}})";
    MainWindow w(/*restore_settings=*/false);
    w.show();
    const QString said = message_box_text([&] { w.open_keras_model(keras); });
    QVERIFY2(said.contains("'<h1>big</h1>' (LSTM)"), qPrintable(said));
  }

  void lessonTitlesAndFilesShowAsWritten() {
    const ScopedRunsFolder folders({}, /*own_lessons=*/true);
    const QDir lessons(folders.lessons());
    std::ofstream(lessons.filePath("<h1>own.json").toStdString())
        << R"({"title": "<h1>Title</h1> & more", "text": ["<script>alert(1)</script>"],
              "runs": [{"label": "<i>a</i>", "preset": "spirals-mlp"}]})";
    LessonsDialog dialog;
    QListWidgetItem* own = dialog.list()->item(dialog.list()->count() - 1);
    QCOMPARE(own->text(), QString("<h1>Title</h1> & more"));
    QVERIFY2(shown_auto(own->toolTip()).endsWith("/<h1>own.json"), qPrintable(own->toolTip()));
    LessonPanel panel;
    panel.show_lesson(find_lesson(lessons.filePath("<h1>own.json").toStdString()), {});
    QCOMPARE(shown(panel.findChild<QLabel*>("lesson_title")).trimmed(), QString("<h1>Title</h1> & more"));
    QVERIFY(shown(panel.findChild<QLabel*>("lesson_text")).contains("<script>alert(1)</script>"));
    QVERIFY(shown(panel.findChild<QLabel*>("lesson_run_1")).contains("<i>a</i>"));
  }

  // Your own data's class names (a CSV's labels) as the Learned tab shows a finished run: the
  // per-class table, a cell's tooltip, the examples' heading and the examples, all as written.
  void ownDataClassNamesShowAsWritten() {
    const QStringList labels = {kHeading, "../../etc", "a\nb; rm -rf /", kEntities};
    const QString csv = tmp_.filePath("hostile.csv");
    {
      std::ofstream out(csv.toStdString());
      out << "x,y,label\n";
      for (int i = 0; i < 160; ++i) {
        const int k = i % 4;
        QString quoted = labels[k];
        quoted.replace("\"", "\"\"");
        out << std::cos(k * 1.6) + (i % 7) * 0.01 << ',' << std::sin(k * 1.6) - (i % 5) * 0.01 << ",\""
            << quoted.toStdString() << "\"\n";
      }
    }
    TrainConfig c = config_from_preset("spirals-mlp");
    c.dataset = DatasetOptions{};
    c.dataset.name = "table";
    c.dataset.data_dir = csv.toStdString();
    c.epochs = 2;
    // Recorded as the window and mirrortrain record (RecordedRun writes the class names).
    RunPlan plan;
    plan.config = c;
    plan.dir = (root_ + "/20261204-100000-own-table").toStdString();
    const QString dir = QString::fromStdString(plan.dir);
    {
      RecordedRun run(std::move(plan));
      EventSink quiet;
      TrainControl control;
      QCOMPARE(run.run(quiet, control).status, RunStatus::kFinished);
    }
    TrainingController controller;
    LiveRun idle(&controller);
    LearnedView view(&idle);
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.show_recorded(dir));
    QCOMPARE(view.per_class()->rowCount(), 4);
    QStringList listed;
    for (int r = 0; r < 4; ++r) listed << view.per_class()->item(r, 0)->text();
    for (const QString& name : labels)
      QVERIFY2(std::any_of(listed.begin(), listed.end(), [&](const QString& s) { return s.endsWith(" " + name); }),
               qPrintable(name + " not among " + listed.join(" | ")));
    ConfusionMatrixView* m = view.matrix();
    const QString tip = shown_auto(literal(m->cell_tooltip(0, 0)));
    QVERIFY2(std::any_of(labels.begin(), labels.end(), [&](const QString& n) { return tip.contains(n); }), qPrintable(tip));
    QTRY_VERIFY_WITH_TIMEOUT(!view.recorded_data_loading(), 30000);
    QTest::mouseClick(m, Qt::LeftButton, {}, m->cell_center(0, 0));
    QLabel* heading = nullptr;
    for (QLabel* l : view.findChildren<QLabel*>())
      if (shown(l).startsWith("Examples: true ")) heading = l;
    QVERIFY(heading);
    QVERIFY2(std::any_of(labels.begin(), labels.end(), [&](const QString& n) { return shown(heading).contains(" " + n + ", predicted"); }),
             qPrintable(shown(heading)));
    QVERIFY(view.examples()->count() > 0);
    const QString example = view.examples()->item(0)->text();
    QVERIFY2(std::any_of(labels.begin(), labels.end(), [&](const QString& n) { return example.contains(n); }), qPrintable(example));
  }

  void aLaunchScriptNeverCarriesAModelNameAsCode() {
    const ScopedRunsFolder runs(root_);
    TrainConfig c = config_from_preset("spirals-mlp");
    c.preset.clear();
    c.model.name = "x\n#SBATCH --wrap=evil\nrm -rf ~ #/../../y";
    LaunchDialog dialog(c, 2);
    QVERIFY(!dialog.config_file().isEmpty());
    QCOMPARE(QFileInfo(dialog.config_file()).absolutePath(), QDir(root_ + "/configs").absolutePath());
    QVERIFY2(!dialog.text().contains("\nrm -rf") && !dialog.text().contains("--wrap=evil"), qPrintable(dialog.text()));
    QVERIFY2(dialog.text().contains("#SBATCH --job-name=x-SBATCH-wrap-evil-rm-rf-y\n"), qPrintable(dialog.text()));
  }
};

QTEST_MAIN(UntrustedNamesTest)
#include "test_untrusted_names.moc"
