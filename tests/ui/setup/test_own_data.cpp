// Your own data in the Data tab, on Qt's offscreen platform: the fields each own-data set reads,
// their round trip through the options, a dropped folder of images or texts or a dropped .csv
// choosing its dataset, the reading progress, and points drawn by hand trained on as a table.
#include <QCheckBox>
#include <QComboBox>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolButton>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <QPainter>
#include <QPainterPath>
#include <QRandomGenerator>
#include <cmath>

#include "../setup/training_settings.h"
#include "own_data_files.h"
#include "mirror/data/registry.h"
#include "mirror/model/presets.h"
#include "mirror/train/config.h"
#include "mirror/train/events.h"
#include "ui/classroom/learned_view.h"
#include "ui/run/event_types.h"
#include "ui/setup/setup_tabs.h"
#include "ui/run/run_launcher.h"
#include "ui/run/live_run.h"
#include "ui/window/main_window.h"
#include "ui/widgets/point_plot.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/point_editor.h"
#include "../ui_test_helpers.h"

using namespace mirror;
using namespace mirror::ui;
using namespace mirror::ui::testing;

namespace {

// Whether `w` shows when its panel does (the panel itself is not shown in these tests).
bool shown(const QWidget* w, const QWidget* panel) { return w->isVisibleTo(panel) && w->isEnabled(); }

// Saves the window as `name` in $MIRROR_SCREENSHOTS when that names a folder (documentation).
void screenshot(QWidget& window, const QString& name) {
  const QString dir = qEnvironmentVariable("MIRROR_SCREENSHOTS");
  if (!dir.isEmpty()) QVERIFY(window.grab().save(dir + "/" + name, "PNG"));
}

// Trains the window's setup to its end and opens the Learned tab.
void train_and_learn(MainWindow& w) {
  QVERIFY2(w.train_action()->isEnabled(), qPrintable(w.train_blocked_label()->text()));
  QVERIFY(train_to_end(w, 240000));
  QCOMPARE(w.launcher()->live()->last_result().status, RunStatus::kFinished);
  w.views()->setCurrentWidget(w.learned_view());
}

nlohmann::json recorded(const DatasetOptions& o) {
  TrainConfig c;
  c.dataset = o;
  return to_json(c).at("dataset");
}

}  // namespace

class OwnDataTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void ownDataSetsAreListed() {
    for (const char* name : {"images", "texts", "table"}) QVERIFY2(find_dataset(name), name);
  }

  void fieldsShowForTheSetsThatReadThem() {
    DatasetPanel panel;
    const OwnDataFields& f = panel.own_data_fields();
    panel.set_dataset("images");
    QVERIFY(shown(f.image_height(), &panel) && shown(f.image_width(), &panel));
    QVERIFY(shown(f.color_mode(), &panel) && shown(f.crop_to_aspect_ratio(), &panel) && shown(f.follow_links(), &panel));
    QVERIFY(!shown(f.label_column(), &panel));
    QVERIFY(shown(panel.findChild<QSpinBox*>("validation-split"), &panel));
    panel.set_dataset("texts");
    QVERIFY(!shown(f.image_height(), &panel) && !shown(f.color_mode(), &panel) && !shown(f.label_column(), &panel));
    QVERIFY(shown(f.follow_links(), &panel));
    QCOMPARE(panel.findChild<QLabel*>("data-dir-label")->text(), QString("Folder"));
    panel.set_dataset("table");
    QVERIFY(shown(f.label_column(), &panel));
    QCOMPARE(panel.findChild<QLabel*>("data-dir-label")->text(), QString("File"));  // a table is one .csv
    QVERIFY(!shown(f.image_height(), &panel) && !shown(f.follow_links(), &panel));
    panel.set_dataset("spirals");
    for (const QWidget* w : std::initializer_list<const QWidget*>{f.image_height(), f.color_mode(), f.crop_to_aspect_ratio(),
                                                                  f.follow_links(), f.label_column()})
      QVERIFY(!w->isVisibleTo(&panel));
  }

  void optionsRoundTripThroughTheFields() {
    TrainConfig c;
    c.dataset.name = "images";
    c.dataset.data_dir = "/data/pets";
    c.dataset.validation_split = 0.3;
    c.dataset.test_split = 0.25;  // Reuters' option: kept as given
    c.dataset.image_height = 64;
    c.dataset.image_width = 48;
    c.dataset.color_mode = "grayscale";
    c.dataset.crop_to_aspect_ratio = true;
    c.dataset.follow_links = true;
    c.dataset.seed = 7;
    DatasetPanel panel;
    panel.set_config(c);
    QCOMPARE(recorded(panel.options()), recorded(c.dataset));
    const OwnDataFields& f = panel.own_data_fields();
    QCOMPARE(f.image_height()->value(), 64);
    QCOMPARE(f.color_mode()->currentText(), QString("grayscale"));
    QCOMPARE(panel.findChild<QSpinBox*>("validation-split")->value(), 30);
    // Edited fields land in their options; the split field is the images' validation_split.
    f.image_width()->setValue(32);
    f.color_mode()->setCurrentText("rgba");
    panel.findChild<QSpinBox*>("validation-split")->setValue(10);
    const DatasetOptions edited = panel.options();
    QCOMPARE(edited.image_width, int64_t{32});
    QCOMPARE(edited.color_mode, std::string("rgba"));
    QCOMPARE(edited.validation_split, 0.1);
    QCOMPARE(edited.test_split, 0.25);
    // Defaults stay defaults (0, "", <0) while the fields show them, so run.json says "default".
    TrainConfig table;
    table.dataset.name = "table";
    table.dataset.data_dir = "/data/iris.csv";
    table.dataset.label_column = "species";
    panel.set_config(table);
    QCOMPARE(f.image_height()->value(), 256);
    QCOMPARE(recorded(panel.options()), recorded(table.dataset));
    QCOMPARE(f.label_column()->text(), QString("species"));
  }

  void droppedFolderOfImagesChoosesImages() {
    QTemporaryDir dir;
    make_image_folder(dir.path() + "/pets", 6);
    DatasetPanel panel;
    panel.set_dataset("spirals");
    drop_on(panel, dir.path() + "/pets");
    QCOMPARE(panel.options().name, std::string("images"));
    QCOMPARE(QString::fromStdString(panel.options().data_dir), dir.path() + "/pets");
    wait_loaded(panel);
    QVERIFY2(panel.dataset(), "the images did not load");
    bool thumbnail = false;
    for (const QLabel* l : panel.findChildren<QLabel*>()) thumbnail = thumbnail || !l->pixmap().isNull();
    QVERIFY(thumbnail);
  }

  void droppedFolderOfTextsChoosesTexts() {
    QTemporaryDir dir;
    make_text_folder(dir.path() + "/reviews", 5);
    DatasetPanel panel;
    panel.set_dataset("spirals");
    drop_on(panel, dir.path() + "/reviews");
    QCOMPARE(panel.options().name, std::string("texts"));
    QCOMPARE(QString::fromStdString(panel.options().data_dir), dir.path() + "/reviews");
    wait_loaded(panel);
    QVERIFY2(panel.dataset(), "the texts did not load");
    QCOMPARE(panel.dataset()->info().num_classes, int64_t{2});
    // Class balance and examples: the texts' words, decoded from the vocabulary, escaped into the label.
    bool words = false;
    for (const QLabel* l : panel.findChildren<QLabel*>()) words = words || l->text().contains("film");
    QVERIFY(words);
  }

  void droppedCsvChoosesTableWithTheFile() {
    QTemporaryDir dir;
    write_file(dir.path() + "/Points.CSV", "x,y,label\n0,0,0\n1,1,1\n0.1,0,0\n0.9,1,1\n0,0.1,0\n1,0.9,1\n");
    DatasetPanel panel;
    panel.set_dataset("spirals");
    drop_on(panel, dir.path() + "/Points.CSV");
    QCOMPARE(panel.options().name, std::string("table"));
    QCOMPARE(QString::fromStdString(panel.options().data_dir), dir.path() + "/Points.CSV");
    wait_loaded(panel);
  }

  void readingShowsProgressOfTheFiles() {
    QTemporaryDir dir;
    make_text_folder(dir.path() + "/reviews", 7);
    DatasetPanel panel;
    panel.set_dataset("texts", dir.path() + "/reviews");
    panel.load();
    QVERIFY(panel.progress_bar()->isVisibleTo(&panel));
    wait_loaded(panel);
    QVERIFY(panel.dataset());
    // The bar counted the 14 files the loader reported (its last count stays, hidden).
    QCOMPARE(panel.progress_bar()->maximum(), 14);
    QCOMPARE(panel.progress_bar()->value(), 14);
    QVERIFY(!panel.progress_bar()->isVisibleTo(&panel));
  }

  void canvasAddsErasesUndoesAndClears() {
    PointEditor editor;
    editor.resize(420, 420);
    editor.show();
    QVERIFY(QTest::qWaitForWindowExposed(&editor));
    PointCanvas* canvas = editor.canvas();
    // A click adds one point where it lands, in data coordinates.
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->to_widget(0.5, -0.5).toPoint());
    QCOMPARE(canvas->points().size(), size_t{1});
    QVERIFY(std::abs(canvas->points()[0].x - 0.5) < 0.02 && std::abs(canvas->points()[0].y + 0.5) < 0.02);
    QCOMPARE(canvas->points()[0].label, 0);
    // A drag of class 1 adds a stroke of points along its way.
    editor.findChild<QToolButton*>("class-1")->click();
    QCOMPARE(canvas->current_class(), 1);
    QTest::mousePress(canvas, Qt::LeftButton, {}, canvas->to_widget(-0.8, 0.8).toPoint());
    for (int i = 1; i <= 10; ++i) QTest::mouseMove(canvas, canvas->to_widget(-0.8 + 0.1 * i, 0.8).toPoint());
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, canvas->to_widget(0.2, 0.8).toPoint());
    const size_t after_drag = canvas->points().size();
    QVERIFY2(after_drag >= 6, qPrintable(QString::number(after_drag)));
    for (size_t i = 1; i < after_drag; ++i) QCOMPARE(canvas->points()[i].label, 1);
    QVERIFY(editor.use_button()->isEnabled());
    // Undo takes the whole stroke back.
    QVERIFY(canvas->undo());
    QCOMPARE(canvas->points().size(), size_t{1});
    QVERIFY(!editor.use_button()->isEnabled());  // one class left
    // The right button erases near it.
    QTest::mouseClick(canvas, Qt::RightButton, {}, canvas->to_widget(0.5, -0.5).toPoint());
    QVERIFY(canvas->points().empty());
    QVERIFY(canvas->undo());
    QCOMPARE(canvas->points().size(), size_t{1});
    // Keyboard: the cross-hair starts where the mouse was; pick class 1, move it, add there.
    canvas->setFocus();
    QTest::keyClick(canvas, Qt::Key_1);
    for (int i = 0; i < 10; ++i) QTest::keyClick(canvas, Qt::Key_Left);
    QTest::keyClick(canvas, Qt::Key_Space);
    QCOMPARE(canvas->points().size(), size_t{2});
    QCOMPARE(canvas->points()[1].label, 1);
    const DrawnPoint mouse = canvas->points()[0];  // the right-click erased and restored it there
    QVERIFY(std::abs(canvas->points()[1].x - (mouse.x - 0.5)) < 1e-6 && std::abs(canvas->points()[1].y - mouse.y) < 1e-6);
    QTest::keyClick(canvas, Qt::Key_Right);
    QTest::keyClick(canvas, Qt::Key_Space);
    QVERIFY(std::abs(canvas->points()[2].x - (canvas->points()[1].x + 0.05)) < 1e-6);
    QTest::keyClick(canvas, Qt::Key_Delete);  // erases around the cross-hair: the two last points
    QCOMPARE(canvas->points().size(), size_t{1});
    QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(canvas->points().size(), size_t{3});
    QTest::keyClick(canvas, Qt::Key_E);
    QVERIFY(canvas->erasing());
    // Clear, and its undo.
    canvas->clear();
    QVERIFY(canvas->points().empty());
    QVERIFY(canvas->undo());
    QCOMPARE(canvas->points().size(), size_t{3});
    // Fewer classes drop the points of the others.
    editor.classes_box()->setValue(3);
    QTest::keyClick(canvas, Qt::Key_2);
    QCOMPARE(canvas->current_class(), 2);
    QTest::keyClick(canvas, Qt::Key_E);  // back to drawing
    QTest::keyClick(canvas, Qt::Key_Space);
    editor.classes_box()->setValue(2);
    QCOMPARE(canvas->current_class(), 1);
    for (const auto& p : canvas->points()) QVERIFY(p.label < 2);
  }

  void savedCsvHoldsTheRows() {
    PointEditor editor;
    editor.resize(420, 420);
    PointCanvas* canvas = editor.canvas();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->to_widget(-1, 1).toPoint());
    editor.findChild<QToolButton*>("class-1")->click();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->to_widget(1, -1).toPoint());
    QTemporaryDir dir;
    QVERIFY(editor.save_csv(dir.path() + "/mine.csv"));
    QFile f(dir.path() + "/mine.csv");
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().split('\n');
    QCOMPARE(lines.size(), 4);  // header, two rows, the last line's end
    QCOMPARE(lines[0], QByteArray("x,y,label"));
    QCOMPARE(lines[1], QByteArray("-1,1,0"));
    QCOMPARE(lines[2], QByteArray("1,-1,1"));
    QCOMPARE(lines[3], QByteArray());
  }

  void usePointsTrainsOnThemAsATable() {
    QTemporaryDir data_home;
    qputenv("XDG_DATA_HOME", data_home.path().toUtf8());
    DatasetPanel panel;
    panel.resize(500, 900);
    panel.set_dataset("spirals");
    panel.draw_points_button()->click();
    QVERIFY(panel.point_editor()->isVisibleTo(&panel));
    PointEditor* editor = panel.point_editor();
    editor->name_edit()->setText("../my class/points");  // a slug, inside the points folder
    PointCanvas* canvas = editor->canvas();
    canvas->resize(400, 400);
    for (int i = 0; i < 10; ++i) {
      canvas->set_current_class(i % 2);
      QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->to_widget(i % 2 ? 0.5 : -0.5, -0.9 + 0.2 * i).toPoint());
    }
    // It saves and loads; training is Train's (its tooltip said it trained on them).
    QVERIFY2(editor->use_button()->toolTip().contains("load it as the dataset") &&
                 !editor->use_button()->toolTip().contains("train on them"),
             qPrintable(editor->use_button()->toolTip()));
    QTest::mouseClick(editor->use_button(), Qt::LeftButton);
    QCOMPARE(panel.options().name, std::string("table"));
    const QString csv = QString::fromStdString(panel.options().data_dir);
    QCOMPARE(QFileInfo(csv).absolutePath(), data_home.path() + "/mirror-workbench/points");
    QVERIFY2(QFileInfo(csv).fileName().startsWith("my-class-points-"), qPrintable(csv));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().count('\n'), 11);
    wait_loaded(panel);
    QVERIFY2(panel.dataset(), "the drawn points did not load");
    QCOMPARE(panel.dataset()->info().num_classes, int64_t{2});
    QCOMPARE(panel.dataset()->size(Split::kTrain) + panel.dataset()->size(Split::kValidation), int64_t{10});
    // Using them again writes a new file: a run keeps the file it trained on.
    QVERIFY(editor->use_points());
    QVERIFY(QString::fromStdString(panel.options().data_dir) != csv);
    QVERIFY(QFileInfo::exists(csv));
    wait_loaded(panel);
    qunsetenv("XDG_DATA_HOME");
  }

  // `w` shown at 1280x720 with `preset`, then `folder`'s images dropped on its Data tab at 32x32
  // and loaded.
  static void drop_images_at_32(MainWindow& w, const char* preset, const QString& folder) {
    w.resize(1280, 720);
    w.show();
    w.setup()->apply_preset(preset);
    QTRY_VERIFY_WITH_TIMEOUT(!w.setup()->dataset_panel()->loading(), 60000);
    DatasetPanel* data = w.setup()->dataset_panel();
    data->own_data_fields().image_height()->setValue(32);
    data->own_data_fields().image_width()->setValue(32);
    drop_on(*data, folder);
    wait_loaded(*data);
    QVERIFY2(data->dataset(), "the images did not load");
  }

  // The "in the window": a folder of 300 images dropped on the Data tab, trained, the
  // Learned tab; a spiral drawn by hand, trained, its decision regions. MIRROR_SCREENSHOTS=DIR
  // saves both windows there.
  void droppedImageFolderTrainsInTheWindow() {
    QTemporaryDir dir;
    make_shape_folder(dir.path() + "/shapes", 100);
    MainWindow w(/*restore_settings=*/false);
    drop_images_at_32(w, "fashion-cnn", dir.path() + "/shapes");
    if (QTest::currentTestFailed()) return;
    DatasetPanel* data = w.setup()->dataset_panel();
    QCOMPARE(data->dataset()->info().num_classes, int64_t{3});
    QCOMPARE(data->dataset()->size(Split::kTrain) + data->dataset()->size(Split::kValidation), int64_t{300});
    QCOMPARE(data->dataset()->info().input_shape, (std::vector<int64_t>{32, 32, 3}));
    set_training(w.setup()->training_panel(), "adam", 0.003, 32, 40);
    train_and_learn(w);
    if (QTest::currentTestFailed()) return;
    screenshot(w, "own-data-images-learned.png");
  }

  void drawnSpiralTrainsWithDecisionRegions() {
    QTemporaryDir data_home;
    qputenv("XDG_DATA_HOME", data_home.path().toUtf8());
    MainWindow w(/*restore_settings=*/false);
    w.resize(1280, 720);
    w.show();
    w.setup()->apply_preset("spirals-mlp");
    QTRY_VERIFY_WITH_TIMEOUT(!w.setup()->dataset_panel()->loading(), 60000);
    DatasetPanel* data = w.setup()->dataset_panel();
    data->draw_points_button()->click();
    PointEditor* editor = data->point_editor();
    editor->name_edit()->setText("spiral");
    PointCanvas* canvas = editor->canvas();
    QVERIFY(canvas->isVisible() && canvas->width() > 150);
    // Two arms drawn as a hand would: press, move along the arm, release; one arm per class.
    for (int arm = 0; arm < 2; ++arm) {
      editor->findChild<QToolButton*>(QString("class-%1").arg(arm))->click();
      const auto at = [&](double t) {
        const double r = 0.08 + 0.85 * t, angle = 3.2 * M_PI * t + arm * M_PI;
        return canvas->to_widget(r * std::cos(angle), r * std::sin(angle)).toPoint();
      };
      QTest::mousePress(canvas, Qt::LeftButton, {}, at(0));
      for (int i = 1; i <= 200; ++i) QTest::mouseMove(canvas, at(i / 200.0));
      QTest::mouseRelease(canvas, Qt::LeftButton, {}, at(1));
    }
    QVERIFY2(canvas->points().size() > 60, qPrintable(QString::number(canvas->points().size())));
    editor->use_button()->click();
    wait_loaded(*data);
    QVERIFY2(data->dataset(), "the drawn spiral did not load");
    QCOMPARE(data->dataset()->info().name, std::string("table"));
    QCOMPARE(data->dataset()->info().input_shape, (std::vector<int64_t>{2}));
    set_training(w.setup()->training_panel(), "adam", 0.02, 16, 150);
    train_and_learn(w);
    if (QTest::currentTestFailed()) return;
    QTRY_VERIFY_WITH_TIMEOUT(w.learned_view()->regions()->has_regions(), 30000);
    screenshot(w, "own-data-drawn-spiral.png");
    qunsetenv("XDG_DATA_HOME");
  }
};

QTEST_MAIN(OwnDataTest)
#include "test_own_data.moc"
